"""Existing pods' inter-pod affinity terms, summed per topology pair, kept up to date with the snapshot.

InterPodAffinity asks, for every pod it schedules, which running pods' terms apply to it: the
required anti-affinity terms of every pod that has some (PreFilter: the incoming pod may not go
into their domains), and the required affinity terms (weighted by hardPodAffinityWeight) and
preferred affinity/anti-affinity terms of every pod with affinity (PreScore). Walked pod by pod,
that is every such pod visited and its terms matched against each incoming pod.

Here the terms are grouped: terms that match the same pods (same namespaces, namespace selector,
label selector and topology key, and the same role) form one group, which keeps per
(topology key, value) pair how many terms of it sit on nodes carrying that value, and their
weights' sum. Whether a group's terms match the incoming pod depends only on the pod's
namespace, labels and its namespace's labels, so it is worked out once per such combination
(and per group). The walk's counts are then the sums of the matching groups' pairs.

Like spread_counts.py, `Cache.update_snapshot` hands every replaced, added or removed NodeInfo
to `node_changed` while the sums describe the snapshot (built on first ask, rebuilt after a
restore: checkpoints do not carry them).
"""

from __future__ import annotations

from typing import Any

from scheduler_core.backend.cache.kept_with_snapshot import KeptWithSnapshot
from scheduler_core.framework.types import NodeInfo

# The role of a group's terms.
REQUIRED_ANTI = 0  # an existing pod's required anti-affinity term (Filter)
REQUIRED_AFFINITY = 1  # its required affinity term (scored with hardPodAffinityWeight)
PREFERRED_AFFINITY = 2  # its preferred affinity term (+ weight)
PREFERRED_ANTI = 3  # its preferred anti-affinity term (- weight)


def selector_ident(ls: Any) -> tuple | None:
    """A LabelSelector's parts as they are written (None stays None)."""
    if ls is None:
        return None
    return (tuple(ls.match_labels.items()),
            tuple((r.key, r.operator, tuple(r.values)) for r in ls.match_expressions))


def _term_ident(role: int, t: Any) -> tuple:
    return (role, frozenset(t.namespaces), selector_ident(t.selector), t.topology_key,
            selector_ident(t.namespace_selector))


class AffinityTermCounts(KeptWithSnapshot):
    """Existing pods' affinity terms per group and topology pair (see the module docstring)."""

    __slots__ = ("groups", "terms", "roles", "sums", "nodes", "memo", "generation")

    def __init__(self) -> None:
        self.groups: dict[tuple, int] = {}  # term identity -> group index
        self.terms: list[Any] = []  # a term of each group (they all match the same pods)
        self.roles: list[int] = []
        # Per group: (topology key, value) -> [terms, sum of their weights]; no entry at 0 terms.
        self.sums: list[dict[tuple[str, str], list[int]]] = []
        # Node name -> (its NodeInfo, what it contributed: (group, pair, weight) per term).
        self.nodes: dict[str, tuple[NodeInfo, list[tuple[int, tuple[str, str], int]]]] = {}
        # (namespace, labels, namespace labels) -> [groups whose terms match such a pod, how
        # many groups existed when that was worked out].
        self.memo: dict[tuple, list] = {}
        self.generation = -1  # the snapshot generation the sums describe; -1: not built

    # ---- keeping up with the snapshot -------------------------------------------------------
    def _group(self, role: int, t: Any) -> int:
        ident = _term_ident(role, t)
        g = self.groups.get(ident)
        if g is None:
            g = len(self.terms)
            self.groups[ident] = g
            self.terms.append(t)
            self.roles.append(role)
            self.sums.append({})
        return g

    def _contributions(self, ni: NodeInfo) -> list[tuple[int, tuple[str, str], int]]:
        labels = ni.node.labels
        out: list[tuple[int, tuple[str, str], int]] = []
        if not labels:
            return out
        group = self._group
        for existing in ni.pods_with_required_anti_affinity:
            for t in existing.required_anti_affinity_terms:
                tv = labels.get(t.topology_key)
                if tv is not None:
                    out.append((group(REQUIRED_ANTI, t), (t.topology_key, tv), 1))
        for existing in ni.pods_with_affinity:
            for t in existing.required_affinity_terms:
                tv = labels.get(t.topology_key)
                if tv is not None:
                    out.append((group(REQUIRED_AFFINITY, t), (t.topology_key, tv), 1))
            for wt in existing.preferred_affinity_terms:
                tv = labels.get(wt.term.topology_key)
                if tv is not None:
                    out.append((group(PREFERRED_AFFINITY, wt.term), (wt.term.topology_key, tv), wt.weight))
            for wt in existing.preferred_anti_affinity_terms:
                tv = labels.get(wt.term.topology_key)
                if tv is not None:
                    out.append((group(PREFERRED_ANTI, wt.term), (wt.term.topology_key, tv), wt.weight))
        return out

    def _file(self, contributions: list[tuple[int, tuple[str, str], int]], sign: int) -> None:
        sums = self.sums
        for g, pair, w in contributions:
            m = sums[g]
            e = m.get(pair)
            if e is None:
                m[pair] = [1, w]  # only ever reached when adding
                continue
            e[0] += sign
            e[1] += sign * w
            if e[0] == 0:
                del m[pair]

    def node_changed(self, name: str, new: NodeInfo | None) -> None:
        """Node `name` now has NodeInfo `new` in the snapshot (None: it was removed)."""
        old = self.nodes.pop(name, None)
        if old is not None:
            self._file(old[1], -1)
        if new is not None and new.node is not None and (new.pods_with_affinity
                                                         or new.pods_with_required_anti_affinity):
            contributions = self._contributions(new)
            if contributions:
                self.nodes[name] = (new, contributions)
                self._file(contributions, 1)

    def sync(self, infos: list[NodeInfo], generation: int) -> None:
        """Describe the snapshot of `generation` (node list `infos`): summed again from it when
        the sums were not following it."""
        if self.generation == generation:
            return
        self.nodes = {}
        for m in self.sums:
            m.clear()
        for ni in infos:
            self.node_changed(ni.name, ni)
        self.generation = generation

    # ---- asking ----------------------------------------------------------------------------
    def _matching(self, pod: Any, ns_labels: dict[str, str] | None) -> tuple[int, ...]:
        """The groups whose terms match `pod` (its namespace's labels `ns_labels`)."""
        ident = (pod.namespace, frozenset(pod.labels.items()), frozenset((ns_labels or {}).items()))
        n = len(self.terms)
        found = self.memo.get(ident)
        if found is None:
            found = self.memo[ident] = [(), 0]
        if found[1] != n:
            terms = self.terms
            found[0] = found[0] + tuple(g for g in range(found[1], n) if terms[g].matches(pod, ns_labels))
            found[1] = n
        return found[0]

    def anti_affinity_counts(self, pod: Any, ns_labels: dict[str, str] | None, infos: list[NodeInfo],
                             generation: int) -> dict[tuple[str, str], int]:
        """Per topology pair, the existing pods' required anti-affinity terms matching `pod` on
        nodes carrying the pair (no entry at 0)."""
        self.sync(infos, generation)
        result: dict[tuple[str, str], int] = {}
        sums = self.sums
        roles = self.roles
        for g in self._matching(pod, ns_labels):
            if roles[g] != REQUIRED_ANTI:
                continue
            for pair, e in sums[g].items():
                result[pair] = result.get(pair, 0) + e[0]
        return result

    def score_map(self, pod: Any, ns_labels: dict[str, str] | None, hard_weight: int, infos: list[NodeInfo],
                  generation: int) -> dict[str, dict[str, int]]:
        """topology key -> value -> the weights the existing pods' required affinity (times
        `hard_weight`, when above 0) and preferred terms matching `pod` give that pair; a pair
        has an entry when some such term sits there, whatever its total."""
        self.sync(infos, generation)
        m: dict[str, dict[str, int]] = {}
        sums = self.sums
        roles = self.roles
        for g in self._matching(pod, ns_labels):
            role = roles[g]
            if role == REQUIRED_ANTI or (role == REQUIRED_AFFINITY and hard_weight <= 0):
                continue
            for (tk, tv), (n, w) in sums[g].items():
                if role == REQUIRED_AFFINITY:
                    delta = hard_weight * n
                elif role == PREFERRED_AFFINITY:
                    delta = w
                else:
                    delta = -w
                d = m.get(tk)
                if d is None:
                    d = m[tk] = {}
                d[tv] = d.get(tv, 0) + delta
        return m
