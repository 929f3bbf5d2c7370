"""The "following" view of every board: the viewer and the players they follow, ranked among themselves."""

import datetime as dt

import pytest

from accounts.models import Follow
from leaderboard.boards import Board
from leaderboard.selectors import leaderboard_following, leaderboard_page
from tests.factories import make_challenge

from .conftest import add_score


def follow(viewer, *players):
    for player in players:
        Follow.objects.create(follower=viewer, followed=player)


def ranked(page):
    return [(e["rank"], e["display_name"]) for e in page["entries"]]


def test_a_challenge_board_among_the_followed_ranks_them_from_one(store, players, monday_challenge):
    me, a, b, stranger, c, _ = players
    follow(me, a, b, c)
    add_score(monday_challenge, stranger, 900, 40)  # first on the main board, absent here
    add_score(monday_challenge, a, 500, 40)
    add_score(monday_challenge, me, 400, 40)
    add_score(monday_challenge, b, 100, 40)
    page = leaderboard_following(board=Board.for_challenge(monday_challenge.pk), viewer_id=me.pk)
    assert ranked(page) == [(1, "P1"), (2, "P0"), (3, "P2")]  # c has no score: not listed
    assert page["total"] == 3 and page["my_rank"] == 2
    assert page["me"]["display_name"] == "P0" and page["me"]["rank"] == 2
    main = leaderboard_page(board=Board.for_challenge(monday_challenge.pk))
    assert [e["display_name"] for e in main["entries"]][:2] == ["P3", "P1"]


def test_exact_ties_break_as_on_the_main_board(store, players, monday_challenge):
    me, a, b, c, d, _ = players
    follow(me, a, b, c, d)
    add_score(monday_challenge, a, 300, 50, minute=1)
    add_score(monday_challenge, b, 300, 45, minute=9)  # fewer moves first
    add_score(monday_challenge, c, 300, 50, minute=0)  # same points and moves: the earlier finish
    add_score(monday_challenge, me, 300, 50, minute=5)
    add_score(monday_challenge, d, 300, 50, minute=5)  # the very same result as mine: the lower id
    board = Board.for_challenge(monday_challenge.pk)
    following = [e["player_id"] for e in leaderboard_following(board=board, viewer_id=me.pk)["entries"]]
    assert following == [b.pk, c.pk, a.pk, me.pk, d.pk]
    assert following == [e["player_id"] for e in leaderboard_page(board=board)["entries"]]


def test_week_and_all_time_sum_the_followed_scores(store, players):
    me, a, b, *_ = players
    follow(me, a)
    monday = make_challenge(date=dt.date(2026, 6, 1))
    sunday = make_challenge(date=dt.date(2026, 6, 7))
    next_monday = make_challenge(date=dt.date(2026, 6, 8))
    add_score(monday, me, 300, 50)
    add_score(sunday, me, 100, 50)
    add_score(monday, a, 350, 40)
    add_score(next_monday, a, 500, 40)
    add_score(monday, b, 9999, 10)  # not followed
    week = leaderboard_following(board=Board.for_week("classic", dt.date(2026, 6, 3)), viewer_id=me.pk)
    assert [(e["rank"], e["display_name"], e["points"], e["moves"]) for e in week["entries"]] == [
        (1, "P0", 400, 100),
        (2, "P1", 350, 40),
    ]
    all_time = leaderboard_following(board=Board.all_time("classic"), viewer_id=me.pk)
    assert [(e["rank"], e["display_name"], e["points"]) for e in all_time["entries"]] == [
        (1, "P1", 850),
        (2, "P0", 400),
    ]
    assert all_time["my_rank"] == 2


def test_my_own_row_is_there_with_no_one_followed_and_missing_without_a_score(store, players, monday_challenge):
    me, a, *_ = players
    board = Board.for_challenge(monday_challenge.pk)
    add_score(monday_challenge, a, 500, 40)
    assert leaderboard_following(board=board, viewer_id=me.pk) == {
        "board": board.key,
        "view": "following",
        "total": 0,
        "my_rank": None,
        "me": None,
        "entries": [],
    }
    add_score(monday_challenge, me, 100, 40)
    page = leaderboard_following(board=board, viewer_id=me.pk)
    assert ranked(page) == [(1, "P0")] and page["my_rank"] == 1


def test_a_page_beyond_my_row_still_names_it_and_around_me_centres_on_it(store, players, monday_challenge):
    me = players[0]
    follow(me, *players[1:])
    for i, player in enumerate(players):
        add_score(monday_challenge, player, 100 * i, 40)  # I am last: 6th of 6
    board = Board.for_challenge(monday_challenge.pk)
    top = leaderboard_following(board=board, viewer_id=me.pk, limit=2)
    assert ranked(top) == [(1, "P5"), (2, "P4")] and top["me"]["rank"] == 6 and top["total"] == 6
    second = leaderboard_following(board=board, viewer_id=me.pk, offset=2, limit=2)
    assert ranked(second) == [(3, "P3"), (4, "P2")]
    around = leaderboard_following(board=board, viewer_id=me.pk, around_radius=1)
    assert ranked(around) == [(5, "P1"), (6, "P0")]


def test_a_follow_made_after_the_scores_counts_at_once(store, players, monday_challenge):
    me, a, *_ = players
    add_score(monday_challenge, a, 500, 40)
    add_score(monday_challenge, me, 100, 40)
    board = Board.for_challenge(monday_challenge.pk)
    assert ranked(leaderboard_following(board=board, viewer_id=me.pk)) == [(1, "P0")]
    follow(me, a)
    assert ranked(leaderboard_following(board=board, viewer_id=me.pk)) == [(1, "P1"), (2, "P0")]


def test_redis_answers_the_following_view_after_a_flush(redis_ranks, players, monday_challenge):
    from tests.conftest import _forget_test_keys

    me, a, *_ = players
    follow(me, a)
    add_score(monday_challenge, a, 500, 40)
    add_score(monday_challenge, me, 100, 40)
    board = Board.for_challenge(monday_challenge.pk)
    before = leaderboard_following(board=board, viewer_id=me.pk)
    _forget_test_keys()
    assert leaderboard_following(board=board, viewer_id=me.pk) == before
    assert redis_ranks.client.exists(f"{redis_ranks.prefix}:{board.key}:built")


def test_redis_entries_of_skip_players_without_an_entry(redis_ranks, players, monday_challenge):
    me, a, b, *_ = players
    add_score(monday_challenge, a, 500, 40)
    add_score(monday_challenge, me, 100, 40)
    board = Board.for_challenge(monday_challenge.pk)
    assert [e.player_id for e in redis_ranks.entries_of(board, [me.pk, b.pk, a.pk])] == [a.pk, me.pk]
    assert redis_ranks.entries_of(board, []) == []


@pytest.mark.parametrize("kind", ["challenge", "week", "all"])
def test_the_following_view_is_the_main_board_filtered(store, players, kind):
    """Whatever the scores, the following view is the main board's order restricted to the followed."""
    me, a, b, c, d, e = players
    follow(me, a, c, e)
    days = [make_challenge(date=dt.date(2026, 6, 1)), make_challenge(date=dt.date(2026, 6, 2))]
    results = {
        me: [(200, 30), (100, 30)],
        a: [(200, 30), (100, 30)],
        b: [(400, 5)],
        c: [(300, 60)],
        d: [(50, 1), (50, 1)],
        e: [(300, 59)],
    }
    for player, scores in results.items():
        for day, (points, moves) in zip(days, scores):
            add_score(day, player, points, moves, minute=7)
    board = {
        "challenge": Board.for_challenge(days[0].pk),
        "week": Board.for_week("classic", dt.date(2026, 6, 1)),
        "all": Board.all_time("classic"),
    }[kind]
    chosen = {me.pk, a.pk, c.pk, e.pk}
    expected = [row["player_id"] for row in leaderboard_page(board=board)["entries"] if row["player_id"] in chosen]
    page = leaderboard_following(board=board, viewer_id=me.pk)
    assert [row["player_id"] for row in page["entries"]] == expected
    assert [row["rank"] for row in page["entries"]] == list(range(1, len(expected) + 1))
