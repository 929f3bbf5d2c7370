"""A socket message over the protocol's limit (``LIVE_MAX_MESSAGE_BYTES``) closes the socket with 1009
on a real uvicorn started as production starts it (piramide_site/serve.py): uvicorn's own default
read 16 MiB messages whole before the application could refuse them (80 sockets x 15 MB took a
server from 469 MB to 2.7 GB)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from django.conf import settings

from piramide_site.serve import uvicorn_arguments
from tests.factories import make_challenge
from tests.uvicorn_server import database_env, uvicorn_server


@pytest.fixture
def room_server(postgres: Any, transactional_db: Any, tmp_path: Any) -> Any:
    challenge = make_challenge()
    with uvicorn_server(tmp_path, env=database_env()) as server:
        yield server, f"/ws/challenges/{challenge.pk}/"


async def open_room(port: int, path: str) -> Any:
    from websockets.asyncio.client import connect

    ws = await connect(f"ws://127.0.0.1:{port}{path}", origin="http://127.0.0.1", proxy=None, max_size=None)
    while json.loads(await asyncio.wait_for(ws.recv(), 10))["type"] != "room.snapshot":
        pass
    return ws


async def answer_to(ws: Any, text: str) -> Any:
    """The socket's answer to one message: its error, or the close code."""
    from websockets.exceptions import ConnectionClosed

    await ws.send(text)
    try:
        while True:
            message = json.loads(await asyncio.wait_for(ws.recv(), 10))
            if message["type"] == "error":
                return message
    except ConnectionClosed:
        return ws.close_code


def test_a_message_at_the_limit_is_answered_and_one_byte_more_closes_the_socket_with_1009(room_server):
    server, path = room_server
    limit = settings.LIVE_MAX_MESSAGE_BYTES

    async def scenario() -> tuple[Any, Any]:
        ws = await open_room(server.port, path)
        at_limit = await answer_to(ws, "x" * limit)  # not JSON: the protocol's own error, the socket stays
        over = await answer_to(ws, "x" * (limit + 1))
        return at_limit, over

    at_limit, over = asyncio.run(scenario())
    assert isinstance(at_limit, dict) and at_limit["code"] == "invalid"
    assert over == 1009


def test_fifteen_megabyte_frames_are_refused_without_being_read(room_server):
    server, path = room_server

    async def scenario() -> list[Any]:
        sockets = [await open_room(server.port, path) for _ in range(10)]
        return await asyncio.gather(*(answer_to(ws, "x" * 15_000_000) for ws in sockets))

    rss_before = server.rss_kib()
    assert asyncio.run(scenario()) == [1009] * 10
    # Read whole, ten 15 MB frames would have been 150 MB at least.
    assert server.rss_kib() - rss_before < 20 * 1024


def test_the_launcher_gives_uvicorn_the_settings_limit_and_refuses_another():
    arguments = uvicorn_arguments(["--host", "0.0.0.0"])
    assert arguments[0] == settings.ASGI_APPLICATION.replace(".application", ":application")
    assert arguments[arguments.index("--ws-max-size") + 1] == str(settings.LIVE_MAX_MESSAGE_BYTES)
    assert arguments[-2:] == ["--host", "0.0.0.0"]
    with pytest.raises(SystemExit, match="LIVE_MAX_MESSAGE_BYTES"):
        uvicorn_arguments(["--ws-max-size", "16777216"])
    with pytest.raises(SystemExit):
        uvicorn_arguments(["--ws-max-size=16777216"])
