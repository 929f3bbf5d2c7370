"""A race end to end over /ws/races/<code>/: create, join, countdown, play the same deal, see progress, results."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async

from races.services import race_create
from tests.factories import make_player
from tests.sockets import Socket, cards_in, during_first_read, session_cookie

from .conftest import SEED

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def host(transactional_db):
    return make_player("host", display_name="Host")


@pytest.fixture
def friend(transactional_db):
    return make_player("friend", display_name="Friend")


@pytest.fixture
def race(host):
    return race_create(host=host, preset="classic", seed=SEED)


async def enter(race, cookie):
    socket = await Socket(f"/ws/races/{race.code}/", cookie).open()
    assert (await socket.expect("hello"))["race"] == race.code
    return socket, await socket.expect("race.state")


async def test_a_race_from_the_lobby_to_the_results_table(race, host, friend, race_line, settings):
    settings.LIVE_RATE_BURST = 1000
    host_socket, state = await enter(race, await database_sync_to_async(session_cookie)(host))
    assert state["me"] == {"member": True, "host": True, "game": None}
    friend_socket, state = await enter(race, await database_sync_to_async(session_cookie)(friend))
    assert state["me"]["member"] is False

    await friend_socket.send(type="join", ref="j")
    assert (await friend_socket.until("race.state"))["me"]["member"] is True
    joined = await host_socket.expect("race.player_joined")
    assert joined["player"]["display_name"] == "Friend" and joined["players"] == 2

    await friend_socket.send(type="start")
    assert (await friend_socket.until("error"))["code"] == "not_host"
    await host_socket.send(type="start", countdown=1)
    countdown = await friend_socket.until("race.countdown")
    assert countdown["seconds"] == 1 and countdown["version"] > joined["version"]
    await friend_socket.send(type="move", move="D", seen=0)
    assert (await friend_socket.until("error"))["code"] == "not_started"

    started = await friend_socket.until("race.started", timeout=5)
    host_started = await host_socket.until("race.started", timeout=5)
    assert started["game"]["state"] == host_started["game"]["state"], "everyone plays the same deal"

    await friend_socket.send(type="move", move=race_line[0], seen=0)
    assert (await friend_socket.until("move.ok"))["version"] == 1
    progress = await host_socket.until("race.progress")
    assert progress["player"]["display_name"] == "Friend" and progress["summary"]["moves"] == 1
    assert not cards_in(progress), "racers see each other's progress, not their cards"

    for seen, move in enumerate(race_line):
        await host_socket.send(type="move", move=move, seen=seen)
        reply = await host_socket.until("move.ok")
    assert reply["game"]["outcome"] == "won"
    finished = await friend_socket.until("race.finished")
    assert [row["player"]["display_name"] for row in finished["results"]] == ["Host", "Friend"]
    assert finished["seed"] == str(SEED)

    await friend_socket.send(type="sync")
    final = await friend_socket.until("race.state")
    assert final["race"]["status"] == "finished" and final["me"]["game"]["outcome"] == "stopped"
    await host_socket.close()
    await friend_socket.close()


async def test_a_race_room_needs_a_signed_in_player_and_an_existing_race(race, friend):
    anonymous = await Socket(f"/ws/races/{race.code}/").open()
    assert (await anonymous.expect("error"))["code"] == "unauthenticated"
    assert await anonymous.closed_with() == 4401
    cookie = await database_sync_to_async(session_cookie)(friend)
    missing = await Socket("/ws/races/nosuchrace/", cookie).open()
    assert (await missing.expect("error"))["code"] == "not_found"
    assert await missing.closed_with() == 4404


async def test_ping_answers_with_the_race_version(race, host):
    socket, state = await enter(race, await database_sync_to_async(session_cookie)(host))
    await socket.send(type="ping")
    assert (await socket.expect("pong"))["version"] == state["version"]
    await socket.close()


async def test_a_player_leaves_the_lobby_over_the_socket(race, host, friend):
    host_socket, _ = await enter(race, await database_sync_to_async(session_cookie)(host))
    friend_socket, _ = await enter(race, await database_sync_to_async(session_cookie)(friend))
    await friend_socket.send(type="join", ref="join")
    assert (await friend_socket.until("race.state"))["ref"] == "join"
    await host_socket.until("race.player_joined")
    await host_socket.send(type="leave", ref="bye")
    state = await host_socket.until("race.state")
    assert state["ref"] == "bye" and state["me"]["member"] is False
    left = await friend_socket.until("race.player_left")
    assert left["player"]["display_name"] == "Host" and left["players"] == 1
    assert left["host"]["display_name"] == "Friend", "the room passes to the player who joined next"
    await friend_socket.send(type="sync", ref="sync")
    state = await friend_socket.until("race.state")
    assert state["ref"] == "sync" and state["me"]["host"] is True
    await host_socket.close()
    await friend_socket.close()


async def test_a_join_made_while_the_room_opens_reaches_it_after_hello_and_state(race, host, friend, monkeypatch):
    """The room listens before it reads the race: an event published meanwhile waits for the
    opening messages, then follows them."""
    from races import selectors, services

    during_first_read(
        monkeypatch, selectors, "race_state_message", lambda: services.race_join(code=race.code, player=friend)
    )
    socket, state = await enter(race, await database_sync_to_async(session_cookie)(host))
    joined = await socket.expect("race.player_joined")
    assert joined["player"]["display_name"] == "Friend" and joined["version"] > state["version"]
    await socket.close()
