"""Settings come from the environment; production refuses unsafe ones."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from config.env import env_bool, env_list, production_problems

ROOT = Path(__file__).resolve().parents[3]


def manage_check(**env: str) -> subprocess.CompletedProcess[str]:
    """Start Django for real (`manage.py check`) in a clean process with `env`."""
    full_env = {k: v for k, v in os.environ.items() if k not in {"DEBUG", "SECRET_KEY", "DJANGO_ENV"}}
    full_env.update(env)
    return subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_production_refuses_debug_on() -> None:
    result = manage_check(DJANGO_ENV="production", DEBUG="true", SECRET_KEY="a-real-secret-" + "x" * 40)
    assert result.returncode != 0
    assert "Refusing to start in production: DEBUG is on" in result.stderr


def test_production_refuses_the_default_secret_key() -> None:
    result = manage_check(DJANGO_ENV="production", DEBUG="false")
    assert result.returncode != 0
    assert "SECRET_KEY is not set" in result.stderr


def test_production_starts_with_safe_settings() -> None:
    result = manage_check(
        DJANGO_ENV="production", DEBUG="false", SECRET_KEY="a-real-secret-" + "x" * 40, ALLOWED_HOSTS="example.org"
    )
    assert result.returncode == 0, result.stderr


def test_development_defaults_start() -> None:
    result = manage_check()
    assert result.returncode == 0, result.stderr


def test_production_problems_lists_each_problem() -> None:
    assert production_problems(debug=True, secret_key="dev", default_secret_key="dev") == [
        "DEBUG is on",
        "SECRET_KEY is not set (the built-in development key is in use)",
    ]
    assert production_problems(debug=False, secret_key="real", default_secret_key="dev") == []


def test_env_bool_and_list(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FLAG", "Yes")
    assert env_bool("FLAG", default=False) is True
    monkeypatch.setenv("FLAG", "off")
    assert env_bool("FLAG", default=True) is False
    monkeypatch.setenv("FLAG", "maybe")
    with pytest.raises(ValueError, match="not a boolean"):
        env_bool("FLAG", default=False)
    monkeypatch.delenv("FLAG")
    assert env_bool("FLAG", default=True) is True
    monkeypatch.setenv("HOSTS", " a.example, b.example ,")
    assert env_list("HOSTS", []) == ["a.example", "b.example"]


@pytest.mark.postgres
@pytest.mark.django_db
def test_database_is_the_one_database_url_names() -> None:
    """Under `./dev test`'s second pass the web tests must really talk to PostgreSQL."""
    import os

    from django.db import connection

    url = os.environ.get("DATABASE_URL", "")
    expected = "postgresql" if url.startswith(("postgres://", "postgresql://")) else "sqlite"
    assert connection.vendor == expected
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        assert cursor.fetchone()[0] == 1
