"""The chapters of the learning path: the order in which the gallery's lessons are taught.

Each gallery file names its chapter in its header (`# chapter: preemption`) and says in one line
what it teaches (`# teaches:`); this table gives the chapters' order, titles and one-line
summaries. It is data, read by the home page and the gallery index alike, so that a new lesson
joins the path by its header alone. A test checks that every gallery file names one of these.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Chapter:
    slug: str
    title: str
    summary: str


CHAPTERS: tuple[Chapter, ...] = (
    Chapter("queue", "The queue", "Where pods wait, how they get there, and what sends them back."),
    Chapter("filters-scores", "Filters and scores", "Which nodes a pod may use, and how the best one is ranked."),
    Chapter("preemption", "Preemption", "What an important pod may do when nothing fits."),
    Chapter("taints-eviction", "Taints and eviction", "Keeping pods off nodes, and moving running pods away."),
    Chapter("storage", "Storage", "Volumes, claims and the nodes they tie a pod to."),
    Chapter("devices", "Devices", "GPUs and other devices through Dynamic Resource Allocation."),
    Chapter("gangs-gates", "Gangs and gates", "Pods placed as a group, and the feature gates that change behaviour."),
    Chapter("operating", "Operating: metrics, descheduler, plugins", "Running a scheduler: profiles, extenders, rebalancing."),
    Chapter("challenges", "Challenges", "Change a scenario until the scheduler does what the goal asks."),
)
CHAPTER_BY_SLUG = {c.slug: c for c in CHAPTERS}
