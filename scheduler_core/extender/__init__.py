"""Scheduler extenders over HTTP (upstream pkg/scheduler/extender.go, plus the extender parts of
schedule_one.go and preemption.go), with a transcript that makes runs reproducible.

An extender is a web service the scheduler consults at four points of a pod's cycle:

- filter: after the Filter plugins, with the feasible nodes; it answers which nodes pass and why
  the others failed (Unschedulable, or UnschedulableAndUnresolvable);
- prioritize: after the Score plugins; its 0..10 scores are scaled to the plugins' 0..100 range
  and multiplied by the extender's weight;
- preempt: after the preemption dry run, with the candidate nodes and their victims; it may drop
  nodes or victims;
- bind: instead of the Bind plugins, when it is the binder.

The wire format is upstream's `k8s.io/kube-scheduler/extender/v1` types encoded by Go's
encoding/json: struct field names are the JSON keys ("Pod", "NodeNames", "FailedNodes", ...),
decoding accepts keys case-insensitively and only reads the first JSON value of a response.

Determinism: an HTTP service is outside the engine, so every call made while a run RECORDS goes
into an `ExtenderTranscript` (request digest, status code, body or transport error, latency). A
run given that transcript in REPLAY mode answers every call from it and makes no HTTP call; the
same scenario, seed and actions then give exactly the same run, including in shared links. The
transcript is part of the engine state (checkpoints keep it) and exports as plain JSON.
"""

from scheduler_core.extender.client import (
    EXTENDER_NAME,
    MAX_EXTENDER_PRIORITY,
    MIN_EXTENDER_PRIORITY,
    ExtenderServices,
    HTTPExtender,
)
from scheduler_core.extender.policy import ExtenderPolicy, ExtenderURLRefused
from scheduler_core.extender.transcript import RECORD, REPLAY, ExtenderCall, ExtenderError, ExtenderTranscript
from scheduler_core.extender.wire import node_wire, pod_wire
from scheduler_core.extender.wiring import ScoringServices, apply_extender_scores, build_extenders, effective_config

__all__ = [
    "MAX_EXTENDER_PRIORITY",
    "MIN_EXTENDER_PRIORITY",
    "EXTENDER_NAME",
    "RECORD",
    "REPLAY",
    "ExtenderError",
    "ExtenderPolicy",
    "ExtenderURLRefused",
    "ExtenderCall",
    "ExtenderServices",
    "ExtenderTranscript",
    "HTTPExtender",
    "ScoringServices",
    "build_extenders",
    "effective_config",
    "apply_extender_scores",
    "pod_wire",
    "node_wire",
]
