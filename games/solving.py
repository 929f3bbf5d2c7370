"""Solver work on a budget: what a request may spend on a search, and where the search runs.

An answer is cached once per position (``answer_key``); a search holds a place per user and one of
the site's (429 or 503 with ``Retry-After`` over them, nothing searched); the request gives its
database connections back before it waits; the search runs in a solver process at a lower priority
and under a CPU-time limit (``games/solver_jobs.py``).  docs/operations.md, *Solver work on a
budget*, says why and gives the settings.
"""

from __future__ import annotations

import hashlib
import logging
import math
import multiprocessing
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import connections

from games.engine import Deal
from plumbing import limits, metrics
from plumbing.errors import Throttled, Unavailable
from plumbing.internals import in_atomic_block

from . import solver_jobs

log = logging.getLogger(__name__)

#: Searches this process has run (or sent to a solver process), by job name: the tests read it
#: to tell a cached answer from a search without timing anything.
searches: Counter[str] = Counter()
_searches_lock = threading.Lock()

_executor: ProcessPoolExecutor | None = None
_executor_lock = threading.Lock()


class SolverThrottled(Throttled):
    """This player has ``SOLVER_JOBS_PER_USER`` searches running already, or has started
    ``SOLVER_SEARCHES_PER_USER`` in its window."""


class SolverBusy(Unavailable):
    """The site has ``SOLVER_JOBS_GLOBAL`` searches running, or a search could not finish in time."""


# ----------------------------------------------------------------- cached answers


def answer_key(kind: str, preset: str, deal: Deal, moves: Sequence[object]) -> str:
    """A cache key naming one question about one position: every game of a deal that reached it
    by the same moves under the same rules version asks the same question and gets the same answer
    (the version changes answers: from version 3 two egyptian waste cards may pair)."""
    text = "\n".join([preset, f"rules v{deal.rules.version}", str(deal), " ".join(str(move) for move in moves)])
    return f"piramide:solver:{kind}:v2:{hashlib.sha256(text.encode()).hexdigest()}"


def cache_get(key: str) -> Any:
    try:
        return cache.get(key)
    except Exception as error:  # the cache away (Redis down): search as if it were empty
        log.warning("solver cache unreachable: %s", error)
        return None


def cache_set(key: str, value: Any, *, decided: bool) -> None:
    """Keep an answer: a decided one for ``SOLVER_CACHE_SECONDS``, an ``unknown`` one (a budget
    that ran out, maybe on a busy machine) for ``SOLVER_CACHE_UNKNOWN_SECONDS``."""
    timeout = settings.SOLVER_CACHE_SECONDS if decided else settings.SOLVER_CACHE_UNKNOWN_SECONDS
    try:
        cache.set(key, value, timeout=timeout)
    except Exception as error:
        log.warning("solver cache unreachable: %s", error)


def answered(
    kind: str,
    job: Callable[..., Any],
    preset: str,
    deal: Deal,
    moves: list[str],
    *,
    player_id: int | None,
    time_limit: float,
    verdict: str,
) -> Any:
    """The answer to one ``kind`` of question about the position ``moves`` reach: from the cache,
    or searched by ``job`` within the caps (``run``) and kept, for long once its ``verdict`` field
    is decided."""
    key = answer_key(kind, preset, deal, moves)
    answer = cache_get(key)
    if answer is None:
        answer = run(job, deal, moves, player_id=player_id, time_limit=time_limit)
        cache_set(key, answer, decided=answer[verdict] != "unknown")
    return answer


# ----------------------------------------------------------------- running a search


def release_connections() -> None:
    """Give this thread's database connections back (to the pool, on Postgres) before waiting on a
    search; a later query takes one again.  Not inside a transaction, which would be cut short."""
    for connection in connections.all(initialized_only=True):
        if not in_atomic_block(connection):
            connection.close()


def executor() -> ProcessPoolExecutor:
    """This process's solver processes, started at the first search."""
    global _executor
    with _executor_lock:
        if _executor is None:
            _executor = ProcessPoolExecutor(
                max_workers=settings.SOLVER_PROCESSES,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=solver_jobs.init_process,
                initargs=(settings.SOLVER_NICE,),
            )
        return _executor


def _drop_executor(broken: ProcessPoolExecutor) -> None:
    """A solver process died (killed, out of memory): the pool is broken; the next search starts a new one."""
    global _executor
    with _executor_lock:
        if _executor is broken:
            _executor = None
    broken.shutdown(wait=False, cancel_futures=True)


def shutdown() -> None:
    global _executor
    with _executor_lock:
        found, _executor = _executor, None
    if found is not None:
        found.shutdown(wait=True, cancel_futures=True)


def _slots(player_id: int | None) -> tuple[list[str], list[int]]:
    keys, caps = [], []
    if player_id is not None:
        keys.append(limits.key("solver", "user", player_id))
        caps.append(settings.SOLVER_JOBS_PER_USER)
    keys.append(limits.key("solver", "all"))
    caps.append(settings.SOLVER_JOBS_GLOBAL)
    return keys, caps


def _searched(job: Callable[..., Any], started: float, answer: Any) -> Any:
    """``answer``, its search's time counted under the job's kind (``hint_job``: ``hint``)."""
    metrics.solver_searched(job.__name__.removesuffix("_job"), time.perf_counter() - started)
    return answer


def run(job: Callable[..., Any], *args: Any, player_id: int | None, time_limit: float) -> Any:
    """``job(*args, time_limit, cpu_limit)`` in a solver process, within the caps; its answer.

    Counts a search under the player's rate and takes a place under the player's cap and the
    site's, or raises (429 / 503) having searched nothing; gives the thread's database
    connections back; then waits for the answer, at most ``time_limit`` plus
    ``SOLVER_QUEUE_SECONDS`` (the time a job may wait for a solver process).
    The places are held until the job is over, even when the request stopped waiting for it.
    """
    keys, caps = _slots(player_id)
    member = uuid.uuid4().hex
    wait = time_limit + settings.SOLVER_QUEUE_SECONDS
    retry = settings.SOLVER_RETRY_AFTER
    rate_key = None
    if player_id is not None and settings.SOLVER_SEARCHES_PER_USER:
        rate = limits.Rate.parse(settings.SOLVER_SEARCHES_PER_USER)
        rate_key = limits.key("solver", "searches", player_id)
        counted = limits.hit(rate_key, rate)
        if not counted.allowed:
            later = max(1, math.ceil(counted.retry_after))
            raise SolverThrottled(
                f"you have started {rate.count} solver searches in {rate.seconds} s: try again in {later} s",
                retry_after=later,
            )
    full = limits.acquire(keys, caps, member, lease=wait + 60)
    if full:
        if rate_key is not None:
            limits.undo(rate_key)  # refused: no search started
        if player_id is not None and full == 1:
            raise SolverThrottled(
                f"you have {settings.SOLVER_JOBS_PER_USER} solver searches running: try again in {retry} s",
                retry_after=retry,
            )
        raise SolverBusy(f"the solver is busy: try again in {retry} s", retry_after=retry)
    release = True
    try:
        release_connections()
        with _searches_lock:
            searches[job.__name__] += 1
        cpu_limit = time_limit + settings.SOLVER_CPU_MARGIN
        started = time.perf_counter()
        if settings.SOLVER_PROCESSES <= 0:
            return _searched(job, started, job(*args, time_limit, None))
        pool = executor()
        try:
            future: Future[Any] = pool.submit(job, *args, time_limit, cpu_limit)
        except BrokenProcessPool:
            _drop_executor(pool)
            pool = executor()
            future = pool.submit(job, *args, time_limit, cpu_limit)
        try:
            return _searched(job, started, future.result(timeout=wait))
        except FutureTimeout:
            if not future.cancel():
                release = False  # still running: its places go with it
                future.add_done_callback(lambda _: limits.release(keys, member))
            raise SolverBusy(f"the solver is busy: try again in {retry} s", retry_after=retry) from None
        except BrokenProcessPool:
            log.error("a solver process died; starting new ones")
            _drop_executor(pool)
            raise SolverBusy(f"the solver is restarting: try again in {retry} s", retry_after=retry) from None
    finally:
        if release:
            limits.release(keys, member)
