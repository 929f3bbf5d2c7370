"""'Today' is the date in the configured zone (Europe/Rome by default), for everyone alike."""

import datetime as dt

import pytest

from games.models import DailyChallenge
from games.selectors import challenge_day_end, challenge_is_open, challenge_is_over, local_today

UTC = dt.UTC


def at(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text).replace(tzinfo=UTC)


@pytest.mark.parametrize(
    ("utc", "expected"),
    [
        # winter (CET, UTC+1): midnight in Rome is 23:00 UTC
        ("2026-01-14T22:59:59", "2026-01-14"),
        ("2026-01-14T23:00:00", "2026-01-15"),
        # summer (CEST, UTC+2): midnight in Rome is 22:00 UTC
        ("2026-07-01T21:59:59", "2026-07-01"),
        ("2026-07-01T22:00:00", "2026-07-02"),
        # spring forward, 29 March 2026: the day before ends at 23:00 UTC, the day itself at 22:00 UTC
        ("2026-03-28T22:59:59", "2026-03-28"),
        ("2026-03-28T23:00:00", "2026-03-29"),
        ("2026-03-29T00:59:59", "2026-03-29"),  # 01:59:59 CET, just before the clocks jump
        ("2026-03-29T01:00:00", "2026-03-29"),  # 03:00 CEST
        ("2026-03-29T21:59:59", "2026-03-29"),
        ("2026-03-29T22:00:00", "2026-03-30"),
        # fall back, 25 October 2026: starts at 22:00 UTC on the 24th, ends at 23:00 UTC on the 25th
        ("2026-10-24T21:59:59", "2026-10-24"),
        ("2026-10-24T22:00:00", "2026-10-25"),
        ("2026-10-25T00:30:00", "2026-10-25"),  # 02:30 CEST, the first time round
        ("2026-10-25T01:30:00", "2026-10-25"),  # 02:30 CET, the second time round
        ("2026-10-25T22:59:59", "2026-10-25"),
        ("2026-10-25T23:00:00", "2026-10-26"),
    ],
)
def test_today_follows_the_rome_calendar(settings, utc, expected):
    settings.PIRAMIDE_TIME_ZONE = "Europe/Rome"
    assert local_today(now=at(utc)) == dt.date.fromisoformat(expected)


def test_another_zone_can_be_configured(settings):
    settings.PIRAMIDE_TIME_ZONE = "America/New_York"
    assert local_today(now=at("2026-01-15T03:00:00")) == dt.date(2026, 1, 14)


@pytest.mark.parametrize(("day", "hours"), [("2026-03-29", 23), ("2026-10-25", 25), ("2026-06-01", 24)])
def test_a_challenge_day_lasts_as_long_as_the_day_in_rome(settings, day, hours):
    settings.PIRAMIDE_TIME_ZONE = "Europe/Rome"
    date = dt.date.fromisoformat(day)
    start = challenge_day_end(DailyChallenge(date=date - dt.timedelta(days=1)))
    end = challenge_day_end(DailyChallenge(date=date))
    assert end - start == dt.timedelta(hours=hours)


def test_a_challenge_is_open_on_its_day_and_over_after_it():
    challenge = DailyChallenge(date=dt.date(2026, 3, 29))
    assert not challenge_is_open(challenge, today=dt.date(2026, 3, 28))
    assert challenge_is_open(challenge, today=dt.date(2026, 3, 29))
    assert not challenge_is_over(challenge, today=dt.date(2026, 3, 29))
    assert challenge_is_over(challenge, today=dt.date(2026, 3, 30))
