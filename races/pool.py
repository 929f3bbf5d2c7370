"""The pool of race deals: proven-winnable deals per preset, searched for ahead of time.

A race takes a deal the solver proved before (``race_deal_take``: a row, no search, never a daily
deal); ``race_pool_fill`` tops the pools up, from Celery or, on the embedded default, a thread.
Design: docs/operations.md, *Solver work on a budget*.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import connection, connections, transaction

from games.engine import PRESETS
from games.selectors import is_daily_deal
from games.services import draw_seed
from plumbing.internals import in_atomic_block
from plumbing.tasks import delay_after_commit

from .models import PooledDeal

log = logging.getLogger(__name__)

Prover = Callable[[str, int], dict[str, Any]]

_background: dict[str, threading.Thread] = {}
_background_lock = threading.Lock()


def pool_presets() -> list[str]:
    """The presets whose pools are kept: ``RACE_POOL_PRESETS``, or every preset."""
    return [preset for preset in (settings.RACE_POOL_PRESETS or PRESETS) if preset in PRESETS]


def pool_count(preset: str) -> int:
    return int(PooledDeal.objects.filter(preset=preset).count())


def race_deal_take(*, preset: str) -> int | None:
    """Take the oldest pooled deal of a preset: its seed, or None when the pool has none.

    Call it inside the transaction that deals it, so a race that fails to be created gives the
    deal back.  Locks the row it takes, skipping rows others hold (``select_for_update(skip_locked=
    True)`` on Postgres: concurrent takers take different deals and never wait on each other); on
    SQLite a write transaction holds the whole database, and the delete's count says who took it.
    A deal that has become a daily deal since it was added is thrown away, never dealt.
    """
    assert in_atomic_block(connection), "take a deal inside the transaction that deals it"
    while True:
        deals = PooledDeal.objects.filter(preset=preset).order_by("id")
        if connection.features.has_select_for_update_skip_locked:
            deals = deals.select_for_update(skip_locked=True)
        deal = deals.first()
        if deal is None:
            return None
        taken, _ = PooledDeal.objects.filter(pk=deal.pk).delete()
        if not taken:
            continue
        if is_daily_deal(preset, deal.seed):
            log.warning("a pooled %s deal had become a daily deal: thrown away", preset)
            continue
        return int(deal.seed)


def prove_here(preset: str, seed: int) -> dict[str, Any]:
    """Solve a deal in this process (a Celery worker, or ``manage.py``)."""
    from games.solver_jobs import winnable_job

    return winnable_job(preset, seed, settings.RACE_SOLVE_TIME_LIMIT, None)


def prove_in_solver_process(preset: str, seed: int) -> dict[str, Any]:
    """Solve a deal in one of this web process's solver processes, under the site's cap."""
    from games import solving
    from games.solver_jobs import winnable_job

    return solving.run(winnable_job, preset, seed, player_id=None, time_limit=settings.RACE_SOLVE_TIME_LIMIT)


def race_pool_fill(*, preset: str, size: int | None = None, prove: Prover = prove_here) -> int:
    """Add proven-winnable deals to a preset's pool until it holds ``size`` (``RACE_POOL_SIZE``);
    how many it added.  Tries at most ``RACE_WINNABLE_ATTEMPTS`` seeds per deal missing.

    Searches with no transaction open; each deal is one insert, get-or-create on (preset, seed), so
    two fills at once never add a deal twice (they may add a few more than ``size`` between them).
    """
    size = settings.RACE_POOL_SIZE if size is None else size
    missing = size - pool_count(preset)
    added = 0
    for _ in range(max(missing, 0) * settings.RACE_WINNABLE_ATTEMPTS):
        if added >= missing:
            break
        seed = draw_seed()
        if is_daily_deal(preset, seed):
            continue
        facts = prove(preset, seed)
        if facts["verdict"] != "winnable" or is_daily_deal(preset, seed):
            continue
        _, created = PooledDeal.objects.get_or_create(
            preset=preset,
            seed=seed,
            defaults={
                "verdict": facts["verdict"],
                "line_length": facts["line_length"],
                "solver_states": facts["states"],
                "solve_seconds": round(float(facts["seconds"]), 3),
            },
        )
        added += created
    if added < missing:
        log.warning("the %s race pool got %d of the %d deals it lacked", preset, added, missing)
    return added


def race_pool_top_up_soon(preset: str) -> None:
    """Ask for a preset's pool to be topped up, at most once a minute per preset; never searches here.

    With a broker, a Celery task (after the current transaction commits).  With eager tasks (the
    embedded default), where the task would search in this request, a thread of this process runs
    the fill, its searches in the solver processes (``RACE_POOL_BACKGROUND_FILL``; off in tests).
    """
    try:
        first = cache.add(f"piramide:races:pool-top-up:{preset}", 1, timeout=60)
    except Exception as error:  # the cache away: ask anyway; a fill is safe to run twice
        log.warning("race pool: cache unreachable: %s", error)
        first = True
    if not first:
        return
    if not settings.CELERY_TASK_ALWAYS_EAGER:
        delay_after_commit("races.tasks.races_pool_fill_task", preset)
    elif settings.RACE_POOL_BACKGROUND_FILL:
        with _background_lock:
            running = _background.get(preset)
            if running is not None and running.is_alive():
                return
            thread = threading.Thread(
                target=_fill_in_background, args=(preset,), name=f"race-pool-{preset}", daemon=True
            )
            _background[preset] = thread
        transaction.on_commit(thread.start)


def _fill_in_background(preset: str) -> None:
    try:
        race_pool_fill(preset=preset, prove=prove_in_solver_process)
    except Exception:
        log.exception("topping up the %s race pool failed; the next race asks again", preset)
    finally:
        connections.close_all()


def race_pool_take_follow_up(preset: str) -> None:
    """After a take: a pool left under half full is topped up at once, not at the next beat."""
    if pool_count(preset) * 2 < settings.RACE_POOL_SIZE:
        race_pool_top_up_soon(preset)
