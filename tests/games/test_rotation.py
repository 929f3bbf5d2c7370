"""The daily program (games/rotation.py): the daily presets every day and a variant of the day in
turn, a function of the date alone."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured

from games.engine import PRESETS
from games.rotation import presets_on, program, rotation_presets, variant_of_the_day

START = dt.date(2026, 1, 1)


def test_by_default_every_engine_preset_not_daily_takes_its_turn(settings: Any) -> None:
    settings.PIRAMIDE_DAILY_PRESETS = ["classic", "forty"]
    settings.PIRAMIDE_ROTATION_PRESETS = []
    assert rotation_presets() == ["one-pass", "egyptian", "forty-open", "forty-house", "double", "unlimited"]
    assert set(rotation_presets()) | {"classic", "forty"} == set(PRESETS)


def test_the_variant_goes_round_from_the_start_date_and_back(settings: Any) -> None:
    settings.PIRAMIDE_DAILY_PRESETS = ["classic", "forty"]
    settings.PIRAMIDE_ROTATION_PRESETS = []
    settings.PIRAMIDE_ROTATION_START = START
    turns = [variant_of_the_day(START + dt.timedelta(days=n)) for n in range(7)]
    assert turns == ["one-pass", "egyptian", "forty-open", "forty-house", "double", "unlimited", "one-pass"]
    assert variant_of_the_day(START - dt.timedelta(days=1)) == "unlimited"  # before the start, backwards in turn


def test_every_preset_comes_within_one_round_of_any_day(settings: Any) -> None:
    settings.PIRAMIDE_DAILY_PRESETS = ["classic", "forty"]
    settings.PIRAMIDE_ROTATION_PRESETS = []
    for start in (dt.date(2026, 3, 29), dt.date(2026, 12, 31), dt.date(2028, 2, 29)):
        days = program(start=start, days=len(rotation_presets()))
        assert {presets[-1] for _, presets in days} == set(rotation_presets())
        assert all(presets[:2] == ["classic", "forty"] and len(presets) == 3 for _, presets in days)


def test_the_program_is_the_daily_presets_then_the_variant(settings: Any) -> None:
    settings.PIRAMIDE_DAILY_PRESETS = ["forty", "classic"]
    settings.PIRAMIDE_ROTATION_PRESETS = ["double", "egyptian"]
    settings.PIRAMIDE_ROTATION_START = START
    assert presets_on(START) == ["forty", "classic", "double"]
    assert presets_on(START + dt.timedelta(days=1)) == ["forty", "classic", "egyptian"]


def test_with_the_variant_turned_off_only_the_daily_presets_play(settings: Any) -> None:
    settings.PIRAMIDE_DAILY_PRESETS = ["classic"]
    settings.PIRAMIDE_VARIANT_OF_THE_DAY = False
    assert variant_of_the_day(START) is None and presets_on(START) == ["classic"]


@pytest.mark.parametrize(
    ("rotation", "complaint"),
    [(["egyptian", "spider"], "unknown presets: spider"), (["classic", "double"], "daily presets: classic")],
)
def test_a_rotation_naming_a_wrong_preset_is_refused(settings: Any, rotation: list[str], complaint: str) -> None:
    settings.PIRAMIDE_DAILY_PRESETS = ["classic", "forty"]
    settings.PIRAMIDE_ROTATION_PRESETS = rotation
    with pytest.raises(ImproperlyConfigured, match=complaint):
        variant_of_the_day(START)


def test_the_system_check_reports_a_wrong_rotation_and_passes_a_good_one(settings: Any) -> None:
    from games.rotation import check_rotation

    settings.PIRAMIDE_DAILY_PRESETS = ["classic", "forty"]
    settings.PIRAMIDE_ROTATION_PRESETS = ["egyptian", "spider"]
    (error,) = check_rotation()
    assert error.id == "games.E001" and "spider" in error.msg
    settings.PIRAMIDE_ROTATION_PRESETS = ["egyptian"]
    assert check_rotation() == []
