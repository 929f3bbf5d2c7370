"""The program over the API: today's challenges say which is the variant of the day, and the public
calendar of the coming days names presets only, never anything of a deal (the knowledge rule)."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any
from unittest import mock

import pytest
from rest_framework.test import APIClient

from games.selectors import challenge_day_start
from tests.factories import BIG_WINNABLE, make_challenge

pytestmark = pytest.mark.django_db


@pytest.fixture
def rotation(settings: Any, today: dt.date) -> list[str]:
    settings.PIRAMIDE_DAILY_PRESETS = ["classic", "forty"]
    settings.PIRAMIDE_ROTATION_PRESETS = ["egyptian", "double", "one-pass"]
    settings.PIRAMIDE_ROTATION_START = today
    return settings.PIRAMIDE_ROTATION_PRESETS


def test_today_lists_the_daily_presets_then_the_variant_of_the_day_flagged(rotation: list[str], today: dt.date) -> None:
    for preset in ("egyptian", "forty", "classic"):
        make_challenge(date=today, preset=preset, seed=BIG_WINNABLE)
    make_challenge(date=today, preset="forty-open", seed=5)  # staff scheduled one more: listed, not the variant
    body = APIClient().get("/api/challenges/today/").json()
    assert [(c["preset"], c["variant_of_the_day"]) for c in body] == [
        ("classic", False),
        ("forty", False),
        ("egyptian", True),
        ("forty-open", False),
    ]
    assert all(c["seed"] is None and c["deal"] is None for c in body)


def test_the_calendar_lists_the_next_fourteen_days_program(rotation: list[str], today: dt.date) -> None:
    response = APIClient().get("/api/challenges/calendar/")
    assert response.status_code == 200
    days = response.json()
    assert [day["date"] for day in days] == [str(today + dt.timedelta(days=n)) for n in range(14)]
    assert days[0] == {
        "date": str(today),
        "presets": ["classic", "forty", "egyptian"],
        "variant_of_the_day": "egyptian",
    }
    assert days[4]["variant_of_the_day"] == "double" and days[13]["variant_of_the_day"] == "double"


def test_the_calendar_tells_nothing_of_the_deals_scheduled_in_it(rotation: list[str], today: dt.date) -> None:
    """The deals are there already (the beat fills 14 days): no seed, salt, commitment, verdict, par
    or card of any of them reaches the calendar, today's included."""
    scheduled = [
        make_challenge(
            date=today + dt.timedelta(days=n), preset=preset, seed=BIG_WINNABLE + n, par=987 + n, line_length=55
        )
        for n in range(14)
        for preset in ("classic", "forty")
    ]
    text = APIClient().get("/api/challenges/calendar/").content.decode()
    for challenge in scheduled:
        for secret in (
            str(challenge.seed),
            challenge.salt,
            challenge.seed_commitment,
            str(challenge.par),
            str(challenge.deal),
        ):
            assert secret not in text
    assert set(json.loads(text)[0]) == {"date", "presets", "variant_of_the_day"}
    for word in ("seed", "salt", "commitment", "verdict", "par", "deal", "id"):
        assert f'"{word}"' not in text


def test_across_midnight_the_calendar_moves_on_and_only_yesterdays_deal_opens(
    rotation: list[str], today: dt.date
) -> None:
    """Both sides of the day boundary: at 23:59:59 today is the calendar's first day and its deal is
    secret; a second after midnight tomorrow is, today's deal opens on its own page, and the calendar
    still tells nothing of any deal."""
    challenge = make_challenge(date=today, preset="classic", seed=BIG_WINNABLE)
    midnight = challenge_day_start(today + dt.timedelta(days=1))
    client = APIClient()
    with mock.patch("django.utils.timezone.now", return_value=midnight - dt.timedelta(seconds=1)):
        before = client.get("/api/challenges/calendar/").json()
        assert client.get(f"/api/challenges/{challenge.pk}/").json()["seed"] is None
    with mock.patch("django.utils.timezone.now", return_value=midnight + dt.timedelta(seconds=1)):
        after = client.get("/api/challenges/calendar/")
        assert client.get(f"/api/challenges/{challenge.pk}/").json()["seed"] == str(BIG_WINNABLE)
    assert before[0]["date"] == str(today) and after.json()[0]["date"] == str(today + dt.timedelta(days=1))
    assert after.json()[:13] == before[1:]
    assert str(BIG_WINNABLE) not in after.content.decode()


def test_the_calendar_takes_no_parameters_it_could_be_made_to_leak_with(rotation: list[str], today: dt.date) -> None:
    response = APIClient().get("/api/challenges/calendar/?days=-3&start=2020-01-01")
    assert response.status_code == 200 and response.json()[0]["date"] == str(today) and len(response.json()) == 14
