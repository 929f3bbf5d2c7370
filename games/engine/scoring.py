"""Scoring: +20 a pair, +10 a king, -10 a recycle, +10 an emptied row where the rules pay for rows
(``Rules.row_bonus``: every preset but ``unlimited``, which keeps seed 004's own scoring).

The score is never stored: ``Counters`` rides along a game, and ``score_moves`` recomputes the
same figure from the move list alone, which is what a leaderboard trusts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .moves import Kind, Move, Place

if TYPE_CHECKING:
    from .rules import Rules

PAIR_POINTS = 20
KING_POINTS = 10
RECYCLE_POINTS = -10
ROW_POINTS = 10


@dataclass(frozen=True, slots=True)
class Counters:
    pairs: int = 0
    kings: int = 0
    recycles: int = 0
    rows: int = 0

    @property
    def score(self) -> int:
        """The score with the row bonus (every preset's but ``unlimited``'s: ``points``)."""
        return self.points(True)

    def points(self, row_bonus: bool) -> int:
        """The score, with or without ``ROW_POINTS`` for each emptied row (``Rules.row_bonus``)."""
        return (
            PAIR_POINTS * self.pairs
            + KING_POINTS * self.kings
            + RECYCLE_POINTS * self.recycles
            + (ROW_POINTS * self.rows if row_bonus else 0)
        )

    def add(self, *, pairs: int = 0, kings: int = 0, recycles: int = 0, rows: int = 0) -> Counters:
        return Counters(self.pairs + pairs, self.kings + kings, self.recycles + recycles, self.rows + rows)

    def as_dict(self) -> dict[str, int]:
        return {"pairs": self.pairs, "kings": self.kings, "recycles": self.recycles, "rows": self.rows}


def count_moves(moves: Iterable[Move]) -> Counters:
    """The counters of an accepted move list, read from the notation alone.

    Each pyramid place names the card it removes, so a row is empty once every place in it has
    been named: row n (1-based) has n places.
    """
    pairs = kings = recycles = 0
    per_row: Counter[int] = Counter()
    for move in moves:
        if move.kind is Kind.RECYCLE:
            recycles += 1
        elif move.kind is Kind.REMOVE:
            if len(move.refs) == 2:
                pairs += 1
            else:
                kings += 1
            per_row.update(ref.row for ref in move.refs if ref.place is Place.PYRAMID)
    rows = sum(1 for row, count in per_row.items() if count == row)
    return Counters(pairs, kings, recycles, rows)


def score_moves(moves: Iterable[Move], rules: Rules | None = None) -> int:
    """The score of an accepted move list under ``rules`` (its row bonus or none); without rules,
    with the row bonus, as every preset but ``unlimited`` scores."""
    return count_moves(moves).points(rules is None or rules.row_bonus)
