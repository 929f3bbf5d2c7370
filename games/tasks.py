"""Thin Celery tasks: ids in, one service call.  Each is safe to run twice (see the services)."""

from __future__ import annotations

import datetime as dt

from celery import shared_task

from . import services


@shared_task
def challenge_verify_task(challenge_id: int) -> str | None:
    challenge = services.challenge_verify(challenge_id=challenge_id)
    return challenge.status if challenge else None


@shared_task
def challenge_replace_task(challenge_id: int) -> str:
    return services.challenge_replace_with_winnable(challenge_id=challenge_id).status


@shared_task
def challenges_fill_task() -> list[str]:
    """Fan out: one task per missing (date, preset), so no single task runs for many solves."""
    missing = services.challenges_missing()
    for date, preset in missing:
        challenge_fill_task.delay(date.isoformat(), preset)
    return [f"{date} {preset}" for date, preset in missing]


@shared_task
def challenge_fill_task(date: str, preset: str) -> int | None:
    challenge = services.challenge_fill(date=dt.date.fromisoformat(date), preset=preset)
    return challenge.pk if challenge else None


@shared_task
def games_close_expired_task() -> int:
    return services.games_close_expired()
