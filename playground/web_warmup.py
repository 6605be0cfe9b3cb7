"""Readying a web process before it takes its first request.

Django imports a URLconf's views, the services behind them and each template's tag libraries
on first use, and compiles each template the first time it is rendered. In a fresh web process
that made the first visitor's page (typically the run page just started, or a shared link after
a restart) two to three times slower than the next one: ~0.3 s of imports and compiling on the
request's path. The ASGI entry point calls `warm_web_process` once, before the server accepts
connections, so every visitor gets a warm process.
"""

from __future__ import annotations

import gc
import logging
from pathlib import Path

from django.conf import settings
from django.template import TemplateDoesNotExist, TemplateSyntaxError
from django.template.loader import get_template
from django.urls import get_resolver

logger = logging.getLogger(__name__)


def project_templates() -> list[str]:
    """The names of the project's own templates (the `templates/` directories in settings)."""
    names: list[str] = []
    for engine in settings.TEMPLATES:
        for directory in engine.get("DIRS", []):
            root = Path(directory)
            names += sorted(str(p.relative_to(root)) for p in root.rglob("*.html"))
    return names


def warm_web_process() -> int:
    """Import every view (by building the URL resolver's tables) and compile every project
    template into the cached loader. Returns how many templates were compiled; a template that
    does not compile is logged and left for its request to report."""
    get_resolver().reverse_dict  # noqa: B018  (populating it imports every URLconf and view)
    count = 0
    for name in project_templates():
        try:
            get_template(name)
            count += 1
        except (TemplateDoesNotExist, TemplateSyntaxError):
            logger.warning("template %s did not compile at start-up", name, exc_info=True)
    return count


YOUNG_OBJECTS = 10_000  # net new container objects between young collections (Python's default: 700)


def prepare_collector() -> int:
    """Keep the garbage collector's full passes rare and short in a web process; returns how
    many objects start-up left frozen.

    Every full collection walks every tracked object with the interpreter held: each one stalls
    every request and push of the process. Under a class's load a web process made one every
    five seconds (the live pages' renderings outlive the young generations), each 0.15–0.33 s.
    - What start-up built (Django, the views, the compiled templates: ~140,000 objects, ~0.1 s
      a pass) is frozen: never collected, and it need not be, it lives as long as the process.
    - The young generation is collected every YOUNG_OBJECTS new objects instead of 700, so the
      full passes (one per hundred young ones) come about fourteen times less often; a young
      pass walks at most that many objects (a few milliseconds). Cyclic garbage waits a little
      longer to be freed; nothing else changes."""
    gc.collect()
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_OBJECTS, middle, old)
    return gc.get_freeze_count()
