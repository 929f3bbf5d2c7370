"""A socket's everyday move, written from the server's event loop in one statement (docs/live.md,
*The move path*).

On Postgres, a move checked against the remembered position (``services.move_from_hint_plan``) is
stored by ``services.MOVE_WRITE_SQL`` (or, with a game's end, ``HintedMove.end_sql``) on one of a
few psycopg async connections the loop keeps.  Anything else (no hint, a row moved on, SQLite, a
database error) returns None and the caller takes the threaded, locked service: this path never
refuses a move and never trusts its memory, since the version in the WHERE clause decides.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Hashable
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

from django.conf import settings
from django.db import connections
from django.utils import timezone

from plumbing import after_commit, metrics
from plumbing.after_commit import Job
from plumbing.loops import of_loop

from . import events, selectors, services

log = logging.getLogger(__name__)

#: The most everyday moves one statement stores (``Connections._take``).
BATCH_MOST = 64
#: A loop connection prepares a statement it has sent this many times (psycopg's default).
PREPARE_AFTER = 5


def enabled() -> bool:
    return bool(settings.LIVE_LOOP_MOVES) and connections["default"].vendor == "postgresql"


def connection_params() -> dict[str, Any]:
    """Django's connection parameters for ``default``, for a psycopg async connection in autocommit."""
    params = dict(connections["default"].get_connection_params())
    for django_only in ("cursor_factory", "context"):
        params.pop(django_only, None)
    params.setdefault("connect_timeout", 5)
    params["autocommit"] = True
    # Django turns psycopg's prepared statements off for every connection, for the sake of
    # external poolers; these connections send a handful of statements thousands of times
    # (what preparing them saves: docs/live.md, *The move path*).
    params["prepare_threshold"] = PREPARE_AFTER if settings.LIVE_MOVE_PREPARED else None
    if not settings.LIVE_MOVE_SYNCHRONOUS_COMMIT:
        params["options"] = f"{params.get('options', '')} -c synchronous_commit=off".strip()
    return params


class Connections:
    """The loop's connections for move writes: at most ``size``, each used by one statement at a time.

    Everyday moves go through ``submit``: a move that finds a connection free leaves at once (with
    any others submitted in the same step of the loop); the moves that come while every connection
    is busy wait for the first to be free and leave together, in one statement (``services.MOVES_WRITE_SQL``) and one commit, at most ``BATCH_MOST``
    of them.  So a quiet server writes each move as it comes, and a busy one makes one round trip
    and one WAL flush for many moves instead of one for each.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self.slots = asyncio.Semaphore(size)
        self.idle: list[Any] = []
        self.open: set[Any] = set()
        #: moves waiting to leave, with the futures their movers wait on
        self.queued: list[tuple[services.MoveRow, asyncio.Future[bool]]] = []
        #: the games with a move in a statement that is out: their next move waits for the one after
        self.writing: set[int] = set()
        #: the tasks sending statements of queued moves, each left out as its loop ends
        self.storers: set[asyncio.Task[None]] = set()

    def submit(self, row: services.MoveRow) -> asyncio.Future[bool]:
        """Queue one everyday move: the future says whether its game's row took it (False: the row
        had moved on), or raises what its statement raised (then none of the moves in it were
        stored).  A connection free, the statement leaves in the loop's next step."""
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self.queued.append((row, future))
        if len(self.storers) < self.size:
            self.storers.add(asyncio.get_running_loop().create_task(self._store_queued()))
        return future

    async def _store_queued(self) -> None:
        """Statements of the moves queued, while there are some it may send (one at a time)."""
        try:
            await self._store_batches()
        finally:
            # at once, not by a done-callback: a move submitted meanwhile must find the place free
            self.storers.discard(asyncio.current_task())  # a task's own

    async def _store_batches(self) -> None:
        while self.queued:
            async with self.slots:
                batch = self._take()
                if not batch:
                    return  # what is left waits on a game whose statement is out: its storer takes it
                rows = [row for row, _ in batch]
                try:
                    moved = await self._moved(rows)
                except Exception as error:
                    for _, future in batch:
                        if not future.done():
                            future.set_exception(error)
                else:
                    for row, future in batch:
                        if not future.done():
                            future.set_result(row.game_id in moved)
                finally:
                    self.writing.difference_update(row.game_id for row in rows)
                    for _, future in batch:
                        if not future.done():  # the loop is stopping: its movers are told so
                            future.cancel()

    async def _moved(self, rows: list[services.MoveRow]) -> set[int]:
        """The games whose rows took their move, from one statement for all of ``rows``.

        The rows go in the order of their games' ids, which is the order the statement locks them
        in: two processes' statements never wait for each other in a circle.  A move alone takes
        ``MOVE_WRITE_SQL``, which Postgres answers sooner: 0.32 ms at the p50 against 0.50 ms for the
        arrays' statement with one row (one connection, the two in turn, 2,000 each)."""
        if len(rows) == 1:
            (count,) = await self._execute(services.MOVE_WRITE_SQL, rows[0].args(), fetch=False)
            return {rows[0].game_id} if count == 1 else set()
        in_order = sorted(rows, key=attrgetter("game_id"))
        found = await self._execute(services.MOVES_WRITE_SQL, services.MoveRow.batch_args(in_order), fetch=True)
        return {game_id for (game_id,) in found}

    def _take(self) -> list[tuple[services.MoveRow, asyncio.Future[bool]]]:
        """The next statement's moves, in the order they came: no game twice, none whose game has a
        statement out, none whose mover went away before it left."""
        batch: list[tuple[services.MoveRow, asyncio.Future[bool]]] = []
        left: list[tuple[services.MoveRow, asyncio.Future[bool]]] = []
        for entry in self.queued:
            row, future = entry
            if future.done():
                continue
            if len(batch) < BATCH_MOST and row.game_id not in self.writing:
                batch.append(entry)
                self.writing.add(row.game_id)
            else:
                left.append(entry)
        self.queued = left
        return batch

    async def fetch(self, sql: str, args: list[Any]) -> list[tuple[Any, ...]]:
        """Run one query; its rows."""
        async with self.slots:
            return list(await self._execute(sql, args, fetch=True))

    async def _execute(self, sql: str, args: list[Any], *, fetch: bool) -> Any:
        """On a free connection (the caller holds a slot): its rows, or its row count in a tuple.
        A connection that failed is closed, never reused."""
        import psycopg

        conn = self.idle.pop() if self.idle else None
        if conn is None or conn.closed:
            conn = await psycopg.AsyncConnection.connect(**connection_params())
            self.open.add(conn)
        reusable = False
        try:
            cursor = await conn.execute(sql, args)
            result = await cursor.fetchall() if fetch else (cursor.rowcount,)
            reusable = True
            return result
        finally:
            if reusable and not conn.closed:
                self.idle.append(conn)
            else:
                self.open.discard(conn)
                await conn.close()

    def close(self) -> None:
        """Close every connection now (from any thread, the loop running or not)."""
        for conn in list(self.open):
            if not conn.closed:
                conn.pgconn.finish()
        self.open.clear()
        self.idle.clear()


_by_loop: dict[asyncio.AbstractEventLoop, Connections] = {}


def loop_connections() -> Connections:
    return of_loop(
        _by_loop, asyncio.get_running_loop(), lambda: Connections(settings.LIVE_MOVE_CONNECTIONS), Connections.close
    )


def close_all() -> None:
    """Close every loop's connections (tests, before their database is dropped)."""
    for known in list(_by_loop):
        _by_loop.pop(known).close()


@dataclass(frozen=True)
class LoopMove:
    """A move stored from the loop: its play, the text of its game view, its events and the work a
    ranked end leaves (the rank-store copy, then the room's counts and board), which ``publish``
    hands on once the mover has its answer (``answer``)."""

    play: services.Play
    view_text: str
    sends: list[tuple[str, events.Encoded]]
    jobs: tuple[tuple[Hashable, Job], ...] = ()

    @property
    def version(self) -> int:
        return self.play.game.move_count

    def answer(self, ref: str | None) -> str:
        """The ``move.ok`` message, as ``jsontext.dumps`` writes it, with the view encoded once for it and the events."""
        return events.with_view(
            {"type": "move.ok", "ref": ref, "version": self.version, "game": None}, "game", self.view_text
        )

    def publish(self) -> None:
        events.enqueue(self.sends)
        for key, job in self.jobs:
            after_commit.soon(key, job)


async def move_make(*, game_id: int, player: Any, move: str, seen: int) -> LoopMove | None:
    """The move stored from the loop, or None: then ``services.game_move_make`` decides.

    The statement is sent first; the answer and the events are made while Postgres commits it.
    A malformed move raises ``IllegalMove`` at once, as the service would.
    """
    started = time.perf_counter()
    parsed = services.move_parse(move)
    connections = loop_connections()
    missed: list[str] = []
    try:
        since = services.moves_missed_since(game_id, player, seen)
        if since is not None:
            # moved on elsewhere (a REST request, another process): the moves since, then the write
            missed = [row[0] for row in await connections.fetch(selectors.MOVES_SINCE_SQL, [game_id, since])]
        # the loop's connections commit without the WAL flush when LIVE_MOVE_SYNCHRONOUS_COMMIT is
        # off: then a game's end and score go to the threaded path, which always waits for it
        ending = bool(settings.LIVE_MOVE_SYNCHRONOUS_COMMIT)
        plan = services.move_from_hint_plan(game_id, player, parsed, seen, missed, ending=ending)
    except Exception as error:
        _threaded(game_id, error)
        return None
    if plan is None:
        return None
    now = timezone.now()
    write: asyncio.Future[int] | asyncio.Future[bool]
    if plan.ends:
        write = asyncio.ensure_future(_write_end(connections, plan.end_sql(), plan.end_args(now)))
    else:
        write = connections.submit(plan.write_row(now))
    await asyncio.sleep(0)  # the statement leaves now (or waits for a connection, with others)
    play = services.move_from_hint_play(plan, now)
    view_text, sends = events.move_made_from_loop(game=play.game, state=play.state)
    try:
        written: int | bool | None = await write
    except Exception as error:
        _threaded(game_id, error)
        written = None
    if written is None or services.move_from_hint_written(plan, bool(written), play=play) is None:
        return None
    game = play.game
    jobs: tuple[tuple[Hashable, Job], ...] = ()
    if plan.ends and game.ranked:
        # as the locked path's ``score_record`` and ``publish_game_finished`` ask for them
        assert game.player_id is not None, "a ranked game is its player's"
        score_jobs = plan.end_jobs(int(written))
        jobs = (*score_jobs, events.challenge_changes(game.challenge_id, leaderboard=True))
    metrics.move_applied("loop", play.state.deal.rules.name, time.perf_counter() - started)
    return LoopMove(play, view_text, sends, jobs)


async def _write_end(connections: Connections, sql: str, args: list[Any]) -> int:
    """An ending move's statement (``HintedMove.end_sql``): the id it returns (the Score's for a
    ranked game), 0 when the row had moved on."""
    rows = await connections.fetch(sql, args)
    return int(rows[0][0]) if rows else 0


def _threaded(game_id: int, error: Exception) -> None:
    """A failure on the loop's path: logged, and the threaded path retries the move and answers
    with the database's error if any."""
    log.warning("move of game %s from the loop failed (%r); taking the threaded path", game_id, error)
