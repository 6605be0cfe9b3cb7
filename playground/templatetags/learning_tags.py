"""Template tags of the learning path: a gallery scenario's card data (what it teaches, its
chapter) where a page shows the scenario rather than the path, e.g. the scenario page's heading."""

from __future__ import annotations

from django import template

from playground.chapters import CHAPTER_BY_SLUG
from playground.selectors.gallery import GalleryEntry, cached_gallery_entries

register = template.Library()


@register.simple_tag
def gallery_lesson(slug: str | None) -> GalleryEntry | None:
    """The gallery file behind a gallery scenario (None for any other scenario)."""
    if not slug:
        return None
    return next((e for e in cached_gallery_entries() if e.slug == slug), None)


@register.filter
def chapter_title(slug: str) -> str:
    chapter = CHAPTER_BY_SLUG.get(slug)
    return chapter.title if chapter else ""
