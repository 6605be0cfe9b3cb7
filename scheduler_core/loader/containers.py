"""Containers (resources, ports, sidecar restartPolicy) and pod tolerations."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from scheduler_core.api.quantity import format_quantity
from scheduler_core.api.types import Container, ContainerPort, Toleration
from scheduler_core.api.validation import (
    dns1123_label_error,
    label_value_error,
    qualified_name_error,
)
from scheduler_core.loader.memo import ParseMemo, content_key
from scheduler_core.loader.reader import FieldReader
from scheduler_core.loader.resources import resource_list

__all__ = ["parse_container", "parse_tolerations", "copy_container"]

# Containers parsed already, by (init, hostNetwork, the manifest's content): every replica of a
# workload repeats its template's containers (see memo.py).
_CONTAINERS: ParseMemo[Container] = ParseMemo()


def copy_container(c: Container) -> Container:
    """A container equal to `c` sharing nothing mutable with it (the quantities, immutable
    Fractions, are shared; every other field is carried over as it is)."""
    return replace(c, requests=dict(c.requests), limits=dict(c.limits), ports=[replace(p) for p in c.ports],
                   claims=list(c.claims))


def parse_container(r: FieldReader, obj: Any, path: str, *, init: bool, host_network: bool) -> Container:
    """A container of a pod (init: of spec.initContainers), validated and defaulted. A manifest
    parsed before (the same content, the same flags) gives a copy of that result."""
    text = content_key(obj) if isinstance(obj, dict) else None
    if text is None:
        return _parse_container(r, obj, path, init=init, host_network=host_network)
    key = (init, host_network, text)
    hit = _CONTAINERS.get(key)
    if hit is not None:
        return copy_container(hit)
    c = _parse_container(r, obj, path, init=init, host_network=host_network)
    _CONTAINERS.put(key, copy_container(c))
    return c


def _parse_container(r: FieldReader, obj: Any, path: str, *, init: bool,
                     host_network: bool) -> Container:
    m = r.mapping(obj, path, required=True)
    name = r.string(m.get("name"), f"{path}.name")
    if not name:
        raise r.err(f"{path}.name", "Required value")
    err = dns1123_label_error(name)
    if err:
        raise r.err(f"{path}.name", f'Invalid value: "{name}": {err}')
    image = r.string(m.get("image"), f"{path}.image")
    res = r.mapping(m.get("resources"), f"{path}.resources")
    rpath = f"{path}.resources"
    limits = resource_list(r, res.get("limits"), f"{rpath}.limits", container=True)
    requests = resource_list(r, res.get("requests"), f"{rpath}.requests", container=True)
    # Upstream also demands request == limit (and a limit at all) for extended resources; the
    # recordings' API server did not enforce that, so only the universal rule is kept.
    for rname, q in requests.items():
        lim = limits.get(rname)
        if lim is not None and q > lim:
            raise r.err(f"{rpath}.requests", f'Invalid value: "{format_quantity(q)}": must be less '
                                             f"than or equal to {rname} limit of {format_quantity(lim)}")
    # SetDefaults_Pod: a limit stands in for a missing request, resource by resource.
    for rname, q in limits.items():
        requests.setdefault(rname, q)
    ports: list[ContainerPort] = []
    for i, pt in enumerate(r.seq(m.get("ports"), f"{path}.ports")):
        p = f"{path}.ports[{i}]"
        pm = r.mapping(pt, p, required=True)
        cport = pm.get("containerPort")
        if cport is None or cport == 0:
            raise r.err(f"{p}.containerPort", "Required value")
        cport = r.integer(cport, f"{p}.containerPort")
        if not 1 <= cport <= 65535:
            raise r.err(f"{p}.containerPort",
                        f"Invalid value: {cport}: must be between 1 and 65535, inclusive")
        hport = r.integer(pm.get("hostPort", 0) or 0, f"{p}.hostPort")
        if hport and not 1 <= hport <= 65535:
            raise r.err(f"{p}.hostPort",
                        f"Invalid value: {hport}: must be between 1 and 65535, inclusive")
        if host_network:
            if hport == 0:
                hport = cport
            elif hport != cport:
                raise r.err(f"{p}.hostPort", f"Invalid value: {hport}: must match "
                                             "`containerPort` when `hostNetwork` is true")
        proto = r.string(pm.get("protocol"), f"{p}.protocol") or "TCP"
        if proto not in ("TCP", "UDP", "SCTP"):
            raise r.err(f"{p}.protocol", f'Unsupported value: "{proto}": supported values: '
                                         '"SCTP", "TCP", "UDP"')
        host_ip = r.string(pm.get("hostIP"), f"{p}.hostIP")
        ports.append(ContainerPort(container_port=cport, host_port=hport, protocol=proto,
                                   host_ip=host_ip))
    restart_policy = None
    actions: list[str] = []
    for i, rule in enumerate(r.seq(m.get("restartPolicyRules"), f"{path}.restartPolicyRules")):
        rm = r.mapping(rule, f"{path}.restartPolicyRules[{i}]", required=True)
        action = r.string(rm.get("action"), f"{path}.restartPolicyRules[{i}].action")
        if action not in ("Restart", "RestartAllContainers"):
            raise r.err(f"{path}.restartPolicyRules[{i}].action", f'Unsupported value: "{action}": '
                                                                  'supported values: "Restart", "RestartAllContainers"')
        actions.append(action)
    if m.get("restartPolicy") is not None:
        restart_policy = r.string(m.get("restartPolicy"), f"{path}.restartPolicy")
        if not init and restart_policy in ("Always", "OnFailure", "Never"):
            pass  # ContainerRestartRules: a regular container's own policy (no scheduling effect)
        elif not init:
            raise r.err(f"{path}.restartPolicy", f'Unsupported value: "{restart_policy}": '
                                                 'supported values: "Always", "Never", "OnFailure"')
        elif restart_policy != "Always":
            raise r.err(f"{path}.restartPolicy", f'Unsupported value: "{restart_policy}": '
                                                 'supported values: "Always"')
    # resources.claims (checked against spec.resourceClaims by the pod parser): kept for export.
    claims = [(str(c.get("name") or ""), str(c.get("request") or ""))
              for c in r.seq(res.get("claims"), f"{rpath}.claims") if isinstance(c, dict)]
    return Container(name=name, image=image, requests=requests, limits=limits, ports=ports,
                     restart_policy=restart_policy if init else None, claims=claims,
                     restart_rule_actions=tuple(actions))


def parse_tolerations(r: FieldReader, obj: Any, path: str) -> list[Toleration]:
    out: list[Toleration] = []
    for i, t in enumerate(r.seq(obj, path)):
        p = f"{path}[{i}]"
        m = r.mapping(t, p, required=True)
        key = r.string(m.get("key"), f"{p}.key")
        op = r.string(m.get("operator"), f"{p}.operator")
        value = r.string(m.get("value"), f"{p}.value")
        effect = r.string(m.get("effect"), f"{p}.effect")
        seconds = r.opt_integer(m.get("tolerationSeconds"), f"{p}.tolerationSeconds", bits=64)
        if key:
            err = qualified_name_error(key)
            if err:
                raise r.err(f"{p}.key", f'Invalid value: "{key}": {err}')
        if not key and op != "Exists":
            raise r.err(f"{p}.operator", f'Invalid value: "{op}": operator must be Exists when '
                                         '`key` is empty, which means "match all values and all '
                                         'keys"')
        # Upstream requires effect NoExecute with tolerationSeconds. One leniency: the recorded
        # cases rely on an empty effect (all effects) being accepted with it, which the taint
        # manager then applies to NoExecute taints; any other effect is refused.
        if seconds is not None and effect and effect != "NoExecute":
            raise r.err(f"{p}.effect", f'Invalid value: "{effect}": effect must be \'NoExecute\' '
                                       "when `tolerationSeconds` is set")
        if op in ("Equal", ""):
            err = label_value_error(value)
            if err:
                raise r.err(f"{p}.operator", f'Invalid value: "{value}": {err}')
            op = "Equal"
        elif op == "Exists":
            if value:
                raise r.err(f"{p}.operator", f'Invalid value: "{value}": value must be empty '
                                             "when `operator` is 'Exists'")
        elif op not in ("Gt", "Lt"):  # Gt/Lt: TaintTolerationComparisonOperators (run gate)
            raise r.err(f"{p}.operator", f'Unsupported value: "{op}": supported values: '
                                         '"Equal", "Exists", "Gt", "Lt"')
        if effect and effect not in ("NoSchedule", "PreferNoSchedule", "NoExecute"):
            raise r.err(f"{p}.effect", f'Unsupported value: "{effect}": supported values: '
                                       '"NoSchedule", "PreferNoSchedule", "NoExecute"')
        out.append(Toleration(key=key, operator=op, value=value, effect=effect,
                              toleration_seconds=seconds))
    return out

