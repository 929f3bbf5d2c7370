import datetime as dt

import pytest

from leaderboard.selectors import player_history, player_streaks
from tests.factories import make_challenge

from .conftest import add_score

pytestmark = pytest.mark.django_db

D = dt.date(2026, 3, 29)  # the spring DST change in Rome


def play(player, days_ago, *, won=True, preset="classic"):
    challenge = make_challenge(date=D - dt.timedelta(days=days_ago), preset=preset)
    add_score(challenge, player, 100, 40, won=won)


def test_no_games_no_streaks(player):
    assert player_streaks(player_id=player.pk, today=D).__dict__ == {
        "played_current": 0, "played_best": 0, "won_current": 0, "won_best": 0
    }


def test_consecutive_days_make_a_streak_across_a_dst_change(player):
    for days_ago in (0, 1, 2):
        play(player, days_ago)
    streaks = player_streaks(player_id=player.pk, today=D)
    assert (streaks.played_current, streaks.played_best, streaks.won_current, streaks.won_best) == (3, 3, 3, 3)


def test_a_streak_still_counts_until_todays_game_is_played(player):
    for days_ago in (1, 2):
        play(player, days_ago)
    assert player_streaks(player_id=player.pk, today=D).played_current == 2


def test_a_missed_day_ends_the_current_streak_but_not_the_best(player):
    for days_ago in (5, 4, 3, 2):
        play(player, days_ago)
    streaks = player_streaks(player_id=player.pk, today=D)
    assert (streaks.played_current, streaks.played_best) == (0, 4)


def test_a_lost_game_breaks_the_winning_streak_only(player):
    play(player, 2)
    play(player, 1, won=False)
    play(player, 0)
    streaks = player_streaks(player_id=player.pk, today=D)
    assert (streaks.played_current, streaks.won_current, streaks.won_best) == (3, 1, 1)


def test_two_presets_on_one_day_count_as_one_day(player):
    play(player, 0, preset="classic")
    play(player, 0, preset="forty")
    assert player_streaks(player_id=player.pk, today=D).played_current == 1


def test_history_lists_recent_ranked_results(player):
    play(player, 1)
    play(player, 0, won=False)
    history = player_history(player_id=player.pk)
    assert [(h["date"], h["won"]) for h in history] == [(D, False), (D - dt.timedelta(days=1), True)]
