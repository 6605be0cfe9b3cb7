"""The descheduler (kubernetes-sigs/descheduler, v1alpha2 policy), re-implemented over a run.

`policy` (the DeschedulerPolicy types), `loader` (strict parsing, located errors, with
`argsregistry` and `pluginargs/`: each plugin's args), `defaultevictor` (which pods may go),
`evictions` (PodEvictor: limits, the eviction API, the controllers' replacements), `handle` (what a
pass sees), `plugins/` (one module per strategy) with `registry`, `descheduler` (a pass: Deschedule
plugins, then Balance plugins) and `schedule` (when a run's passes happen: the run action and the
interval). See docs/descheduler.md.
"""
