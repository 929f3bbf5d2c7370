"""Redis loses everything (FLUSHALL) under a running site.

Postgres is the source of truth: every leaderboard reads the same after the flush, rebuilt from it
(the sorted sets are there again afterwards, not just answered by SQL), and a score recorded after
the flush lands on the rebuilt board.  Sockets opened before the flush keep getting live events
(the servers' pub/sub subscriptions are connection state, not data); a socket that reconnects with
the version it had gets what it missed and then live events, and the challenge room starts over
with a snapshot that matches the database.  The Celery worker keeps consuming: a verification
enqueued after the flush runs.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.faults.conftest import PASSWORD, Client, Stack, setup_players, winning_line
from tests.faults.stack import run_async, wait_for
from tests.faults.test_asgi_killed import connect, until

pytestmark = pytest.mark.servers

#: Three finished ranked games (won, resigned after 10 moves, resigned after 3) and one in play.
PLAY = """
from accounts.models import User
from games.services import game_move_make, game_ranked_start, game_resign
challenge_id, line = CHALLENGE, LINE
games = {}
for name, played, resign in (("alice", len(line), False), ("bob", 10, True), ("carol", 3, True), ("dave", 0, False)):
    player = User.objects.get(username=name)
    game = game_ranked_start(challenge_id=challenge_id, player=player)[0].game
    for seen, move in enumerate(line[:played]):
        game_move_make(game_id=game.pk, player=player, move=move, seen=seen)
    if resign:
        game_resign(game_id=game.pk, player=player)
    games[name] = game.pk
result = games
"""


def boards(client: Client, challenge_id: int) -> dict[str, Any]:
    paths = {
        "challenge": f"/api/leaderboards/challenges/{challenge_id}/",
        "week": "/api/leaderboards/weeks/classic/",
        "all-time": "/api/leaderboards/all-time/classic/",
    }
    answers = {name: client.get(path) for name, path in paths.items()}
    assert all(answer.status_code == 200 for answer in answers.values()), {k: v.text for k, v in answers.items()}
    return {name: answer.json() for name, answer in answers.items()}


def test_leaderboards_rebuild_from_postgres_and_sockets_reconnect_after_redis_is_flushed(stack: Stack) -> None:
    ids = setup_players(stack, "alice", "bob", "carol", "dave")
    line = winning_line("classic", ids["seed"])
    games = stack.django(f"CHALLENGE = {ids['challenge']}\nLINE = {line!r}\n" + PLAY)
    web = stack.web()
    stack.worker("flush")
    dave = Client(web.base).sign_in("dave", PASSWORD)
    anonymous = Client(web.base)
    before = boards(anonymous, ids["challenge"])
    assert [row["display_name"] for row in before["challenge"]["entries"]] == ["Alice", "Bob", "Carol"]
    redis = stack.redis.client()
    assert redis.keys("piramide:lb:*:built"), "the boards live in Redis sorted sets"
    dave_game = games["dave"]
    path = f"/api/games/{dave_game}/moves/"

    async def scenario() -> None:
        # One socket after the other: sockets of a fresh server process that subscribe at the same
        # instant can lose their events (tests/faults/test_asgi_killed.py, the reconnection storm).
        player = await connect(web.port, f"/ws/games/{dave_game}/", dave.session)
        assert (await until(player, "synced"))["version"] == 0
        room = await connect(web.port, f"/ws/challenges/{ids['challenge']}/", dave.session)
        await until(room, "room.snapshot")
        assert dave.post(path, {"move": line[0], "seen": 0}).status_code == 200
        assert (await until(player, "game.move_made"))["version"] == 1

        redis.flushall()
        assert not redis.keys("*")

        assert dave.post(path, {"move": line[1], "seen": 1}).status_code == 200
        # A socket opened before the flush keeps getting live events: its server's subscription
        # to the game's channel is connection state, not data, so the flush does not touch it.
        live = await until(player, "game.move_made", timeout=5)
        assert (live["version"], live["move"]) == (2, line[1])
        # The keep-alive reads the version from Postgres.
        await player.send(json.dumps({"type": "ping"}))
        assert (await until(player, "pong"))["version"] == 2
        await player.close()
        await room.close()

        # A client that reconnects anyway (it saw only move 1) gets what it missed, then live events.
        player = await connect(web.port, f"/ws/games/{dave_game}/?since=1", dave.session)
        missed = await until(player, "game.move_made")
        assert (missed["version"], missed["move"]) == (2, line[1])
        assert (await until(player, "synced"))["version"] == 2
        room = await connect(web.port, f"/ws/challenges/{ids['challenge']}/", dave.session)
        snapshot = await until(room, "room.snapshot")
        assert snapshot["stats"] == {"players": 4, "playing": 1, "finished": 3, "wins": 1}
        assert [row["player"]["display_name"] for row in snapshot["top"]] == ["Alice", "Bob", "Carol"]

        assert dave.post(path, {"move": line[2], "seen": 2}).status_code == 200
        live = await until(player, "game.move_made")
        assert (live["version"], live["move"], live.get("replayed")) == (3, line[2], None)
        assert dave.post(f"/api/games/{dave_game}/resign/").status_code == 200
        assert (await until(player, "game.finished"))["outcome"] == "resigned"
        update: dict[str, Any] = {}
        while update.get("stats", {}).get("finished") != 4:
            update.update(await until(room, "room.update"))
        assert any(row["player"]["display_name"] == "Dave" for row in update["top"])
        await player.close()
        await room.close()

    run_async(scenario())
    # The next reads rebuilt every board from Postgres: the same as before, plus Dave's new score.
    after = boards(anonymous, ids["challenge"])
    for name, board in after.items():
        unranked = [{k: v for k, v in row.items() if k != "rank"} for row in board["entries"]]
        assert [row for row in unranked if row["display_name"] != "Dave"] == [
            {k: v for k, v in row.items() if k != "rank"} for row in before[name]["entries"]
        ]
        assert board["total"] == before[name]["total"] + 1
    built = redis.keys("piramide:lb:*:built")
    assert len(built) == 3, built
    scores = stack.query(
        "SELECT u.display_name, s.points, s.moves FROM leaderboard_score s JOIN accounts_user u ON u.id = s.player_id "
        "ORDER BY s.points DESC, s.moves"
    )
    entries = [(row["display_name"], row["points"], row["moves"]) for row in after["challenge"]["entries"]]
    assert sorted(entries) == sorted(scores)
    # The queue went with the flush; a task enqueued after it still reaches the worker.
    pending = stack.django(
        "import datetime as dt\nfrom tests.factories import make_challenge\nfrom games.selectors import local_today\n"
        "from games.services import challenge_verification_request\n"
        "challenge = make_challenge(date=local_today() + dt.timedelta(days=1), seed=5, status='pending', verdict='')\n"
        "challenge_verification_request(challenge_id=challenge.pk)\nresult = challenge.pk"
    )
    wait_for(
        lambda: stack.query("SELECT status FROM games_dailychallenge WHERE id = %s", pending) == [("done",)],
        30,
        "the verification enqueued after the flush",
        interval=0.2,
    )
