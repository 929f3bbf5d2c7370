"""Requests of one client in flight at once, per server process: the rest refused from the event loop.

A client (its session cookie) with ``HTTP_REQUESTS_PER_CLIENT`` requests in flight here, or
``HTTP_SOLVER_REQUESTS_PER_CLIENT`` asking the solver, and an address with
``HTTP_REQUESTS_PER_ADDRESS``, are answered 429 at once, with no thread, no database and no Redis
(docs/operations.md, *Solver work on a budget*).  Static files are not counted.
"""

from __future__ import annotations

import json
import re
from typing import Any

from django.conf import settings

RETRY_AFTER = 1
#: The requests that ask the solver for work: (method, path).
SOLVER_PATHS = re.compile(r"^(GET /api/games/\d+/(hint|review)/|POST /api/races/)$")
BODY = json.dumps(
    {
        "error": "throttled",
        "message": "too many requests at once: wait for the answers to those you sent",
        "retry_after": RETRY_AFTER,
    }
).encode()


class ClientConcurrencyLimit:
    """ASGI middleware for HTTP: at most so many requests per client in flight in this process."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.inflight: dict[str, int] = {}
        self.cookie = settings.SESSION_COOKIE_NAME.encode() + b"="
        self.static = "/" + settings.STATIC_URL.lstrip("/")

    def counters(self, scope: dict[str, Any]) -> list[tuple[str, int]]:
        """The counters a request goes under, each with its limit (none for a static file)."""
        if scope["type"] != "http" or scope["path"].startswith(self.static):
            return []
        client = scope.get("client")
        address = f"address:{client[0] if client else 'unknown'}"
        found: tuple[str, int] = address, settings.HTTP_REQUESTS_PER_ADDRESS
        for name, value in scope.get("headers", ()):
            if name == b"cookie" and self.cookie in value:
                for part in value.split(b";"):
                    part = part.strip()
                    if part.startswith(self.cookie) and len(part) > len(self.cookie):
                        found = (
                            "session:" + part[len(self.cookie) :].decode("latin-1"),
                            settings.HTTP_REQUESTS_PER_CLIENT,
                        )
        counters = [found] if found[0] == address else [found, (address, settings.HTTP_REQUESTS_PER_ADDRESS)]
        if SOLVER_PATHS.match(f"{scope.get('method', 'GET')} {scope['path']}"):
            counters.append((f"solver:{found[0]}", settings.HTTP_SOLVER_REQUESTS_PER_CLIENT))
        return counters

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        counters = self.counters(scope)
        if not counters:
            await self.app(scope, receive, send)
            return
        if any(0 < limit <= self.inflight.get(key, 0) for key, limit in counters):
            await send(
                {
                    "type": "http.response.start",
                    "status": 429,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"content-length", str(len(BODY)).encode()),
                        (b"retry-after", str(RETRY_AFTER).encode()),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": BODY})
            return
        for key, _ in counters:
            self.inflight[key] = self.inflight.get(key, 0) + 1
        try:
            await self.app(scope, receive, send)
        finally:
            for key, _ in counters:
                left = self.inflight[key] - 1
                if left:
                    self.inflight[key] = left
                else:
                    del self.inflight[key]
