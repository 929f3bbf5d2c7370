import datetime as dt

import pytest

from leaderboard.boards import Board
from leaderboard.selectors import leaderboard_around, leaderboard_page
from tests.factories import make_challenge

from .conftest import add_score


def names(page):
    return [e["display_name"] for e in page["entries"]]


def test_more_points_rank_first(store, players, monday_challenge):
    add_score(monday_challenge, players[0], 100, 40)
    add_score(monday_challenge, players[1], 300, 50)
    add_score(monday_challenge, players[2], 200, 45)
    page = leaderboard_page(board=Board.for_challenge(monday_challenge.pk))
    assert names(page) == ["P1", "P2", "P0"]
    assert [e["rank"] for e in page["entries"]] == [1, 2, 3]
    assert page["total"] == 3


def test_ties_go_to_fewer_moves_then_the_earlier_finish(store, players, monday_challenge):
    add_score(monday_challenge, players[0], 300, 50, minute=1)
    add_score(monday_challenge, players[1], 300, 45, minute=9)
    add_score(monday_challenge, players[2], 300, 50, minute=0)
    add_score(monday_challenge, players[3], -20, 3, minute=2)  # recycles can make a score negative
    assert names(leaderboard_page(board=Board.for_challenge(monday_challenge.pk))) == ["P1", "P2", "P0", "P3"]


def test_a_players_rank_and_neighbours(store, players, monday_challenge):
    for i, player in enumerate(players):
        add_score(monday_challenge, player, 100 * i, 40)
    board = Board.for_challenge(monday_challenge.pk)
    around = leaderboard_around(board=board, player_id=players[2].pk, radius=1)
    assert around["rank"] == 4
    assert [(e["rank"], e["display_name"]) for e in around["entries"]] == [(3, "P3"), (4, "P2"), (5, "P1")]
    top = leaderboard_around(board=board, player_id=players[5].pk, radius=2)
    assert [e["rank"] for e in top["entries"]] == [1, 2, 3]


def test_an_unranked_player_has_no_rank(store, players, monday_challenge):
    add_score(monday_challenge, players[0], 100, 40)
    assert leaderboard_around(board=Board.for_challenge(monday_challenge.pk), player_id=players[1].pk)["rank"] is None


def test_pages_follow_the_order(store, players, monday_challenge):
    for i, player in enumerate(players):
        add_score(monday_challenge, player, 10 * i, 40)
    page = leaderboard_page(board=Board.for_challenge(monday_challenge.pk), offset=2, limit=2)
    assert names(page) == ["P3", "P2"] and [e["rank"] for e in page["entries"]] == [3, 4]


def test_week_and_all_time_sum_ranked_scores_per_preset(store, players):
    monday = make_challenge(date=dt.date(2026, 6, 1), preset="classic")
    sunday = make_challenge(date=dt.date(2026, 6, 7), preset="classic")
    next_monday = make_challenge(date=dt.date(2026, 6, 8), preset="classic")
    forty = make_challenge(date=dt.date(2026, 6, 2), preset="forty")
    add_score(monday, players[0], 300, 50)
    add_score(sunday, players[0], 100, 50)
    add_score(monday, players[1], 350, 50)
    add_score(next_monday, players[1], 500, 50)
    add_score(forty, players[2], 9999, 10)
    week = leaderboard_page(board=Board.for_week("classic", dt.date(2026, 6, 3)))
    assert [(e["display_name"], e["points"], e["moves"]) for e in week["entries"]] == [
        ("P0", 400, 100),
        ("P1", 350, 50),
    ]
    assert week["board"] == "week:classic:2026-W23"
    all_time = leaderboard_page(board=Board.all_time("classic"))
    assert [(e["display_name"], e["points"]) for e in all_time["entries"]] == [("P1", 850), ("P0", 400)]
    assert leaderboard_around(board=Board.all_time("classic"), player_id=players[0].pk)["rank"] == 2
    assert names(leaderboard_page(board=Board.all_time("forty"))) == ["P2"]


def test_sums_tie_on_fewer_total_moves(store, players):
    a = make_challenge(date=dt.date(2026, 6, 1))
    b = make_challenge(date=dt.date(2026, 6, 2))
    add_score(a, players[0], 100, 30)
    add_score(b, players[0], 100, 30)
    add_score(a, players[1], 200, 50)
    assert names(leaderboard_page(board=Board.all_time("classic"))) == ["P1", "P0"]


def test_redis_rebuilds_a_board_after_a_flush(redis_ranks, players, monday_challenge):
    from tests.conftest import _forget_test_keys

    for i, player in enumerate(players[:4]):
        add_score(monday_challenge, player, 100 * i, 40)
    board = Board.for_challenge(monday_challenge.pk)
    before = leaderboard_page(board=board)
    _forget_test_keys()  # what FLUSHALL does to our keys
    assert redis_ranks.client.exists(f"{redis_ranks.prefix}:{board.key}:z") == 0
    assert leaderboard_page(board=board) == before
    assert leaderboard_around(board=board, player_id=players[0].pk)["rank"] == 4


def test_redis_keeps_step_with_new_scores_after_a_rebuild(redis_ranks, players, monday_challenge):
    board = Board.for_challenge(monday_challenge.pk)
    add_score(monday_challenge, players[0], 100, 40)
    assert leaderboard_page(board=board)["total"] == 1  # builds the board
    add_score(monday_challenge, players[1], 200, 40)
    assert names(leaderboard_page(board=board)) == ["P1", "P0"]


def test_redis_never_lets_an_older_entry_overwrite_a_newer_one(redis_ranks, players):
    from leaderboard.boards import Entry

    board = Board.all_time("classic")
    redis_ranks.rebuild(board)
    when = dt.datetime(2026, 6, 1, tzinfo=dt.UTC)
    redis_ranks._write(board, [Entry(players[0].pk, 300, 60, when, version=2)])
    redis_ranks._write(board, [Entry(players[0].pk, 100, 30, when, version=1)])  # arrives late
    rank, entry = redis_ranks.rank_of(board, players[0].pk)
    assert (rank, entry.points, entry.moves) == (1, 300, 60)
    assert redis_ranks.count(board) == 1


@pytest.mark.parametrize("points", [0, 1, 12345, -70])
def test_redis_encoding_round_trips(points):
    from leaderboard.boards import Entry
    from leaderboard.ranks import _entry, _member, _score

    entry = Entry(42, points, 77, dt.datetime(2026, 3, 29, 1, 2, 3, 456789, tzinfo=dt.UTC))
    back = _entry(_member(entry), float(_score(entry)))
    assert (back.player_id, back.points, back.moves, back.finished_at) == (42, points, 77, entry.finished_at)


def test_while_one_process_rebuilds_a_board_others_answer_from_sql(redis_ranks, players, monday_challenge):
    for i, player in enumerate(players[:3]):
        add_score(monday_challenge, player, 100 * i, 40)
    board = Board.for_challenge(monday_challenge.pk)
    redis_ranks.forget(board)
    redis_ranks.client.set(f"{redis_ranks.prefix}:{board.key}:rebuilding", "1", ex=30)  # someone else is at it
    assert names(leaderboard_page(board=board)) == ["P2", "P1", "P0"]
    assert leaderboard_around(board=board, player_id=players[0].pk)["rank"] == 3
    assert not redis_ranks.client.exists(f"{redis_ranks.prefix}:{board.key}:built"), "left to the other process"


def test_invalidating_makes_every_board_rebuild_from_postgres(redis_ranks, players, monday_challenge):
    from django.core.management import call_command

    from leaderboard.models import Score

    add_score(monday_challenge, players[0], 100, 40)
    board = Board.for_challenge(monday_challenge.pk)
    assert leaderboard_page(board=board)["total"] == 1
    Score.objects.filter(player=players[0]).update(points=900)  # changed behind Redis' back
    assert leaderboard_page(board=board)["entries"][0]["points"] == 100
    call_command("leaderboards_invalidate")
    assert leaderboard_page(board=board)["entries"][0]["points"] == 900
