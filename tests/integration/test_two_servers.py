"""Two ASGI server processes on one Redis (live events' pub/sub) and one Postgres: play on one, watch on the other.

Each server is a real uvicorn process on its own port; the only thing they share is Redis and
the database, as two web containers would.  Needs Postgres (DATABASE_URL) and Redis (REDIS_URL):
in CI it fails without them, elsewhere it skips with the reason.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings

from games.engine import Game as EngineGame
from games.engine.solver import solve
from games.models import Move
from games.services import game_ranked_start, game_resign
from tests.conftest import ROOT
from tests.factories import make_challenge, make_player
from tests.sockets import cards_in, session_cookie

pytestmark = [pytest.mark.needs_redis, pytest.mark.needs_postgres]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_server(port: int, env: dict[str, str], log_path: str) -> subprocess.Popen[bytes]:
    log = open(log_path, "wb")
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "piramide_site.asgi:application",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--no-access-log",
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )


def wait_until_up(process: subprocess.Popen[bytes], port: int, log_path: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"the server on port {port} exited with {process.returncode}: {open(log_path).read()[-2000:]}")
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/challenges/today/", timeout=2).read()
            return
        except OSError:
            time.sleep(0.2)
    pytest.fail(f"the server on port {port} did not answer within 60 s")


@pytest.fixture
def two_servers(postgres: Any, redis_url: str, transactional_db: Any, tmp_path: Any) -> Iterator[tuple[int, int]]:
    from django.db import connection

    db = connection.settings_dict
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "piramide_site.settings.test",
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}",
        "REDIS_URL": redis_url,
        "LEADERBOARD_KEY_PREFIX": settings.LEADERBOARD_KEY_PREFIX,
        "LIVE_RATE_BURST": "1000",
        "LIVE_ROOM_INTERVAL": "0.2",
        "PYTHONPATH": str(ROOT),
    }
    ports = free_port(), free_port()
    logs = [str(tmp_path / f"server-{port}.log") for port in ports]
    servers = [start_server(port, env, log) for port, log in zip(ports, logs)]
    try:
        for server, port, log in zip(servers, ports, logs):
            wait_until_up(server, port, log)
        yield ports
    finally:
        for server in servers:
            server.terminate()
        for server in servers:
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


async def connect(port: int, path: str, cookie: str | None = None) -> Any:
    from websockets.asyncio.client import connect as ws_connect

    headers = {"Cookie": f"{settings.SESSION_COOKIE_NAME}={cookie}"} if cookie else None
    return await ws_connect(
        f"ws://127.0.0.1:{port}{path}", origin="http://127.0.0.1", additional_headers=headers, proxy=None
    )


async def next_of(ws: Any, kind: str, timeout: float = 10) -> dict[str, Any]:
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), timeout))
        if message["type"] == kind:
            return message


def test_a_game_played_on_one_server_is_watched_live_on_the_other(two_servers: tuple[int, int]) -> None:
    port_a, port_b = two_servers
    challenge = make_challenge(preset="classic")
    alice, bob = make_player("alice", display_name="Alice"), make_player("bob", display_name="Bob")
    game = game_ranked_start(challenge_id=challenge.pk, player=alice)[0].game
    bobs_game = game_ranked_start(challenge_id=challenge.pk, player=bob)[0].game
    game_resign(game_id=bobs_game.pk, player=bob)  # over, yet while the day lasts Bob watches in summaries
    line = [str(move) for move in solve(EngineGame.start(challenge.deal), time_limit=10).line]
    alice_cookie, bob_cookie = session_cookie(alice), session_cookie(bob)

    async def scenario() -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, Any]]:
        player = await connect(port_a, f"/ws/games/{game.pk}/", alice_cookie)
        watcher = await connect(port_b, f"/ws/games/{game.pk}/", alice_cookie)  # her second tab, on the other server
        spectator = await connect(port_b, f"/ws/games/{game.pk}/", bob_cookie)
        room = await connect(port_b, f"/ws/challenges/{challenge.pk}/")
        for ws in (player, watcher, spectator):
            await next_of(ws, "synced")
        await next_of(room, "room.snapshot")
        # Idle longer than redis-py's default read timeout: the layer must keep idle sockets alive.
        await asyncio.sleep(6)
        for seen, move in enumerate(line):
            await player.send(json.dumps({"type": "move", "move": move, "seen": seen}))
            reply = await next_of(player, "move.ok")
            assert reply["version"] == seen + 1
        watched = [await next_of(watcher, "game.move_made") for _ in line]
        watched.append(await next_of(watcher, "game.finished"))
        summaries = [await next_of(spectator, "game.progress") for _ in line]
        room_state: dict[str, Any] = {}
        while room_state.get("stats", {}).get("wins") != 1 or not room_state.get("top"):
            room_state.update(await next_of(room, "room.update"))
        for ws in (player, watcher, spectator, room):
            await ws.close()
        return watched, summaries, room_state

    watched, summaries, room_state = asyncio.run(scenario())
    assert [event["move"] for event in watched[:-1]] == line
    assert [event["version"] for event in watched[:-1]] == list(range(1, len(line) + 1))
    assert watched[-1]["outcome"] == "won"
    assert all(not cards_in(event) for event in summaries)
    assert room_state["top"][0]["player"]["display_name"] == "Alice"
    assert list(Move.objects.filter(game=game).order_by("number").values_list("notation", flat=True)) == line
