"""Reads on leaderboards: pages, a player's rank and neighbours, the boards of the players one
follows, streaks and history."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Q
from django.utils.translation import gettext as _

from accounts.selectors import followed_ids
from games.engine import PRESETS
from games.models import DailyChallenge
from games.rotation import daily_presets
from games.selectors import local_today

from .boards import Board, Entry
from .models import Score, Standing, StandingReason
from .ranks import rank_store


def _rows(entries: list[Entry], first_rank: int) -> list[dict[str, Any]]:
    if not entries:
        return []
    names = dict(
        get_user_model().objects.filter(pk__in=[e.player_id for e in entries]).values_list("pk", "display_name")
    )
    return [
        {
            "rank": first_rank + i,
            "player_id": e.player_id,
            "display_name": names.get(e.player_id, "?"),
            "points": e.points,
            "moves": e.moves,
            "finished_at": e.finished_at,
            "standing": Standing.GOOD.value,
        }
        for i, e in enumerate(entries)
    ]


def standing_text(standing: str, reason: str) -> str:
    """Why a score of one's own does not rank, in the request's language ("" when it does)."""
    texts = {
        StandingReason.GUEST: _(
            "Played as a guest: this score does not rank. Sign up to keep your game; your scores rank "
            "from your account's first full day."
        ),
        StandingReason.NEW_ACCOUNT: _(
            "Provisional: your account was made on the day of this challenge, so this score does not "
            "rank. Your scores rank from your account's first full day."
        ),
        StandingReason.EMAIL_UNVERIFIED: _(
            "Provisional: your e-mail address is not verified, so this score does not rank. Verify it "
            "from your profile: your scores of days not yet over then rank at once."
        ),
        StandingReason.SIGNALS: _(
            "In review: our fair-play checks asked staff to look at this game. It ranks as soon as they clear it."
        ),
        StandingReason.EXCLUDED: _("Excluded by staff after a fair-play review: kept in your history, not ranked."),
        StandingReason.ACCOUNT_MARKED: _(
            "Excluded: staff took every score of this account off the boards after a fair-play review."
        ),
    }
    return "" if standing == Standing.GOOD else str(texts.get(StandingReason(reason), _("This score does not rank.")))


#: Which standing a player's own entry shows when several scores of it are withheld: the gravest.
_GRAVITY = {Standing.PROVISIONAL: 1, Standing.REVIEW: 2, Standing.EXCLUDED: 3}


def _would_rank(board: Board, row: dict[str, Any], player_id: int) -> int:
    """Where a score that does not count would stand among those that do, in the boards' order
    (leaderboard/boards.py): one more than the ranked scores that come before it."""
    points, moves, finished_at = row["points"], row["moves"], row["finished_at"]
    ahead = (
        Q(points__gt=points)
        | Q(points=points, moves__lt=moves)
        | Q(points=points, moves=moves, finished_at__lt=finished_at)
        | Q(points=points, moves=moves, finished_at=finished_at, player_id__lt=player_id)
    )
    return board.scores().filter(ahead).count() + 1


def own_entry(*, board: Board, player_id: int, ranked: dict[str, Any] | None) -> dict[str, Any] | None:
    """A player's own entry on a board, as only they see it: their ranked row (or an unranked one),
    its standing and why, and the scores of theirs the board does not count (``withheld``).

    None when the player has no score on the board at all.
    """
    rows = (
        board.scores(ranked_only=False)
        .filter(player_id=player_id)
        .exclude(standing=Standing.GOOD)
        .order_by("date", "preset")
        .values("challenge_id", "date", "preset", "points", "moves", "finished_at", "standing", "standing_reason")
    )
    withheld: list[dict[str, Any]] = [
        {**row, "standing_text": standing_text(row["standing"], row["standing_reason"])} for row in rows
    ]
    if ranked is not None:
        return {**ranked, "standing_reason": "", "standing_text": "", "withheld": withheld, "would_rank": None}
    if not withheld:
        return None
    gravest = max(withheld, key=lambda row: _GRAVITY.get(Standing(row["standing"]), 0))
    name = get_user_model().objects.filter(pk=player_id).values_list("display_name", flat=True).first()
    would_rank = None
    if board.kind == "challenge" and len(withheld) == 1:
        would_rank = _would_rank(board, withheld[0], player_id)
    return {
        "would_rank": would_rank,
        "rank": None,
        "player_id": player_id,
        "display_name": name or "?",
        "points": sum(row["points"] for row in withheld),
        "moves": sum(row["moves"] for row in withheld),
        "finished_at": max(row["finished_at"] for row in withheld),
        "standing": gravest["standing"],
        "standing_reason": gravest["standing_reason"],
        "standing_text": gravest["standing_text"],
        "withheld": withheld,
    }


def leaderboard_page(*, board: Board, offset: int = 0, limit: int = 100) -> dict[str, Any]:
    entries, total = rank_store().page_and_count(board, offset, limit)
    return {"board": board.key, "total": total, "entries": _rows(entries, offset + 1)}


def challenge_board_page(*, challenge_id: int, limit: int) -> dict[str, Any]:
    """The top of a challenge's board, for its live room (``games.live.BOARD_PAGE``)."""
    return leaderboard_page(board=Board.for_challenge(challenge_id), limit=limit)


def leaderboard_around(*, board: Board, player_id: int, radius: int = 5) -> dict[str, Any]:
    """A player's own rank and the ``radius`` entries either side of it (empty if unranked)."""
    store = rank_store()
    found = store.rank_of(board, player_id)
    if found is None:
        return {"board": board.key, "rank": None, "entries": []}
    rank = found[0]
    offset = max(0, rank - 1 - radius)
    entries = store.page(board, offset, rank - offset + radius)
    return {"board": board.key, "rank": rank, "entries": _rows(entries, offset + 1)}


def leaderboard_following(
    *, board: Board, viewer_id: int, offset: int = 0, limit: int = 100, around_radius: int | None = None
) -> dict[str, Any]:
    """The board as the viewer sees it among the players they follow: only them and the viewer,
    ranked 1..n among themselves in the main board's order (ties included).

    ``around_radius`` set: the viewer's rank and that many entries either side instead of a page.
    ``me`` is the viewer's own row whenever they have a score, even when it falls outside the page.
    """
    players = [viewer_id, *followed_ids(follower_id=viewer_id)]
    entries = rank_store().entries_of(board, players)
    rows = _rows(entries, 1)
    mine = own_entry(
        board=board, player_id=viewer_id, ranked=next((row for row in rows if row["player_id"] == viewer_id), None)
    )
    if around_radius is not None:
        if mine is None or mine["rank"] is None:
            shown: list[dict[str, Any]] = []
        else:
            first = max(0, mine["rank"] - 1 - around_radius)
            shown = rows[first : mine["rank"] + around_radius]
    else:
        shown = rows[offset : offset + limit]
    return {
        "board": board.key,
        "view": "following",
        "total": len(rows),
        "my_rank": mine["rank"] if mine else None,
        "me": mine,
        "entries": shown,
    }


@dataclass(frozen=True)
class PresetStreak:
    """A player's runs on one preset's challenges, taken in date order (a rotating variant comes
    back every few days: its streak counts its own challenges, not calendar days)."""

    preset: str
    played_current: int
    played_best: int
    won_current: int
    won_best: int


@dataclass(frozen=True)
class Streaks:
    played_current: int
    played_best: int
    won_current: int
    won_best: int
    #: Consecutive challenge days on which every challenge of the day was played.
    all_variants_current: int = 0
    all_variants_best: int = 0
    presets: tuple[PresetStreak, ...] = ()

    def totals(self) -> dict[str, int]:
        """The day streaks as plain numbers (the API's ``streaks``)."""
        return {
            "played_current": self.played_current,
            "played_best": self.played_best,
            "won_current": self.won_current,
            "won_best": self.won_best,
            "all_variants_current": self.all_variants_current,
            "all_variants_best": self.all_variants_best,
        }


def _runs(days: set[dt.date], today: dt.date) -> tuple[int, int]:
    """(current, best) runs of consecutive days; the current run may end today or yesterday."""
    best = run = 0
    previous: dt.date | None = None
    for day in sorted(days):
        run = run + 1 if previous is not None and day - previous == dt.timedelta(days=1) else 1
        best = max(best, run)
        previous = day
    current = 0
    day = today if today in days else today - dt.timedelta(days=1)
    while day in days:
        current += 1
        day -= dt.timedelta(days=1)
    return current, best


def _runs_along(dates: list[dt.date], done: set[dt.date], today: dt.date) -> tuple[int, int]:
    """(current, best) runs of consecutive entries of ``dates`` (sorted) that are in ``done``; the
    current run may end at today's entry or, while today's is not done yet, at the one before."""
    best = run = 0
    for date in dates:
        run = run + 1 if date in done else 0
        best = max(best, run)
    current = 0
    for date in reversed(dates):
        if date == today and date not in done:
            continue
        if date not in done:
            break
        current += 1
    return current, best


def _preset_order(preset: str) -> tuple[int, str]:
    """Daily presets first, in their order, then the others in the engine's order."""
    order = list(dict.fromkeys([*daily_presets(), *PRESETS]))
    return (order.index(preset) if preset in order else len(order), preset)


def player_streaks(*, player_id: int, today: dt.date | None = None) -> Streaks:
    """Consecutive challenge days with a finished ranked game (played) and with a win, in the
    configured time zone: a challenge's date is already its day there.  Beside them, per preset the
    runs along that preset's challenges, and the days on which every challenge of the day was played."""
    today = today or local_today()
    rows = list(Score.objects.filter(player_id=player_id, date__lte=today).values_list("date", "preset", "won"))
    played = {date for date, _, _ in rows}
    won = {date for date, _, did_win in rows if did_win}
    played_current, played_best = _runs(played, today)
    won_current, won_best = _runs(won, today)
    if not rows:
        return Streaks(played_current, played_best, won_current, won_best)
    first = min(date for date, _, _ in rows)
    program: dict[dt.date, set[str]] = {}
    by_preset: dict[str, list[dt.date]] = {}
    for date, preset in (
        DailyChallenge.objects.filter(date__gte=first, date__lte=today).order_by("date").values_list("date", "preset")
    ):
        program.setdefault(date, set()).add(preset)
        by_preset.setdefault(preset, []).append(date)
    played_of: dict[str, set[dt.date]] = {}
    won_of: dict[str, set[dt.date]] = {}
    for date, preset, did_win in rows:
        played_of.setdefault(preset, set()).add(date)
        if did_win:
            won_of.setdefault(preset, set()).add(date)
    presets = []
    for preset in sorted(played_of, key=_preset_order):
        dates = by_preset.get(preset, [])
        played_run = _runs_along(dates, played_of[preset], today)
        won_run = _runs_along(dates, won_of.get(preset, set()), today)
        presets.append(PresetStreak(preset, *played_run, *won_run))
    days = sorted(program)
    complete = {date for date in days if program[date] <= {p for p, dates in played_of.items() if date in dates}}
    all_current, all_best = _runs_along(days, complete, today)
    return Streaks(played_current, played_best, won_current, won_best, all_current, all_best, tuple(presets))


def player_history(*, player_id: int, limit: int = 30) -> list[dict[str, Any]]:
    """A player's own scores, newest first, each with its standing and why (their eyes only)."""
    scores = Score.objects.filter(player_id=player_id).order_by("-date", "preset")[:limit]
    return [
        {
            "challenge": s.challenge_id,
            "date": s.date,
            "preset": s.preset,
            "points": s.points,
            "moves": s.moves,
            "won": s.won,
            "game": s.game_id,
            "standing": s.standing,
            "standing_reason": s.standing_reason,
            "standing_text": standing_text(s.standing, s.standing_reason),
        }
        for s in scores
    ]


def week_days_open() -> tuple[dt.date, dt.date]:
    """The first and last day a week board may be asked for: from the Monday of the first
    challenge's week (of this week, before there is any) to this week's Sunday.  Outside them
    every week board is empty, and each distinct week asked for would leave a sorted set in Redis."""
    today = local_today()
    first = DailyChallenge.objects.order_by("date").values_list("date", flat=True).first()
    start = min(first, today) if first is not None else today
    return start - dt.timedelta(days=start.weekday()), today + dt.timedelta(days=6 - today.weekday())
