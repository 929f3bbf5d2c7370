"""Limits on WebSockets per user and per address, in front of every consumer: open sockets and frames.

Counted in Redis (``plumbing.limits``), in this process without it; a socket over a cap is closed
with 4429.  The rules: docs/live.md, *Limits*; the defaults: README.md, *Limits and settings*.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from typing import Any

from django.conf import settings

from . import limits

REFUSED_BEFORE_CLOSE = 50
#: An open socket renews its place this often (a place lapses after SOCKET_LEASE_SECONDS, so only
#: the places of a process that died are ever freed by time).
RENEW_EVERY = 60.0


def identities(scope: dict[str, Any]) -> list[tuple[str, str]]:
    """(kind, id) pairs a socket counts under: its address, and its user when signed in."""
    client = scope.get("client") or ("unknown", 0)
    found = [("ip", str(client[0]))]
    user = scope.get("user")
    if user is not None and getattr(user, "is_authenticated", False):
        found.append(("user", str(user.pk)))
    return found


def _error(message: str, **extra: Any) -> dict[str, Any]:
    body = {"type": "error", "code": "rate_limited", "message": message, "ref": None, **extra}
    return {"type": "websocket.send", "text": json.dumps(body)}


class SocketLimitMiddleware:
    """ASGI middleware for the websocket router; it must sit inside the auth middleware (it reads the user)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if scope["type"] != "websocket":
            return await self.inner(scope, receive, send)
        who = identities(scope)
        caps = {"ip": settings.LIVE_SOCKETS_PER_IP, "user": settings.LIVE_SOCKETS_PER_USER}
        rates = {
            "ip": limits.Rate.parse(settings.LIVE_FRAMES_PER_IP),
            "user": limits.Rate.parse(settings.LIVE_FRAMES_PER_USER),
        }
        lease_keys = [limits.key("sockets", kind, ident) for kind, ident in who]
        frame_keys = [limits.key("frames", kind, ident) for kind, ident in who]
        frame_rates = [rates[kind] for kind, _ in who]
        member = uuid.uuid4().hex

        first = await receive()
        if first["type"] != "websocket.connect":
            return
        full = await limits.aacquire(lease_keys, [caps[kind] for kind, _ in who], member)
        if full:
            kind = who[full - 1][0]
            await send({"type": "websocket.accept"})
            await send(
                _error(f"too many open sockets for this {'user' if kind == 'user' else 'address'}: close one first")
            )
            await send({"type": "websocket.close", "code": 4429})
            return

        state = {"first": first, "refused": 0, "closed": False}

        async def limited_receive() -> dict[str, Any]:
            if state["first"] is not None:
                message, state["first"] = state["first"], None
                return message
            while True:
                message = await receive()
                if message["type"] != "websocket.receive" or state["closed"]:
                    return message
                verdict = await limits.ahits(frame_keys, frame_rates)
                if verdict.allowed:
                    state["refused"] = 0
                    return message
                state["refused"] += 1
                if state["refused"] >= REFUSED_BEFORE_CLOSE:
                    state["closed"] = True
                    await send(_error("too many messages: closing"))
                    await send({"type": "websocket.close", "code": 4429})
                    return {"type": "websocket.disconnect", "code": 4429}
                kind = who[verdict.count - 1][0]
                await send(
                    _error(
                        f"too many messages from this {'user' if kind == 'user' else 'address'}: wait {verdict.retry_after:.2f} s",
                        retry_after=round(verdict.retry_after, 3),
                    )
                )

        async def guarded_send(message: dict[str, Any]) -> None:
            # nothing is sent after a close, whoever sent it: the server would raise on it
            if not state["closed"]:
                state["closed"] = message["type"] == "websocket.close"
                await send(message)

        async def keep_place() -> None:
            while True:
                await asyncio.sleep(RENEW_EVERY)
                await limits.arenew(lease_keys, member)

        renewer = asyncio.ensure_future(keep_place())
        try:
            return await self.inner(scope, limited_receive, guarded_send)
        finally:
            renewer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await renewer
            await limits.arelease(lease_keys, member)
