"""Thin Celery tasks of fair play: ids in, one service call, safe to run twice."""

from __future__ import annotations

from celery import shared_task

from games.tasks import DATABASE_RETRY

from . import services


@shared_task(**DATABASE_RETRY)
def scores_assess_missing_task() -> int:
    """Fan out: one assessment task per ranked score left without one (hourly, by beat)."""
    missing = services.scores_unassessed()
    for score_id in missing:
        score_assess_task.delay(score_id)
    return len(missing)


@shared_task(**DATABASE_RETRY)
def score_assess_task(score_id: int) -> float | None:
    """Assess a finished ranked game (enqueued once its score commits and its player is answered)."""
    assessment = services.score_assess(score_id=score_id)
    return assessment.suspicion if assessment else None
