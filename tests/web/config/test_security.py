"""Deployment security: `check --deploy` clean in production, the CSP header, diagnostics for
staff only in production, pings rate-limited (real Redis)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from playground.models import DiagnosticPing

ROOT = Path(__file__).resolve().parents[3]


def test_check_deploy_is_clean_in_production() -> None:
    unset = {"DEBUG", "SECRET_KEY", "DJANGO_ENV", "DJANGO_ALLOW_ASYNC_UNSAFE"}  # the tests' own setting
    env = {k: v for k, v in os.environ.items() if k not in unset}
    env.update(DJANGO_ENV="production", DEBUG="false", SECRET_KEY="k" * 20 + "-a-real-secret-" + "x" * 40,
               ALLOWED_HOSTS="example.org")
    result = subprocess.run([sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_production_settings_say_https(monkeypatch: pytest.MonkeyPatch) -> None:
    code = ("from django.conf import settings as s; print(s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, "
            "s.SECURE_SSL_REDIRECT, s.SECURE_HSTS_SECONDS > 0, s.SECURE_PROXY_SSL_HEADER, s.EXTENDER_ALLOWED_URLS)")
    env = dict(os.environ, DJANGO_ENV="production", DEBUG="false", SECRET_KEY="y" * 60,
               DJANGO_SETTINGS_MODULE="config.settings")
    env.pop("EXTENDER_ALLOWED_URLS", None)
    out = subprocess.run([sys.executable, "-c", "import django; django.setup(); " + code], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["True", "True", "True", "True", "None", "[]"], out.stderr
    env.update(SECURE_SSL_REDIRECT="false", SECURE_PROXY_SSL_HEADER="true")
    out = subprocess.run([sys.executable, "-c", "import django; django.setup(); " + code], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=60)
    assert out.stdout.split()[2] == "False" and "HTTP_X_FORWARDED_PROTO" in out.stdout, out.stderr


@pytest.mark.django_db
def test_every_page_has_a_script_policy_without_inline_or_eval(client: Client) -> None:
    policy = client.get("/").headers["Content-Security-Policy"]
    script = next(d for d in policy.split("; ") if d.startswith("script-src"))
    assert script == "script-src 'self'"
    assert "frame-ancestors 'none'" in policy
    html = client.get("/diagnostics/").content.decode()
    assert "<script>" not in html and "keyup[" not in html


@pytest.mark.django_db
def test_diagnostics_is_staff_only_when_not_public(client: Client, settings: Any) -> None:
    settings.DIAGNOSTICS_PUBLIC = False
    response = client.get("/diagnostics/")
    assert response.status_code == 302 and response["Location"].startswith("/admin/login/")
    assert client.post("/diagnostics/").status_code == 302
    assert not DiagnosticPing.objects.exists()
    User.objects.create_user("plain", password="pw")
    client.login(username="plain", password="pw")
    assert client.get("/diagnostics/").status_code == 302
    User.objects.create_user("staff", password="pw", is_staff=True)
    client.login(username="staff", password="pw")
    assert client.get("/diagnostics/").status_code == 200


@pytest.mark.django_db
def test_pings_are_rate_limited_per_client(client: Client, settings: Any, redis_url: str) -> None:
    settings.REDIS_URL = redis_url
    settings.DIAGNOSTICS_PINGS_PER_MINUTE = 3
    client.get("/")  # no session yet: keyed by address
    codes = [client.post("/diagnostics/", HTTP_HX_REQUEST="true").status_code for _ in range(5)]
    assert codes == [200, 200, 200, 429, 429]
    assert DiagnosticPing.objects.count() == 3
    other = Client(REMOTE_ADDR="10.1.2.3")
    assert other.post("/diagnostics/", HTTP_HX_REQUEST="true").status_code == 200
