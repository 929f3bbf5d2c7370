"""Reads the pages need beyond the service's selectors: a player's day, a histogram, a calendar, a replay."""

from __future__ import annotations

import calendar
import datetime as dt
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.engine import Game as EngineGame
from games.models import DailyChallenge, Game
from games.selectors import (
    challenge_is_over,
    challenge_time_zone,
    challenges_for_day,
    game_moves,
    is_variant_of_the_day,
    local_today,
)
from leaderboard.models import Score, Standing

#: Day 1 of the share text's day count.
DAY_ONE = dt.date(2026, 1, 1)

PRESET_LABELS = {
    "classic": _("Classic"),
    "one-pass": _("One pass"),
    "egyptian": _("Egyptian campaign"),
    "forty": _("Forty cards"),
    "forty-open": _("Forty cards, open"),
    "forty-house": _("Forty cards, house rules"),
    "double": _("Double pyramid"),
    "unlimited": _("Unlimited redeals"),
}


def preset_label(preset: str) -> str:
    return str(PRESET_LABELS.get(preset, preset))


def day_number(date: dt.date) -> int:
    return (date - DAY_ONE).days + 1


def fairness(challenge: DailyChallenge) -> dict[str, Any]:
    """Commit–reveal, as a page shows it: the commitment from scheduling on; the seed, the salt,
    and the exact text whose SHA-256 the commitment is, only once the day is over (docs/formats.md)."""
    over = challenge_is_over(challenge)
    return {
        "commitment": challenge.seed_commitment,
        "salted": challenge.commitment_version == DailyChallenge.CommitmentVersion.V2,
        "is_over": over,
        "seed": str(challenge.seed) if over else None,
        "salt": (challenge.salt or None) if over else None,
        "preimage": challenge.commitment_preimage if over else None,
        "api": f"/api/challenges/{challenge.pk}/",
    }


def home_rows(*, player: Any) -> list[dict[str, Any]]:
    """Today's challenges, each with the player's ranked game and score if any."""
    challenges = challenges_for_day(date=local_today())
    games: dict[int, Game] = {}
    if player.is_authenticated:
        for ranked in Game.objects.filter(player=player, ranked=True, challenge__in=challenges):
            games[ranked.challenge_id] = ranked
    rows = []
    for challenge in challenges:
        game = games.get(challenge.pk)
        players = Score.objects.filter(challenge=challenge).count()
        rows.append(
            {
                "challenge": challenge,
                "label": preset_label(challenge.preset),
                "game": game,
                "finished": game is not None and game.is_finished,
                "players": players,
                "fairness": fairness(challenge),
                "variant_of_the_day": is_variant_of_the_day(challenge),
            }
        )
    return rows


def seconds_to_next_day() -> int:
    """Seconds until the next challenge day starts in the configured zone."""
    tomorrow = local_today() + dt.timedelta(days=1)
    starts = dt.datetime.combine(tomorrow, dt.time.min, tzinfo=challenge_time_zone())
    return max(0, int((starts - timezone.now()).total_seconds()))


def score_histogram(*, challenge: DailyChallenge, bins: int = 12) -> dict[str, Any]:
    """Today's ranked scores (good standing) in equal-width bins, and where par falls: the data of a small bar chart."""
    points = list(Score.objects.filter(challenge=challenge, standing=Standing.GOOD).values_list("points", flat=True))
    if not points:
        return {"bars": [], "par_x": None, "total": 0}
    low = min(points + ([challenge.par] if challenge.par is not None else []))
    high = max(points + ([challenge.par] if challenge.par is not None else []))
    width = max(1, -(-(high - low + 1) // bins))
    counts = [0] * bins
    for p in points:
        counts[min(bins - 1, (p - low) // width)] += 1
    tallest = max(counts)
    step = 240 / bins
    bars = []
    for i, c in enumerate(counts):
        height = round(80 * c / tallest, 1)
        bars.append(
            {
                "count": c,
                "low": low + i * width,
                "high": low + (i + 1) * width - 1,
                "x": round(i * step + 1, 1),
                "y": round(95 - height, 1),
                "w": round(step - 2, 1),
                "h": height,
            }
        )
    par_x = None
    if challenge.par is not None:
        par_x = round((challenge.par - low + 0.5) / (width * bins) * 240, 1)
    anchor = "middle" if par_x is None or 30 < par_x < 210 else ("start" if par_x <= 30 else "end")
    return {
        "bars": bars,
        "par_x": par_x,
        "par_anchor": anchor,
        "par": challenge.par,
        "total": len(points),
        "low": low,
        "high": low + width * bins - 1,
    }


def played_calendar(*, player_id: int, months: int = 3) -> list[dict[str, Any]]:
    """The last few months as weeks of days, each marked played and won from the player's scores."""
    today = local_today()
    index = today.year * 12 + today.month - 1 - (months - 1)
    first = dt.date(index // 12, index % 12 + 1, 1)
    results: dict[dt.date, bool] = {}
    for date, won in Score.objects.filter(player_id=player_id, date__gte=first).values_list("date", "won"):
        results[date] = results.get(date, False) or won
    out = []
    year, month = first.year, first.month
    for _i in range(months):
        weeks = []
        for week in calendar.Calendar(firstweekday=0).monthdatescalendar(year, month):
            weeks.append(
                [
                    # a day of the month before or after, drawn to fill the week, is only padding:
                    # its marks (and today's) belong to its own month's table
                    {
                        "date": d,
                        "in_month": d.month == month,
                        "played": d.month == month and d in results,
                        "won": d.month == month and results.get(d, False),
                        "today": d.month == month and d == today,
                    }
                    for d in week
                ]
            )
        out.append({"first": dt.date(year, month, 1), "weeks": weeks})
        month += 1
        if month == 13:
            year, month = year + 1, 1
    return out


def game_replay(*, game: Game) -> dict[str, Any]:
    """Every position of a player's own game as they saw it, for the "show me" replay."""
    deal = game.deal
    state = EngineGame.start(deal)
    start = state.visible()
    steps = []
    for number, move in enumerate(game_moves(game), start=1):
        state = state.apply(move)
        steps.append({"number": number, "move": str(move), "state": state.visible()})
    return {"game": game.pk, "start": start, "steps": steps}
