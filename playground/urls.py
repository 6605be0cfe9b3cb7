"""Page routes (websocket routes: playground.routing)."""

from __future__ import annotations

from django.urls import path

from playground.presenters.runs import panels
from playground.views import (
    capacity,
    challenges,
    compare,
    diagnostics,
    docs,
    gallery,
    home,
    operator_metrics,
    run_export,
    run_metrics,
    run_panels,
    run_why_pending,
    runs,
    scenario_editor,
    scenario_uploads,
    scenario_yaml,
    scenarios,
    then_and_now,
)

app_name = "playground"

urlpatterns = [
    path("", home.home, name="home"),
    path("diagnostics/", diagnostics.diagnostics, name="diagnostics"),
    path("metrics", operator_metrics.operator_metrics, name="operator_metrics"),
    path("docs/", docs.docs_index, name="docs"),
    path("docs/then-and-now/", then_and_now.then_and_now_page, name="then_and_now"),
    path("docs/<slug:slug>/", docs.docs_page, name="docs_page"),
    # Scenarios. A scenario page's address is its share link.
    path("scenarios/", scenarios.scenario_list, name="scenarios"),
    path("scenarios/checking/<str:token>/", scenario_uploads.scenario_upload, name="scenario_upload"),
    path("scenarios/<str:token>/", scenario_editor.scenario_detail, name="scenario"),
    path("scenarios/<str:token>/export.yaml", scenarios.scenario_export, name="scenario_export"),
    path("scenarios/<str:token>/yaml/", scenario_yaml.scenario_yaml_view, name="scenario_yaml"),
    path("scenarios/<str:token>/objects/<slug:section>/", scenario_editor.scenario_objects, name="scenario_objects"),
    path("scenarios/<str:token>/compare/", compare.scenario_compare, name="scenario_compare"),
    path("scenarios/<str:token>/capacity/", capacity.scenario_capacity, name="scenario_capacity"),
    path("scenarios/<str:token>/challenge/", challenges.challenge_builder, name="challenge_builder"),
    path("scenarios/<str:token>/challenge/results/", challenges.challenge_results_page, name="challenge_results"),
    path("gallery/", gallery.gallery_index, name="gallery_index"),
    path("gallery/<slug:slug>/", scenarios.gallery_detail, name="gallery"),
    # Runs: start one from a scenario; the run page is also its share link (?cycle=N | ?step=S).
    path("scenarios/<str:token>/runs/", runs.run_start, name="run_start"),
    path("runs/<str:token>/", runs.run_detail, name="run"),
    # The run page's searchable, paged parts (htmx GETs).
    path("runs/<str:token>/results.json", run_export.run_export_json, name="run_export_json"),
    path("runs/<str:token>/pods.csv", run_export.run_export_csv, {"what": "pods"}, name="run_export_pods"),
    path("runs/<str:token>/events.csv", run_export.run_export_csv, {"what": "events"}, name="run_export_events"),
    path("runs/<str:token>/metrics/", run_metrics.run_metrics, name="run_metrics"),
    path("runs/<str:token>/compare/", compare.run_compare, name="run_compare"),
    path("runs/<str:token>/why-pending/", run_why_pending.run_why_pending, name="run_why_pending"),
    path("runs/<str:token>/metrics.txt", run_metrics.run_metrics_text, name="run_metrics_text"),
    # The paged panels' pages (run_cluster, run_map, run_devices, run_pods, ...): the panel registry's.
    *(
        path(f"runs/<str:token>/{p.paged.path}/", run_panels.run_panel, {"key": p.key}, name=p.paged.url_name)
        for p in panels.REGISTRY.paged()
        if p.paged is not None
    ),
    path("runs/<str:token>/node/", run_panels.run_node, name="run_node"),
    path("runs/<str:token>/log/", run_panels.run_log, name="run_log"),
    path("runs/<str:token>/log/gap/", run_panels.run_log_gap, name="run_log_gap"),
    path("runs/<str:token>/filter-group/", run_panels.run_filter_group, name="run_filter_group"),
    path("runs/<str:token>/scores/", run_panels.run_scores, name="run_scores"),
]
