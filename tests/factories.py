"""Factories for the service tests, in one place."""

from __future__ import annotations

import datetime as dt
import itertools
from typing import Any

from django.utils import timezone

from accounts.models import User
from accounts.names import display_name_skeleton
from games.engine.commitment import seed_commitment
from games.models import DailyChallenge, commitment_fields
from games.selectors import local_today

#: Seeds the solver settles in milliseconds (see tests/games/services/test_challenge_verify.py).
WINNABLE = {"classic": 1, "forty": 3, "egyptian": 1}
UNWINNABLE = {"classic": 2, "forty": 1}
#: Winnable in both classic and forty, and long enough that finding it in a response means a leak.
BIG_WINNABLE = 4611686018427400261

_names = itertools.count(1)


#: The age of a player the factory makes: older than any challenge the tests play, so their scores
#: rank (an account younger than its challenge scores provisionally: docs/fairplay.md).
ESTABLISHED = dt.timedelta(days=60)


def make_player(name: str | None = None, password: str = "a-long-pass-phrase-42", **extra: Any) -> User:
    name = name or f"player{next(_names)}"
    extra.setdefault("date_joined", timezone.now() - ESTABLISHED)
    # an established player: a verified address, so their scores rank (docs/fairplay.md, *Standing*)
    extra.setdefault("email", f"{name}@example.org")
    extra.setdefault("email_verified_at", extra["date_joined"])
    display_name = extra.pop("display_name", name.title())
    user = User(
        username=name, display_name=display_name, display_name_skeleton=display_name_skeleton(display_name), **extra
    )
    user.set_password(password)
    user.save()
    return user


def make_challenge(
    *,
    date: dt.date | None = None,
    preset: str = "classic",
    seed: int | None = None,
    commitment_version: int = 2,
    **fields: Any,
) -> DailyChallenge:
    """A challenge as scheduled today (commitment v2, with a fresh salt), or as the first
    challenges were (``commitment_version=1``: no salt)."""
    seed = WINNABLE[preset] if seed is None else seed
    defaults: dict[str, Any] = {"status": DailyChallenge.Status.DONE, "verdict": DailyChallenge.Verdict.WINNABLE}
    if commitment_version == 1:
        defaults.update(commitment_version=1, salt="", seed_commitment=seed_commitment(preset, seed))
    else:
        defaults.update(commitment_fields(preset, seed))
    defaults.update(fields)
    return DailyChallenge.objects.create(date=date or local_today(), preset=preset, seed=seed, **defaults)


def end_the_day(challenge: DailyChallenge) -> DailyChallenge:
    """Move a challenge to yesterday: for it, the day is over, as it is after midnight."""
    challenge.date = local_today() - dt.timedelta(days=1)
    DailyChallenge.objects.filter(pk=challenge.pk).update(date=challenge.date)
    return challenge
