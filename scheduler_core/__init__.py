"""A re-implementation of kube-scheduler v1.35 (see README.md).

Importing the package pins the numeric libraries to one thread (util/numeric_threads.py) before
anything of the engine can import NumPy.
"""

from scheduler_core.util.numeric_threads import pin_numeric_threads

pin_numeric_threads()
