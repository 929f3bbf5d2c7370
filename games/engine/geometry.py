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

    def index(self, row: int, col: int) -> int:
        return row * (row + 1) // 2 + col


@cache
def geometry(rows: int) -> Geometry:
    places = tuple((r, c) for r in range(rows) for c in range(r + 1))
    size = len(places)

    def index(r: int, c: int) -> int:
        return r * (r + 1) // 2 + c

    cover_masks = tuple(
        0 if r == rows - 1 else (1 << index(r + 1, c)) | (1 << index(r + 1, c + 1)) for r, c in places
    )
    row_masks = tuple(sum(1 << index(r, c) for c in range(r + 1)) for r in range(rows))
    return Geometry(rows, size, places, cover_masks, row_masks, (1 << size) - 1)
