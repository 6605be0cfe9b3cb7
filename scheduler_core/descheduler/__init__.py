"""The descheduler (kubernetes-sigs/descheduler, v1alpha2 policy), re-implemented over a run.

`policy` (the DeschedulerPolicy types), `loader` (strict parsing, located errors), `registry`
(the plugins by name), `defaultevictor` (which pods may go), `evictions` (PodEvictor: limits,
the eviction API, the controllers' replacements), `handle` (what a pass sees), `plugins/` (one
module per strategy), `descheduler` (a pass: Deschedule plugins, then Balance plugins) and
`schedule` (when a run's passes happen: the run action and the interval). See docs/descheduler.md.
"""

from scheduler_core.descheduler.descheduler import PassResult, run_descheduler
from scheduler_core.descheduler.loader import parse_policy, split_policies
from scheduler_core.descheduler.policy import DeschedulerPolicy

__all__ = ["DeschedulerPolicy", "PassResult", "parse_policy", "run_descheduler", "split_policies"]
