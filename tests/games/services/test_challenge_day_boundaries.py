"""A challenge opens at midnight in Rome and closes at the next one, DST changes included."""

import datetime as dt
from unittest import mock

import pytest

from games.services import game_move_make, game_ranked_start
from plumbing.errors import NotAllowed
from tests.factories import make_challenge

pytestmark = pytest.mark.django_db

UTC = dt.UTC
ONE_SECOND = dt.timedelta(seconds=1)


def at(moment):
    return mock.patch("django.utils.timezone.now", return_value=moment)


@pytest.mark.parametrize(
    ("day", "opens_utc", "closes_utc"),
    [
        ("2026-03-29", "2026-03-28T23:00:00", "2026-03-29T22:00:00"),  # spring forward: a 23-hour day
        ("2026-10-25", "2026-10-24T22:00:00", "2026-10-25T23:00:00"),  # fall back: a 25-hour day
        ("2026-01-15", "2026-01-14T23:00:00", "2026-01-15T23:00:00"),
    ],
)
def test_play_is_open_exactly_during_the_challenge_day_in_rome(settings, player, day, opens_utc, closes_utc):
    settings.PIRAMIDE_TIME_ZONE = "Europe/Rome"
    challenge = make_challenge(date=dt.date.fromisoformat(day))
    opens = dt.datetime.fromisoformat(opens_utc).replace(tzinfo=UTC)
    closes = dt.datetime.fromisoformat(closes_utc).replace(tzinfo=UTC)

    with at(opens - ONE_SECOND), pytest.raises(NotAllowed, match="not open yet"):
        game_ranked_start(challenge_id=challenge.pk, player=player)
    with at(opens):
        game = game_ranked_start(challenge_id=challenge.pk, player=player)[0].game
    with at(closes - ONE_SECOND):
        game_move_make(game_id=game.pk, player=player, move="D", seen=0)
    with at(closes), pytest.raises(NotAllowed, match="day is over"):
        game_move_make(game_id=game.pk, player=player, move="D", seen=1)
