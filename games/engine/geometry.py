"""Pyramid geometry: positions are numbered row by row from the apex, 0-based inside the engine."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache


@dataclass(frozen=True, slots=True)
class Geometry:
    rows: int
    size: int
    #: position -> (row, col), both 0-based
    places: tuple[tuple[int, int], ...]
    #: position -> bit mask of the cards resting on it (0 for the base row)
    cover_masks: tuple[int, ...]
    #: row -> bit mask of its positions
    row_masks: tuple[int, ...]
    full_mask: int
    #: position -> bit mask of the cards above or below it (it covers them, or they cover it):
    #: never both free, so never a pair
    related_masks: tuple[int, ...] = ()

    def index(self, row: int, col: int) -> int:
        return row * (row + 1) // 2 + col


@cache
def geometry(rows: int) -> Geometry:
    places = tuple((r, c) for r in range(rows) for c in range(r + 1))
    size = len(places)

    def index(r: int, c: int) -> int:
        return r * (r + 1) // 2 + c

    cover_masks = tuple(0 if r == rows - 1 else (1 << index(r + 1, c)) | (1 << index(r + 1, c + 1)) for r, c in places)
    row_masks = tuple(sum(1 << index(r, c) for c in range(r + 1)) for r in range(rows))
    # what lies under each card (it covers them) ...
    under = [0] * size
    for i in range(size):
        for j in range(size):
            if cover_masks[j] >> i & 1:
                under[i] |= 1 << j | under[j]
    # ... and what covers it, cone by cone
    over = [0] * size
    for i in range(size):
        for j in range(size):
            if under[j] >> i & 1:
                over[i] |= 1 << j
    related = tuple(under[i] | over[i] for i in range(size))
    return Geometry(rows, size, places, cover_masks, row_masks, (1 << size) - 1, related)
