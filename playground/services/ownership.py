"""Who owns what without sign-up: an owner token kept in the visitor's session.

The first time a visitor creates or forks a scenario, a random token is stored in their
session; scenarios they create carry it (and the user, when signed in). Losing the session
cookie means losing edit rights, never the scenario: the share link still opens it read-only,
and "fork" makes a new editable copy.
"""

from __future__ import annotations

import secrets

from django.http import HttpRequest

from playground.selectors.scenarios import Actor

SESSION_KEY = "playground_owner_token"


def actor_for_request(request: HttpRequest, *, create: bool = False) -> Actor:
    """The Actor behind `request`; with `create`, give the session an owner token if it has none."""
    token = request.session.get(SESSION_KEY, "")
    if not token and create:
        token = secrets.token_urlsafe(32)
        request.session[SESSION_KEY] = token
    user = request.user if getattr(request, "user", None) is not None and request.user.is_authenticated else None
    return Actor(session_token=token, user=user)
