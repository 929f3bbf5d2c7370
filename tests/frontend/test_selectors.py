"""The front end's own reads: the countdown, the histogram, the calendar."""

from __future__ import annotations

import datetime as dt
import zoneinfo
from unittest import mock

import pytest

from frontend import selectors
from games.services import game_ranked_start, game_resign
from tests.factories import make_challenge, make_player

ROME = zoneinfo.ZoneInfo("Europe/Rome")


@pytest.mark.parametrize(
    ("now", "expected"),
    [
        (dt.datetime(2026, 11, 29, 23, 59, 30, tzinfo=ROME), 30),
        (dt.datetime(2026, 11, 29, 0, 0, 0, tzinfo=ROME), 86_400),
        # The night the clocks go back is 25 hours long.
        (dt.datetime(2026, 10, 25, 0, 0, 0, tzinfo=ROME), 90_000),
    ],
)
def test_the_countdown_ends_at_midnight_in_the_challenge_zone(now: dt.datetime, expected: int) -> None:
    with mock.patch("django.utils.timezone.now", return_value=now.astimezone(dt.UTC)):
        assert selectors.seconds_to_next_day() == expected


@pytest.mark.django_db
def test_the_histogram_counts_every_score_and_places_par_inside_the_axis() -> None:
    challenge = make_challenge(par=10)
    for _ in range(3):
        player = make_player()
        play, _started = game_ranked_start(challenge_id=challenge.pk, player=player)
        game_resign(game_id=play.game.pk, player=player)
    histogram = selectors.score_histogram(challenge=challenge)
    assert sum(bar["count"] for bar in histogram["bars"]) == histogram["total"] == 3
    assert max(bar["h"] for bar in histogram["bars"]) == 80
    assert 0 <= histogram["par_x"] <= 240


@pytest.mark.django_db
def test_no_scores_make_no_histogram() -> None:
    assert selectors.score_histogram(challenge=make_challenge())["bars"] == []
