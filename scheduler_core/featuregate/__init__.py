"""Per-run feature gates, set the way kube-scheduler takes them (`--feature-gates A=true,B=false`).

The gate table is upstream v1.35.4's (`table.py`, generated from pkg/features/kube_features.go,
which also registers the generic API server gates a component reads). A run's table is the one of
the version it models: each gate's spec is its latest entry at or before that minor version; a
gate with no entry by then did not exist there ("unrecognized", as that release's binary says).
Gates removed before v1.35 are not in the table, so at v1.30 they are unrecognized too.

Validation follows component-base/featuregate's Set and SetFromMap, with their wording: a
malformed pair, an unknown gate (the first one stops the check), a gate locked to its default
set to the other value, and, once those pass, every enabled gate whose dependencies are not
all enabled. Several errors are joined as an aggregate ("[a, b]"). Then a value upstream accepts but this
engine does not simulate is refused, saying so (`simulated.py`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from scheduler_core.featuregate.simulated import not_simulated
from scheduler_core.featuregate.table import DEPENDENCIES, SPECS

# Gates the engine implements a scheduler path for, both values. The other gates upstream's
# scheduler reads are refused where not simulated or change nothing either way here
# (`simulated.py`); the rest are accepted, listed in the run header, and change nothing the
# scheduler does, as for the upstream scheduler, which never reads them.
SCHEDULER_GATES: tuple[str, ...] = (
    "GenericWorkload", "GangScheduling", "NodeDeclaredFeatures", "TaintTolerationComparisonOperators",
    "SchedulerQueueingHints", "SchedulerAsyncPreemption", "SchedulerPopFromBackoffQ",
    "DynamicResourceAllocation", "OpportunisticBatching", "StorageCapacityScoring", "VolumeLimitScaling",
    "PodLevelResources", "NodeInclusionPolicyInPodTopologySpread",
    "DRADeviceTaints", "DRADeviceTaintRules", "DRAPartitionableDevices", "DRAConsumableCapacity",
    "DRAExtendedResource", "DRAPrioritizedList", "DRAAdminAccess",
)

_BOOLS = {"1": True, "t": True, "T": True, "true": True, "TRUE": True, "True": True,
          "0": False, "f": False, "F": False, "false": False, "FALSE": False, "False": False}


MAX_GATES_TEXT = 2000  # characters of a --feature-gates value the web form accepts


class FeatureGateError(ValueError):
    """A --feature-gates value the chosen version refuses (message in upstream's words)."""


def _minor(version: str) -> tuple[int, int]:
    v = version.strip().lstrip("v").split(".")
    return int(v[0]), int(v[1])


def spec_at(gate: str, version: str) -> tuple[str, bool, str, bool] | None:
    """(version, default, stability, locked) of `gate` at `version` ("v1.35"); None: unknown there."""
    at = _minor(version)
    found = None
    for spec in SPECS.get(gate, ()):
        if _minor(spec[0]) <= at:
            found = spec
    return found


def known_gates(version: str) -> dict[str, tuple[str, bool, str, bool]]:
    """Every gate known at `version`, with its spec there."""
    out = {}
    for gate in SPECS:
        s = spec_at(gate, version)
        if s is not None:
            out[gate] = s
    return out


def default_of(gate: str, version: str) -> bool:
    s = spec_at(gate, version)
    return bool(s and s[1])


def parse_gate_string(value: str) -> dict[str, bool]:
    """"A=true,B=false" -> {"A": True, "B": False}, in the order given (Go's ParseBool spellings)."""
    m: dict[str, bool] = {}
    for part in value.split(","):
        if not part:
            continue
        arr = part.split("=", 1)
        k = arr[0].strip()
        if len(arr) != 2:
            raise FeatureGateError(f"missing bool value for {k}")
        v = arr[1].strip()
        if v not in _BOOLS:
            raise FeatureGateError(f'invalid value of {k}={v}, err: strconv.ParseBool: parsing "{v}": invalid syntax')
        m[k] = _BOOLS[v]
    return m


def _aggregate(errs: list[str]) -> str:
    return errs[0] if len(errs) == 1 else "[" + ", ".join(errs) + "]"


def validate(gates: Mapping[str, bool], version: str) -> dict[str, bool]:
    """The settings that differ from `version`'s defaults, in name order; FeatureGateError when the
    version refuses them."""
    errs: list[str] = []
    for k, v in gates.items():
        spec = spec_at(k, version)
        if spec is None:
            raise FeatureGateError(f"unrecognized feature gate: {k}")
        if spec[3] and spec[1] != v:
            errs.append(f"cannot set feature gate {k} to {str(v).lower()}, feature is locked to {str(spec[1]).lower()}")
    if errs:
        raise FeatureGateError(_aggregate(errs))

    def on(g: str) -> bool:
        return gates[g] if g in gates else default_of(g, version)

    for feature in sorted(DEPENDENCIES):
        if spec_at(feature, version) is None or not on(feature):
            continue
        missing = [d for d in DEPENDENCIES[feature] if not on(d)]
        if missing:
            errs.append(f"{feature} is enabled, but depends on features that are disabled: [{' '.join(missing)}]")
    if errs:
        raise FeatureGateError(_aggregate(errs))
    # Values upstream accepts but this engine does not simulate: refused, not silently ignored.
    errs = not_simulated(gates, {k: default_of(k, version) for k in gates})
    if errs:
        raise FeatureGateError(_aggregate(errs))
    return {k: gates[k] for k in sorted(gates) if gates[k] != default_of(k, version)}


def parse_feature_gates(value: str | Mapping[str, bool] | None, version: str) -> dict[str, bool]:
    """Parse and validate a --feature-gates value (or an already split mapping) for `version`."""
    if not value:
        return {}
    gates = parse_gate_string(value) if isinstance(value, str) else dict(value)
    return validate(gates, version)


def format_gates(overrides: Iterable[tuple[str, bool]]) -> str:
    """{"A": True} -> "A=true" (the flag's own spelling, name order)."""
    return ",".join(f"{k}={str(v).lower()}" for k, v in sorted(overrides))
