"""Each strategy's args: the typed values and their parsing with upstream's validation (upstream
types.go and validation.go of each plugin). Kept apart from the strategies so the scenario loader
reads a policy without importing the eviction machinery."""
