"""A re-implementation of kube-scheduler v1.35 (see README.md).

Importing the package pins the numeric libraries to one thread (util/numeric_threads.py) before
anything of the engine can import NumPy, then hands the loader the Timeline parser of the cluster
actions (scheduler_core/actions/timeline.py): the actions sit above the loader, whose parsers
their specs use, so the loader imports none of them and is given the parser from here, the one
module above both that every import of the engine runs first.
"""

from scheduler_core.util.numeric_threads import pin_numeric_threads

pin_numeric_threads()

from scheduler_core.actions.timeline import parse_timeline as _parse_timeline  # noqa: E402
from scheduler_core.loader.timeline import use_parser as _use_parser  # noqa: E402

_use_parser(_parse_timeline)
