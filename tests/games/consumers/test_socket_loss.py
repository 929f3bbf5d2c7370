"""A ranked game played over the socket until no move is left ends *lost*, on both of the socket's
paths (the threaded service, and on Postgres the event loop's one-statement end): the game row, the
score, the mover's answer and a second tab all say lost, and the score is what the log earned."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async

from games import live_moves, services
from games.engine import Game as EngineGame
from games.engine import score_moves
from games.models import Game
from games.services import game_ranked_start
from leaderboard.models import Score
from tests.factories import UNWINNABLE, make_challenge
from tests.sockets import Socket

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def losing(alice):
    """Alice's ranked game on a deal nobody can win, and a line of moves that plays it to its end."""
    challenge = make_challenge(preset="classic", seed=UNWINNABLE["classic"])
    game = game_ranked_start(challenge_id=challenge.pk, player=alice)[0].game
    state, line = EngineGame.start(challenge.deal), []
    while state.legal_moves():
        move = state.legal_moves()[0]
        state = state.apply(move)
        line.append(str(move))
    assert state.outcome.value == "lost"
    return game, line, score_moves(state.moves)


async def play_to_the_end(game, cookie, line):
    socket = await Socket(f"/ws/games/{game.pk}/", cookie).open()
    await socket.until("synced")
    tab = await Socket(f"/ws/games/{game.pk}/", cookie).open()
    await tab.until("synced")
    for seen, move in enumerate(line):
        await socket.send(type="move", move=move, seen=seen, ref=str(seen))
        reply = await socket.until("move.ok")
        assert reply["ref"] == str(seen)
    heard = await tab.until("game.finished")
    for opened in (socket, tab):
        await opened.close()
    return reply, heard


async def assert_lost(game, line, points, reply, heard):
    assert reply["game"]["outcome"] == "lost" and reply["game"]["score"] == points
    assert heard["outcome"] == "lost" and heard["score"] == points
    stored = await database_sync_to_async(Game.objects.get)(pk=game.pk)
    assert stored.outcome == Game.Outcome.LOST and stored.score == points and stored.move_count == len(line)
    score = await database_sync_to_async(Score.objects.get)(game=stored)
    assert score.won is False and score.points == points and score.moves == len(line)


async def test_a_socket_game_with_no_move_left_ends_lost_on_the_threaded_path(settings, alice_cookie, losing):
    settings.LIVE_LOOP_MOVES = False
    settings.LIVE_RATE_BURST = 500
    game, line, points = losing
    await assert_lost(game, line, points, *await play_to_the_end(game, alice_cookie, line))


async def test_a_socket_game_with_no_move_left_ends_lost_from_the_loop(
    postgres, settings, alice_cookie, losing, monkeypatch
):
    settings.LIVE_LOOP_MOVES = True
    settings.LIVE_RATE_BURST = 500
    assert live_moves.enabled()
    game, line, points = losing
    threaded: list[int] = []
    original = services.game_move_make
    monkeypatch.setattr(services, "game_move_make", lambda **kw: threaded.append(kw["seen"]) or original(**kw))
    await assert_lost(game, line, points, *await play_to_the_end(game, alice_cookie, line))
    assert len(line) - 1 not in threaded, "the losing move was written from the loop, with its end and score"
