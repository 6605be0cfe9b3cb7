"""Scenarios: what a user edits (metadata) and its Kubernetes objects, one row per manifest."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models


def new_share_token() -> str:
    """An unguessable token (256 bits) naming a scenario in its share link."""
    return secrets.token_urlsafe(32)


class Scenario(models.Model):
    """A scenario the user edits: metadata here, its Kubernetes objects in ScenarioObject rows.

    Ownership: `owner_token` is the anonymous owner's session token (no sign-up); `owner` is
    set as well when the creator was signed in. Whoever knows `share_token` may read it.
    Gallery scenarios (`is_gallery`) belong to nobody and are read-only: users fork them.
    """

    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    seed = models.PositiveIntegerField(default=0)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="scenarios"
    )
    owner_token = models.CharField(max_length=64, blank=True, db_index=True)
    share_token = models.CharField(max_length=64, unique=True, default=new_share_token, editable=False)
    is_gallery = models.BooleanField(default=False)
    gallery_slug = models.SlugField(max_length=100, unique=True, null=True, blank=True)
    gallery_order = models.PositiveIntegerField(default=0)
    gallery_hash = models.CharField(max_length=64, blank=True)  # sha256 of the seeded file
    explanation = models.TextField(blank=True)
    # The feature gates a run of this scenario starts with unless the start form changes them
    # ("A=true,B=false"; a gallery file's `# feature-gates:` header): a gang lesson needs its gates.
    feature_gates = models.CharField(max_length=2000, blank=True, default="")
    forked_from = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="forks")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # The objects' canonical YAML (what export writes and a run snapshots) and the version of
    # the objects it was built from (selectors.scenarios.objects_version). Building it takes
    # seconds at 5,000 nodes, so it is built once per version, away from the Start click.
    yaml_cache = models.TextField(blank=True, default="", editable=False)
    yaml_cache_version = models.CharField(max_length=100, blank=True, default="", editable=False)
    # The pods its workloads will create, by owner (selectors.workload_pods), as the loader found
    # them when the objects were stored, and the objects' version then: the scenario page shows
    # them without loading the scenario again (20 s of CPU at 150,000 pods).
    workload_pods_cache = models.JSONField(null=True, blank=True, editable=False)
    workload_pods_version = models.CharField(max_length=100, blank=True, default="", editable=False)

    class Meta:
        ordering = ["-updated_at", "-id"]

    def __str__(self) -> str:
        return self.name


class ScenarioObject(models.Model):
    """One Kubernetes object of a scenario, stored as the plain manifest the engine's loader reads.

    `kind`, `namespace` and `name` are copies of the manifest's identity for listing and lookups;
    `order` is the document order (pods enter the scheduling queue in that order).
    """

    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="kube_objects")
    kind = models.CharField(max_length=100)
    namespace = models.CharField(max_length=253, blank=True)
    name = models.CharField(max_length=253, blank=True)
    order = models.PositiveIntegerField()
    manifest = models.JSONField()

    class Meta:
        ordering = ["order", "id"]
        indexes = [
            models.Index(fields=["scenario", "kind", "order"]),
            models.Index(fields=["scenario", "kind", "namespace", "name"]),
        ]

    def __str__(self) -> str:
        where = f"{self.namespace}/" if self.namespace else ""
        return f"{self.kind} {where}{self.name}"


class PreparedStart(models.Model):
    """A big scenario's run start, computed ahead by a worker after its objects changed.

    Starting a run loads the scenario into the engine (seconds at 5,000 nodes); a worker does it
    beforehand for the scenario's seed and the default Kubernetes version, and "Start run" then
    restores this engine state instead. `key` says what it was computed from (the objects'
    version, seed, version): a start with anything else computes its own.
    """

    scenario = models.OneToOneField(Scenario, on_delete=models.CASCADE, related_name="prepared_start")
    key = models.CharField(max_length=200)
    # What the start is a function of (the YAML text, seed, version, gates, limits), hashed: a
    # start of any scenario with the same content reuses it (thirty forks of one scenario load it once).
    content_key = models.CharField(max_length=64, blank=True, default="", db_index=True)
    checkpoint = models.BinaryField()  # Simulation.checkpoint() after the start's events were taken
    events = models.JSONField()  # the start's events (run_started, the pods entering the queue)
    frame = models.JSONField(default=dict)  # frame 0's fields (RunFrame), its view included
    fields = models.JSONField(default=dict)  # the run's fields after its start (head, seq, clock, ...)
    created_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"prepared start of scenario {self.scenario_id} ({self.key})"


class ScenarioUpload(models.Model):
    """A big upload waiting for a worker's check: the raw YAML of a new scenario (an upload, a
    paste), of an import into a scenario, or of a YAML-view page's edit, kept until a worker has
    run the engine's loader over it (seconds of CPU at the web's limits: never in a request;
    services.scenario_uploads). Then it is `done` (the scenario holds the objects; `scenario`
    names it) or `failed` (the loader's located error; nothing else was changed). Only its
    uploader sees it (the owner columns, as a scenario's); its address is `token`.
    """

    CHECKING, DONE, FAILED = "checking", "done", "failed"
    CREATE, IMPORT, DOCUMENTS = "create", "import", "documents"
    OBJECT = "object"  # an editor form's save or delete of one object (params: kind, object_id, manifest, delete)

    token = models.CharField(max_length=64, unique=True, default=new_share_token, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE,
                              related_name="+")
    owner_token = models.CharField(max_length=64, blank=True, db_index=True)
    operation = models.CharField(max_length=20, default=CREATE)
    # The scenario imported into or edited (IMPORT, DOCUMENTS); a new one's, once created (CREATE).
    scenario = models.ForeignKey(Scenario, null=True, blank=True, on_delete=models.CASCADE, related_name="uploads")
    name = models.CharField(max_length=200, blank=True)
    description = models.TextField(blank=True)
    seed = models.PositiveIntegerField(default=0)
    source = models.CharField(max_length=300, blank=True)
    params = models.JSONField(default=dict, blank=True)  # DOCUMENTS: first, count, stamp; OBJECT: see above
    status = models.CharField(max_length=20, default=CHECKING)
    error = models.TextField(blank=True)  # FAILED: the loader's message (document, field, why)
    error_where = models.JSONField(default=dict, blank=True)  # its document, kind, name, field
    notices = models.JSONField(default=dict, blank=True)  # DONE: lines to show once on the scenario page
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    text = models.TextField(blank=True)  # the YAML as uploaded (decompressed); emptied once checked; last: big

    def __str__(self) -> str:
        return f"upload {self.pk} ({self.operation}, {self.status})"
