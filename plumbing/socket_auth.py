"""Who a socket is: Channels' session authentication, with its database read on the thread pool.

Channels' own ``get_user`` runs through ``db_call`` instead of on the one thread-sensitive thread, so
the reads of sockets opening at once overlap.  Why: docs/live.md, *Connecting* and *Measuring*.
"""

from __future__ import annotations

from typing import Any

from channels.auth import get_user
from channels.sessions import CookieMiddleware, SessionMiddleware

from .db_calls import db_call
from .internals import sync_function_of

#: Channels' ``get_user`` is a ``database_sync_to_async``: the function it runs, on the pool
_read_user = db_call(sync_function_of(get_user))


class SessionUserMiddleware:
    """What Channels' ``AuthMiddleware`` does, the user read eagerly by ``db_call`` instead of on the thread-sensitive thread."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if "session" not in scope:
            raise ValueError(
                "SessionUserMiddleware cannot find the session in the scope: SessionMiddleware goes above it"
            )
        return await self.inner(dict(scope, user=await _read_user(scope)), receive, send)


def SessionAuthStack(inner: Any) -> Any:
    """Cookies, the session, then the user: Channels' ``AuthMiddlewareStack`` with the user read above."""
    return CookieMiddleware(SessionMiddleware(SessionUserMiddleware(inner)))
