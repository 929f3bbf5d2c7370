"""Socket clients for the live-layer tests: the real ASGI application, in memory.

Every socket goes through the whole stack of ``piramide_site.asgi`` (origin check, session
authentication, routing), so the tests see what a browser would.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from typing import Any

import pytest
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client

ORIGIN = b"http://127.0.0.1"
#: A card in the engine's text form (``7s``, ``Td``) standing alone.
CARD = re.compile(r"(?<![A-Za-z0-9])([A2-9TJQK][cdhs])(?![A-Za-z0-9])")


def session_cookie(user: Any) -> str:
    """A signed-in session for ``user`` (a committed row: call it outside the event loop)."""
    client = Client()
    client.force_login(user)
    return client.cookies[settings.SESSION_COOKIE_NAME].value


def during_first_read(monkeypatch: pytest.MonkeyPatch, module: Any, name: str, act: Callable[[], Any]) -> None:
    """Make ``module.name``, a socket's opening read (run in a worker thread), call ``act`` after
    its first read and wait a moment, so what ``act`` publishes reaches the opening socket while
    that read is still out.  (The wait is a margin, not a proof: where delivery took longer, the
    event would come after the read, and the test would pass with or without the holding.)"""
    original = getattr(module, name)
    done: list[bool] = []

    def read_then_act(**kwargs: Any) -> Any:
        result = original(**kwargs)
        if not done:
            done.append(True)
            act()
            time.sleep(0.3)
        return result

    monkeypatch.setattr(module, name, read_then_act)


def cards_in(message: dict[str, Any]) -> set[str]:
    return set(CARD.findall(json.dumps(message)))


class Socket:
    def __init__(self, path: str, cookie: str | None = None, origin: bytes | None = ORIGIN) -> None:
        from piramide_site.asgi import application

        headers = [(b"origin", origin)] if origin is not None else []
        if cookie is not None:
            headers.append((b"cookie", f"{settings.SESSION_COOKIE_NAME}={cookie}".encode()))
        self.communicator = WebsocketCommunicator(application, path, headers=headers)
        self.received: list[dict[str, Any]] = []

    async def open(self) -> Socket:
        connected, code = await self.communicator.connect(timeout=5)
        assert connected, f"refused with {code}"
        return self

    async def send(self, **message: Any) -> None:
        await self.communicator.send_json_to(message)

    async def send_text(self, text: str) -> None:
        await self.communicator.send_to(text_data=text)

    async def recv(self, timeout: float = 3) -> dict[str, Any]:
        message = await self.communicator.receive_json_from(timeout=timeout)
        self.received.append(message)
        return message

    async def expect(self, kind: str, timeout: float = 3) -> dict[str, Any]:
        message = await self.recv(timeout)
        assert message["type"] == kind, message
        return message

    async def until(self, kind: str, timeout: float = 3) -> dict[str, Any]:
        """Skip messages until one of ``kind`` arrives."""
        start = len(self.received)
        while True:
            try:
                message = await self.recv(timeout)
            except TimeoutError:
                raise AssertionError(f"no {kind!r} within {timeout} s; skipped {self.received[start:]}") from None
            if message["type"] == kind:
                return message

    async def quiet(self, timeout: float = 0.2) -> bool:
        return await self.communicator.receive_nothing(timeout=timeout)

    async def closed_with(self, timeout: float = 3) -> int:
        output = await self.communicator.receive_output(timeout=timeout)
        assert output["type"] == "websocket.close", output
        return int(output.get("code", 1000))

    async def close(self) -> None:
        """Disconnect, then let the work the test's writes left behind finish on this loop (the
        commits' after-work, the events' publishing) before the test's loop and database go."""
        from games import events
        from plumbing import after_commit

        await self.communicator.disconnect()
        await after_commit.idle()
        await events.published()
