"""Reading a big upload's check (services.scenario_uploads): only its uploader may."""

from __future__ import annotations

from django.http import Http404

from playground.models import ScenarioUpload
from playground.ownership import Actor, owned_by


def upload_of(*, token: str, actor: Actor) -> ScenarioUpload:
    """The upload named `token` if `actor` sent it (anyone else: 404, as if there were none:
    the text is theirs until it is a scenario, which has its own share link). Its text is not read."""
    mine = owned_by(actor)
    if mine is None:
        raise Http404("No such upload")
    upload = ScenarioUpload.objects.defer("text").filter(mine, token=token).select_related("scenario").first()
    if upload is None:
        raise Http404("No such upload")
    return upload
