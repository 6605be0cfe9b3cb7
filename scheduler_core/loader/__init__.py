"""The one parser of scenarios: Kubernetes manifests (YAML) -> `Scenario`.

Everything downstream (engine, CLI, web app) relies on this package having done what the
apiserver would have done before the scheduler ever sees an object:

* decoding with the apiserver's defaults (namespace "default", toleration operator Equal, port
  protocol TCP, schedulerName, termination grace 30 s, limits standing in for missing requests,
  ResourceList values rounded up to 1m, node allocatable copied from capacity, Namespace
  `kubernetes.io/metadata.name` label, ReplicationController selector from its template);
* the pod strategy's PrepareForCreate (matchLabelKeys / mismatchLabelKeys merged into the label
  selectors of pod (anti-)affinity terms and topology spread constraints);
* validation with upstream's rules and wording, one error at a time, naming document, object and
  field;
* the Priority admission plugin (priority and preemptionPolicy resolved from PriorityClasses);
* the kubelet's `pods: 110` default and the disruption controller's PDB status at time 0.

One concept per module: `yaml_input` (text -> documents, guarded), `yaml_fast` (its compiled
fast path, taken only where it reads exactly alike), `reader` (typed, located
field access), `metadata`, `resources`, `selectors`, `nodes`, `containers`, `affinity`, `pods`,
`admission`, `objects` (the other kinds), `timeline`, `schema` + `strict` (known fields per
kind, "not simulated" warnings), `documents` (List flattening, kinds), `limits`, `build`
(assembly) and `load` (the entry points).
"""

from __future__ import annotations

from scheduler_core.api.errors import LoadWarning, ScenarioError
from scheduler_core.api.system_priority_classes import SYSTEM_PRIORITY_CLASSES
from scheduler_core.api.uid import stable_uid
from scheduler_core.loader.kinds import CONFIG_API_VERSION, TIMELINE_API_VERSION
from scheduler_core.loader.limits import (
    CLI_HINTS,
    CLI_LIMITS,
    DEFAULT_LIMITS,
    SETTINGS_HINTS,
    Limits,
)
from scheduler_core.loader.load import load_scenario_file, load_scenario_text
from scheduler_core.loader.nodes import parse_node, parse_taint
from scheduler_core.loader.pods import parse_pod
from scheduler_core.loader.reader import FieldReader, Location, object_reader
from scheduler_core.loader.timeline import parse_action

# The former constants, for callers that only report them (the defaults of `Limits`).
MAX_INPUT_BYTES = DEFAULT_LIMITS.max_bytes
MAX_NODES = DEFAULT_LIMITS.max_nodes
MAX_PODS = DEFAULT_LIMITS.max_pods

__all__ = [
    "ScenarioError",
    "LoadWarning",
    "Limits",
    "DEFAULT_LIMITS",
    "CLI_LIMITS",
    "CLI_HINTS",
    "SETTINGS_HINTS",
    "load_scenario_file",
    "load_scenario_text",
    "parse_pod",
    "parse_node",
    "parse_taint",
    "parse_action",
    "stable_uid",
    "object_reader",
    "FieldReader",
    "Location",
    "SYSTEM_PRIORITY_CLASSES",
    "MAX_INPUT_BYTES",
    "MAX_NODES",
    "MAX_PODS",
    "TIMELINE_API_VERSION",
    "CONFIG_API_VERSION",
]
