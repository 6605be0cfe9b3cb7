"""Questions asked of runs, answered by driving the engine: how many more copies of a pod fit
(`capacity`), why the pending pods are pending (`why_pending`), and where two runs of one
scenario part ways (`compare`).

Why a package of their own: none is part of kube-scheduler. Each reads a run (or runs one) from
outside, as the command line and the web do, so they sit above the simulation, below only the
command line.
"""
