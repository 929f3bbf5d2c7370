"""Socket moves written from the event loop (games/live_moves.py), on Postgres: the everyday move
and the one that ends the game take the loop's connection, and everything else falls back to the
threaded service with the same result — another writer got there first, the loop's connection
died, the end's statement failed."""

from __future__ import annotations

import asyncio

import psycopg
import pytest
from channels.db import database_sync_to_async

from games import live_moves, services
from games.engine import Game as EngineGame
from games.engine import parse_move, score_moves
from games.models import Game, Move
from leaderboard.models import Score
from tests.factories import end_the_day
from tests.sockets import Socket

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def on_postgres(postgres, settings):
    settings.LIVE_LOOP_MOVES = True
    settings.LIVE_RATE_BURST = 200  # a whole game at test speed, in one burst


async def open_game(game, cookie):
    socket = await Socket(f"/ws/games/{game.pk}/", cookie).open()
    await socket.until("synced")
    return socket


async def play(socket, move, seen):
    await socket.send(type="move", move=move, seen=seen, ref=str(seen))
    while True:
        message = await socket.recv()
        assert message["type"] != "error", message
        if message["type"] == "move.ok":
            return message


def stored(game):
    return list(Move.objects.filter(game=game).order_by("number").values_list("number", "notation"))


def stored_elsewhere(game, line, seen):
    """What a second server process does: store the next move of ``line`` after ``seen`` from its
    own connection, unknown to this process's memory."""
    from django.db import connection
    from django.utils import timezone

    with connection.cursor() as cursor:  # a ranked game's version is its move count
        cursor.execute(
            services.MOVE_WRITE_SQL, services.MoveRow(game.pk, seen, seen, line[seen], timezone.now()).args()
        )
        assert cursor.rowcount == 1


def threaded_calls(monkeypatch):
    """The moves that reach the threaded service from now on."""
    calls = []
    original = services.game_move_make
    monkeypatch.setattr(services, "game_move_make", lambda **kw: calls.append(kw) or original(**kw))
    return calls


async def test_a_whole_game_over_the_socket_uses_the_loop_for_every_move_the_last_included(
    alice_game, alice_cookie, line, monkeypatch
):
    socket = await open_game(alice_game, alice_cookie)
    threaded = threaded_calls(monkeypatch)
    watcher_moves = []
    for seen, move in enumerate(line):
        reply = await play(socket, move, seen)
        assert reply["version"] == seen + 1 and reply["game"]["moves"] == seen + 1
        watcher_moves.append(reply["game"]["state"]["moves"])
        if seen == 0:
            connections = live_moves.loop_connections()
            assert connections.open, (
                "the first move, sent from the version the socket opened on, was written from the loop"
            )
    assert reply["game"]["outcome"] == "won"
    assert threaded == [], "the ending move too was written from the loop"
    await socket.close()
    game = await database_sync_to_async(Game.objects.select_related("challenge").get)(pk=alice_game.pk)
    assert game.outcome == Game.Outcome.WON and game.move_count == len(line) and game.version == len(line)
    assert await database_sync_to_async(stored)(game) == [(n + 1, m) for n, m in enumerate(line)]
    score = await database_sync_to_async(Score.objects.get)(game=game)
    points = score_moves(EngineGame.replay(game.challenge.deal, [parse_move(m) for m in line]).moves)
    assert game.score == score.points == points == reply["game"]["score"]
    assert (score.player_id, score.challenge_id, score.date, score.preset) == (
        game.player_id,
        game.challenge_id,
        game.challenge.date,
        game.challenge.preset,
    )
    assert score.won and score.moves == len(line) and score.finished_at == game.finished_at
    last = await database_sync_to_async(Move.objects.get)(game=game, number=len(line))
    assert last.created_at == game.finished_at


async def test_a_ranked_end_from_the_loop_reaches_watchers_the_room_and_the_board(
    challenge, alice_game, alice_cookie, line, monkeypatch
):
    socket = await open_game(alice_game, alice_cookie)
    second_tab = await open_game(alice_game, alice_cookie)
    room = await Socket(f"/ws/challenges/{challenge.pk}/").open()
    await room.expect("room.snapshot")
    for seen, move in enumerate(line[:-1]):
        await play(socket, move, seen)
    threaded = threaded_calls(monkeypatch)
    reply = await play(socket, line[-1], len(line) - 1)
    assert threaded == [] and reply["game"]["outcome"] == "won"
    heard = await second_tab.until("game.finished")
    assert heard["outcome"] == "won" and heard["score"] == reply["game"]["score"] and heard["version"] == len(line)
    merged: dict = {}
    while merged.get("stats", {}).get("wins") != 1 or not merged.get("top"):
        merged.update(await room.expect("room.update", timeout=5))
    assert merged["stats"]["finished"] == 1 and merged["stats"]["playing"] == 0
    assert (
        merged["top"][0]["player"]["display_name"] == "Alice" and merged["top"][0]["points"] == reply["game"]["score"]
    )
    for opened in (socket, second_tab, room):
        await opened.close()


async def test_a_practice_game_ended_on_the_loop_is_scored_and_leaves_no_board_entry(
    challenge, alice, alice_game, alice_cookie, monkeypatch
):
    await database_sync_to_async(services.game_resign)(game_id=alice_game.pk, player=alice)
    await database_sync_to_async(end_the_day)(challenge)  # practice opens once the day is over
    practice = (
        await database_sync_to_async(services.game_practice_start)(challenge_id=challenge.pk, player=alice)
    ).game
    socket = await open_game(practice, alice_cookie)
    threaded = threaded_calls(monkeypatch)
    state, seen = EngineGame.start(challenge.deal), 0
    while state.outcome.value == "in_progress":
        # draw and recycle while that can be done, then take whatever removal is left: the game ends
        legal = {str(m): m for m in state.legal_moves()}
        move = legal.get("D") or legal.get("R") or next(iter(legal.values()))
        reply = await play(socket, str(move), seen)
        state, seen = state.apply(move), seen + 1
    assert threaded == [] and reply["game"]["outcome"] == state.outcome.value
    game = await database_sync_to_async(Game.objects.get)(pk=practice.pk)
    assert game.is_finished and game.score == score_moves(state.moves) and game.move_count == seen
    assert await database_sync_to_async(lambda: list(Score.objects.values_list("game_id", flat=True)))() == [
        alice_game.pk
    ]
    await socket.close()


async def test_an_end_whose_score_cannot_be_stored_writes_nothing_and_is_refused_as_a_conflict(
    challenge, alice, alice_game, alice_cookie, line, monkeypatch
):
    socket = await open_game(alice_game, alice_cookie)
    for seen, move in enumerate(line[:-1]):
        await play(socket, move, seen)

    def score_elsewhere():
        # a Score for Alice on this challenge already (the unique constraint refuses a second)
        other = Game.objects.create(challenge=challenge, player=alice, ranked=False, outcome=Game.Outcome.LOST, score=0)
        Score.objects.create(
            player=alice,
            challenge=challenge,
            game=other,
            date=challenge.date,
            preset=challenge.preset,
            points=0,
            moves=0,
            won=False,
            finished_at=other.started_at,
        )

    await database_sync_to_async(score_elsewhere)()
    threaded = threaded_calls(monkeypatch)
    await socket.send(type="move", move=line[-1], seen=len(line) - 1, ref="end")
    answer = await socket.recv()
    while answer["type"] not in ("move.ok", "error"):
        answer = await socket.recv()
    assert len(threaded) == 1, "the loop's statement failed as a whole and the threaded path took the move"
    assert answer["type"] == "error" and answer["code"] == "conflict" and "already recorded" in answer["message"]
    game = await database_sync_to_async(Game.objects.get)(pk=alice_game.pk)
    assert not game.is_finished and game.move_count == len(line) - 1 and game.score is None
    assert await database_sync_to_async(stored)(game) == [(n + 1, m) for n, m in enumerate(line[:-1])]
    assert await database_sync_to_async(Score.objects.filter(game=alice_game).exists)() is False
    await socket.send(type="ping", ref="still")
    assert (await socket.until("pong"))["ref"] == "still", "the socket stays open"
    await socket.close()


async def test_spectators_hear_moves_written_from_the_loop(alice_game, alice_cookie, line):
    socket = await open_game(alice_game, alice_cookie)
    second_tab = await open_game(alice_game, alice_cookie)
    for seen in range(3):
        await play(socket, line[seen], seen)
    heard = [await second_tab.until("game.move_made") for _ in range(3)]
    assert [event["version"] for event in heard] == [1, 2, 3]
    assert [event["move"] for event in heard] == line[:3]
    await socket.close()
    await second_tab.close()


async def test_a_move_after_another_writer_moved_the_game_on_is_refused_as_stale_and_stores_nothing(
    alice_game, alice_cookie, line
):
    socket = await open_game(alice_game, alice_cookie)
    await play(socket, line[0], 0)
    await play(socket, line[1], 1)

    await database_sync_to_async(stored_elsewhere)(alice_game, line, 2)
    await socket.send(type="move", move=line[2], seen=2, ref="late")
    error = await socket.until("error")
    assert error["code"] == "stale" and error["moves"] == 3 and error["ref"] == "late"
    assert await database_sync_to_async(stored)(alice_game) == [(1, line[0]), (2, line[1]), (3, line[2])]
    await socket.send(type="sync", since=2)
    await socket.until("synced")
    reply = await play(socket, line[3], 3)
    assert reply["version"] == 4
    await socket.close()


async def test_a_move_after_another_writer_moved_a_ranked_game_on_reads_the_missed_moves_on_the_loop(
    alice_game, alice_cookie, line, monkeypatch
):
    socket = await open_game(alice_game, alice_cookie)
    await play(socket, line[0], 0)
    await play(socket, line[1], 1)

    await database_sync_to_async(stored_elsewhere)(alice_game, line, 2)  # a REST request, another tab
    threaded = []
    original = services.game_move_make
    monkeypatch.setattr(services, "game_move_make", lambda **kw: threaded.append(kw) or original(**kw))
    reply = await play(socket, line[3], 3)
    assert reply["version"] == 4 and reply["game"]["moves"] == 4
    assert threaded == [], "the missed move was read and the move written from the loop"
    assert await database_sync_to_async(stored)(alice_game) == [(n + 1, m) for n, m in enumerate(line[:4])]
    reply = await play(socket, line[4], 4)
    assert reply["version"] == 5 and threaded == []
    await socket.close()


async def test_a_move_whose_loop_connection_died_is_stored_once_by_the_threaded_path(alice_game, alice_cookie, line):
    socket = await open_game(alice_game, alice_cookie)
    await play(socket, line[0], 0)
    await play(socket, line[1], 1)
    connections = live_moves.loop_connections()
    (conn,) = connections.open
    pid = conn.info.backend_pid

    def terminate() -> None:
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(%s)", [pid])

    await database_sync_to_async(terminate)()
    await asyncio.sleep(0.1)
    reply = await play(socket, line[2], 2)
    assert reply["version"] == 3
    assert conn not in connections.open, "the dead connection is dropped"
    reply = await play(socket, line[3], 3)
    assert reply["version"] == 4
    assert connections.open, "the next move opens a new one"
    assert await database_sync_to_async(stored)(alice_game) == [(n + 1, m) for n, m in enumerate(line[:4])]
    await socket.close()


async def test_loop_connections_close_with_close_all(alice_game, alice_cookie, line):
    socket = await open_game(alice_game, alice_cookie)
    await play(socket, line[0], 0)
    await play(socket, line[1], 1)
    (conn,) = live_moves.loop_connections().open
    live_moves.close_all()
    assert conn.closed
    with pytest.raises(psycopg.OperationalError):
        await conn.execute("SELECT 1")
    reply = await play(socket, line[2], 2)
    assert reply["version"] == 3
    await socket.close()


async def test_without_the_wal_flush_on_the_loop_a_game_still_ends_on_the_threaded_path(
    alice_game, alice_cookie, line, monkeypatch, settings
):
    settings.LIVE_MOVE_SYNCHRONOUS_COMMIT = False  # docs/operations.md: scores always commit durably
    live_moves.close_all()
    socket = await open_game(alice_game, alice_cookie)
    for seen, move in enumerate(line[:-1]):
        await play(socket, move, seen)
    assert live_moves.loop_connections().open, "the everyday moves went from the loop"
    threaded = threaded_calls(monkeypatch)
    reply = await play(socket, line[-1], len(line) - 1)
    assert reply["game"]["outcome"] == "won" and len(threaded) == 1
    assert await database_sync_to_async(Score.objects.filter(game=alice_game).exists)()
    await socket.close()
    live_moves.close_all()


async def prepared_on_the_loop():
    """The statements the loop's one connection has prepared (Postgres keeps them per session)."""
    rows = await live_moves.loop_connections().fetch("SELECT statement FROM pg_prepared_statements", [])
    return [" ".join(statement.split()) for (statement,) in rows]


def as_prepared(sql):
    """A statement as Postgres keeps it once psycopg prepared it: ``%s`` numbered ``$1``, ``$2`` …"""
    parts = sql.split("%s")
    numbered = parts[0] + "".join(f"${n}{part}" for n, part in enumerate(parts[1:], start=1))
    return " ".join(numbered.split())


@pytest.mark.parametrize("prepared", [True, False])
async def test_the_loop_prepares_the_move_statement_only_when_the_setting_says_so(
    alice_game, alice_cookie, line, settings, prepared
):
    settings.LIVE_MOVE_PREPARED = prepared
    settings.LIVE_MOVE_CONNECTIONS = 1
    live_moves.close_all()
    socket = await open_game(alice_game, alice_cookie)
    for seen, move in enumerate(line[: live_moves.PREPARE_AFTER + 2]):
        await play(socket, move, seen)
    statements = await prepared_on_the_loop()
    assert (as_prepared(services.MOVE_WRITE_SQL) in statements) == prepared, statements
    assert await database_sync_to_async(stored)(alice_game) == [
        (n + 1, m) for n, m in enumerate(line[: live_moves.PREPARE_AFTER + 2])
    ]
    await socket.close()
    live_moves.close_all()
