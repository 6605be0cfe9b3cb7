"""The descheduler's strategies (upstream pkg/framework/plugins/<name>), one module each."""
