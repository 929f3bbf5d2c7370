"""Database calls from an event loop, on its thread pool (a socket's service call, the work a commit leaves)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

from asgiref.sync import SyncToAsync
from django.conf import settings
from django.db import connections


def tidy_connections() -> None:
    """Before and after a socket's database call: keep the thread's connection, unless it broke.

    The calls run on the event loop's thread pool, whose few threads live as long as the process,
    so each keeps one connection for ``LIVE_DB_CONN_MAX_AGE`` seconds (300; 0 with the Postgres pool,
    which lends one per call) whatever
    ``CONN_MAX_AGE`` says: under ASGI, Django opens a thread per HTTP request, where persistent
    connections would pile up, so ``CONN_MAX_AGE`` may well be 0, and a move would then open a
    new connection every time.  A connection that failed, or was left outside autocommit, is
    closed as Django closes it (``close_if_unusable_or_obsolete``); the next call reconnects.
    """
    keep = float(getattr(settings, "LIVE_DB_CONN_MAX_AGE", 300))
    for conn in connections.all(initialized_only=True):
        raw = conn.connection
        if raw is not None and conn.__dict__.get("_live_kept") != id(raw):
            conn.__dict__["_live_kept"] = id(raw)
            conn.close_at = time.monotonic() + keep
        conn.close_if_unusable_or_obsolete()


class _LiveDatabaseCall(SyncToAsync):
    def thread_handler(self, loop: Any, *args: Any, **kwargs: Any) -> Any:
        tidy_connections()
        try:
            return super().thread_handler(loop, *args, **kwargs)
        finally:
            tidy_connections()


def db_call(func: Callable[..., Any]) -> Callable[..., Awaitable[Any]]:
    """A service or selector called from a socket (or a job a commit left, ``after_commit``), on the
    thread pool rather than the one thread-sensitive thread.

    With one thread per process, every socket's move would queue behind every other's commit;
    on the pool the blocking database waits of many sockets overlap (one kept connection per
    thread: ``tidy_connections``).  Services and selectors share no state between threads but
    the position memory, which locks.
    """
    return _LiveDatabaseCall(func, thread_sensitive=False)
