"""The daily program: which presets have a challenge on a date.  The daily presets every day, and
one variant of the day taken in turn from the rotation, a function of the date alone, so anyone
can compute what is coming (docs/operations.md, "The daily program")."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.conf import settings
from django.core import checks
from django.core.exceptions import ImproperlyConfigured

from games.engine import PRESETS


def daily_presets() -> list[str]:
    """The presets with a challenge every day, in the order pages list them."""
    return list(settings.PIRAMIDE_DAILY_PRESETS)


def rotation_presets() -> list[str]:
    """The presets that take turns as the variant of the day ([] when there is none): the
    configured list, or every engine preset that is not daily, in the engine's order."""
    if not settings.PIRAMIDE_VARIANT_OF_THE_DAY:
        return []
    daily = set(daily_presets())
    chosen = list(settings.PIRAMIDE_ROTATION_PRESETS) or [name for name in PRESETS if name not in daily]
    unknown = [name for name in chosen if name not in PRESETS]
    if unknown:
        raise ImproperlyConfigured(f"PIRAMIDE_ROTATION_PRESETS names unknown presets: {', '.join(unknown)}")
    also_daily = [name for name in chosen if name in daily]
    if also_daily:
        raise ImproperlyConfigured(f"PIRAMIDE_ROTATION_PRESETS names daily presets: {', '.join(also_daily)}")
    return list(dict.fromkeys(chosen))


def variant_of_the_day(date: dt.date) -> str | None:
    """The rotation's preset on ``date``: the first on PIRAMIDE_ROTATION_START, then each in turn."""
    rotation = rotation_presets()
    if not rotation:
        return None
    start: dt.date = settings.PIRAMIDE_ROTATION_START
    return rotation[(date - start).days % len(rotation)]


def presets_on(date: dt.date) -> list[str]:
    """Every preset with a challenge on ``date``: the daily ones, then the variant of the day."""
    variant = variant_of_the_day(date)
    return daily_presets() + ([variant] if variant else [])


def program(*, start: dt.date, days: int) -> list[tuple[dt.date, list[str]]]:
    """The program of ``days`` days from ``start``: each date with its presets."""
    return [
        (start + dt.timedelta(days=offset), presets_on(start + dt.timedelta(days=offset))) for offset in range(days)
    ]


def check_rotation(**kwargs: Any) -> list[checks.CheckMessage]:
    """A system check: a rotation naming an unknown or a daily preset is reported by ``manage.py
    check`` and stops ``migrate`` (the one-shot step of every deployment), before a page reads it."""
    try:
        rotation_presets()
    except ImproperlyConfigured as error:
        return [checks.Error(str(error), id="games.E001")]
    return []
