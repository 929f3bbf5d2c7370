"""Database calls from an event loop, on its thread pool (a socket's service call, the work a commit leaves)."""

from __future__ import annotations

import threading
import time
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import connections
from django.db.backends.signals import connection_created

from .internals import keep_connection_until

#: Per thread: the aliases of the connections it opened whose deadline ``tidy_connections`` has yet to set.
_fresh = threading.local()


def _fresh_aliases() -> set[str]:
    aliases: set[str] | None = getattr(_fresh, "aliases", None)
    if aliases is None:
        aliases = _fresh.aliases = set()
    return aliases


def _note_fresh(sender: Any, connection: Any, **kwargs: Any) -> None:
    _fresh_aliases().add(connection.alias)


connection_created.connect(_note_fresh, dispatch_uid="plumbing.db_calls")


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
    fresh = _fresh_aliases()
    for conn in connections.all(initialized_only=True):
        if conn.alias in fresh:  # opened since the last tidy: its deadline counts from now
            fresh.discard(conn.alias)
            keep_connection_until(conn, time.monotonic() + keep)
        conn.close_if_unusable_or_obsolete()


def _tidied(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    tidy_connections()
    try:
        return func(*args, **kwargs)
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
    return sync_to_async(partial(_tidied, func), thread_sensitive=False)
