"""Moves and their notation (docs/formats.md).

``D`` draws, ``R`` recycles the waste, ``7.1`` removes a king, ``7.1+S`` removes a pair,
``B3`` puts the card just drawn back into the stock under three cards, ``T`` returns the
first three drawn cards under the stock (the last two are house rules of ``forty-house``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache

from .cards import NotationError


class Place(Enum):
    PYRAMID = 0
    STOCK = 1
    WASTE = 2


@dataclass(frozen=True, order=True, slots=True)
class Ref:
    """Where a card is played from: a pyramid ``row.col`` (1-based), ``S``, or ``W``/``W2``..``W4``."""

    place: Place
    row: int = 0
    col: int = 0
    depth: int = 1

    def __str__(self) -> str:
        if self.place is Place.PYRAMID:
            return f"{self.row}.{self.col}"
        if self.place is Place.STOCK:
            return "S"
        return "W" if self.depth == 1 else f"W{self.depth}"

    def sort_key(self) -> tuple[int, int, int, int]:
        return (self.place.value, self.row, self.col, self.depth)


STOCK = Ref(Place.STOCK)
WASTE = Ref(Place.WASTE)


def pyramid_ref(row: int, col: int) -> Ref:
    return Ref(Place.PYRAMID, row, col)


def waste_ref(depth: int) -> Ref:
    return Ref(Place.WASTE, depth=depth)


class Kind(Enum):
    DRAW = "D"
    RECYCLE = "R"
    REMOVE = "remove"
    PUT_BACK = "B"
    RETURN_THREE = "T"


@dataclass(frozen=True, slots=True)
class Move:
    kind: Kind
    refs: tuple[Ref, ...] = ()
    #: For PUT_BACK: how many stock cards end up above the card put back.
    count: int = 0

    def __str__(self) -> str:
        if self.kind is Kind.REMOVE:
            return "+".join(str(ref) for ref in self.refs)
        if self.kind is Kind.PUT_BACK:
            return f"B{self.count}"
        return str(self.kind.value)

    @property
    def is_pair(self) -> bool:
        return self.kind is Kind.REMOVE and len(self.refs) == 2


DRAW = Move(Kind.DRAW)
RECYCLE = Move(Kind.RECYCLE)
RETURN_THREE = Move(Kind.RETURN_THREE)


def remove(*refs: Ref) -> Move:
    """A king (one ref) or a pair (two refs), in the canonical order: pyramid first, top to bottom.

    The same refs give the same Move object (moves are immutable), so the positions a server keeps
    share their moves instead of holding three objects of their own per move, for Python's
    collector to walk on every full pass (games/positions.py)."""
    return _remove(tuple(sorted(refs, key=Ref.sort_key)))


@lru_cache(maxsize=8192)
def _remove(refs: tuple[Ref, ...]) -> Move:
    return Move(Kind.REMOVE, refs)


def put_back(count: int) -> Move:
    return Move(Kind.PUT_BACK, count=count)


_REF = re.compile(r"^(?:(\d{1,2})\.(\d{1,2})|S|W([1-9]?))$")


def parse_ref(text: str) -> Ref:
    match = _REF.match(text.strip().upper())
    if not match:
        raise NotationError(f"{text!r} is not a card place: write row.col (as 7.1), S or W")
    if match.group(1) is not None:
        row, col = int(match.group(1)), int(match.group(2))
        if row < 1 or col < 1 or col > row:
            raise NotationError(f"{text!r} is not a pyramid place: row n has cards 1 to n")
        return pyramid_ref(row, col)
    if text.strip().upper() == "S":
        return STOCK
    depth = match.group(3)
    return waste_ref(int(depth) if depth else 1)


def parse_move(text: str) -> Move:
    """Read one move; raise NotationError with the reason when it is not one."""
    word = text.strip().upper()
    if not word:
        raise NotationError("an empty move: write D, R, a card place such as 7.1, or a pair such as 7.1+S")
    if word in ("D", "R", "T"):
        return {"D": DRAW, "R": RECYCLE, "T": RETURN_THREE}[word]
    if word.startswith("B"):
        digits = word[1:]
        if not digits.isdigit() or int(digits) < 1:
            raise NotationError(f"{text!r} is not a put-back: write B and how many stock cards go above it, as B3")
        return put_back(int(digits))
    parts = word.split("+")
    if len(parts) > 2:
        raise NotationError(f"{text!r} names {len(parts)} cards: a move removes one king or a pair of two")
    refs = [parse_ref(part) for part in parts]
    if len(refs) == 2 and refs[0] == refs[1]:
        raise NotationError(f"{text!r} names the same card twice")
    return remove(*refs)


def parse_moves(text: str) -> list[Move]:
    """Moves separated by spaces or commas; a move's number in an error is 1-based."""
    moves = []
    for number, word in enumerate(text.replace(",", " ").split(), start=1):
        try:
            moves.append(parse_move(word))
        except NotationError as error:
            raise NotationError(f"move {number}: {error}") from None
    return moves


def format_moves(moves: list[Move] | tuple[Move, ...]) -> str:
    return " ".join(str(move) for move in moves)
