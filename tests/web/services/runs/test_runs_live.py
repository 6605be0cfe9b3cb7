"""Runs end to end: real Chromium, the web server, a real Celery worker, Redis (issue #6's acceptance)."""

from __future__ import annotations

import os
import re
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from playground.launcher import celery_worker_argv, spawn, stop_process_group
from playground.models import Run, RunAction, RunFrame
from playground.ownership import Actor
from playground.services import gallery
from playground.services import scenarios as scenario_service
from playground.services.runs import actions as svc
from playground.services.runs import dispatch
from playground.services.runs import engine as run_engine

pytestmark = pytest.mark.live


def start_run(page: Page, slug: str) -> str:
    gallery.seed()
    page.goto(f"/gallery/{slug}/")
    page.locator("#start-run").click()
    expect(page).to_have_url(re.compile(r"/runs/[^/]+/$"))
    expect(page.locator("#run-socket")).to_have_text("live")
    return page.url


def watch(browser: Browser, live_url: str, url: str) -> Page:
    context = browser.new_context(base_url=live_url)
    context.set_default_timeout(15_000)
    viewer = context.new_page()
    viewer.goto(url)
    expect(viewer.locator("#run-socket")).to_have_text("live")
    return viewer


def test_preemption_step_by_step_live_for_two_viewers_jump_and_share(
    page: Page, browser: Browser, live_url: str, celery_worker: Any
) -> None:
    url = start_run(page, "priority-preemption")
    watcher = watch(browser, live_url, url)
    watcher.evaluate("window.__notReloaded = true")
    expect(watcher.locator("#btn-step")).to_have_count(0)  # not the owner: read-only

    page.locator("#btn-step").click()  # cycle 1: payments fits nowhere, preempts on node-1
    for viewer in (page, watcher):
        expect(viewer.locator("#run-step")).to_have_text("1")
        expect(viewer.locator("#preemption-summary")).to_contain_text("preempts on node-1")
        expect(viewer.locator("#candidates")).to_contain_text("batch-1")
        expect(viewer.locator("#victims")).to_contain_text("default/batch-2")
        node1 = viewer.locator('.node[data-node="node-1"]')
        # The victims are deleted in the API; the scheduler sees them go after its next Pop
        # (asynchronous preemption), so they show as leaving, no longer bound.
        expect(node1.locator(".pod-chip.bound")).to_have_count(0)
        expect(node1.locator(".pod-chip.leaving")).to_have_count(2)
        expect(node1.locator('.pod-chip.ghost[data-pod="default/payments"]')).to_be_visible()  # nominated
        expect(viewer.locator("#filter-matrix")).to_contain_text("Insufficient cpu")

    # Two quick presses: two cycles, in order (the second is queued, never dropped or doubled).
    page.locator("#btn-step").click()
    page.locator("#btn-step").click()
    for viewer in (page, watcher):
        expect(viewer.locator("#run-step")).to_have_text("3")
        expect(viewer.locator("#selected")).to_contain_text("node-1")
        expect(viewer.locator('.node[data-node="node-1"] .pod-chip.bound[data-pod="default/payments"]')).to_be_visible()
    assert watcher.evaluate("window.__notReloaded") is True
    run = Run.objects.get()
    frames = list(RunFrame.objects.filter(run=run).order_by("step").values_list("step", "cycle", "result"))
    assert frames == [(0, 0, "start"), (1, 1, "cycle"), (2, 2, "cycle"), (3, 3, "cycle")]
    cycles = [
        e["cycle"] for e in run.events.filter(type="cycle_started").order_by("seq").values_list("data", flat=True)
    ]
    assert cycles == [1, 2, 3]
    assert list(run.events.order_by("seq").values_list("seq", flat=True)) == list(range(1, run.last_seq + 1))
    # The log on the watcher's page caught every event exactly once.
    assert watcher.locator("#run-log-rows .log-row").count() == run.last_seq

    # Jump to cycle 1 and back.
    page.locator("#jump-cycle").fill("1")
    page.locator("#jump-button").click()
    expect(page).to_have_url(re.compile(r"\?cycle=1$"))
    expect(page.locator("#run-step")).to_have_text("1")
    expect(page.locator("#pinned-notice")).to_be_visible()
    expect(page.locator("#preemption-summary")).to_contain_text("node-1")
    share = page.locator("#share-link").get_attribute("href")
    assert share and share.endswith("?cycle=1")
    page.locator("#back-live").click()
    expect(page.locator("#run-step")).to_have_text("3")

    # The share link in a fresh context: the same cycle, read-only.
    stranger = browser.new_context(base_url=live_url).new_page()
    stranger.goto(share)
    expect(stranger.locator("#inspector-title")).to_contain_text("Cycle 1")
    expect(stranger.locator("#run-step")).to_have_text("1")
    expect(stranger.locator("#btn-step")).to_have_count(0)
    expect(stranger.locator('.node[data-node="node-1"] .pod-chip.ghost')).to_have_count(1)
    stranger.context.close()
    watcher.context.close()


def test_an_eviction_counts_down_and_happens_when_the_clock_advances(page: Page, celery_worker: Any) -> None:
    start_run(page, "noexecute-eviction")
    page.keyboard.press("c")  # keyboard shortcut: advance the clock to the next timer (t=10: taint)
    expect(page.locator("#run-clock")).to_have_text("10s")
    eviction = page.locator('#run-evictions .eviction[data-pod="default/tolerates-30s"]')
    expect(eviction).to_contain_text("in 30s")
    page.locator("#btn-clock").click()  # t=20: the late pod arrives and is scheduled
    expect(page.locator("#run-clock")).to_have_text("20s")
    expect(eviction).to_contain_text("in 20s")
    page.locator("#btn-clock").click()  # t=40: the eviction fires
    expect(page.locator("#run-clock")).to_have_text("40s")
    expect(page.locator("#no-evictions")).to_be_visible()
    expect(page.locator('#pod-table tr[data-pod="default/tolerates-30s"]')).to_contain_text("Deleted")
    expect(page.locator(".eviction-history")).to_contain_text("tolerates-30s evicted")
    expect(page.locator("#events-table")).to_contain_text("TaintManagerEviction")


# ---- a worker killed in the middle of a play ------------------------------------------------------------


def _many_pods_yaml(nodes: int = 3, pods: int = 40) -> str:
    docs = [
        f"apiVersion: v1\nkind: Node\nmetadata: {{name: n{i}, labels: {{kubernetes.io/hostname: n{i}}}}}\n"
        f"status: {{capacity: {{cpu: '8', memory: 16Gi}}}}\n"
        for i in range(nodes)
    ]
    docs += [
        f"apiVersion: v1\nkind: Pod\nmetadata: {{name: p{i:03d}}}\nspec:\n  containers:\n  - name: app\n"
        f"    image: registry.k8s.io/pause:3.10\n    resources: {{requests: {{cpu: 100m, memory: 64Mi}}}}\n"
        for i in range(pods)
    ]
    return "---\n".join(docs)


def _start_worker(env: dict[str, str], queue: str, name: str, log_dir: Path, redis_url: str) -> Any:
    from celery import Celery

    hostname = f"{name}-{os.getpid()}@localhost"
    log = (log_dir / f"{name}.log").open("wb")
    process = spawn(celery_worker_argv(pool="solo", hostname=hostname) + ["-Q", queue], env=env, output=log)
    probe = Celery("probe", broker=redis_url)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert process.poll() is None, (log_dir / f"{name}.log").read_text()
            if probe.control.ping(destination=[hostname], timeout=0.5):
                return process
        raise AssertionError(f"worker {name} did not start")
    finally:
        probe.close()


def _wait(predicate: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def test_killing_the_worker_mid_play_loses_and_duplicates_no_event(
    transactional_db: None,
    live_env: dict[str, str],
    redis_url: str,
    live_logs_dir: Path,
    settings: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from celery import Celery

    queue = f"runs-crash-{os.getpid()}"  # only this test's workers listen here
    env = dict(live_env, PLAYGROUND_RUNS_QUEUE=queue, PLAYGROUND_RUN_LOCK_TTL="2")
    settings.REDIS_URL = redis_url
    sender = Celery("sender", broker=redis_url)
    monkeypatch.setattr(
        dispatch,
        "schedule",
        lambda run_id, index, **_: sender.send_task("playground.advance_run", args=(run_id, index), queue=queue),
    )
    owner = Actor(session_token="crash-owner")
    scenario = scenario_service.scenario_create(actor=owner, name="many pods", yaml_text=_many_pods_yaml())
    run = svc.run_start(scenario=scenario, actor=owner)
    Run.objects.filter(pk=run.pk).update(speed=20.0)  # 20 steps/s: the play lasts a few seconds

    first = _start_worker(env, queue, "crash-worker-a", live_logs_dir, redis_url)
    try:
        play = svc.run_enqueue(run=run, actor=owner, kind=RunAction.KIND_PLAY)
        _wait(lambda: RunFrame.objects.filter(run=run).count() >= 12, 30, "the play to get going")
    finally:
        os.killpg(first.pid, signal.SIGKILL)
        first.wait(10)
    stored_at_kill = RunFrame.objects.filter(run=run).count()
    play.refresh_from_db()
    assert play.state == RunAction.STATE_RUNNING and stored_at_kill < 45  # really mid-play

    second = _start_worker(env, queue, "crash-worker-b", live_logs_dir, redis_url)
    try:
        _wait(lambda: RunAction.objects.get(pk=play.pk).state == RunAction.STATE_DONE, 90, "the play to finish")
    finally:
        stop_process_group(second)
        sender.close()

    run.refresh_from_db()
    assert run.status == Run.STATUS_SETTLED
    stored = list(run.events.order_by("seq").values_list("data", flat=True))
    seqs = [e["seq"] for e in stored]
    assert seqs == list(range(1, len(stored) + 1))  # no gap, no duplicate
    assert list(run.events.order_by("seq").values_list("seq", flat=True)) == seqs
    sim = run_engine.load_simulation(run.scenario_yaml, run.seed)  # a straight headless run
    sim.run(run.max_time)
    assert stored == sim.sink.events
    steps = list(RunFrame.objects.filter(run=run).order_by("step").values_list("step", flat=True))
    assert steps == list(range(0, run.head_step + 1))


def test_step_extension_point_then_play_to_settled(page: Page, celery_worker: Any) -> None:
    start_run(page, "priority-preemption")
    page.keyboard.press("e")  # the first extension point of cycle 1: the pod leaves activeQ
    expect(page.locator("#points li.current")).to_have_text("Pop from activeQ")
    expect(page.locator("#filter-matrix")).to_have_count(0)
    page.keyboard.press("e")
    expect(page.locator("#points li.current")).to_have_text("PreFilter")
    page.keyboard.press("e")
    expect(page.locator("#points li.current")).to_have_text("Filter")
    expect(page.locator("#filter-matrix")).to_contain_text("Insufficient cpu")
    expect(page.locator("#run-preemption #no-preemption")).to_be_visible()  # not revealed yet
    page.keyboard.press("p")  # play until settled
    expect(page.locator("#run-state")).to_have_text("settled")
    expect(page.locator('#pod-table tr[data-pod="default/payments"]')).to_contain_text("Bound")
    expect(page.locator('#pod-table tr[data-pod="default/reports"]')).to_contain_text("preemptionPolicy=Never")
