"""Work a committed write leaves that its writer need not wait for (docs/live.md, *The move path*).

``later(key, job)`` runs ``job`` once the surrounding transaction commits: on a server, queued for
the calling event loop, which runs its jobs on the thread pool one at a time, in order, a job asked
for again while it waits moved to the back and run once; anywhere else (a Celery task, a command,
a test client) at the commit.  A job that fails is logged: the write stands.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Hashable

from django.db import transaction

from .db_calls import db_call
from .internals import calling_loop
from .loops import of_loop

log = logging.getLogger(__name__)

Job = Callable[[], None]


def server_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop that called this thread through ``sync_to_async`` (a socket's or a request's), if any."""
    return calling_loop()


def later(key: Hashable, job: Job) -> None:
    """Run ``job`` after the current transaction commits (at once outside one); on a server, after the caller returns."""
    transaction.on_commit(lambda: _hand_on(key, job))


def soon(key: Hashable, job: Job) -> None:
    """``later`` for a coroutine on the server's loop whose own write has committed (games/live_moves.py)."""
    _queue_of(asyncio.get_running_loop()).put(key, job)


def _hand_on(key: Hashable, job: Job) -> None:
    loop = server_loop()
    if loop is not None:
        try:
            # the queue is found (or made) on the loop's thread, as every other use of it is there:
            # two worker threads finding none at once would each make one
            loop.call_soon_threadsafe(_put, loop, key, job)
            return
        except RuntimeError:  # the loop closed meanwhile
            pass
    run(key, job)


def _put(loop: asyncio.AbstractEventLoop, key: Hashable, job: Job) -> None:
    """Runs on ``loop``'s thread."""
    _queue_of(loop).put(key, job)


def run(key: Hashable, job: Job) -> None:
    try:
        job()
    except Exception as error:
        log.warning("after a commit, %r failed (%r); the write stands", key, error)


class _Queue:
    """One per event loop: its jobs by key, in the order last asked for."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.jobs: dict[Hashable, Job] = {}
        self.task: asyncio.Task[None] | None = None

    def put(self, key: Hashable, job: Job) -> None:
        self.jobs.pop(key, None)
        self.jobs[key] = job
        if self.task is None:
            self.task = self.loop.create_task(self._drain())

    async def _drain(self) -> None:
        try:
            while self.jobs:
                key = next(iter(self.jobs))
                await db_call(run)(key, self.jobs.pop(key))
        except asyncio.CancelledError:
            # the server is stopping: what still waits runs now, on a thread of its own (the loop's
            # thread may not touch the database), while the loop waits; a job already on the pool
            # finishes there
            waiting, self.jobs = list(self.jobs.items()), {}

            def run_waiting() -> None:
                for key, job in waiting:
                    run(key, job)

            rest = threading.Thread(target=run_waiting, name="after-commit")
            rest.start()
            rest.join()
            raise
        finally:
            self.task = None

    async def idle(self) -> None:
        """Until every job asked for so far has run (tests)."""
        while self.task is not None:
            await asyncio.shield(self.task)


_queues: dict[asyncio.AbstractEventLoop, _Queue] = {}


def _queue_of(loop: asyncio.AbstractEventLoop) -> _Queue:
    return of_loop(_queues, loop, lambda: _Queue(loop))


async def idle() -> None:
    """Until the running loop's jobs have all run (tests)."""
    await _queue_of(asyncio.get_running_loop()).idle()
