from __future__ import annotations

from django.urls import path

from playground import views

app_name = "playground"

urlpatterns = [
    path("", views.home, name="home"),
    path("diagnostics/", views.diagnostics, name="diagnostics"),
]
