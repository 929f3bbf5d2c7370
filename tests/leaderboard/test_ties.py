"""Exact ties, on every board and both rank stores: entries equal in points, moves and finish time
rank by the last rule, the account made first (the lower player id) first, with distinct ranks
that the page, a player's own rank and the ranks around them all agree on.

The order of every board: more points, then fewer moves, then the earlier finish (on week and
all-time boards: the sums, and the latest finish of the period), then the lower player id
(README, *Architecture*; ``leaderboard.boards.Board.rows``, ``leaderboard.ranks``)."""

from __future__ import annotations

import datetime as dt

from leaderboard.boards import Board
from leaderboard.selectors import leaderboard_around, leaderboard_page
from tests.factories import make_challenge

from .conftest import add_score


def assert_ranked_by_account_age(board, players, ids) -> None:
    """The tied players ``ids`` head the board, the earliest account first."""
    top = leaderboard_page(board=board)["entries"][: len(ids)]
    expected = sorted(ids, key=lambda i: players[i].pk)
    assert [e["player_id"] for e in top] == [players[i].pk for i in expected]
    assert [e["rank"] for e in top] == list(range(1, len(ids) + 1))
    for rank, i in enumerate(expected, start=1):
        around = leaderboard_around(board=board, player_id=players[i].pk, radius=len(ids))
        assert around["rank"] == rank, f"P{i}'s own rank"
        assert [e["player_id"] for e in around["entries"]][: len(ids)] == [e["player_id"] for e in top]


def test_an_exact_tie_on_a_challenge_board_goes_to_the_earlier_account(store, players, monday_challenge):
    for i in (2, 0, 1):  # scored in another order than the accounts were made
        add_score(monday_challenge, players[i], 300, 50, minute=5)
    add_score(monday_challenge, players[3], 300, 50, minute=6)  # same points and moves, later: after them
    assert_ranked_by_account_age(Board.for_challenge(monday_challenge.pk), players, [0, 1, 2])
    assert leaderboard_around(board=Board.for_challenge(monday_challenge.pk), player_id=players[3].pk)["rank"] == 4


def test_an_exact_tie_on_a_week_board_goes_to_the_earlier_account(store, players):
    monday = make_challenge(date=dt.date(2026, 6, 1), preset="classic")
    friday = make_challenge(date=dt.date(2026, 6, 5), preset="classic")
    for i in (2, 1, 0):
        add_score(monday, players[i], 100, 20, minute=1)
        add_score(friday, players[i], 200, 30, minute=7)
    assert_ranked_by_account_age(Board.for_week("classic", dt.date(2026, 6, 3)), players, [0, 1, 2])


def test_an_exact_tie_on_the_all_time_board_goes_to_the_earlier_account(store, players):
    june = make_challenge(date=dt.date(2026, 6, 1), preset="classic")
    july = make_challenge(date=dt.date(2026, 7, 1), preset="classic")
    for i in (1, 2, 0):
        add_score(june, players[i], 250, 40, minute=3)
        add_score(july, players[i], 150, 35, minute=4)
    assert_ranked_by_account_age(Board.all_time("classic"), players, [0, 1, 2])
