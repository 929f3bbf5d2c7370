"""Thin Celery tasks for races: the pools of race deals (races/pool.py).  Safe to run twice."""

from __future__ import annotations

from celery import shared_task

from games.tasks import DATABASE_RETRY

from . import pool


@shared_task(**DATABASE_RETRY)
def races_pool_fill_task(preset: str | None = None) -> dict[str, int]:
    """Top up one preset's pool of proven-winnable deals, or every kept preset's (the beat job):
    how many deals each got."""
    presets = [preset] if preset else pool.pool_presets()
    return {name: pool.race_pool_fill(preset=name) for name in presets}
