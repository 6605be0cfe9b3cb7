"""The run page's per-cell filters (filter_cells, score_cells, pod_chips, nominated_chips) print
exactly what the template loops they replaced printed, escaping included."""

from __future__ import annotations

from typing import Any

from django.template import Context, Template

from playground.templatetags.run_tags import filter_cells, nominated_chips, pod_chips, score_cells

# The loops as the templates had them before the filters (filter_matrix.html, scores.html,
# node_card.html).
FILTER_LOOP = (
    '{% for v in cells %}<td class="cell-{{ v.kind }} code-{{ v.code|cut:\' \' }}" title="{{ v.title }}" '
    'data-kind="{{ v.kind }}">{{ v.symbol }}{% if v.kind == "reject" or v.kind == "error" %} '
    '{{ v.reasons|join:"; " }}{% endif %}</td>{% endfor %}'
)
SCORE_LOOP = (
    "{% for c in cells %}<td>{% if c %}{{ c.raw }} → {{ c.normalized }} → <strong>{{ c.weighted }}</strong>"
    "{% endif %}</td>{% endfor %}"
)
POD_LOOP = (
    '{% load run_tags %}{% for p in items %}<li class="pod-chip {% if p.deleting %}leaving{% else %}bound{% endif %}'
    '{% if p.assumed %} assumed{% endif %}{% if p.moved %} moved from-{{ p.moved }}{% endif %}" '
    'data-pod="{{ p.key }}"{% if p.deleting %} title="deleted in the API; the scheduler still counts it until '
    'the Delete event reaches its informer"{% endif %}>{{ p.key|pod_name }}{% if p.deleting %} '
    "<small>deleting</small>{% endif %}</li>{% endfor %}"
)
NOMINATED_LOOP = (
    '{% load run_tags %}{% for p in items %}<li class="pod-chip ghost{% if p.moved %} moved{% endif %}" '
    'data-pod="{{ p.key }}" title="nominated: preemption made room here">{{ p.key|pod_name }} '
    "<small>nominated</small></li>{% endfor %}"
)


def _loop(source: str, **context: Any) -> str:
    return Template(source).render(Context(context))


def test_filter_cells_print_what_the_loop_printed() -> None:
    cells = [
        {"code": "Success", "kind": "pass", "symbol": "✓", "reasons": [], "title": "passed"},
        {"code": "Skip", "kind": "skip", "symbol": "·", "reasons": [], "title": "skipped (PreFilter)"},
        {"code": "UnschedulableAndUnresolvable", "kind": "reject", "symbol": "✗",
         "reasons": ["node(s) didn't match <Pod's> node affinity/selector", 'a "quoted" & reason'],
         "title": "UnschedulableAndUnresolvable: node(s) didn't match <Pod's> node affinity/selector"},
        {"code": "Error", "kind": "error", "symbol": "!", "reasons": [], "title": "Error"},
        {"code": "not sent", "kind": "unsent", "symbol": "∅", "reasons": ["x"], "title": "not sent: <b>"},
        {"code": "NotEvaluated", "kind": "notrun", "symbol": "–", "reasons": [], "title": "not run"},
    ]
    printed = filter_cells(cells)
    assert printed == _loop(FILTER_LOOP, cells=cells)
    assert "&lt;Pod&#x27;s&gt;" in printed and "<Pod" not in printed and "code-notsent" in printed
    assert filter_cells([]) == ""


def test_score_cells_print_what_the_loop_printed() -> None:
    cells = [
        {"raw": 0, "normalized": 100, "weighted": 200},
        None,
        {"raw": 12.5, "normalized": 37.25, "weighted": -3, "extender": True},
        {"raw": "<b>", "normalized": 1, "weighted": 1},
    ]
    assert score_cells(cells) == _loop(SCORE_LOOP, cells=cells)
    assert "<td></td>" in score_cells(cells) and "&lt;b&gt;" in score_cells(cells)


def test_pod_and_nominated_chips_print_what_the_loops_printed() -> None:
    items = [
        {"key": "default/web-1", "moved": "", "assumed": False, "deleting": False},
        {"key": "kube-system/dns", "moved": "activeQ", "assumed": True, "deleting": False},
        {"key": "default/old", "moved": "new", "assumed": False, "deleting": True},
        {"key": "default/<x>", "moved": "no\"de", "assumed": True, "deleting": True},
    ]
    assert pod_chips(items) == _loop(POD_LOOP, items=items)
    ghosts = [{"key": "default/high", "moved": "nominated"}, {"key": "ns/<p>", "moved": ""}]
    assert nominated_chips(ghosts) == _loop(NOMINATED_LOOP, items=ghosts)
    assert "web-1" in pod_chips(items) and "&lt;x&gt;" in pod_chips(items)
