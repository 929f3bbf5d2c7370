"""`make run`'s set-up: a demo admin, a demo player and today's challenges, each only if missing."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from accounts.names import display_name_skeleton
from games.selectors import local_today
from games.services import challenges_fill

DEMO_ACCOUNTS = [
    # username, password, display name, staff
    ("admin", "piramide-admin", "Admin", True),
    ("demo", "piramide-demo", "Demo Player", False),
]


class Command(BaseCommand):
    help = "Create the demo admin and player and today's challenges if they are missing."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--days", type=int, default=1, help="how many days of challenges to make sure of")

    def handle(self, *args: Any, **options: Any) -> None:
        User = get_user_model()
        for username, password, display_name, staff in DEMO_ACCOUNTS:
            user = User.objects.filter(username=username).first()
            if user is None:
                user = User(
                    username=username,
                    display_name=display_name,
                    display_name_skeleton=display_name_skeleton(display_name),
                    is_staff=staff,
                    is_superuser=staff,
                )
                user.set_password(password)
                user.save()
                state = "created"
            else:
                state = "exists"
            role = "admin " if staff else "player"
            self.stdout.write(f"demo {role}: username {username!r}, password {password!r} ({state})")
        today = local_today()
        created = challenges_fill(today=today, days=options["days"])
        for challenge in created:
            self.stdout.write(f"scheduled {challenge}: {challenge.verdict}, par {challenge.par}")
        self.stdout.write(f"today is {today}; {len(created)} challenge(s) created")
