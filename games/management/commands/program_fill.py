"""Make sure the daily program has its challenges for the next few days (what beat's hourly task
does), unless another process is filling it right now; run by the web process where no beat runs
(games/program.py)."""

from __future__ import annotations

import fcntl
import hashlib
import tempfile
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand

from games.selectors import local_today
from games.services import challenges_fill


def lock_path() -> Path:
    """One lock file per database, so processes filling different databases never wait on each other."""
    database = settings.DATABASES["default"]
    key = f"{database.get('HOST', '')}:{database.get('PORT', '')}/{database['NAME']}"
    return Path(tempfile.gettempdir()) / f"piramide-program-{hashlib.sha256(key.encode()).hexdigest()[:16]}.lock"


class Command(BaseCommand):
    help = "Create the missing challenges of the next few days, unless another process is filling them."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--days", type=int, default=2, help="how many days, today included")

    def handle(self, *args: Any, **options: Any) -> None:
        with lock_path().open("a") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                self.stdout.write("another process is filling the program: nothing to do")
                return
            created = challenges_fill(today=local_today(), days=options["days"])
            for challenge in created:
                self.stdout.write(f"scheduled {challenge}: {challenge.verdict}, par {challenge.par}")
            self.stdout.write(f"{len(created)} challenge(s) created")
