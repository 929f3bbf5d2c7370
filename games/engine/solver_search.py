"""Winnability: a depth-first search for a line that clears the pyramid (docs/solver.md).

The search is plain reachability in a one-player game, so a global table of visited positions is
enough to make it complete and to stop it going round in circles; everything else here only
decides which moves need not be tried, and docs/solver.md argues each such rule.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

from .solver_position import (
    DRAW_KIND,
    HOUSE_LAST_DRAW,
    NO_CARD,
    RECYCLE_KIND,
    REMOVE,
    Position,
    SolverMove,
    Table,
)


class OutOfBudget(Exception):
    """The node or time budget ran out before the search could decide."""


class Budget:
    """A node and wall-clock allowance shared by the searches of one request."""

    CHECK_EVERY = 1024

    def __init__(self, time_limit: float | None, node_limit: int | None) -> None:
        self.started = time.perf_counter()
        self.deadline = None if time_limit is None else self.started + time_limit
        self.node_limit = node_limit
        self.nodes = 0

    def spend(self) -> None:
        self.nodes += 1
        if self.node_limit is not None and self.nodes > self.node_limit:
            raise OutOfBudget
        if self.deadline is not None and self.nodes % self.CHECK_EVERY == 0 and time.perf_counter() > self.deadline:
            raise OutOfBudget

    @property
    def seconds(self) -> float:
        return time.perf_counter() - self.started


@contextmanager
def deep_recursion(limit: int = 20_000) -> Iterator[None]:
    """A line is a few hundred moves deep at most; the default limit of 1,000 frames is too tight."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, limit))
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def dead_card(table: Table, position: Position) -> bool:
    """Some pyramid card has no partner left anywhere it could ever meet (not a king)."""
    removed, stock, waste, drawn, _, _ = position
    outside = set(stock)
    outside.update(waste)
    outside.add(drawn)
    present = table.full & ~removed
    values, related, by_value, king, pair_sum = table.values, table.related, table.by_value, table.king, table.pair_sum
    rest = present
    while rest:
        low = rest & -rest
        i = low.bit_length() - 1
        rest ^= low
        v = values[i]
        if v == king:
            continue
        w = pair_sum - v
        if w in outside or by_value.get(w, 0) & present & ~related[i]:
            continue
        return True
    return False


def partner_count(table: Table, position: Position, place: int) -> int:
    """How many cards could ever pair with the pyramid card at ``place``."""
    removed, stock, waste, drawn, _, _ = position
    w = table.pair_sum - table.values[place]
    count = stock.count(w) + waste.count(w) + (drawn == w)
    present = table.full & ~removed
    return count + bin(table.by_value.get(w, 0) & present & ~table.related[place]).count("1")


def forced_move(table: Table, position: Position, removals: list[SolverMove]) -> SolverMove | None:
    """A removal that some winning line makes now whenever the position can be won at all."""
    house = table.house
    for move in removals:
        a, b = move[1], move[2]
        if b == NO_CARD:
            if not house:
                return move
            if a >= 0 and not position[5] & HOUSE_LAST_DRAW:
                return move
        elif not house:
            if a >= 0 and partner_count(table, position, a) == 1:
                return move
            if b >= 0 and partner_count(table, position, b) == 1:
                return move
    return None


def ordered_moves(table: Table, position: Position) -> list[SolverMove]:
    removals = table.removals(position)
    forced = forced_move(table, position, removals)
    if forced is not None:
        return [forced]
    # pairs of two pyramid cards first: they open the pyramid without spending a stock card
    removals.sort(key=lambda move: -(move[1] >= 0) - (move[2] >= 0))
    return removals + table.other_moves(position)


class WinSearch:
    """One depth-first search; ``visited`` maps a position without its recycle count to the fewest used."""

    def __init__(self, table: Table, budget: Budget) -> None:
        self.table = table
        self.budget = budget
        self.visited: dict[tuple[int, tuple[int, ...], tuple[int, ...], int, int], int] = {}
        self.line: list[SolverMove] = []

    def run(self, start: Position) -> list[SolverMove] | None:
        with deep_recursion():
            if self._search(start):
                return list(reversed(self.line))
        return None

    def _search(self, position: Position) -> bool:
        table = self.table
        removed, stock, waste, drawn, recycles, house = position
        if removed == table.full:
            return True
        key = (removed, stock, waste, drawn, house)
        seen = self.visited.get(key)
        if seen is not None and seen <= recycles:
            return False
        self.visited[key] = recycles
        self.budget.spend()
        if dead_card(table, position):
            return False
        for move in ordered_moves(table, position):
            if self._search(table.apply(position, move)):
                self.line.append(move)
                return True
        return False


__all__ = ["DRAW_KIND", "RECYCLE_KIND", "Budget", "OutOfBudget", "WinSearch", "deep_recursion"]
