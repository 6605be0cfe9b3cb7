"""The operator's extender allow-list, as the web app applies it.

Scenarios are written by anyone (no sign-in needed), and a run calls the extenders its
scenario's KubeSchedulerConfiguration names. `EXTENDER_ALLOWED_URLS` (settings, from the
environment) lists the URL prefixes a run may call; the engine's `ExtenderPolicy` enforces it at
every call (and at connect time), and the scenario editor refuses a disallowed URL up front.
`EXTENDER_TIME_BUDGET` bounds the seconds one run action may spend waiting for extenders.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings


def web_policy() -> Any:
    """A fresh engine policy from the settings (budget clock not started)."""
    from scheduler_core.extender.policy import ExtenderPolicy

    budget = getattr(settings, "EXTENDER_TIME_BUDGET", None)
    return ExtenderPolicy.from_prefixes(
        list(getattr(settings, "EXTENDER_ALLOWED_URLS", [])), budget_seconds=float(budget) if budget else None
    )


def refused_extender(scenario: Any) -> tuple[str, str] | None:
    """(field path, message) for the first extender of a loaded scenario the operator does not
    allow; None when all are allowed. The check is the engine's own, without any request."""
    from scheduler_core.extender.policy import ExtenderURLRefused

    policy = web_policy()
    for i, extender in enumerate(scenario.config.extenders):
        try:
            policy.check(extender.url_prefix.rstrip("/") + "/")
        except ExtenderURLRefused as error:
            return f"extenders[{i}].urlPrefix", f"{error}. Ask the operator to add it to EXTENDER_ALLOWED_URLS."
    return None


EXTENDER_MARK = "urlPrefix"


def uses_extenders(scenario_yaml: str) -> bool:
    """Whether a run's scenario may call extenders (a cheap textual test: a false positive only
    sends the run to the extender queue, which serves it just as well)."""
    return EXTENDER_MARK in scenario_yaml
