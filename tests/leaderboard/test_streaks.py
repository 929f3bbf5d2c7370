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
    streaks = player_streaks(player_id=player.pk, today=D)
    assert streaks.totals() == {
        "played_current": 0,
        "played_best": 0,
        "won_current": 0,
        "won_best": 0,
        "all_variants_current": 0,
        "all_variants_best": 0,
    }
    assert streaks.presets == ()


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


def schedule(days_ago, preset):
    return make_challenge(date=D - dt.timedelta(days=days_ago), preset=preset, seed=1)  # the deal plays no part


def test_a_variants_streak_counts_its_own_challenges_not_calendar_days(player):
    """egyptian comes back every few days: three of its challenges in a row played make three."""
    for days_ago in (10, 5, 0):
        add_score(schedule(days_ago, "egyptian"), player, 100, 40, won=days_ago != 5)
    egyptian = {s.preset: s for s in player_streaks(player_id=player.pk, today=D).presets}["egyptian"]
    assert (egyptian.played_current, egyptian.played_best, egyptian.won_current, egyptian.won_best) == (3, 3, 1, 1)


def test_a_missed_challenge_of_a_variant_ends_its_streak_only(player):
    for days_ago in (10, 0):
        add_score(schedule(days_ago, "double"), player, 100, 40, won=True)
    schedule(5, "double")  # not played
    for days_ago in (10, 5, 0):
        play(player, days_ago, preset="classic")
    streaks = {s.preset: s for s in player_streaks(player_id=player.pk, today=D).presets}
    assert (streaks["double"].played_current, streaks["double"].played_best) == (1, 1)
    assert streaks["classic"].played_best == 3


def test_a_variants_streak_still_counts_until_todays_challenge_is_played(player):
    add_score(schedule(5, "one-pass"), player, 100, 40, won=True)
    schedule(0, "one-pass")
    (one_pass,) = player_streaks(player_id=player.pk, today=D).presets
    assert (one_pass.preset, one_pass.played_current) == ("one-pass", 1)


def test_per_preset_streaks_list_daily_presets_first(player, settings):
    settings.PIRAMIDE_DAILY_PRESETS = ["classic", "forty"]
    for preset in ("egyptian", "forty", "classic"):
        play(player, 0, preset=preset)
    assert [s.preset for s in player_streaks(player_id=player.pk, today=D).presets] == ["classic", "forty", "egyptian"]


def test_the_all_variants_streak_counts_days_with_every_challenge_played(player):
    for days_ago, presets in (
        (3, ("classic", "forty", "egyptian")),
        (2, ("classic", "forty", "double")),
        (1, ("classic", "forty", "one-pass")),
    ):
        for preset in presets:
            challenge = schedule(days_ago, preset)
            if not (days_ago == 2 and preset == "double"):
                add_score(challenge, player, 100, 40, won=True)
    streaks = player_streaks(player_id=player.pk, today=D)
    assert (streaks.all_variants_current, streaks.all_variants_best) == (1, 1)
    assert streaks.played_current == 3  # the plain day streak only asks for one game a day


def test_the_all_variants_streak_waits_for_today_and_breaks_on_a_missed_day(player):
    for days_ago in (2, 1):
        for preset in ("classic", "egyptian"):
            add_score(schedule(days_ago, preset), player, 100, 40, won=True)
    play(player, 0, preset="classic")
    schedule(0, "egyptian")  # today's variant, not played yet
    streaks = player_streaks(player_id=player.pk, today=D)
    assert (streaks.all_variants_current, streaks.all_variants_best) == (2, 2)


def test_history_lists_recent_ranked_results(player):
    play(player, 1)
    play(player, 0, won=False)
    history = player_history(player_id=player.pk)
    assert [(h["date"], h["won"]) for h in history] == [(D, False), (D - dt.timedelta(days=1), True)]
