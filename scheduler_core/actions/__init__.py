"""Cluster actions: what a user or a Timeline does to a running cluster (add a pod, cordon a
node, drain it, scale a Deployment...).

One module per action kind holds its spec (fields, parse, the objects it names, checks, apply:
spec.py), one registry lists them (registry.py), and one rule says whether the objects an action
names exist, over any source of names (names.py: the live cluster, the timeline over time, a
stored view). The loader, the simulation and the web's preflight and forms all read these.
"""
