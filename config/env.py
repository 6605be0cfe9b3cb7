"""Small helpers for reading settings from the environment."""

from __future__ import annotations

import os

TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"0", "false", "no", "off", ""})


def env_bool(name: str, default: bool) -> bool:
    """Read a boolean such as ``DEBUG=true``; unknown words are an error, not False."""
    raw = os.environ.get(name)
    if raw is None:
        return default
    word = raw.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ValueError(f"{name}={raw!r} is not a boolean (use true or false)")


def env_list(name: str, default: list[str]) -> list[str]:
    """Read a comma-separated list such as ``ALLOWED_HOSTS=example.org,www.example.org``."""
    raw = os.environ.get(name)
    if raw is None:
        return list(default)
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_int(name: str, default: int, *, minimum: int = 1) -> int:
    """Read a whole number such as ``PLAYGROUND_MAX_NODES=20000`` (underscores allowed, as in
    ``5_000``); anything else, or a value below `minimum`, is an error naming the variable."""
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        raise ValueError(f"{name}={raw!r} is not a whole number") from None
    if value < minimum:
        raise ValueError(f"{name}={raw!r} must be at least {minimum}")
    return value


def production_problems(*, debug: bool, secret_key: str, default_secret_key: str) -> list[str]:
    """What makes these settings unfit for production (empty when they are fine)."""
    problems = []
    if debug:
        problems.append("DEBUG is on")
    if not secret_key or secret_key == default_secret_key:
        problems.append("SECRET_KEY is not set (the built-in development key is in use)")
    return problems
