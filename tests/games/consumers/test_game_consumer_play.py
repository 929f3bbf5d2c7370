"""Playing over /ws/games/<id>/: the same service as REST, typed errors, two tabs, REST interleaved, resync."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from rest_framework.test import APIClient

from games.models import Game, Move
from games.services import game_move_make, game_practice_start, game_resign
from tests.factories import end_the_day
from tests.sockets import Socket

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


async def open_game(game, cookie=None, query=""):
    socket = await Socket(f"/ws/games/{game.pk}/{query}", cookie).open()
    hello = await socket.expect("hello")
    return socket, hello


async def test_owner_is_greeted_as_player_with_the_full_state(alice_game, alice_cookie):
    socket, hello = await open_game(alice_game, alice_cookie)
    assert hello["role"] == "player" and hello["view"] == "full"
    assert hello["user"]["display_name"] == "Alice"
    assert hello["limits"]["rate_per_second"] > 0
    state = await socket.expect("state")
    assert state["version"] == 0
    assert state["game"]["id"] == alice_game.pk and state["game"]["moves"] == 0
    assert "legal_moves" in state["game"]["state"]
    assert (await socket.expect("synced"))["version"] == 0
    await socket.close()


async def test_a_move_is_stored_and_answered_with_the_new_visible_state(alice_game, alice_cookie, line):
    socket, _ = await open_game(alice_game, alice_cookie)
    await socket.until("synced")
    await socket.send(type="move", move=line[0], seen=0, ref="m1")
    reply = await socket.expect("move.ok")
    assert reply["ref"] == "m1" and reply["version"] == 1
    assert reply["game"]["moves"] == 1 and reply["game"]["state"]["moves"] == 1
    assert await socket.quiet(), "the mover's own socket does not get its move twice"
    assert await database_sync_to_async(lambda: list(Move.objects.values_list("number", "notation")))() == [
        (1, line[0])
    ]
    await socket.close()


@pytest.mark.parametrize(
    ("message", "code"),
    [
        ({"type": "move", "move": "1.1+S", "seen": 0}, "illegal"),
        ({"type": "move", "move": "hello", "seen": 0}, "illegal"),
        ({"type": "move", "move": "D", "seen": 3}, "stale"),
        ({"type": "move", "move": "D"}, "invalid"),
        ({"type": "move", "move": 7, "seen": 0}, "invalid"),
        ({"type": "undo", "seen": 0}, "not_allowed"),
    ],
)
async def test_refused_moves_get_a_typed_error_with_readable_text_and_change_nothing(
    alice_game, alice_cookie, message, code
):
    socket, _ = await open_game(alice_game, alice_cookie)
    await socket.until("synced")
    await socket.send(**message, ref="r")
    error = await socket.expect("error")
    assert error["code"] == code and error["ref"] == "r"
    assert len(error["message"]) > 10 and " " in error["message"]
    if code == "stale":
        assert error["moves"] == 0
    game = await database_sync_to_async(Game.objects.get)(pk=alice_game.pk)
    assert game.move_count == 0
    await socket.close()


async def test_a_move_on_someone_elses_game_is_not_yours(alice_game, bob_cookie):
    socket, hello = await open_game(alice_game, bob_cookie)
    assert hello["role"] == "spectator"
    await socket.until("synced")
    await socket.send(type="move", move="D", seen=0)
    assert (await socket.expect("error"))["code"] == "not_yours"
    await socket.send(type="resign")
    assert (await socket.expect("error"))["code"] == "not_yours"
    await socket.close()


async def test_an_anonymous_socket_cannot_play(alice_game):
    socket, hello = await open_game(alice_game)
    assert hello["user"] is None and hello["role"] == "spectator"
    await socket.until("synced")
    await socket.send(type="move", move="D", seen=0)
    assert (await socket.expect("error"))["code"] == "unauthenticated"
    await socket.close()


async def test_a_move_on_a_finished_game_is_refused_as_finished(alice_game, alice, alice_cookie):
    await database_sync_to_async(game_resign)(game_id=alice_game.pk, player=alice)
    socket, _ = await open_game(alice_game, alice_cookie)
    await socket.until("synced")
    await socket.send(type="move", move="D", seen=0)
    error = await socket.expect("error")
    assert error["code"] == "finished" and "over" in error["message"]
    await socket.close()


async def test_resigning_over_the_socket_ends_the_game_and_tells_the_other_tabs(alice_game, alice_cookie):
    tab1, _ = await open_game(alice_game, alice_cookie)
    tab2, _ = await open_game(alice_game, alice_cookie)
    await tab1.until("synced")
    await tab2.until("synced")
    await tab1.send(type="resign")
    reply = await tab1.expect("move.ok")
    assert reply["game"]["outcome"] == "resigned"
    finished = await tab2.expect("game.finished")
    assert finished["outcome"] == "resigned" and finished["version"] == 0
    await tab1.close()
    await tab2.close()


async def test_two_tabs_of_one_player_stay_consistent(alice_game, alice_cookie, line):
    tab1, _ = await open_game(alice_game, alice_cookie)
    tab2, _ = await open_game(alice_game, alice_cookie)
    await tab1.until("synced")
    await tab2.until("synced")
    await tab1.send(type="move", move=line[0], seen=0)
    ok = await tab1.expect("move.ok")
    made = await tab2.expect("game.move_made")
    assert made["version"] == 1 and made["move"] == line[0]
    assert made["state"] == ok["game"]
    # The second tab had not yet seen the move when it sent its own: refused, nothing changes.
    await tab2.send(type="move", move=line[0], seen=0)
    stale = await tab2.expect("error")
    assert stale["code"] == "stale" and stale["moves"] == 1
    await tab2.send(type="move", move=line[1], seen=1)
    assert (await tab2.expect("move.ok"))["version"] == 2
    assert (await tab1.expect("game.move_made"))["version"] == 2
    await tab1.close()
    await tab2.close()


async def test_moves_over_rest_and_over_the_socket_interleave(alice_game, alice, alice_cookie, line):
    client = APIClient()
    await database_sync_to_async(client.force_login)(alice)
    socket, _ = await open_game(alice_game, alice_cookie)
    await socket.until("synced")
    url = f"/api/games/{alice_game.pk}/moves/"
    response = await database_sync_to_async(client.post)(url, {"move": line[0], "seen": 0}, format="json")
    assert response.status_code == 200
    made = await socket.expect("game.move_made")
    assert made["version"] == 1 and made["state"] == response.json()
    await socket.send(type="move", move=line[1], seen=1)
    assert (await socket.expect("move.ok"))["version"] == 2
    stale = await database_sync_to_async(client.post)(url, {"move": line[1], "seen": 1}, format="json")
    assert stale.status_code == 409 and stale.json()["error"] == "stale"
    response = await database_sync_to_async(client.post)(url, {"move": line[2], "seen": 2}, format="json")
    assert response.status_code == 200
    assert (await socket.expect("game.move_made"))["version"] == 3
    notations = await database_sync_to_async(
        lambda: list(Move.objects.order_by("number").values_list("notation", flat=True))
    )()
    assert notations == line[:3]
    await socket.close()


async def test_playing_a_whole_game_over_the_socket_wins_it(alice_game, alice_cookie, line, settings):
    settings.LIVE_RATE_BURST = 1000
    socket, _ = await open_game(alice_game, alice_cookie)
    await socket.until("synced")
    for seen, move in enumerate(line):
        await socket.send(type="move", move=move, seen=seen)
        reply = await socket.expect("move.ok")
    assert reply["game"]["outcome"] == "won" and reply["game"]["state"]["legal_moves"] == []
    assert (await socket.expect("game.finished"))["outcome"] == "won"
    await socket.close()


async def test_reconnecting_with_the_last_version_gets_exactly_the_missed_moves(alice_game, alice, alice_cookie, line):
    for seen, move in enumerate(line[:5]):
        await database_sync_to_async(game_move_make)(game_id=alice_game.pk, player=alice, move=move, seen=seen)
    socket, _ = await open_game(alice_game, alice_cookie, "?since=2")
    missed = [await socket.expect("game.move_made") for _ in range(3)]
    assert [m["version"] for m in missed] == [3, 4, 5]
    assert [m["move"] for m in missed] == line[2:5]
    assert all(m["replayed"] for m in missed)
    assert missed[0]["state"]["moves"] == 3 and missed[-1]["state"]["state"]["moves"] == 5
    assert (await socket.expect("synced"))["version"] == 5
    # The same through a sync message on an open socket: nothing missed, nothing sent but "synced".
    await socket.send(type="sync", since=5)
    assert (await socket.expect("synced"))["version"] == 5
    await socket.close()


async def test_a_gap_too_old_or_a_version_from_the_future_gets_a_full_state(
    alice_game, alice, alice_cookie, line, settings
):
    settings.LIVE_RESYNC_GAP = 2
    for seen, move in enumerate(line[:4]):
        await database_sync_to_async(game_move_make)(game_id=alice_game.pk, player=alice, move=move, seen=seen)
    for since in (0, 9):
        socket, _ = await open_game(alice_game, alice_cookie, f"?since={since}")
        state = await socket.expect("state")
        assert state["version"] == 4 and state["game"]["moves"] == 4
        await socket.close()


@pytest.mark.parametrize(
    "since",
    ["%C2%B2", "1" * 5000, "-1", "1.5", "abc"],
    ids=["superscript-two", "5000-digits", "negative", "decimal", "letters"],
)
async def test_a_since_that_is_no_version_is_ignored_and_gets_a_full_state(
    alice_game, alice, alice_cookie, line, since
):
    await database_sync_to_async(game_move_make)(game_id=alice_game.pk, player=alice, move=line[0], seen=0)
    socket, _ = await open_game(alice_game, alice_cookie, f"?since={since}")
    state = await socket.expect("state")
    assert state["version"] == 1 and state["game"]["moves"] == 1
    assert (await socket.expect("synced"))["version"] == 1
    await socket.close()


async def test_a_practice_game_always_resyncs_with_a_full_state(challenge, alice, alice_cookie, line):
    """Practice games can undo, so a version alone does not name one position."""
    await database_sync_to_async(end_the_day)(challenge)  # practice opens once the day is over
    practice = (await database_sync_to_async(game_practice_start)(challenge_id=challenge.pk, player=alice)).game
    await database_sync_to_async(game_move_make)(game_id=practice.pk, player=alice, move=line[0], seen=0)
    socket, _ = await open_game(practice, alice_cookie, "?since=0")
    assert (await socket.expect("state"))["version"] == 1
    await socket.until("synced")
    await socket.send(type="undo", seen=1)
    assert (await socket.expect("move.ok"))["version"] == 0
    await socket.close()


async def test_ping_answers_with_the_stored_version(alice_game, alice, alice_cookie, line):
    socket, _ = await open_game(alice_game, alice_cookie)
    await socket.until("synced")
    await database_sync_to_async(game_move_make)(game_id=alice_game.pk, player=alice, move=line[0], seen=0)
    await socket.expect("game.move_made")
    await socket.send(type="ping", ref="p")
    pong = await socket.expect("pong")
    assert pong == {"type": "pong", "version": 1, "finished": False, "ref": "p"}
    await socket.close()


async def test_the_socket_renders_a_game_exactly_as_the_rest_api_does(alice_game, alice, alice_cookie, line):
    client = APIClient()
    await database_sync_to_async(client.force_login)(alice)
    socket, _ = await open_game(alice_game, alice_cookie)
    await socket.until("synced")
    await socket.send(type="move", move=line[0], seen=0)
    reply = await socket.expect("move.ok")
    rest = await database_sync_to_async(client.get)(f"/api/games/{alice_game.pk}/")
    assert reply["game"] == rest.json()
    await socket.send(type="resign")
    reply = await socket.expect("move.ok")
    rest = await database_sync_to_async(client.get)(f"/api/games/{alice_game.pk}/")
    assert reply["game"] == rest.json() and reply["game"]["finished_at"] is not None
    await socket.close()
