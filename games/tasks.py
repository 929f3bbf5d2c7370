"""Thin Celery tasks: ids in, one service call.  Each is safe to run twice (see the services).

A task that finds the database unreachable (Postgres restarting, a failover) is not lost: it
retries after a growing, jittered delay (up to 2 s, 4 s, 8 s, ... never more than a minute; 20
tries, about eight minutes in all on average) and only then fails, loudly.  Every service here is
safe to run again from the start, so a retry needs no clean-up.
"""

from __future__ import annotations

import datetime as dt

from celery import shared_task
from django.db import InterfaceError, OperationalError

from . import services

#: Options every task shares: retried while the database is unreachable.
DATABASE_RETRY = {
    "autoretry_for": (OperationalError, InterfaceError),
    "retry_backoff": 2,
    "retry_backoff_max": 60,
    "retry_jitter": True,
    "max_retries": 20,
}


@shared_task(**DATABASE_RETRY)
def challenge_verify_task(challenge_id: int) -> str | None:
    challenge = services.challenge_verify(challenge_id=challenge_id)
    return challenge.status if challenge else None


@shared_task(**DATABASE_RETRY)
def challenge_replace_task(challenge_id: int) -> str:
    return services.challenge_replace_with_winnable(challenge_id=challenge_id).status


@shared_task(**DATABASE_RETRY)
def challenges_fill_task() -> list[str]:
    """Fan out: one task per missing (date, preset), so no single task runs for many solves; and
    verifications lost with their task (a flushed broker) are enqueued again."""
    services.challenges_requeue_stuck()
    missing = services.challenges_missing()
    for date, preset in missing:
        challenge_fill_task.delay(date.isoformat(), preset)
    return [f"{date} {preset}" for date, preset in missing]


@shared_task(**DATABASE_RETRY)
def challenge_fill_task(date: str, preset: str) -> int | None:
    challenge = services.challenge_fill(date=dt.date.fromisoformat(date), preset=preset)
    return challenge.pk if challenge else None


@shared_task(**DATABASE_RETRY)
def games_close_expired_task() -> int:
    return services.games_close_expired()
