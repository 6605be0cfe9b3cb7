"""HTTP extenders (upstream extender.go and the extender steps of schedule_one.go and
preemption.go) against a real HTTP server on loopback. Expected outcomes follow upstream's rules:
failedAndUnresolvable wins over failed, scores are score x weight x (100 / 10), an ignorable
extender's errors are skipped, a non-ignorable one fails the cycle with its error text."""

from __future__ import annotations

import dataclasses
import json
import pickle
import random
import time

import pytest

from scheduler_core.config.types import Extender
from scheduler_core.events.compact import score_table
from scheduler_core.extender import (
    ExtenderCall,
    ExtenderTranscript,
    HTTPExtender,
    apply_extender_scores,
    node_wire,
    pod_wire,
)
from scheduler_core.framework.runtime.framework import NodePluginScores
from scheduler_core.simulation import Simulation
from tests.engine.extender._server import FakeExtender, Reply, keep, node_names, scenario

NODES3 = [{"name": "n1"}, {"name": "n2"}, {"name": "n3"}]


@pytest.fixture
def ext():
    e = FakeExtender()
    yield e
    e.stop()


def _cfg(ext: FakeExtender, **kw):
    d = {"urlPrefix": ext.url, "filterVerb": "filter"}
    d.update(kw)
    return d


def _run(sc, **kw) -> tuple[Simulation, dict]:
    max_time = kw.pop("max_time", 3600)
    sim = Simulation(sc, seed=kw.pop("seed", 0), record_events=True, **kw)
    settled = sim.run(max_time)
    return sim, sim.result(settled)


def _pods(result: dict) -> dict[str, dict]:
    return {p["name"]: p for p in result["pods"]}


def _ext_events(sim: Simulation, verb: str | None = None) -> list[dict]:
    return [e for e in sim.sink.events if e["type"] == "extender_call" and (verb is None or e["verb"] == verb)]


# ---- filter ---------------------------------------------------------------------------------------

def test_filter_keeps_nodes_and_passes_full_nodes(ext):
    ext.handlers["filter"] = lambda a: keep(a, {"n2"}, failed={"n1": "ext: no", "n3": "ext: no"})
    sim, res = _run(scenario([_cfg(ext)], NODES3, [{"name": "p"}]))
    assert _pods(res)["p"]["node"] == "n2"
    verb, args = ext.requests[0]
    assert verb == "filter"
    assert args["NodeNames"] is None and sorted(node_names(args)) == ["n1", "n2", "n3"]
    assert args["Pod"]["metadata"]["name"] == "p" and args["Pod"]["metadata"]["uid"]
    assert "kind" not in args["Pod"] and args["Pod"]["status"]["phase"] == "Pending"
    assert args["Nodes"]["items"][0]["status"]["allocatable"]["cpu"] == "4"
    ev = _ext_events(sim, "filter")[0]
    assert ev["ok"] and ev["pod"] == "default/p" and ev["changed"]["passed"] == ["n2"]
    assert sorted(ev["changed"]["removed"]) == ["n1", "n3"]


def test_filter_failed_and_unresolvable_statuses_in_the_message(ext):
    # n2 is in both maps: failedAndUnresolvable takes precedence.
    ext.handlers["filter"] = lambda a: keep(a, set(), failed={"n1": "ext-a", "n2": "ext-a"},
                                            unresolvable={"n2": "ext-u", "n3": "ext-u"})
    sim, res = _run(scenario([_cfg(ext)], NODES3, [{"name": "p"}]))
    p = _pods(res)["p"]
    assert p["status"] == "Pending"
    assert p["message"].startswith("0/3 nodes are available: 1 ext-a, 2 ext-u.")
    # Only n1 (Unschedulable) is a preemption candidate; the others are not helped by it.
    assert "1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling" \
        in p["message"]
    # The pod records the fake "Extender" plugin, so any cluster event requeues it.
    qpi = sim.scheduler.queue.unschedulable_pods.get(sim.scheduler.cluster.pods["default/p"])
    assert qpi is not None and "Extender" in qpi.unschedulable_plugins


def test_node_cache_capable_sends_and_reads_names(ext):
    ext.handlers["filter"] = lambda a: keep(a, {"n3"})
    sim, res = _run(scenario([_cfg(ext, nodeCacheCapable=True)], NODES3, [{"name": "p"}]))
    _, args = ext.requests[0]
    assert args["Nodes"] is None and sorted(args["NodeNames"]) == ["n1", "n2", "n3"]
    assert _pods(res)["p"]["node"] == "n3"


def test_keys_are_case_insensitive_and_trailing_data_ignored(ext):
    ext.handlers["filter"] = lambda a: Reply(json.dumps({"nodenames": ["n1"], "error": ""}) + " trailing")
    sim, res = _run(scenario([_cfg(ext, nodeCacheCapable=True)], NODES3, [{"name": "p"}]))
    assert _pods(res)["p"]["node"] == "n1"


@pytest.mark.parametrize("reply,expected", [
    (lambda url: Reply("oops", status=500), "failed filter with extender at URL {url}/filter, code 500"),
    (lambda url: Reply("<html>"), "invalid character '<' looking for beginning of value"),
    (lambda url: Reply(""), "EOF"),
    (lambda url: Reply(json.dumps({"Error": "extender is sad"})), "extender is sad"),
    (lambda url: Reply(json.dumps({"NodeNames": ["ghost"]})),
     'extender "{url}" claims a filtered node "ghost" which is not found in the input node list'),
    (lambda url: Reply(json.dumps({"NodeNames": "n1"})),
     "json: cannot unmarshal string into Go struct field ExtenderFilterResult.NodeNames of type []string"),
])
def test_filter_errors_fail_the_cycle_unless_ignorable(ext, reply, expected):
    ext.handlers["filter"] = lambda a: reply(ext.url)
    sc = scenario([_cfg(ext, nodeCacheCapable=True)], NODES3, [{"name": "p"}])
    sim, res = _run(sc)
    p = _pods(res)["p"]
    assert p["status"] == "Pending"
    assert p["message"] == expected.format(url=ext.url)
    ev = _ext_events(sim, "filter")[0]
    assert not ev["ok"] and ev["error"] == p["message"]
    # The same answer from an ignorable extender is skipped: the plugins alone decide.
    sim, res = _run(scenario([_cfg(ext, nodeCacheCapable=True, ignorable=True)], NODES3, [{"name": "p"}]))
    assert _pods(res)["p"]["status"] == "Bound"


def test_unreachable_extender(ext):
    url = ext.url
    ext.stop()
    sim, res = _run(scenario([{"urlPrefix": url, "filterVerb": "filter"}], NODES3, [{"name": "p"}]))
    port = url.rsplit(":", 1)[1]
    assert _pods(res)["p"]["message"] == \
        f'Post "{url}/filter": dial tcp 127.0.0.1:{port}: connect: connection refused'


def test_timeout(ext):
    ext.handlers["filter"] = lambda a: Reply(json.dumps(keep(a, {"n1"})), delay=1.0)
    t0 = time.perf_counter()
    # an erroring pod is retried after its backoff: keep the virtual run short
    sim, res = _run(scenario([_cfg(ext, httpTimeout="200ms")], NODES3, [{"name": "p"}]), max_time=0.5)
    assert time.perf_counter() - t0 < 5
    assert _pods(res)["p"]["message"].startswith(f'Post "{ext.url}/filter": context deadline exceeded')
    ev = _ext_events(sim, "filter")[0]
    assert not ev["ok"] and 150 <= ev["latency_ms"] < 1000


def test_extender_only_filters_nodes_the_plugins_passed(ext):
    ext.handlers["filter"] = lambda a: keep(a, set(node_names(a)))
    nodes = [{"name": "small", "cpu": "1"}, {"name": "big", "cpu": "8"}]
    sim, res = _run(scenario([_cfg(ext)], nodes, [{"name": "p", "cpu": "2"}]))
    # one feasible node: upstream takes it without prioritizing
    assert node_names(ext.requests[0][1]) == ["big"]
    assert ext.verbs() == ["filter"]


# ---- prioritize ---------------------------------------------------------------------------------

def test_prioritize_scores_are_scaled_by_weight_times_ten(ext):
    ext.handlers["prioritize"] = lambda a: [{"Host": "n1", "Score": 1}, {"Host": "n2", "Score": 3},
                                            {"Host": "n3", "Score": 2}]
    cfg = {"urlPrefix": ext.url, "prioritizeVerb": "prioritize", "weight": 2}
    sim, res = _run(scenario([cfg], NODES3, [{"name": "p"}]))
    assert _pods(res)["p"]["node"] == "n2"
    table = score_table(next(e for e in sim.sink.events if e["type"] == "scores"))
    totals = table.totals
    # identical nodes: plugin scores are equal, so the differences are the extender's
    assert totals["n2"] - totals["n1"] == (3 - 1) * 2 * 10
    assert totals["n3"] - totals["n1"] == (2 - 1) * 2 * 10
    # the extender's own column in the inspector's table: its score, scaled
    assert table.plugins[-1] == ext.url
    assert table.cell(ext.url, "n2") == {"raw": 3, "normalized": 3, "weighted": 60, "extender": True}
    plugin_sum = {n: sum(table.cell(p, n)["weighted"] for p in table.plugins) for n in totals}
    assert plugin_sum == totals
    ev = _ext_events(sim, "prioritize")[0]
    assert ev["changed"]["weighted"] == {"n1": 20, "n2": 60, "n3": 40}


def test_prioritize_errors_are_always_skipped(ext):
    ext.handlers["prioritize"] = lambda a: Reply("nope", status=503)
    cfg = {"urlPrefix": ext.url, "prioritizeVerb": "prioritize", "weight": 1}
    sim, res = _run(scenario([cfg], NODES3, [{"name": "p"}]))
    assert _pods(res)["p"]["status"] == "Bound"
    assert not _ext_events(sim, "prioritize")[0]["ok"]


def test_non_integer_score_is_a_decode_error(ext):
    ext.handlers["prioritize"] = lambda a: [{"Host": "n1", "Score": 2.5}]
    cfg = {"urlPrefix": ext.url, "prioritizeVerb": "prioritize", "weight": 1}
    sim, res = _run(scenario([cfg], NODES3, [{"name": "p"}]))
    ev = _ext_events(sim, "prioritize")[0]
    assert ev["error"] == ("json: cannot unmarshal number 2.5 into Go struct field HostPriority.Score "
                           "of type int64")


class _FakeExt:
    def __init__(self, scores, weight, interested=True, prioritizer=True):
        self._scores, self._weight, self._interested, self._prio = scores, weight, interested, prioritizer

    def is_interested(self, pod):
        return self._interested

    def is_prioritizer(self):
        return self._prio

    def name(self):
        return "fake"

    def prioritize(self, pod, nodes):
        return self._scores, self._weight


class _FakeSched:
    def __init__(self, exts, seed):
        self.extenders = exts
        self.rng = random.Random(seed)


class _NI:
    def __init__(self, name):
        self.name = name


def test_apply_scores_sums_extenders_and_draws_randomizers_from_the_run_rng():
    nodes = [_NI("a"), _NI("b"), _NI("c")]
    scores = [NodePluginScores(n.name, [], 100) for n in nodes]
    exts = [_FakeExt([("a", 7), ("b", 1), ("ghost", 10)], 3),
            _FakeExt([("a", 1)], 2),
            _FakeExt([("c", 9)], 5, interested=False),
            _FakeExt([("b", 0), ("c", 0)], 0, prioritizer=False)]  # no prioritize verb: zeros
    sched = _FakeSched(exts, seed=7)
    columns = {"nodes": ["a", "b", "c"], "plugins": [], "raw": {}, "normalized": {}, "weighted": {},
               "totals": [], "extenders": []}
    apply_extender_scores(sched, None, nodes, scores, columns)
    assert [s.total_score for s in scores] == [100 + 210 + 20, 100 + 30, 100]
    # both prioritizers are one column "fake" (same name): raw and weighted add up, a host that
    # is not a candidate ("ghost") has no row, the extender without a prioritize verb no column
    assert columns["plugins"] == columns["extenders"] == ["fake"]
    assert columns["raw"]["fake"] == [8, 1, None] and columns["weighted"]["fake"] == [230, 30, None]
    assert columns["normalized"]["fake"] == [1, 1, None]
    want = random.Random(7)
    assert [s.randomizer for s in scores] == [want.getrandbits(63) for _ in range(3)]
    # nothing from any extender: no randomizer drawn
    scores2 = [NodePluginScores("x", [], 1)]
    sched2 = _FakeSched([_FakeExt([], 1)], seed=7)
    apply_extender_scores(sched2, None, [_NI("x")], scores2, None)
    assert scores2[0].randomizer == 0 and sched2.rng.getrandbits(8) == random.Random(7).getrandbits(8)


# ---- managedResources / IsInterested ----------------------------------------------------------------

def test_is_interested_in_managed_resources_only(ext):
    ext.handlers["filter"] = lambda a: keep(a, set(node_names(a)))
    cfg = _cfg(ext, managedResources=[{"name": "example.com/foo", "ignoredByScheduler": True}])
    nodes = [{"name": "n1"}]
    pods = [{"name": "plain"}, {"name": "foo", "limits": {"example.com/foo": "1"}}]
    sim, res = _run(scenario([cfg], nodes, pods))
    # ignoredByScheduler: NodeResourcesFit does not check example.com/foo (n1 has none)
    assert _pods(res)["foo"]["node"] == "n1" and _pods(res)["plain"]["node"] == "n1"
    assert [a["Pod"]["metadata"]["name"] for _, a in ext.requests] == ["foo"]


def test_managed_resource_not_ignored_is_checked_by_the_plugins(ext):
    cfg = _cfg(ext, managedResources=[{"name": "example.com/foo", "ignoredByScheduler": False}])
    sim, res = _run(scenario([cfg], [{"name": "n1"}], [{"name": "foo", "limits": {"example.com/foo": "1"}}]))
    assert "Insufficient example.com/foo" in _pods(res)["foo"]["message"]
    assert ext.requests == []


def test_pod_and_node_wire_shapes():
    sc = scenario([], [{"name": "n1", "labels": {"a": "b"}}], [{"name": "p", "node": "n1"}])
    pod = sc.pods[0]
    w = pod_wire(pod)
    assert w["metadata"] == {"name": "p", "namespace": "default", "uid": pod.uid} or \
        w["metadata"]["uid"] == pod.uid
    assert w["spec"]["nodeName"] == "n1" and w["status"]["phase"] == "Running"
    nw = node_wire(sc.nodes[0])
    assert nw["metadata"]["labels"]["a"] == "b" and nw["metadata"]["uid"] == sc.nodes[0].uid
    assert "apiVersion" not in nw and nw["status"]["allocatable"]["cpu"] == "4"


# ---- preempt -------------------------------------------------------------------------------------

def _preemption_scenario(ext, preempt_handler, **cfg):
    ext.handlers["preempt"] = preempt_handler
    c = {"urlPrefix": ext.url, "preemptVerb": "preempt", **cfg}
    nodes = [{"name": "n1", "cpu": "2"}, {"name": "n2", "cpu": "2"}]
    pods = [{"name": "low-1a", "node": "n1", "priority": 1}, {"name": "low-1b", "node": "n1", "priority": 1},
            {"name": "low-2a", "node": "n2", "priority": 1}, {"name": "low-2b", "node": "n2", "priority": 1},
            {"name": "high", "priority": 100}]
    return scenario([c], nodes, pods)


def _meta(args):
    """Echo the proposed victims as MetaVictims (works for both request shapes)."""
    out = {}
    for node, v in (args.get("NodeNameToVictims") or {}).items():
        out[node] = {"Pods": [{"UID": p["metadata"]["uid"]} for p in v["Pods"]],
                     "NumPDBViolations": v["NumPDBViolations"]}
    for node, v in (args.get("NodeNameToMetaVictims") or {}).items():
        out[node] = {"Pods": list(v["Pods"]), "NumPDBViolations": v["NumPDBViolations"]}
    return out


def test_preempt_extender_removes_a_node(ext):
    def handler(args):
        m = _meta(args)
        m.pop("n1", None)
        return {"NodeNameToMetaVictims": m}

    sim, res = _run(_preemption_scenario(ext, handler))
    pods = _pods(res)
    assert pods["high"]["node"] == "n2"
    deleted = sorted(n for n, p in pods.items() if p.get("deletedBy") == "Preempted")
    assert len(deleted) == 1 and deleted[0].startswith("low-2")
    _, args = ext.requests[0]
    assert set(args["NodeNameToVictims"]) == {"n1", "n2"} and args["NodeNameToMetaVictims"] is None
    victim = args["NodeNameToVictims"]["n1"]["Pods"][0]
    assert victim["spec"]["nodeName"] == "n1" and victim["metadata"]["uid"]
    ev = _ext_events(sim, "preempt")[0]
    assert ev["changed"]["removed_nodes"] == ["n1"]


def test_preempt_extender_trims_victims_node_cache_capable(ext):
    seen = []

    def handler(args):
        seen.append(args)
        m = _meta(args)
        return {"NodeNameToMetaVictims": {"n1": m["n1"]}} if "n1" in m else {"NodeNameToMetaVictims": m}

    # needs 2 cpu: both pods of a node are victims; the extender keeps n1 only
    sc = _preemption_scenario(ext, handler, nodeCacheCapable=True)
    # A new pod with a new container: the loader shares replicas' parsed containers, which are
    # never changed in place.
    high, first = sc.pods[-1], sc.pods[-1].containers[0]
    bigger = dataclasses.replace(first, requests={**first.requests, "cpu": first.requests["cpu"] * 2})
    sc.pods[-1] = dataclasses.replace(high, containers=[bigger, *high.containers[1:]])
    sim, res = _run(sc)
    assert seen[0]["NodeNameToVictims"] is None and set(seen[0]["NodeNameToMetaVictims"]) == {"n1", "n2"}
    assert all(set(v["Pods"][0]) == {"UID"} for v in seen[0]["NodeNameToMetaVictims"].values())
    pods = _pods(res)
    assert pods["high"]["node"] == "n1"
    assert pods["low-1a"]["deletedBy"] == pods["low-1b"]["deletedBy"] == "Preempted"
    assert pods["low-2a"]["status"] == pods["low-2b"]["status"] == "Bound"


def test_preempt_unknown_victim_and_empty_victims_are_errors(ext):
    sim, res = _run(_preemption_scenario(
        ext, lambda a: {"NodeNameToMetaVictims": {"n1": {"Pods": [{"UID": "nope"}], "NumPDBViolations": 0}}}))
    ev = _ext_events(sim, "preempt")[0]
    assert ev["error"] == (f"extender: {ext.url} claims to preempt pod (UID: &{{nope}}) on node: n1, "
                           "but the pod is not found on that node")
    assert _pods(res)["high"]["status"] == "Pending"
    assert not any(p.get("deletedBy") == "Preempted" for p in res["pods"])
    ext.requests.clear()
    sim, res = _run(_preemption_scenario(
        ext, lambda a: {"NodeNameToMetaVictims": {"n2": {"Pods": [], "NumPDBViolations": 0}}}))
    assert _pods(res)["high"]["status"] == "Pending"
    assert _pods(res)["high"]["message"].endswith('preemption: expected at least one victim pod on node "n2"')
    # ignorable: the empty node is dropped (no candidate left), nothing is preempted
    sim, res = _run(_preemption_scenario(
        ext, lambda a: {"NodeNameToMetaVictims": {"n2": {"Pods": [], "NumPDBViolations": 0}}}, ignorable=True))
    assert not any(p.get("deletedBy") == "Preempted" for p in res["pods"])


# ---- bind ---------------------------------------------------------------------------------------------

def test_bind_by_the_extender(ext):
    ext.handlers["bind"] = lambda a: {"Error": ""}
    sim, res = _run(scenario([{"urlPrefix": ext.url, "bindVerb": "bind"}], [{"name": "n1"}], [{"name": "p"}]))
    assert _pods(res)["p"]["node"] == "n1"
    verb, args = ext.requests[0]
    pod = sim.scheduler.cluster.pods["default/p"]
    assert verb == "bind" and args == {"PodName": "p", "PodNamespace": "default", "PodUID": pod.uid, "Node": "n1"}


def test_bind_error_fails_unless_ignorable(ext):
    ext.handlers["bind"] = lambda a: {"Error": "cannot bind now"}
    sim, res = _run(scenario([{"urlPrefix": ext.url, "bindVerb": "bind"}], [{"name": "n1"}], [{"name": "p"}]))
    p = _pods(res)["p"]
    assert p["status"] == "Pending" and p["message"] == "cannot bind now"
    sim, res = _run(scenario([{"urlPrefix": ext.url, "bindVerb": "bind", "ignorable": True}],
                             [{"name": "n1"}], [{"name": "p"}]))
    assert _pods(res)["p"]["node"] == "n1"  # the DefaultBinder bound it


# ---- transcript: replay, export, checkpoints -----------------------------------------------------------

def _gpu_like(ext):
    ext.handlers["filter"] = lambda a: keep(a, {n for n in node_names(a) if n != "n3"}, failed={"n3": "no"})
    ext.handlers["prioritize"] = lambda a: [{"Host": n, "Score": i} for i, n in enumerate(sorted(node_names(a)))]
    ext.handlers["bind"] = lambda a: {"Error": ""}
    cfg = _cfg(ext, prioritizeVerb="prioritize", bindVerb="bind", weight=3)
    pods = [{"name": f"p{i}", "cpu": "1"} for i in range(6)]
    return scenario([cfg], NODES3 + [{"name": "n4"}], pods)


def _strip(events):
    return [{k: v for k, v in e.items() if k != "replayed"} for e in events]


def test_replay_from_transcript_without_the_server(ext):
    sc = _gpu_like(ext)
    sim, res = _run(sc, seed=3)
    assert len(sim.extender_transcript) > 0
    exported = json.loads(json.dumps(sim.extender_transcript.to_json()))
    ext.stop()
    replay = ExtenderTranscript.from_json(exported)  # mode "replay"
    sim2, res2 = _run(sc, seed=3, extender_transcript=replay)
    assert res2 == res
    assert _strip(sim2.sink.events) == _strip(sim.sink.events)
    assert all(e["replayed"] for e in _ext_events(sim2))
    # a call the transcript does not hold fails clearly (no HTTP in replay mode)
    sim3, res3 = _run(sc, seed=4, extender_transcript=ExtenderTranscript([], mode="replay"))
    assert "no recorded answer to this filter call" in _pods(res3)["p0"]["message"]


def test_checkpoint_restore_keeps_the_transcript(ext):
    sc = _gpu_like(ext)
    full, res = _run(sc, seed=1)
    rec = full.extender_transcript.to_json()

    live = Simulation(sc, seed=1, record_events=True)
    for _ in range(3):
        live.step()
    blob = live.checkpoint()
    restored = Simulation.restore(blob)
    assert restored.extender_transcript.to_json() == live.extender_transcript.to_json()
    assert len(restored.extender_transcript) > 0
    assert restored.scheduler.extenders[0].transcript is restored.extender_transcript
    # a replaying run checkpointed halfway continues from the right place after restore
    ext.stop()
    rep = Simulation(sc, seed=1, record_events=True, extender_transcript=ExtenderTranscript.from_json(rec))
    for _ in range(3):
        rep.step()
    rep2 = Simulation.restore(rep.checkpoint())
    assert rep2.result(rep2.run(3600)) == res


def test_transcript_pickles_and_record_mode_reuses_matching_calls():
    t = ExtenderTranscript([ExtenderCall("u", "filter", "d1", 200, "{}", None, 1.5)], mode="record")
    t2 = pickle.loads(pickle.dumps(t))
    assert t2.lookup("u", "filter", "d1").body == "{}"
    assert t2.lookup("u", "filter", "d1") is None  # each recording answers once
    assert t.to_json() == [{"extender": "u", "verb": "filter", "digest": "d1", "status": 200, "body": "{}",
                            "error": None, "latency_ms": 1.5}]
    with pytest.raises(ValueError):
        ExtenderTranscript(mode="live")


def test_extender_flags():
    e = HTTPExtender(Extender(url_prefix="http://x", filter_verb="f", managed_resources=[
        {"name": "example.com/a", "ignoredByScheduler": False}]), ExtenderTranscript())
    assert e.is_filter() and not e.is_prioritizer() and not e.is_binder() and not e.supports_preemption()
    assert e.name() == "http://x" and e.url_for("f") == "http://x/f"
    e2 = HTTPExtender(Extender(url_prefix="http://x/", bind_verb="b"), ExtenderTranscript())
    assert e2.url_for("b") == "http://x/b" and e2.is_binder()


def test_ignorable_extenders_are_consulted_last(ext):
    other = FakeExtender()
    try:
        ext.handlers["filter"] = lambda a: keep(a, set(node_names(a)))
        other.handlers["filter"] = lambda a: keep(a, set(node_names(a)))
        cfgs = [{"urlPrefix": other.url, "filterVerb": "filter", "ignorable": True}, _cfg(ext)]
        sim, res = _run(scenario(cfgs, NODES3, [{"name": "p"}]))
        assert [e["extender"] for e in _ext_events(sim)] == [ext.url, other.url]
    finally:
        other.stop()


def test_extender_error_on_the_nominated_node_falls_back_to_all_nodes(ext):
    calls = []

    def handler(a):
        calls.append(node_names(a))
        if len(node_names(a)) == 1:  # the nominated node alone
            return Reply("down", status=500)
        return keep(a, set(node_names(a)))

    ext.handlers["filter"] = handler
    sc = scenario([_cfg(ext)], NODES3, [{"name": "p"}])
    sc.pods[0].nominated_node_name = "n2"
    sim, res = _run(sc)
    assert calls[0] == ["n2"] and len(calls[1]) == 3
    assert _pods(res)["p"]["status"] == "Bound"
