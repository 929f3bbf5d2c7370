"""Everyday moves that come while the loop's connections are busy leave together, in one
statement (``live_moves.Connections.submit``, ``services.MOVES_WRITE_SQL``), on Postgres: each row
is written as its own statement would write it, no game twice in one, a failed statement stores
none of its moves, and a mover that went away before its move left writes nothing."""

from __future__ import annotations

import asyncio

import pytest
import pytest_asyncio
from channels.db import database_sync_to_async
from django.utils import timezone

from games import live_moves, services
from games.models import Game, Move
from games.services import game_ranked_start
from tests.factories import make_player
from tests.sockets import Socket, session_cookie

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def on_postgres(postgres, settings):
    settings.LIVE_LOOP_MOVES = True
    settings.LIVE_RATE_BURST = 200


@pytest.fixture
def players(challenge):
    return [make_player(f"racer{n}") for n in range(6)]


@pytest.fixture
def games(challenge, players):
    return [game_ranked_start(challenge_id=challenge.pk, player=player)[0].game for player in players]


class Statements(list):
    """The move statements the loop's connections ran, as (which, its games' ids); the first
    statement holding a game of ``held`` waits for ``release``."""

    def __init__(self) -> None:
        super().__init__()
        self.held: set[int] = set()
        self.release = asyncio.Event()

    def shapes(self) -> list[tuple[str, int]]:
        return [(which, len(ids)) for which, ids in self]


@pytest.fixture
def statements(monkeypatch):
    seen = Statements()
    original = live_moves.Connections._execute

    async def execute(self, sql, args, *, fetch):
        if sql in (services.MOVE_WRITE_SQL, services.MOVES_WRITE_SQL):
            one = sql == services.MOVE_WRITE_SQL
            ids = [args[2]] if one else list(args[0])
            seen.append(("one" if one else "many", ids))
            if seen.held & set(ids):
                seen.held -= set(ids)
                await seen.release.wait()
        return await original(self, sql, args, fetch=fetch)

    monkeypatch.setattr(live_moves.Connections, "_execute", execute)
    return seen


@pytest_asyncio.fixture
async def one_connection():
    connections = live_moves.Connections(1)
    yield connections
    connections.close()


def row(game, move, *, moves=0, version=None):
    return services.MoveRow(game.pk, moves if version is None else version, moves, move, timezone.now())


def stored(game):
    return list(Move.objects.filter(game=game).order_by("number").values_list("number", "notation"))


def counts(game):
    game = Game.objects.get(pk=game.pk)
    return game.version, game.move_count


async def test_moves_that_come_while_the_connection_is_busy_leave_together_in_one_statement(
    one_connection, games, line, statements
):
    first = one_connection.submit(row(games[0], line[0]))
    await asyncio.sleep(0)  # it leaves alone: the connection was free
    rest = [one_connection.submit(row(game, line[0])) for game in games[1:]]
    assert await asyncio.gather(first, *rest) == [True] * len(games)
    assert statements.shapes() == [("one", 1), ("many", len(games) - 1)]
    for game in games:
        assert await database_sync_to_async(stored)(game) == [(1, line[0])]
        assert await database_sync_to_async(counts)(game) == (1, 1)


async def test_a_row_that_moved_on_is_left_and_the_others_in_its_statement_are_written(
    one_connection, games, line, statements
):
    busy = one_connection.submit(row(games[0], line[0]))
    await asyncio.sleep(0)
    fresh = one_connection.submit(row(games[1], line[0]))
    out_of_date = one_connection.submit(row(games[2], line[1], moves=1))  # the row is at 0 moves
    also_fresh = one_connection.submit(row(games[3], line[0]))
    assert await asyncio.gather(busy, fresh, out_of_date, also_fresh) == [True, True, False, True]
    assert statements.shapes() == [("one", 1), ("many", 3)]
    assert await database_sync_to_async(stored)(games[2]) == []
    assert await database_sync_to_async(counts)(games[2]) == (0, 0)
    assert await database_sync_to_async(stored)(games[3]) == [(1, line[0])]


async def test_two_moves_of_one_game_never_share_a_statement(one_connection, games, line, statements):
    busy = one_connection.submit(row(games[0], line[0]))
    await asyncio.sleep(0)
    tab = one_connection.submit(row(games[1], line[0]))
    other_tab = one_connection.submit(row(games[1], line[0]))  # the same move from a second tab
    other_game = one_connection.submit(row(games[2], line[0]))
    assert await asyncio.gather(busy, tab, other_tab, other_game) == [True, True, False, True]
    assert statements.shapes() == [("one", 1), ("many", 2), ("one", 1)]
    assert await database_sync_to_async(stored)(games[1]) == [(1, line[0])]


async def test_a_game_whose_move_is_out_waits_for_it_before_its_next_leaves(one_connection, games, line, statements):
    first = one_connection.submit(row(games[0], line[0]))
    await asyncio.sleep(0)
    second = one_connection.submit(row(games[0], line[1], moves=1))
    other = one_connection.submit(row(games[1], line[0]))
    assert await asyncio.gather(first, second, other) == [True, True, True]
    # the game's second move could not join the statement its first was in, nor skip it
    assert statements.shapes() == [("one", 1), ("many", 2)]
    assert await database_sync_to_async(stored)(games[0]) == [(1, line[0]), (2, line[1])]


async def test_a_failed_statement_stores_none_of_its_moves_and_the_next_one_works(
    one_connection, games, line, statements
):
    busy = one_connection.submit(row(games[0], line[0]))
    await asyncio.sleep(0)
    good = one_connection.submit(row(games[1], line[0]))
    too_long = one_connection.submit(row(games[2], "x" * 40))  # longer than the column: the statement fails
    assert await busy is True
    for future in (good, too_long):
        with pytest.raises(Exception, match="too long"):
            await future
    assert await database_sync_to_async(stored)(games[1]) == []
    assert await database_sync_to_async(counts)(games[1]) == (0, 0)
    assert await one_connection.submit(row(games[1], line[0])) is True
    assert await database_sync_to_async(stored)(games[1]) == [(1, line[0])]


async def test_a_move_whose_mover_went_away_before_it_left_is_not_written(one_connection, games, line, statements):
    busy = one_connection.submit(row(games[0], line[0]))
    await asyncio.sleep(0)
    gone = one_connection.submit(row(games[1], line[0]))
    kept = one_connection.submit(row(games[2], line[0]))
    gone.cancel()  # the mover's socket closed while its move waited
    assert await asyncio.gather(busy, kept) == [True, True]
    assert statements.shapes() == [("one", 1), ("one", 1)]
    assert await database_sync_to_async(stored)(games[1]) == []


async def test_players_moving_at_once_over_sockets_share_statements_and_every_move_is_stored_once(
    challenge, players, games, line, statements, settings
):
    settings.LIVE_MOVE_CONNECTIONS = 1
    live_moves.close_all()
    cookies = [await database_sync_to_async(session_cookie)(player) for player in players]
    sockets = [await Socket(f"/ws/games/{game.pk}/", cookie).open() for game, cookie in zip(games, cookies)]
    for socket in sockets:
        await socket.until("synced")

    async def play(socket, moves):
        for seen, move in enumerate(moves):
            await socket.send(type="move", move=move, seen=seen, ref=str(seen))
            reply = await socket.until("move.ok")
            assert reply["version"] == seen + 1 and reply["ref"] == str(seen)

    await asyncio.gather(*(play(socket, line[:8]) for socket in sockets))
    for socket in sockets:
        await socket.close()
    for game in games:
        assert await database_sync_to_async(stored)(game) == [(n + 1, m) for n, m in enumerate(line[:8])]
    assert sum(moves for _, moves in statements.shapes()) == 8 * len(games)
    assert any(which == "many" for which, _ in statements), statements.shapes()
    live_moves.close_all()


async def test_a_game_with_a_statement_out_waits_while_another_connection_takes_the_others(games, line, statements):
    """With two connections: game 0's second move may not leave while its first is out, even on
    the free connection, which takes game 1's move alone; game 0's follows once its first is in."""
    connections = live_moves.Connections(2)
    statements.held = {games[0].pk}  # game 0's first statement stays out
    try:
        first = connections.submit(row(games[0], line[0]))
        await asyncio.sleep(0)
        second = connections.submit(row(games[0], line[1], moves=1))
        other = connections.submit(row(games[1], line[0]))
        assert await other is True
        assert [ids for _, ids in statements] == [[games[0].pk], [games[1].pk]]
        assert not second.done() and [r.game_id for r, _ in connections.queued] == [games[0].pk]
        statements.release.set()
        assert await asyncio.gather(first, second) == [True, True]
        assert [ids for _, ids in statements] == [[games[0].pk], [games[1].pk], [games[0].pk]]
        assert connections.queued == [] and connections.writing == set() and connections.storers == set()
        assert await database_sync_to_async(stored)(games[0]) == [(1, line[0]), (2, line[1])]
    finally:
        connections.close()


async def test_a_statement_takes_at_most_batch_most_moves_and_the_rest_follow(
    one_connection, challenge, line, statements, monkeypatch
):
    monkeypatch.setattr(live_moves, "BATCH_MOST", 3)
    many = await database_sync_to_async(
        lambda: [
            game_ranked_start(challenge_id=challenge.pk, player=make_player(f"crowd{n}"))[0].game for n in range(5)
        ]
    )()
    busy = one_connection.submit(row(many[0], line[0]))
    await asyncio.sleep(0)
    rest = [one_connection.submit(row(game, line[0])) for game in many[1:]]
    assert await asyncio.gather(busy, *rest) == [True] * 5
    assert statements.shapes() == [("one", 1), ("many", 3), ("one", 1)]


async def test_a_statement_writes_its_games_in_the_order_of_their_ids(one_connection, games, line, statements):
    """The order the UPDATE locks their rows in: two processes' statements cannot wait in a circle."""
    busy = one_connection.submit(row(games[0], line[0]))
    await asyncio.sleep(0)
    backwards = [one_connection.submit(row(game, line[0])) for game in reversed(games[1:])]
    assert await asyncio.gather(busy, *backwards) == [True] * len(games)
    assert statements[1] == ("many", sorted(game.pk for game in games[1:]))
