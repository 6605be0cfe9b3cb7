"""Small helpers shared by the engine (Go container/heap emulation, ...)."""
