"""Watching a game over /ws/games/<id>/: both sides of the spoiler line, over the socket.

While the challenge's day lasts, everyone but the game's owner gets summaries with no card in
them, whether or not their own ranked game is over (the knowledge rule); once the day is over,
anyone gets every move live, and replays.
"""

from __future__ import annotations

import datetime as dt

import jsonschema
import pytest
from channels.db import database_sync_to_async

from games.events import SCHEMAS, SUMMARY_SCHEMA
from games.models import Game
from games.services import game_move_make, game_ranked_start, game_resign
from tests.factories import end_the_day, make_challenge
from tests.sockets import Socket, cards_in, during_first_read

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


async def watch(game, cookie=None):
    socket = await Socket(f"/ws/games/{game.pk}/", cookie).open()
    hello = await socket.expect("hello")
    return socket, hello


async def play(game, player, moves, start=0):
    for seen, move in enumerate(moves, start=start):
        await database_sync_to_async(game_move_make)(game_id=game.pk, player=player, move=move, seen=seen)


async def test_a_player_whose_ranked_game_is_running_sees_only_summaries(
    challenge, alice, alice_game, bob, bob_cookie, line
):
    await database_sync_to_async(game_ranked_start)(challenge_id=challenge.pk, player=bob)
    socket, hello = await watch(alice_game, bob_cookie)
    assert hello["view"] == "summary" and hello["role"] == "spectator"
    summary = await socket.expect("summary")
    jsonschema.validate(summary["summary"], SUMMARY_SCHEMA)
    await socket.expect("synced")
    await play(alice_game, alice, line[:6])
    for version in range(1, 7):
        progress = await socket.expect("game.progress")
        jsonschema.validate(progress, SCHEMAS[("game.progress", 1)])
        assert progress["version"] == version
    await play(alice_game, alice, line[6:], start=6)
    finished = await socket.until("game.finished")
    assert finished["outcome"] == "won" and finished["summary"]["pyramid_left"] == 0
    await socket.send(type="replay")
    assert (await socket.expect("error"))["code"] == "spoiler"
    await socket.send(type="sync", since=0)
    assert (await socket.expect("summary"))["version"] == len(line)
    assert all(not cards_in(message) for message in socket.received), "a summary socket never sees a card"
    await socket.close()


async def test_an_anonymous_viewer_sees_only_summaries_while_the_day_lasts(alice, alice_game, line):
    socket, hello = await watch(alice_game)
    assert hello["view"] == "summary"
    await socket.until("synced")
    await play(alice_game, alice, line[:3])
    for _ in range(3):
        await socket.expect("game.progress")
    assert all(not cards_in(message) for message in socket.received)
    await socket.close()


async def test_a_player_whose_ranked_game_is_over_still_sees_only_summaries_while_the_day_lasts(
    challenge, alice, alice_game, bob, bob_cookie, line
):
    """A throwaway that resigns at once must not watch a rival's cards: another game shows cards
    the watcher's own game never did."""
    bobs = (await database_sync_to_async(game_ranked_start)(challenge_id=challenge.pk, player=bob))[0].game
    await database_sync_to_async(game_resign)(game_id=bobs.pk, player=bob)
    socket, hello = await watch(alice_game, bob_cookie)
    assert hello["view"] == "summary"
    await socket.expect("summary")
    await socket.expect("synced")
    await play(alice_game, alice, line[:4])
    assert [(await socket.expect("game.progress"))["version"] for _ in range(4)] == [1, 2, 3, 4]
    await socket.send(type="replay", ref="r")
    assert (await socket.expect("error"))["code"] == "spoiler"
    await socket.send(type="sync", since=0)
    assert (await socket.expect("summary"))["version"] == 4
    assert all(not cards_in(message) for message in socket.received)
    await socket.close()


async def test_once_the_day_is_over_a_finished_game_replays_move_by_move(
    challenge, alice, alice_game, bob, bob_cookie, line
):
    await play(alice_game, alice, line)
    socket, hello = await watch(alice_game, bob_cookie)
    assert hello["view"] == "summary", "before the day is over"
    await socket.close()
    await database_sync_to_async(end_the_day)(challenge)
    socket, hello = await watch(alice_game, bob_cookie)
    assert hello["view"] == "full"
    await socket.until("synced")
    await socket.send(type="replay", ref="r")
    replay = await socket.expect("replay")
    assert replay["ref"] == "r" and replay["version"] == len(line)
    assert [step["move"] for step in replay["steps"]] == line
    assert replay["start"]["moves"] == 0 and replay["steps"][-1]["state"]["outcome"] == "won"
    await socket.close()


async def test_finishing_ones_own_game_does_not_lift_the_line(challenge, alice, alice_game, bob, bob_cookie, line):
    bobs = (await database_sync_to_async(game_ranked_start)(challenge_id=challenge.pk, player=bob))[0].game
    await play(alice_game, alice, line[:2])
    socket, hello = await watch(alice_game, bob_cookie)
    assert hello["view"] == "summary"
    await socket.until("synced")
    await database_sync_to_async(game_resign)(game_id=bobs.pk, player=bob)
    await play(alice_game, alice, line[2:3], start=2)
    assert (await socket.expect("game.progress"))["version"] == 3
    await socket.send(type="sync", since=0)
    assert (await socket.expect("summary"))["version"] == 3
    await socket.expect("synced")
    assert all(message["type"] != "hello" for message in socket.received[1:])
    assert all(not cards_in(message) for message in socket.received)
    await socket.close()


async def test_anyone_watches_in_full_once_the_challenge_day_is_over(alice, bob_cookie, transactional_db):

    yesterday = await database_sync_to_async(make_challenge)(date=dt.date.today() - dt.timedelta(days=2))
    game = await database_sync_to_async(Game.objects.create)(challenge=yesterday, player=alice, ranked=True)
    for cookie in (bob_cookie, None):
        socket, hello = await watch(game, cookie)
        assert hello["view"] == "full"
        await socket.expect("state")
        await socket.close()


async def test_the_end_of_another_challenges_game_does_not_open_a_watch(alice, alice_game, bob, bob_cookie, line):
    other = await database_sync_to_async(make_challenge)(preset="forty")
    bobs = (await database_sync_to_async(game_ranked_start)(challenge_id=alice_game.challenge_id, player=bob))[0].game
    elsewhere = (await database_sync_to_async(game_ranked_start)(challenge_id=other.pk, player=bob))[0].game
    socket, hello = await watch(alice_game, bob_cookie)
    assert hello["view"] == "summary"
    await socket.until("synced")
    await database_sync_to_async(game_resign)(game_id=elsewhere.pk, player=bob)
    await play(alice_game, alice, line[:1])
    assert (await socket.expect("game.progress"))["version"] == 1
    assert all(message["type"] != "hello" for message in socket.received[1:])
    assert all(not cards_in(message) for message in socket.received)
    stored = await database_sync_to_async(
        lambda: dict(Game.objects.filter(pk__in=[bobs.pk, elsewhere.pk]).values_list("pk", "outcome"))
    )()
    assert stored == {bobs.pk: "in_progress", elsewhere.pk: "resigned"}, (
        "read back: only the other challenge's game ended"
    )
    await socket.close()


@pytest.mark.parametrize("viewer", ["summary", "full"])
async def test_a_move_made_while_a_socket_opens_reaches_it_only_as_its_view_allows(
    challenge, alice, alice_game, alice_cookie, bob, bob_cookie, line, monkeypatch, viewer
):
    """The socket listens to both audiences before its one read decides the view: a move stored
    while that read is out reaches a summary socket as progress only, a full one as the move."""
    from games import live

    await database_sync_to_async(game_ranked_start)(challenge_id=challenge.pk, player=bob)
    during_first_read(
        monkeypatch,
        live,
        "game_sync",
        lambda: game_move_make(game_id=alice_game.pk, player=alice, move=line[0], seen=0),
    )
    # while the day lasts, the full view is the owner's alone: here, a second tab of hers
    socket, hello = await watch(alice_game, bob_cookie if viewer == "summary" else alice_cookie)
    assert hello["view"] == viewer
    assert (await socket.until("synced"))["version"] == 0
    heard = await socket.recv()
    if viewer == "summary":
        assert heard["type"] == "game.progress" and heard["version"] == 1
        assert all(not cards_in(message) for message in socket.received)
    else:
        assert heard["type"] == "game.move_made" and heard["version"] == 1 and cards_in(heard)
    assert await socket.quiet(), "one event, from the one audience kept"
    await socket.close()
