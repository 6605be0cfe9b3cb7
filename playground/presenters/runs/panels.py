"""The run page's panels, listed once.

Every panel of the run page is one `Panel` in `REGISTRY`: its key (a paged panel's marker, query
form and body are the elements `<key>-refresh`, `<key>-query`, `<key>-body`), its title, its partial, the
presenter function whose result the partial reads as `screen.<attr>`, where it sits on the page
and in which order, when it is shown at all, who receives it live, and, for a panel that grows
with the cluster, how its page is fetched over HTTP.

Everything that used to list the panels by hand reads this list instead, so a panel registered
here is on the page, in every live update (the shared one of live viewers, and the one classroom
followers get), on `Screen` and, when paged, at its URL:
- `Screen` gets one cached property per presenter (`REGISTRY.bind`);
- `detail.html` includes the partials of each place in order (`Screen.layout`);
- `live_panels.html` (live viewers, rendered once per run state) and `live_update.html`
  (classroom followers and pinned pages, which include `live_panels.html`) loop over the live
  slots, sending a small `refresh.html` marker instead of a paged panel when it is large;
- `playground/urls.py` makes one URL per paged panel, served by `views/run_panels.run_panel`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from django.urls import reverse

from playground.presenters.runs import challenge as challenge_panel
from playground.presenters.runs import cluster as cluster_panel
from playground.presenters.runs import cluster_map as cluster_map_panel
from playground.presenters.runs import cycle as cycle_panel
from playground.presenters.runs import devices as devices_panel
from playground.presenters.runs import evictions as evictions_panel
from playground.presenters.runs import framework as framework_panel
from playground.presenters.runs import lesson as lesson_panel
from playground.presenters.runs import pods as pods_panel
from playground.presenters.runs import preemption as preemption_panel
from playground.presenters.runs import queues as queues_panel
from playground.presenters.runs import storage as storage_panel
from playground.presenters.runs import story as story_panel
from playground.presenters.runs import timeline as timeline_panel
from playground.presenters.runs import waiting as waiting_panel
from playground.presenters.runs.events import search_events
from playground.presenters.runs.screen import Screen

PARTIALS = "playground/runs/partials/"

# Where a panel sits on the page (detail.html), top to bottom: above the live area, across its
# top, the grid's two columns, under the grid.
PLACES = ("notices", "top", "left", "right", "bottom")

# Who receives a panel live:
# "shared"   every live viewer (rendered once per run state and audience) and classroom followers;
# "status"   with the status line, re-rendered on every queued action (live_status.html);
# "viewer"   each viewer apart (it reads that viewer's own answers: the lesson);
# "follower" only classroom followers (their page moves with the presenter's);
# "page"     nobody: it is on the page only (the controls, the export links).
LIVE = ("shared", "status", "viewer", "follower", "page")


def _always(screen: Screen) -> bool:
    return True


@dataclass(frozen=True)
class Paged:
    """A panel that grows with the cluster: the live update sends a `refresh.html` marker (when
    `when` holds) and the page fetches the panel's body at `runs/<token>/<path>/` with the
    viewer's query and page, so a live update stays small and keeps what the viewer searched."""

    path: str  # the URL's last segment
    url_name: str  # in the "playground" namespace
    body: str  # the partial the URL renders (under PARTIALS)
    context: Callable[[Screen], dict[str, Any]]  # the body's context, read from the Screen
    when: Callable[[Screen], bool] = _always  # a marker instead of the whole panel
    # The page fetches the body only while the panel is on screen (or when it scrolls into view):
    # a body too costly to render and send on every step for a panel nobody is looking at.
    when_visible: bool = False


@dataclass(frozen=True)
class Panel:
    """One panel of the run page (see the module's docstring)."""

    key: str
    title: str
    partial: str  # under PARTIALS
    place: str  # one of PLACES
    order: int  # page order within all places (lower first)
    live: str = "shared"  # one of LIVE
    presenter: Callable[[Screen], Any] | None = None  # read by the partial as screen.<attr>
    attr: str = ""  # default: the key
    shown: Callable[[Screen], bool] = _always  # false: neither the page nor a live update has it
    paged: Paged | None = None
    # A partial of its own for live updates (under PARTIALS), which then decides itself between
    # the whole panel, a change of it and the refresh marker; default: `partial` or the marker.
    live_partial: str = ""

    def __post_init__(self) -> None:
        if self.place not in PLACES:
            raise ValueError(f"panel {self.key!r}: place {self.place!r} is not one of {PLACES}")
        if self.live not in LIVE:
            raise ValueError(f"panel {self.key!r}: live {self.live!r} is not one of {LIVE}")

    @property
    def screen_attr(self) -> str:
        return self.attr or self.key

    @property
    def template(self) -> str:
        return PARTIALS + self.partial


@dataclass(frozen=True)
class Slot:
    """One panel as one screen gets it: its partial, or (`refresh_url`) a marker to fetch it."""

    panel: Panel
    refresh_url: str = ""
    live: bool = False  # in a live update (its live partial, if it has one)

    @property
    def key(self) -> str:
        return self.panel.key

    @property
    def partial(self) -> str:
        if self.live and self.panel.live_partial:
            return PARTIALS + self.panel.live_partial
        return self.panel.template


@dataclass
class PanelRegistry:
    """The panels in page order; `bind` gives a Screen class one property per presenter."""

    panels: dict[str, Panel] = field(default_factory=dict)
    screen_class: type | None = None

    def __iter__(self) -> Iterator[Panel]:
        return iter(sorted(self.panels.values(), key=lambda p: p.order))

    def __getitem__(self, key: str) -> Panel:
        return self.panels[key]

    def register(self, panel: Panel) -> Panel:
        """Add `panel` (a key is registered once) and its presenter to the bound Screen."""
        if panel.key in self.panels:
            raise ValueError(f"panel {panel.key!r} is already registered")
        if panel.paged and any(p.paged and p.paged.url_name == panel.paged.url_name for p in self):
            raise ValueError(f"panel {panel.key!r}: URL name {panel.paged.url_name!r} is taken")
        if self.screen_class is not None:
            self._install(panel)
        self.panels[panel.key] = panel
        return panel

    def unregister(self, key: str) -> None:
        """Remove a panel (a test's throwaway one) and its Screen property."""
        panel = self.panels.pop(key)
        if self.screen_class is not None and panel.presenter is not None:
            delattr(self.screen_class, panel.screen_attr)

    def bind(self, screen_class: type) -> None:
        """Give `screen_class` a cached property per registered presenter (and per later one),
        and `layout`: which of the panels one screen shows where."""
        self.screen_class = screen_class
        prop = cached_property(lambda screen: layout(screen, self))
        prop.__set_name__(screen_class, "layout")
        screen_class.layout = prop  # type: ignore[attr-defined]
        for panel in self:
            self._install(panel)

    def _install(self, panel: Panel) -> None:
        if panel.presenter is None:
            return
        name = panel.screen_attr
        if name in vars(self.screen_class):
            raise ValueError(f"panel {panel.key!r}: Screen already has {name!r}")
        prop = cached_property(panel.presenter)
        prop.__set_name__(self.screen_class, name)
        setattr(self.screen_class, name, prop)

    def paged(self) -> list[Panel]:
        return [p for p in self if p.paged is not None]


class Layout:
    """One Screen's panels: the page's places and the live updates' slots, in page order. Each
    list is worked out when a template first reads it, so a render that needs one (a viewer's
    lesson) does not build the others' presenters to test their conditions."""

    def __init__(self, screen: Screen, registry: PanelRegistry) -> None:
        self.screen = screen
        self.registry = registry

    def _place(self, place: str) -> list[Slot]:
        return [Slot(p) for p in self.registry if p.place == place and p.shown(self.screen)]

    def _live(self, live: str) -> list[Slot]:
        slots = []
        for panel in self.registry:
            if panel.live != live or not panel.shown(self.screen):
                continue
            url = ""
            if panel.paged is not None and not panel.live_partial and panel.paged.when(self.screen):
                url = reverse(f"playground:{panel.paged.url_name}", args=[self.screen.run.share_token])
            slots.append(Slot(panel, url, live=True))
        return slots

    notices = cached_property(lambda self: self._place("notices"))
    top = cached_property(lambda self: self._place("top"))
    left = cached_property(lambda self: self._place("left"))
    right = cached_property(lambda self: self._place("right"))
    bottom = cached_property(lambda self: self._place("bottom"))
    status = cached_property(lambda self: self._live("status"))
    shared = cached_property(lambda self: self._live("shared"))
    viewer = cached_property(lambda self: self._live("viewer"))
    follower = cached_property(lambda self: self._live("follower"))

    @cached_property
    def refresh_keys(self) -> list[str]:
        """Every paged panel's marker target, present on the page from the start."""
        return [p.key for p in self.registry.paged()]


def layout(screen: Screen, registry: PanelRegistry | None = None) -> Layout:
    """Which panel partials `screen` shows where, and which live ones are sent as markers."""
    return Layout(screen, registry or REGISTRY)


# -- the presenters that read the viewer's query, and the paged bodies' contexts ----------------
def _cluster(screen: Screen) -> dict[str, Any]:
    """The cluster panel for this viewer's query (`params`)."""
    return cluster_panel.cluster(screen, screen.params)


def _cluster_map(screen: Screen) -> dict[str, Any]:
    """The cluster map for this viewer's drill-down (`map_zone`, `map_page` in `params`)."""
    return cluster_map_panel.cluster_map(screen, screen.params)


def _devices(screen: Screen) -> dict[str, Any]:
    """The devices (DRA) panel for this viewer's query."""
    return devices_panel.devices(screen, screen.params)


def _pod_table(screen: Screen) -> dict[str, Any]:
    return pods_panel.pod_table(screen, screen.params)


def _storage_table(screen: Screen) -> dict[str, Any]:
    return storage_panel.storage_table(screen, screen.params)


def _events_page(screen: Screen) -> dict[str, Any]:
    """A page of the Kubernetes events up to the screen's last event, for the viewer's query."""
    page, query = search_events(run=screen.run, upto_seq=screen.shown_seq, params=screen.params)
    return {"events": page.items, "page": page, "query": query}


REGISTRY = PanelRegistry()
for _panel in (
    Panel("scope", "What this page shows", "scope_notice.html", "notices", 10, live="follower"),
    Panel("version-notes", "Not simulated by this release", "version_notes.html", "notices", 20, live="page"),
    Panel("newer-changes", "Newer releases' changes", "newer_changes.html", "notices", 30, live="page"),
    Panel("status", "Status", "status.html", "top", 100, live="status"),
    Panel("export", "Results", "export.html", "top", 110, live="page"),
    Panel("controls", "Controls", "controls.html", "top", 120, live="page"),
    Panel("timeline", "Timeline", "timeline.html", "top", 130, presenter=timeline_panel.timeline),
    Panel(
        "map", "Cluster map", "cluster_map.html", "top", 140, presenter=_cluster_map, attr="cluster_map",
        live_partial="cluster_map_live.html",  # a big map's live update: the step's changed cells
        paged=Paged("map", "run_map", "cluster_map_body.html", lambda s: {"m": s.cluster_map},
                    when=cluster_panel.is_large),
    ),
    Panel("announce", "Announcements (screen readers)", "announce.html", "top", 150),
    Panel("classroom", "Classroom", "classroom.html", "top", 160, live="follower"),
    Panel("challenge", "Challenge", "challenge.html", "top", 170, presenter=challenge_panel.challenge),
    Panel("lesson", "Lesson", "lesson.html", "top", 180, live="viewer", presenter=lesson_panel.lesson),
    Panel("story", "What just happened", "story.html", "top", 190, presenter=story_panel.narrative,
          attr="narrative"),
    Panel("framework", "The framework", "framework.html", "top", 200, presenter=framework_panel.framework),
    Panel("queues", "Scheduling queues", "queues.html", "left", 300, presenter=queues_panel.queues),
    Panel(
        "cluster", "Cluster", "cluster.html", "left", 310, presenter=_cluster,
        paged=Paged("cluster", "run_cluster", "cluster_body.html", lambda s: {"cluster": s.cluster},
                    when=cluster_panel.is_large, when_visible=True),  # the heatmap: ~200 KB at 5,000 nodes
    ),
    Panel("evictions", "Evictions", "evictions.html", "left", 320, presenter=evictions_panel.evictions),
    Panel(
        "devices", "Devices", "devices.html", "left", 330, presenter=_devices,
        shown=devices_panel.has_devices,
        paged=Paged("devices", "run_devices", "devices_body.html", lambda s: {"d": s.devices}),
    ),
    Panel("waiting", "Waiting at Permit", "waiting.html", "left", 340, presenter=waiting_panel.waiting),
    Panel("inspector", "Cycle inspector", "cycle_inspector.html", "right", 400, presenter=cycle_panel.cycle_started,
          attr="cycle_started"),
    Panel("preemption", "Preemption", "preemption.html", "right", 410, presenter=preemption_panel.preemption),
    Panel(
        "pods", "Pods", "pods.html", "bottom", 500, presenter=_pod_table, attr="pod_table",
        # The table of a big run: at 150,000 pods each new state's page is a grouping of them all.
        paged=Paged("pods", "run_pods", "pods_body.html", lambda s: {"t": s.pod_table}, when=lambda s: s.many_pods,
                    when_visible=True),
    ),
    Panel(
        "storage", "Storage", "storage.html", "bottom", 510, presenter=_storage_table, attr="storage_table",
        shown=lambda s: bool(s.has_storage),
        paged=Paged("storage", "run_storage", "storage_body.html", lambda s: {"t": s.storage_table},
                    when=lambda s: s.storage_table["large"], when_visible=True),
    ),
    Panel("events", "Events", "events.html", "bottom", 520,
          paged=Paged("events", "run_events", "events_body.html", _events_page)),
):
    REGISTRY.register(_panel)
REGISTRY.bind(Screen)
