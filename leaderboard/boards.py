"""Which scores a leaderboard ranks: one challenge, one ISO week of a preset, or all time for a preset.

Every board ranks the same way: more points first, then fewer moves, then the earlier finish
(for sums: the earlier last finish), then the lower player id so that no two entries tie.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Max, QuerySet, Sum

from .models import Score, Standing


@dataclass(frozen=True)
class Entry:
    player_id: int
    points: int
    moves: int
    finished_at: dt.datetime
    #: Grows as scores are added to the entry, so an older write never overwrites a newer one.
    version: int = 1

    def sort_key(self) -> tuple[int, int, dt.datetime, int]:
        return (-self.points, self.moves, self.finished_at, self.player_id)


@dataclass(frozen=True)
class Board:
    kind: str  # "challenge", "week" or "all"
    challenge_id: int | None = None
    preset: str = ""
    week_start: dt.date | None = None

    @classmethod
    def for_challenge(cls, challenge_id: int) -> Board:
        return cls("challenge", challenge_id=challenge_id)

    @classmethod
    def for_week(cls, preset: str, day: dt.date) -> Board:
        return cls("week", preset=preset, week_start=day - dt.timedelta(days=day.weekday()))

    @classmethod
    def all_time(cls, preset: str) -> Board:
        return cls("all", preset=preset)

    @property
    def key(self) -> str:
        if self.kind == "challenge":
            return f"challenge:{self.challenge_id}"
        if self.kind == "week":
            assert self.week_start is not None
            year, week, _ = self.week_start.isocalendar()
            return f"week:{self.preset}:{year}-W{week:02d}"
        return f"all:{self.preset}"

    @property
    def is_sum(self) -> bool:
        return self.kind != "challenge"

    def scores(self, *, ranked_only: bool = True) -> QuerySet[Score]:
        """The scores the board ranks: only those in good standing (docs/fairplay.md); with
        ``ranked_only=False``, every score of its challenge or period."""
        ranked = Score.objects.filter(standing=Standing.GOOD) if ranked_only else Score.objects.all()
        if self.kind == "challenge":
            return ranked.filter(challenge_id=self.challenge_id)
        scores = ranked.filter(preset=self.preset)
        if self.kind == "week":
            assert self.week_start is not None
            scores = scores.filter(date__gte=self.week_start, date__lt=self.week_start + dt.timedelta(days=7))
        return scores

    def rows(self) -> QuerySet[Any]:
        """One row per player with points, moves, finished_at and version, in rank order."""
        scores = self.scores()
        if self.is_sum:
            rows = scores.values("player_id").annotate(
                total_points=Sum("points"), total_moves=Sum("moves"), last=Max("finished_at"), n=Count("id")
            )
            return rows.order_by("-total_points", "total_moves", "last", "player_id")
        return scores.values("player_id", "points", "moves", "finished_at").order_by(
            "-points", "moves", "finished_at", "player_id"
        )

    def entries(self, player_ids: list[int] | None = None) -> list[Entry]:
        rows = self.rows()
        if player_ids is not None:
            rows = rows.filter(player_id__in=player_ids)
        return [entry_of(row) for row in rows]


def entry_of(row: dict[str, Any]) -> Entry:
    if "total_points" in row:
        return Entry(row["player_id"], row["total_points"], row["total_moves"], row["last"], row["n"])
    return Entry(row["player_id"], row["points"], row["moves"], row["finished_at"])


def boards_of(score: Score) -> list[Board]:
    return [
        Board.for_challenge(score.challenge_id),
        Board.for_week(score.preset, score.date),
        Board.all_time(score.preset),
    ]
