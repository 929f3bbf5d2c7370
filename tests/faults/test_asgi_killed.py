"""The ASGI server is killed (SIGKILL) in the middle of a game, twice, and started again.

The game is played over the WebSocket and the REST API.  Each kill lands after a move was sent
and before the client read its answer, so the client cannot know whether that move was stored:
once right after the move was committed (the socket client reconnects, resyncs from the version it
had, gets the move it missed, and a resend is refused as stale), once while a REST move is in
flight (the client asks the game and sends the move again with the same ``seen``).
Postgres is the only state, so nothing is lost and nothing is doubled: the stored log is exactly
the moves played, each once, and the game goes on to its end.
"""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

import pytest
import requests

from tests.faults.conftest import PASSWORD, Client, Stack, setup_players, winning_line
from tests.faults.stack import WebServer, run_async, wait_for

pytestmark = pytest.mark.servers


async def connect(port: int, path: str, session: str) -> Any:
    from websockets.asyncio.client import connect as ws_connect

    return await ws_connect(
        f"ws://127.0.0.1:{port}{path}",
        origin="http://127.0.0.1",
        additional_headers={"Cookie": f"sessionid={session}"},
        proxy=None,
    )


async def until(ws: Any, *kinds: str, timeout: float = 15) -> dict[str, Any]:
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), timeout))
        if message["type"] in kinds:
            return message


def test_the_game_resumes_from_postgres_after_the_asgi_server_is_killed(stack: Stack) -> None:
    ids = setup_players(stack, "alice")
    line = winning_line("classic", ids["seed"])
    web = stack.web()
    alice = Client(web.base).sign_in("alice", PASSWORD)
    game_id = alice.post(f"/api/challenges/{ids['challenge']}/ranked/").json()["id"]
    path = f"/ws/games/{game_id}/"
    outcomes: dict[str, Any] = {}

    def stored_moves() -> int:
        return int(stack.query("SELECT move_count FROM games_game WHERE id = %s", game_id)[0][0])

    def restart(killed: WebServer) -> WebServer:
        killed.kill()
        return stack.web(port=killed.port)

    async def scenario() -> dict[str, Any]:
        nonlocal web
        ws = await connect(web.port, path, alice.session)
        assert (await until(ws, "synced"))["version"] == 0
        # 1. Twelve moves, alternating REST and socket.
        for seen in range(12):
            if seen % 2:
                await ws.send(json.dumps({"type": "move", "move": line[seen], "seen": seen}))
                assert (await until(ws, "move.ok", "error"))["version"] == seen + 1
            else:
                assert alice.post(f"/api/games/{game_id}/moves/", {"move": line[seen], "seen": seen}).status_code == 200
        # 2. A socket move stored, and the server killed before the client read its answer.
        await ws.send(json.dumps({"type": "move", "move": line[12], "seen": 12}))
        wait_for(lambda: stored_moves() == 13, 10, "the socket move to be stored", interval=0.005)
        web = restart(web)
        await ws.close()  # whatever the old socket still holds, the client never read it
        ws = await connect(web.port, path + "?since=12", alice.session)
        missed = await until(ws, "game.move_made")
        assert (missed["version"], missed["move"], missed["replayed"]) == (13, line[12], True)
        assert (await until(ws, "synced"))["version"] == 13
        # A client that resends anyway is refused, and nothing changes.
        await ws.send(json.dumps({"type": "move", "move": line[12], "seen": 12}))
        answer = await until(ws, "move.ok", "error")
        assert answer["type"] == "error" and answer["code"] == "stale" and answer["moves"] == 13, answer
        # 3. A REST move in flight when the server dies.
        replies: list[Any] = []

        def post() -> None:
            try:
                replies.append(alice.post(f"/api/games/{game_id}/moves/", {"move": line[13], "seen": 13}).status_code)
            except requests.RequestException as error:
                replies.append(error)

        sender = threading.Thread(target=post)
        sender.start()
        await asyncio.sleep(0.005)
        web = restart(web)
        sender.join()
        state = alice.get(f"/api/games/{game_id}/").json()
        assert state["moves"] in (13, 14), state
        outcomes["REST move stored before the kill"] = state["moves"] - 13
        outcomes["REST client saw"] = str(replies[0])
        retry = alice.post(f"/api/games/{game_id}/moves/", {"move": line[13], "seen": 13})
        assert retry.status_code == 200 or (retry.status_code == 409 and retry.json()["error"] == "stale"), retry.text
        # 4. The rest of the game, over a fresh socket.
        ws = await connect(web.port, path + "?since=14", alice.session)
        assert (await until(ws, "synced"))["version"] == 14
        for seen in range(14, len(line)):
            await ws.send(json.dumps({"type": "move", "move": line[seen], "seen": seen}))
            reply = await until(ws, "move.ok", "error")
            assert reply["type"] == "move.ok" and reply["version"] == seen + 1, reply
        finished = await until(ws, "game.finished")
        await ws.close()
        return finished

    finished = run_async(scenario())
    assert finished["outcome"] == "won"
    stored = stack.query("SELECT number, notation FROM games_move WHERE game_id = %s ORDER BY number", game_id)
    assert stored == [(number, move) for number, move in enumerate(line, start=1)]
    game = stack.query("SELECT outcome, move_count, score FROM games_game WHERE id = %s", game_id)[0]
    assert game[:2] == ("won", len(line))
    score = stack.query("SELECT points, moves FROM leaderboard_score WHERE player_id = %s", ids["players"][0])
    assert score == [(game[2], len(line))]
    print("in-flight REST move:", outcomes)


#: Players whose sockets come back at the same instant after the restart.
STORM = 8

START_GAMES = """
from accounts.models import User
from games.services import game_ranked_start
result = [game_ranked_start(challenge_id=CHALLENGE, player=User.objects.get(username=name))[0].game.pk for name in NAMES]
"""


def test_sockets_that_reconnect_at_once_after_a_restart_all_get_live_events(stack: Stack) -> None:
    """After a restart every client reconnects at the same moment: each socket's events must arrive.

    The sockets of a fresh server process subscribe to their games' Redis channels at the same
    instant; a subscription lost in that rush would leave its game silent on that server for good.
    """
    names = [f"player{i}" for i in range(STORM)]
    ids = setup_players(stack, *names)
    line = winning_line("classic", ids["seed"])
    games = stack.django(f"CHALLENGE = {ids['challenge']}\nNAMES = {names!r}\n" + START_GAMES)
    web = stack.web()
    clients = [Client(web.base).sign_in(name, PASSWORD) for name in names]
    web.kill()
    web = stack.web(port=web.port)

    async def storm() -> list[int | None]:
        sockets = await asyncio.gather(
            *(connect(web.port, f"/ws/games/{game}/?since=0", client.session) for game, client in zip(games, clients))
        )
        for ws in sockets:
            assert (await until(ws, "synced"))["version"] == 0
        for game, client in zip(games, clients):
            assert client.post(f"/api/games/{game}/moves/", {"move": line[0], "seen": 0}).status_code == 200

        async def heard(ws: Any) -> int | None:
            try:
                return int((await until(ws, "game.move_made", timeout=5))["version"])
            except TimeoutError:
                return None

        versions = await asyncio.gather(*(heard(ws) for ws in sockets))
        for ws in sockets:
            await ws.close()
        return list(versions)

    versions = run_async(storm())
    assert versions == [1] * STORM, f"sockets that got no live event: {versions.count(None)} of {STORM}"
