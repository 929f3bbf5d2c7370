"""The live challenge room: who is playing, summaries, counts, the top of the board, coalesced updates."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async

from games.services import game_move_make, game_ranked_start, game_resign
from tests.factories import make_player
from tests.sockets import Socket, cards_in, during_first_read

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


async def enter(challenge):
    room = await Socket(f"/ws/challenges/{challenge.pk}/").open()
    return room, await room.expect("room.snapshot")


async def test_the_snapshot_shows_who_is_playing_the_counts_and_the_top(challenge, alice, alice_game, bob, line):
    bobs = (await database_sync_to_async(game_ranked_start)(challenge_id=challenge.pk, player=bob))[0].game
    await database_sync_to_async(game_resign)(game_id=bobs.pk, player=bob)
    await database_sync_to_async(game_move_make)(game_id=alice_game.pk, player=alice, move=line[0], seen=0)
    room, snapshot = await enter(challenge)
    assert snapshot["challenge"]["id"] == challenge.pk and snapshot["challenge"]["is_over"] is False
    assert [game["player"]["display_name"] for game in snapshot["games"]] == ["Alice"]
    assert snapshot["games"][0]["moves"] == 1
    assert snapshot["stats"] == {"players": 2, "playing": 1, "finished": 1, "wins": 0}
    assert [row["player"]["display_name"] for row in snapshot["top"]] == ["Bob"]
    assert not cards_in(snapshot)
    await room.close()


async def test_a_move_made_while_the_snapshot_is_read_reaches_the_room_after_the_snapshot(
    challenge, alice, alice_game, line, monkeypatch
):
    """The room listens before its snapshot is read: what the group brings meanwhile waits for the
    snapshot, then goes out as an update, so the first message is always the snapshot."""
    from games import live

    during_first_read(
        monkeypatch,
        live,
        "challenge_room_snapshot",
        lambda: game_move_make(game_id=alice_game.pk, player=alice, move=line[0], seen=0),
    )
    room, snapshot = await enter(challenge)
    assert [game["moves"] for game in snapshot["games"]] == [0], "read before the move"
    update = await room.expect("room.update")
    assert update["games"][0]["moves"] == 1
    await room.close()


async def test_a_burst_of_moves_reaches_the_room_as_one_coalesced_update(challenge, alice, alice_game, line, settings):
    # Long enough that the eight moves fit in one interval on a busy machine.
    settings.LIVE_ROOM_INTERVAL = 1.5
    room, _ = await enter(challenge)
    for seen, move in enumerate(line[:8]):
        await database_sync_to_async(game_move_make)(game_id=alice_game.pk, player=alice, move=move, seen=seen)
    updates = [await room.expect("room.update", timeout=3)]
    while not await room.quiet(settings.LIVE_ROOM_INTERVAL + 0.5):
        updates.append(await room.expect("room.update"))
    # The first change goes out at once; the rest of the burst waits for the interval, as one message.
    assert len(updates) <= 2
    assert all(len(update["games"]) == 1 for update in updates)
    assert updates[-1]["games"][0]["moves"] == 8
    update = updates[-1]
    assert not cards_in(update)
    await room.close()


async def test_a_new_player_and_a_finished_game_update_counts_and_leaderboard(challenge, alice, alice_game, line):
    room, snapshot = await enter(challenge)
    assert snapshot["stats"]["players"] == 1
    carol = await database_sync_to_async(make_player)("carol", display_name="Carol")
    await database_sync_to_async(game_ranked_start)(challenge_id=challenge.pk, player=carol)
    update = await room.expect("room.update")
    assert update["stats"]["players"] == 2 and update["stats"]["playing"] == 2
    for seen, move in enumerate(line):
        await database_sync_to_async(game_move_make)(game_id=alice_game.pk, player=alice, move=move, seen=seen)
    merged: dict = {}
    games: list = []
    while merged.get("stats", {}).get("wins") != 1 or not merged.get("top"):
        update = await room.expect("room.update", timeout=5)
        games.extend(update["games"])
        merged.update(update)
    merged["games"] = games
    assert merged["stats"] == {"players": 2, "playing": 1, "finished": 1, "wins": 1}
    assert merged["top"][0]["player"]["display_name"] == "Alice" and merged["top"][0]["rank"] == 1
    assert any(game["finished"] and game["outcome"] == "won" for game in merged["games"])
    await room.close()


async def test_sync_answers_with_a_fresh_snapshot_and_an_unknown_challenge_is_not_found(challenge):
    room, _ = await enter(challenge)
    await room.send(type="sync")
    await room.expect("room.snapshot")
    await room.close()
    missing = await Socket("/ws/challenges/424242/").open()
    assert (await missing.expect("error"))["code"] == "not_found"
    assert await missing.closed_with() == 4404
