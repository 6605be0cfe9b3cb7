from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from playground.services.gallery import seed


class Command(BaseCommand):
    help = "Load (or refresh) the built-in gallery scenarios from playground/gallery/*.yaml."

    def handle(self, *args: Any, **options: Any) -> None:
        scenarios = seed()
        self.stdout.write(f"Gallery: {len(scenarios)} scenarios loaded.")
