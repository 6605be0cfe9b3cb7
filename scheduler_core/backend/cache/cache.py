"""The scheduler cache (upstream backend/cache/cache.go): nodes with the pods on them,
including pods the scheduler has *assumed* onto a node before their binding is confirmed.

Assuming lets the next scheduling cycle see the resources as taken while binding is still in
flight; if binding fails the pod is forgotten. Assumed pods whose binding finished but never got
confirmed expire after `ttl` seconds (0, upstream's default, means never).

The snapshot gets the cache's own NodeInfos (copy on write) rather than copies: the cache
copies a NodeInfo the snapshot holds just before changing it (`_writable`). Upstream clones
every NodeInfo into its first snapshot; at 15,000 nodes those clones (and the garbage
collector's passes their allocation sets off) were ~15 % of a 1,000-pod run. A node that
changes still costs one copy per cycle, made when the cache changes it instead of when the
snapshot is updated. Nodes holding images are still copied into the snapshot: their image
summaries' node counts change in place as other nodes come and go, and the snapshot must see
the counts of when the node was copied (as upstream's clone does).
"""

from __future__ import annotations

from dataclasses import dataclass

from scheduler_core.api.types import Node, Pod
from scheduler_core.backend.cache.node_arrays import RowLog
from scheduler_core.backend.cache.node_tree import NodeTree
from scheduler_core.backend.cache.snapshot import Snapshot
from scheduler_core.framework.types import ImageStateSummary, NodeInfo, PodInfo


def normalized_image_name(name: str) -> str:
    """Append ":latest" to an untagged image name, as ImageLocality and the cache compare them."""
    if name.rfind(":") <= name.rfind("/"):
        return name + ":latest"
    return name


@dataclass
class _PodState:
    pod: Pod
    deadline: float | None = None
    binding_finished: bool = False


ASSUMED = "assumed"
BINDING_FINISHED = "binding finished"
ADDED = "added"
FORGOTTEN = "forgotten"
EXPIRED = "expired"


class CacheError(RuntimeError):
    pass


class Cache:
    # Pods whose cache state (`pod_state`) may have changed since a view last looked
    # (scheduler_core/view/pods.py); None until a view memo asks for it.
    pods_touched: set[str] | None = None

    def __init__(self, ttl: float = 0.0) -> None:
        self.ttl = ttl
        self.nodes: dict[str, NodeInfo] = {}
        self.node_tree = NodeTree()
        self.pod_states: dict[str, _PodState] = {}
        self.assumed_pods: set[str] = set()
        self.image_states: dict[str, ImageStateSummary] = {}
        self._image_nodes: dict[str, set[str]] = {}
        self._dirty: set[str] = set()
        self._node_set_changed = True
        # Nodes whose NodeInfo in `nodes` is also the snapshot's: copied before any change.
        self._shared: set[str] = set()
        # Pods whose last assumption was forgotten (binding failed) or expired, and are not in
        # the cache again: what the UI shows as the pod's cache state after it left.
        self.left: dict[str, str] = {}
        self.last_update: tuple[int, bool] = (0, False)

    def _writable(self, name: str) -> NodeInfo | None:
        """The cache's NodeInfo of `name`, ready to be changed: a copy replaces it first when the
        snapshot holds it, so the snapshot's stays as it was."""
        ni = self.nodes.get(name)
        if ni is not None and name in self._shared:
            ni = ni.snapshot()
            self.nodes[name] = ni
            self._shared.discard(name)
        return ni

    # ---- nodes -------------------------------------------------------------------------
    def add_node(self, node: Node) -> NodeInfo:
        ni = self._writable(node.name)
        if ni is None:
            ni = NodeInfo()
            self.nodes[node.name] = ni
        else:
            self._remove_node_image_states(ni.node)
        self.node_tree.add_node(node)
        self._add_node_image_states(node, ni)
        ni.set_node(node)
        self._dirty.add(node.name)
        self._node_set_changed = True
        return ni

    def update_node(self, old: Node | None, new: Node) -> NodeInfo:
        ni = self._writable(new.name)
        if ni is None:
            return self.add_node(new)
        self._remove_node_image_states(ni.node)
        self.node_tree.update_node(old, new)
        self._add_node_image_states(new, ni)
        ni.set_node(new)
        self._dirty.add(new.name)
        self._node_set_changed = True  # zone may have changed
        return ni

    def remove_node(self, node: Node) -> None:
        ni = self.nodes.pop(node.name, None)
        if ni is None:
            raise CacheError(f"node {node.name} is not found")
        self.node_tree.remove_node(node)
        self._remove_node_image_states(node)
        self._dirty.discard(node.name)
        self._shared.discard(node.name)
        self._node_set_changed = True

    def _add_node_image_states(self, node: Node, ni: NodeInfo) -> None:
        summaries: dict[str, ImageStateSummary] = {}
        for image in node.images:
            for name in image.names:
                st = self.image_states.get(name)
                if st is None:
                    st = ImageStateSummary(size=image.size_bytes, num_nodes=0)
                    self.image_states[name] = st
                    self._image_nodes[name] = set()
                if node.name not in self._image_nodes[name]:
                    self._image_nodes[name].add(node.name)
                    st.num_nodes = len(self._image_nodes[name])
                summaries.setdefault(name, st)
        ni.image_states = summaries

    def _remove_node_image_states(self, node: Node | None) -> None:
        if node is None:
            return
        for image in node.images:
            for name in image.names:
                nodes = self._image_nodes.get(name)
                if nodes is None:
                    continue
                nodes.discard(node.name)
                if not nodes:
                    del self._image_nodes[name]
                    del self.image_states[name]
                else:
                    self.image_states[name].num_nodes = len(nodes)

    # ---- pods --------------------------------------------------------------------------
    def _add_pod_to_node(self, pod: Pod, pod_info: PodInfo | None = None) -> None:
        ni = self._writable(pod.node_name)
        if ni is None:
            raise CacheError(f"pod {pod.key} is on node {pod.node_name}, which is not in the cache")
        ni.add_pod_info(pod_info or PodInfo(pod))
        self._dirty.add(pod.node_name)

    def _remove_pod_from_node(self, pod: Pod) -> None:
        ni = self._writable(pod.node_name)
        if ni is not None and ni.remove_pod(pod):
            self._dirty.add(pod.node_name)

    def assume_pod(self, pod: Pod, pod_info: PodInfo | None = None) -> None:
        """The pod (with node_name set) now occupies its node as far as scheduling goes."""
        key = pod.key
        if key in self.pod_states:
            raise CacheError(f"pod {key} is in the cache, so can't be assumed")
        self._add_pod_to_node(pod, pod_info)
        self.pod_states[key] = _PodState(pod)
        self.assumed_pods.add(key)
        self._touch(key)
        if self.left:
            self.left.pop(key, None)

    def finish_binding(self, pod: Pod, now: float) -> None:
        st = self.pod_states.get(pod.key)
        if st is not None and pod.key in self.assumed_pods:
            st.binding_finished = True
            st.deadline = now + self.ttl if self.ttl > 0 else None
            self._touch(pod.key)

    def forget_pod(self, pod: Pod) -> None:
        key = pod.key
        st = self.pod_states.get(key)
        if st is None or key not in self.assumed_pods:
            raise CacheError(f"pod {key} wasn't assumed so cannot be forgotten")
        self._remove_pod_from_node(st.pod)
        del self.pod_states[key]
        self.assumed_pods.discard(key)
        self.left[key] = FORGOTTEN
        self._touch(key)

    def add_pod(self, pod: Pod) -> None:
        """A bound pod observed (informer add): confirms an assumed pod or adds a new one."""
        key = pod.key
        self._touch(key)
        st = self.pod_states.get(key)
        if st is not None and key in self.assumed_pods:
            if st.pod.node_name != pod.node_name:
                self._remove_pod_from_node(st.pod)
                self._add_pod_to_node(pod)
            else:
                # Same node: keep the aggregates, refresh the object.
                ni = self.nodes[pod.node_name]
                for pi in ni.pods:
                    if pi.pod.key == key:
                        old_pod = pi.pod
                        pi.update(pod)
                        if (old_pod.labels != pod.labels or old_pod.namespace != pod.namespace
                                or old_pod.deletion_timestamp != pod.deletion_timestamp):
                            # What the snapshot's spreading counts are filed under changed.
                            self._dirty.add(pod.node_name)
                        break
            st.pod = pod
            st.deadline = None
            self.assumed_pods.discard(key)
            return
        if st is not None:
            raise CacheError(f"pod {key} was already in added state")
        if pod.node_name not in self.nodes:
            # Bound to a node the cache has no Node for: upstream files the pod under a NodeInfo
            # without a node, which no snapshot includes, and the node adopts it when it comes.
            self.nodes[pod.node_name] = NodeInfo()
        self._add_pod_to_node(pod)
        self.pod_states[key] = _PodState(pod)
        if self.left:
            self.left.pop(key, None)

    def update_pod(self, old: Pod, new: Pod) -> None:
        key = old.key
        if key not in self.pod_states or key in self.assumed_pods:
            raise CacheError(f"pod {key} is not added to scheduler cache, so cannot be updated")
        self._remove_pod_from_node(old)
        self._add_pod_to_node(new)
        self.pod_states[key].pod = new

    def remove_pod(self, pod: Pod) -> None:
        key = pod.key
        st = self.pod_states.pop(key, None)
        if st is None:
            raise CacheError(f"pod {key} is not found in scheduler cache, so cannot be removed from it")
        self._remove_pod_from_node(st.pod)
        ni = self.nodes.get(st.pod.node_name)
        if ni is not None and ni.node is None and not ni.pods:
            del self.nodes[st.pod.node_name]  # the last pod of a node the cache never had
            self._dirty.discard(st.pod.node_name)
        self.assumed_pods.discard(key)
        self._touch(key)

    def _touch(self, key: str) -> None:
        if self.pods_touched is not None:
            self.pods_touched.add(key)

    def is_assumed_pod(self, pod: Pod) -> bool:
        return pod.key in self.assumed_pods

    def get_pod(self, pod: Pod) -> Pod | None:
        st = self.pod_states.get(pod.key)
        return st.pod if st else None

    def cleanup_assumed_pods(self, now: float) -> list[Pod]:
        """Expire assumed pods whose binding finished and whose deadline passed."""
        expired = []
        for key in sorted(self.assumed_pods):
            st = self.pod_states[key]
            if st.binding_finished and st.deadline is not None and now >= st.deadline:
                expired.append(st.pod)
        for pod in expired:
            self.remove_pod(pod)
            self.left[pod.key] = EXPIRED
        return expired

    def pod_state(self, key: str) -> str | None:
        """The pod's state in the cache's life cycle (upstream cache.go's diagram): "assumed"
        (a cycle chose its node; binding in flight), "binding finished" (still assumed: the
        informer has not confirmed it; with a TTL it would expire after it), "added" (the
        informer's Add confirmed it, or it was bound when it arrived), "forgotten" (the binding
        failed and the assumption was undone) or "expired" (never confirmed within the TTL);
        None: the cache never held it."""
        st = self.pod_states.get(key)
        if st is None:
            return self.left.get(key) if self.left else None
        if key in self.assumed_pods:
            return BINDING_FINISHED if st.binding_finished else ASSUMED
        return ADDED

    def node_count(self) -> int:
        return len(self.nodes)

    # ---- snapshot ----------------------------------------------------------------------
    def update_snapshot(self, snap: Snapshot) -> None:
        """Bring `snap` up to date with the NodeInfos that changed since last time (shared with
        the cache, or copied when they hold images: see the module docstring).

        Without node additions/removals this is O(changed nodes): the changed
        entries are replaced at their known positions, and the lists of nodes with (anti-)affinity
        pods are rebuilt only when a changed node had or has such pods."""
        if not self._dirty and not self._node_set_changed:
            self.last_update = (0, False)
            return
        # What this update did, for the cycle view: NodeInfos refreshed, node list rebuilt.
        self.last_update = (len(self._dirty), self._node_set_changed)
        rebuild_aff = rebuild_anti = self._node_set_changed
        old_map = snap.node_info_map
        shared = self._shared
        # The spreading counts follow the snapshot node by node while they describe it.
        counts = snap.spread_counts
        follow = counts.follows(snap.generation)
        terms = snap.affinity_counts
        follow_terms = terms.follows(snap.generation)
        for name in self._dirty:
            ni = self.nodes.get(name)
            if ni is not None and ni.node is not None:  # pods of an unknown node: in no snapshot
                if ni.image_states:
                    new = ni.snapshot()
                else:
                    new = ni
                    shared.add(name)
                old = old_map.get(name)
                if old is not None:
                    rebuild_aff = rebuild_aff or bool(old.pods_with_affinity)
                    rebuild_anti = rebuild_anti or bool(old.pods_with_required_anti_affinity)
                rebuild_aff = rebuild_aff or bool(new.pods_with_affinity)
                rebuild_anti = rebuild_anti or bool(new.pods_with_required_anti_affinity)
                if not self._node_set_changed and name in snap.index:
                    snap.adjust(old, new)
                old_map[name] = new
                if follow:
                    counts.node_changed(name, new)
                if follow_terms:
                    terms.node_changed(name, new)
        if self._node_set_changed:
            for name in list(snap.node_info_map):
                if name not in self.nodes:
                    del snap.node_info_map[name]
                    if follow:
                        counts.node_changed(name, None)
                    if follow_terms:
                        terms.node_changed(name, None)
            snap.node_info_list = [snap.node_info_map[n] for n in self.node_tree.list()]
            snap.index = {ni.name: i for i, ni in enumerate(snap.node_info_list)}
            snap.recount()
            snap.arrays = None  # rows follow the node list: rebuilt on next use
            snap.row_log = RowLog()
        else:
            # Changed slots replaced in place, as upstream overwrites the snapshot's NodeInfos in
            # place: a copy of the whole list here cost 15% of a cycle at 5,000 nodes. The one
            # caller updates the snapshot at the start of a cycle, when no walk holds the list.
            lst = snap.node_info_list
            index = snap.index
            arrays = snap.arrays
            log = snap.row_log
            for name in self._dirty:
                i = index.get(name)
                if i is not None:
                    lst[i] = old_map[name]
                    log.add(i)
                    if arrays is not None:
                        arrays.set_row(i, lst[i])
        if rebuild_aff:
            snap.have_pods_with_affinity = [ni for ni in snap.node_info_list if ni.pods_with_affinity]
        if rebuild_anti:
            snap.have_pods_with_required_anti_affinity = [
                ni for ni in snap.node_info_list if ni.pods_with_required_anti_affinity
            ]
        snap.generation += 1
        if follow:
            counts.generation = snap.generation
        if follow_terms:
            terms.generation = snap.generation
        self._dirty.clear()
        self._node_set_changed = False
