"""LowNodeUtilization and HighNodeUtilization: requests-based node usage (upstream
pkg/framework/plugins/nodeutilization)."""
