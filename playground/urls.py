from __future__ import annotations

from django.urls import path

from playground import views, views_runs, views_scenarios

app_name = "playground"

urlpatterns = [
    path("", views.home, name="home"),
    path("diagnostics/", views.diagnostics, name="diagnostics"),
    # Scenarios. A scenario page's address is its share link; runs will add ?run=<id>&cycle=<n>.
    path("scenarios/", views_scenarios.scenario_list, name="scenarios"),
    path("scenarios/<str:token>/", views_scenarios.scenario_detail, name="scenario"),
    path("scenarios/<str:token>/export.yaml", views_scenarios.scenario_export, name="scenario_export"),
    path("gallery/<slug:slug>/", views_scenarios.gallery_detail, name="gallery"),
    # Runs (issue #6): start one from a scenario; the run page is also its share link (?cycle=N).
    path("scenarios/<str:token>/runs/", views_runs.run_start, name="run_start"),
    path("runs/<str:token>/", views_runs.run_detail, name="run"),
]
