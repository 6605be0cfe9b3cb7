"""The scenario page's context, whole or by part.

The page is made of parts, each a partial whose root element carries a fixed id. The whole page
renders them all; an editor action (an htmx post) answers with only the parts it changed, each
swapped in out-of-band by id, so saving one node of a 5,000-node scenario returns a few KB
rather than the page. PARTS names them; `parts_html` renders a chosen few.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.contrib import messages
from django.http import HttpRequest
from django.template.loader import render_to_string
from django.urls import reverse

from playground.forms import FORM_BY_KIND, BulkNodesForm, PodBatchForm, ScenarioDetailsForm, SchedulerConfigForm
from playground.ownership import can_edit
from playground.presenters.load_warnings import NEWER_TAG, NOT_SIMULATED_TAG, REFERENCE_TAG
from playground.presenters.scenarios.listing import SECTIONS, listing
from playground.presenters.scenarios.yaml_view import yaml_panel
from playground.selectors.runs import runs_of_scenario
from playground.selectors.scenarios import FORM_KINDS, scenario_config_object, scenario_counts
from playground.selectors.workload_pods import workload_pods
from scheduler_core.featuregate.features import SUPPORTED_VERSIONS

_T = "playground/scenarios/partials/"
# part name -> its template; "section:<slug>" parts use object_section.html.
PARTS = {
    "heading": _T + "heading.html",
    "messages": _T + "messages.html",
    "details": _T + "details.html",
    "config": _T + "scheduler_config.html",
    "other": _T + "other_section.html",
    "bulk": _T + "bulk_helpers.html",
    "yaml": _T + "yaml.html",
}
SECTION_SLUGS = tuple(kind.lower() for kind, _title in SECTIONS)
ALL_PARTS = ("heading", "messages", "details", *(f"section:{s}" for s in SECTION_SLUGS), "config", "other", "bulk",
             "yaml")


def page_url(scenario: Any) -> str:
    return reverse("playground:scenario", args=[scenario.share_token])


def object_form(kind: str, obj: Any = None, data: Any = None) -> Any:
    form_class = FORM_BY_KIND[kind]
    if data is not None:
        return form_class(data, prefix=kind.lower())
    initial = form_class.initial_from(obj.manifest) if obj is not None else None
    return form_class(initial=initial, prefix=kind.lower())


def editor_context(
    request: HttpRequest, scenario: Any, actor: Any, parts: Iterable[str] = ALL_PARTS, **overrides: Any
) -> dict[str, Any]:
    """The context of the page (all parts) or of the `parts` an action re-renders. Only what
    those parts show is read: a page of each list, counts by kind, the YAML when it is small."""
    parts = set(parts)
    whole = parts >= set(ALL_PARTS)
    editable = can_edit(scenario=scenario, actor=actor)
    editing: dict[str, Any] = overrides.pop("editing", {})
    bound: dict[str, Any] = overrides.pop("bound", {})
    counts = scenario_counts(scenario=scenario)
    context: dict[str, Any] = {
        "scenario": scenario,
        "can_edit": editable,
        "page_url": page_url(scenario),
        "counts": counts,
        # The pods its workloads will create when a run starts (an imported cluster is not "0 pods").
        "workload_pods": workload_pods(scenario=scenario, counts=counts),
        "other_counts": sorted((k, n) for k, n in counts.items() if k not in ("Node", "Pod")),
        "other_total": sum(n for k, n in counts.items() if k not in FORM_KINDS),
    }
    if "messages" in parts:
        # Flashed messages (after a plain post's redirect): the "not simulated" lines form one list.
        flashed = list(messages.get_messages(request))
        context["flashed"] = [m for m in flashed if NOT_SIMULATED_TAG not in m.tags and REFERENCE_TAG not in m.tags
                              and NEWER_TAG not in m.tags]
        context["not_simulated"] = [m.message for m in flashed if NOT_SIMULATED_TAG in m.tags]
        context["references"] = [m.message for m in flashed if REFERENCE_TAG in m.tags]
        context["newer"] = [m.message for m in flashed if NEWER_TAG in m.tags]
    # An action re-renders a list with the search it was sent with (the edited row stays in view).
    search = {"q": request.POST.get("q", "")} if request.method == "POST" else None
    sections = []
    for kind, title in SECTIONS:
        slug = kind.lower()
        if f"section:{slug}" in parts:
            sections.append({
                "kind": kind, "title": title, "slug": slug, "count": counts.get(kind, 0),
                "listing": listing(scenario, slug, search),
                "form": bound.get(kind) or object_form(kind), "editing": editing.get(kind),
            })
    context["sections"] = sections
    if "other" in parts:
        context["other"] = listing(scenario, "other", search)
    if "config" in parts:
        config_object = scenario_config_object(scenario=scenario)
        context["config_object"] = config_object
        context["config_form"] = bound.get("config") or SchedulerConfigForm(
            initial=SchedulerConfigForm.initial_from(config_object.manifest if config_object else None),
            prefix="config",
        )
    if "details" in parts:
        context["details_form"] = bound.get("details") or ScenarioDetailsForm(
            initial={"name": scenario.name, "description": scenario.description, "seed": scenario.seed},
            prefix="details",
        )
    if "bulk" in parts:
        context["bulk_nodes_form"] = bound.get("bulk_nodes") or BulkNodesForm(prefix="bulknodes")
        context["pod_batch_form"] = bound.get("pod_batch") or PodBatchForm(prefix="podbatch")
    if "yaml" in parts:
        context["yaml_panel"] = yaml_panel(scenario, sum(counts.values()))
        context["import_form"] = bound.get("import")
    if whole:
        context.update(
            share_url=request.build_absolute_uri(page_url(scenario)),
            my_runs=runs_of_scenario(scenario=scenario, actor=actor),
            kubernetes_versions=SUPPORTED_VERSIONS,  # the default (v1.35) first: preselected
            # Room for the runs issue: a link may point into a run at a given cycle.
            run_id=request.GET.get("run", ""),
            cycle=request.GET.get("cycle", ""),
        )
    context.update(overrides)
    return context


def parts_html(request: HttpRequest, context: dict[str, Any], parts: Iterable[str]) -> str:
    """The chosen parts, each marked for an out-of-band swap (an htmx answer to an action)."""
    html = []
    sections = {s["slug"]: s for s in context.get("sections", [])}
    for part in parts:
        if part.startswith("section:"):
            section = sections.get(part.partition(":")[2])
            if section is not None:
                html.append(render_to_string(_T + "object_section.html", {**context, "section": section, "oob": True},
                                             request=request))
        elif part == "details" and not context.get("can_edit"):
            continue
        else:
            html.append(render_to_string(PARTS[part], {**context, "oob": True}, request=request))
    return "\n".join(html)
