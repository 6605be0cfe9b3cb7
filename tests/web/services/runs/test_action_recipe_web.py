"""docs/architecture.md's recipe for a cluster action, the web's steps, for a throwaway kind: a
spec in the engine's registry plus one form entry (`forms.FORMS`) is built from the form's
fields, checked in the request by preflight's names rule (a missing node refused with its field),
queued by `run_enqueue` and applied by the worker. Real DB, Redis and the worker's code."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from playground.models import RunAction
from playground.selectors.frame_views import view_at
from playground.services.runs import errors as run_errors
from playground.services.runs import forms as run_forms
from scheduler_core.actions import registry
from scheduler_core.actions.spec import NodeActionSpec, ParseContext
from tests.web.services.runs.test_runs_services import act, inline_worker, start  # noqa: F401

pytestmark = pytest.mark.django_db


class NoteNode(NodeActionSpec):
    name = "noteNode"
    fields = ("node", "note")

    def parse(self, ctx: ParseContext, m: dict[str, Any]) -> dict[str, Any]:
        return {**self.parse_node(ctx, m), "note": ctx.string(m, "note", required="the note")}

    def apply(self, sim: Any, params: dict[str, Any]) -> None:
        registry.spec_of("setNodeLabels").apply(sim, {"node": params["node"], "labels": {"note": params["note"]}})


@pytest.fixture
def note_node(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    registry.register(NoteNode())
    monkeypatch.setitem(run_forms.FORMS, "noteNode", ("form-note-node", ("node", "note")))
    yield
    registry.unregister("noteNode")


def test_a_registered_kind_with_a_form_entry_is_checked_queued_and_applied(
    note_node: None, inline_worker: list  # noqa: F811
) -> None:
    run = start("drain-pdb")
    params = run_forms.cluster_action_from_form({"what": "noteNode", "node": "worker-3", "note": "hi"})
    assert params == {"action": "noteNode", "node": "worker-3", "note": "hi"}
    done = act(run, RunAction.KIND_CLUSTER, params)
    assert done.state == RunAction.STATE_DONE
    nodes = {n["name"]: n for n in view_at(run=run, step=run.head_step)["nodes"]}
    assert nodes["worker-3"]["labels"]["note"] == "hi"
    with pytest.raises(run_errors.RunError) as error:
        act(run, RunAction.KIND_CLUSTER, {"action": "noteNode", "node": "worker-9", "note": "x"})
    assert error.value.field == "node" and 'node "worker-9" does not exist' in error.value.message
