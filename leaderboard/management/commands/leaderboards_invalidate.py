from typing import Any

from django.core.management.base import BaseCommand

from leaderboard.services import leaderboards_invalidate


class Command(BaseCommand):
    help = "Make every leaderboard rebuild its Redis ranks from Postgres on its next read."

    def handle(self, *args: Any, **options: Any) -> None:
        self.stdout.write(f"{leaderboards_invalidate()} board(s) will be rebuilt on their next read")
