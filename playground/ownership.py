"""Who owns what, without sign-up: every ownership decision of the app is made here.

The first time a visitor creates or forks a scenario (or starts a run), a random token is stored in
their session; what they create carries it (and the user, when signed in). Losing the session
cookie means losing edit rights, never the scenario or run: the share link still opens it
read-only, and "fork" makes a new copy of one's own.

- `Actor`: who is asking (from a request: `actor_for_request`; from a websocket: `actor_for_scope`).
- `can_edit` (scenarios) and `can_control` (runs) answer "may this actor change it?";
  `ensure_can_edit` / `ensure_can_control` raise PermissionDenied with the message users read.
- `owner_fields` stamps a new row with its owner; `owned_by` filters rows owned by an actor.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.core.exceptions import PermissionDenied
from django.db.models import Q
from django.http import HttpRequest

if TYPE_CHECKING:
    from playground.models import Run, Scenario

SESSION_KEY = "playground_owner_token"


@dataclass(frozen=True)
class Actor:
    """Who is asking: the session's anonymous owner token and, when signed in, the user."""

    session_token: str = ""
    user: Any = None  # an authenticated User, or None

    @property
    def user_id(self) -> int | None:
        user = self.user
        if user is not None and getattr(user, "is_authenticated", False):
            return user.pk
        return None


def actor_for_request(request: HttpRequest, *, create: bool = False) -> Actor:
    """The Actor behind `request`; with `create`, give the session an owner token if it has none."""
    token = request.session.get(SESSION_KEY, "")
    if not token and create:
        token = secrets.token_urlsafe(32)
        request.session[SESSION_KEY] = token
    user = request.user if getattr(request, "user", None) is not None and request.user.is_authenticated else None
    return Actor(session_token=token, user=user)


def actor_for_scope(scope: Mapping[str, Any]) -> Actor:
    """The Actor behind a websocket connection (Channels' session and auth middleware fill `scope`)."""
    session = scope.get("session")
    user = scope.get("user")
    return Actor(
        session_token=(session.get(SESSION_KEY, "") if session is not None else ""),
        user=user if user is not None and getattr(user, "is_authenticated", False) else None,
    )


def _owns(row: Scenario | Run, actor: Actor) -> bool:
    if actor.user_id is not None and row.owner_id == actor.user_id:
        return True
    return bool(actor.session_token) and row.owner_token == actor.session_token


def can_edit(*, scenario: Scenario, actor: Actor) -> bool:
    """Owners edit their scenarios; nobody edits a gallery scenario (fork it instead)."""
    if scenario.is_gallery:
        return False
    return _owns(scenario, actor)


def can_control(*, run: Run, actor: Actor) -> bool:
    """The person who started (or forked) the run drives it; everyone else watches."""
    return _owns(run, actor)


def ensure_can_edit(*, scenario: Scenario, actor: Actor) -> None:
    if not can_edit(scenario=scenario, actor=actor):
        if scenario.is_gallery:
            raise PermissionDenied("Gallery scenarios are read-only: fork it to make your own copy.")
        raise PermissionDenied("Only the owner can change this scenario: fork it to make your own copy.")


def ensure_can_control(*, run: Run, actor: Actor) -> None:
    if not can_control(run=run, actor=actor):
        raise PermissionDenied("Only the person who started this run can drive it: fork it to get your own.")


def ensure_has_identity(actor: Actor, doing: str) -> None:
    """Creating something needs an owner to give it: a session token or a signed-in user."""
    if not actor.session_token and actor.user_id is None:
        raise PermissionDenied(f"{doing} needs a session (enable cookies).")


def owner_fields(actor: Actor) -> dict[str, Any]:
    """The owner columns of a new scenario or run created by `actor`."""
    return {"owner_token": actor.session_token, "owner_id": actor.user_id}


def owned_by(actor: Actor) -> Q | None:
    """A filter for the rows (scenarios or runs) `actor` owns; None when the actor is nobody."""
    clauses = []
    if actor.session_token:
        clauses.append(Q(owner_token=actor.session_token))
    if actor.user_id is not None:
        clauses.append(Q(owner_id=actor.user_id))
    if not clauses:
        return None
    query = clauses[0]
    for clause in clauses[1:]:
        query |= clause
    return query
