"""No warning when the app starts or serves: `manage.py check` is silent with warnings made
errors, and the panels the websocket consumer renders without a request (the lesson's predict
form, the classroom bar) do not make Django warn that `{% csrf_token %}` had no value (htmx
sends the token in a header; the live web server's log showed that warning on every update)."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

from django.template.loader import render_to_string

from tests.web.teach_frames import gallery_frames, screen_at

ROOT = Path(__file__).resolve().parents[3]


def test_manage_check_is_silent_with_warnings_as_errors() -> None:
    env = dict(os.environ, PYTHONWARNINGS="error", DJANGO_SETTINGS_MODULE="config.settings")
    result = subprocess.run([sys.executable, "-W", "error", "manage.py", "check"], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0 and result.stderr == "", result.stderr
    assert result.stdout.strip() == "System check identified no issues (0 silenced)."


def test_the_live_panels_render_without_a_request_and_without_warnings(settings: Any) -> None:
    settings.DEBUG = True  # Django warns about an empty {% csrf_token %} under DEBUG only (development)
    entry_text = (ROOT / "playground/gallery/resource-fit.yaml").read_text()
    screen = screen_at(gallery_frames("resource-fit"), 0, text=entry_text)
    screen.run.share_token = "token"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lesson = render_to_string("playground/runs/partials/live_viewer.html",
                                  {"run": screen.run, "screen": screen, "oob": True, "seen": 0})
        classroom = render_to_string("playground/runs/partials/classroom.html",
                                     {"run": screen.run, "screen": screen, "owner": True, "presenting": True})
    assert 'id="predict-form"' in lesson and "csrfmiddlewaretoken" not in lesson
    assert 'id="presenting-bar"' in classroom
