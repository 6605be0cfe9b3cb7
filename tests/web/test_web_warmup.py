"""A web process compiles the project's templates and imports its views before its first request."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from django.template import engines
from django.template.loaders.cached import Loader as CachedLoader

from playground.web_warmup import YOUNG_OBJECTS, project_templates, warm_web_process

ROOT = Path(__file__).resolve().parents[2]


def test_every_project_template_is_compiled_into_the_cached_loader() -> None:
    names = project_templates()
    assert "playground/runs/detail.html" in names and "base.html" in names and len(names) > 30
    assert warm_web_process() == len(names)
    loader = engines["django"].engine.template_loaders[0]
    assert isinstance(loader, CachedLoader)
    cached = {key.split("-")[0] for key in loader.get_template_cache}
    assert set(names) <= cached
    assert "playground.views.runs" in sys.modules and "playground.views.run_panels" in sys.modules


def test_the_asgi_entry_point_warms_its_process(tmp_path) -> None:
    """Loading the ASGI application, as the web server does, leaves the templates compiled and
    what start-up built out of the garbage collector's full passes, which come less often."""
    probe = ("import gc; import config.asgi; from django.template import engines; "
             "print(len(engines['django'].engine.template_loaders[0].get_template_cache), gc.get_freeze_count(), "
             "len(gc.get_objects()), gc.get_threshold()[0])")
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings",
           "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}"}
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=120, check=True)
    compiled, frozen, collectable, young = map(int, out.stdout.split())
    assert compiled >= len(project_templates())
    assert frozen > 50_000 and collectable < frozen / 20
    assert young == YOUNG_OBJECTS > 700
