"""A ranked move sent over the socket after the day ends is refused and stores nothing, on each
of the socket's paths: the threaded service (everywhere) and the event loop's one-statement write
(games/live_moves.py, on Postgres); warm (the last committed position remembered) and cold."""

from __future__ import annotations

import datetime as dt
from unittest import mock

import pytest
from channels.db import database_sync_to_async

from games import live_moves, positions, services
from games.models import Move
from games.selectors import challenge_day_start
from tests.sockets import Socket

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


async def refused_after_midnight(game, cookie, warm: bool) -> None:
    socket = await Socket(f"/ws/games/{game.pk}/", cookie).open()
    await socket.until("synced")
    await socket.send(type="move", move="D", seen=0, ref="before")
    assert (await socket.until("move.ok"))["ref"] == "before"
    if not warm:
        positions.forget_all()
    midnight = challenge_day_start(game.challenge.date + dt.timedelta(days=1))
    with mock.patch("django.utils.timezone.now", return_value=midnight + dt.timedelta(seconds=1)):
        await socket.send(type="move", move="D", seen=1, ref="after")
        error = await socket.expect("error")
    assert error["code"] == "not_allowed" and error["ref"] == "after" and "day is over" in error["message"]
    numbers = await database_sync_to_async(
        lambda: list(Move.objects.filter(game=game).values_list("number", flat=True))
    )()
    assert numbers == [1]
    await socket.close()


@pytest.mark.parametrize("warm", [True, False], ids=["warm", "cold"])
async def test_the_threaded_socket_path_refuses_a_ranked_move_after_midnight(settings, alice_game, alice_cookie, warm):
    settings.LIVE_LOOP_MOVES = False
    await refused_after_midnight(alice_game, alice_cookie, warm)


@pytest.mark.parametrize("warm", [True, False], ids=["warm", "cold"])
async def test_the_loop_socket_path_refuses_a_ranked_move_after_midnight(
    postgres, settings, alice_game, alice_cookie, warm, monkeypatch
):
    settings.LIVE_LOOP_MOVES = True
    settings.LIVE_RATE_BURST = 200
    assert live_moves.enabled()
    threaded: list[int] = []
    original = services.game_move_make
    monkeypatch.setattr(services, "game_move_make", lambda **kw: threaded.append(kw["seen"]) or original(**kw))
    await refused_after_midnight(alice_game, alice_cookie, warm)
    assert 0 not in threaded, "the move before midnight was written from the loop"
