"""Top up the race deal pools now (races/pool.py): what the beat job does, from the shell.

`make run` runs it with ``--size 5`` before it serves, so races work at once on the embedded
default (the web process then tops the pools up to ``RACE_POOL_SIZE`` on a thread of its own).
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from races.pool import pool_presets, race_pool_fill


class Command(BaseCommand):
    help = "Add proven-winnable deals to each race preset's pool until it holds --size (RACE_POOL_SIZE)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument(
            "--size", type=int, default=None, help="deals each pool should hold (default RACE_POOL_SIZE)"
        )
        parser.add_argument(
            "--preset", action="append", help="only this preset (repeatable; default every kept preset)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        for preset in options["preset"] or pool_presets():
            added = race_pool_fill(preset=preset, size=options["size"])
            self.stdout.write(f"race pool {preset}: {added} deal(s) added")
