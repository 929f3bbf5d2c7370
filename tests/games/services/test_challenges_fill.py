import datetime as dt
import threading
from unittest import mock

import pytest
from django.db import connection

from games import services
from games.engine.commitment import commitment_matches
from games.models import DailyChallenge
from games.services import challenges_fill
from tests.factories import UNWINNABLE, WINNABLE, make_challenge


@pytest.mark.django_db
def test_fill_creates_a_winnable_challenge_per_day_and_preset(today):
    created = challenges_fill(today=today, days=3, presets=["classic", "forty"])
    assert len(created) == 6
    assert {(c.date, c.preset) for c in DailyChallenge.objects.all()} == {
        (today + dt.timedelta(days=d), p) for d in range(3) for p in ("classic", "forty")
    }
    assert all(c.verdict == "winnable" and c.status == "done" and c.par is not None for c in created)
    for challenge in DailyChallenge.objects.all():
        assert challenge.commitment_version == 2
        assert commitment_matches(challenge.seed_commitment, challenge.preset, challenge.seed, challenge.salt)


@pytest.mark.django_db
def test_fill_twice_creates_nothing_new(today):
    challenges_fill(today=today, days=2, presets=["classic"])
    assert challenges_fill(today=today, days=2, presets=["classic"]) == []
    assert DailyChallenge.objects.count() == 2


@pytest.mark.django_db
def test_fill_keeps_what_staff_scheduled(today):
    mine = make_challenge(date=today, preset="classic", seed=7)
    challenges_fill(today=today, days=1, presets=["classic"])
    assert DailyChallenge.objects.get().pk == mine.pk


@pytest.mark.django_db
def test_fill_skips_unwinnable_seeds(today, settings):
    seeds = iter([UNWINNABLE["classic"], WINNABLE["classic"]])
    with mock.patch("games.services.draw_seed", side_effect=lambda: next(seeds)):
        created = challenges_fill(today=today, days=1, presets=["classic"])
    assert created[0].seed == WINNABLE["classic"]


@pytest.mark.django_db
def test_fill_defaults_to_the_daily_presets_without_a_variant_of_the_day(today, settings):
    settings.PIRAMIDE_DAILY_PRESETS = ["forty"]
    settings.PIRAMIDE_VARIANT_OF_THE_DAY = False
    settings.PIRAMIDE_FILL_DAYS = 2
    challenges_fill()
    assert sorted(DailyChallenge.objects.values_list("preset", flat=True)) == ["forty", "forty"]


@pytest.mark.django_db
def test_fill_defaults_to_each_days_program_daily_presets_and_variant_of_the_day(today, settings):
    settings.PIRAMIDE_DAILY_PRESETS = ["forty"]
    settings.PIRAMIDE_ROTATION_PRESETS = ["egyptian", "forty-open"]
    settings.PIRAMIDE_ROTATION_START = today
    settings.PIRAMIDE_FILL_DAYS = 3
    challenges_fill()
    tomorrow, after = today + dt.timedelta(days=1), today + dt.timedelta(days=2)
    assert set(DailyChallenge.objects.values_list("date", "preset")) == {
        (today, "forty"),
        (today, "egyptian"),
        (tomorrow, "forty"),
        (tomorrow, "forty-open"),
        (after, "forty"),
        (after, "egyptian"),
    }
    assert all(c.verdict == "winnable" for c in DailyChallenge.objects.all())


@pytest.mark.django_db
def test_missing_names_only_the_variant_a_day_still_lacks(today, settings):
    settings.PIRAMIDE_DAILY_PRESETS = ["classic"]
    settings.PIRAMIDE_ROTATION_PRESETS = ["egyptian", "double"]
    settings.PIRAMIDE_ROTATION_START = today
    make_challenge(date=today, preset="classic")
    make_challenge(date=today + dt.timedelta(days=1), preset="double", seed=5)
    assert services.challenges_missing(today=today, days=2) == [
        (today, "egyptian"),
        (today + dt.timedelta(days=1), "classic"),
    ]


@pytest.mark.django_db(transaction=True)
def test_two_fills_at_once_never_duplicate_or_lose_a_challenge(postgres, today):
    """Both workers see the gap, both solve, both insert: the unique constraint lets one win."""
    barrier = threading.Barrier(2, timeout=30)
    real = services._find_winnable

    def slow_find(preset):
        found = real(preset)
        barrier.wait()  # both have passed the "is it missing?" check before either inserts
        return found

    errors = []
    results = []

    def run():
        try:
            results.append(challenges_fill(today=today, days=1, presets=["classic"]))
        except Exception as error:
            errors.append(error)
        finally:
            connection.close()

    with mock.patch("games.services._find_winnable", side_effect=slow_find):
        threads = [threading.Thread(target=run) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert errors == []
    assert DailyChallenge.objects.filter(date=today, preset="classic").count() == 1
    assert sorted(len(r) for r in results) == [0, 1]
