"""Par: the highest score any legal play of a deal reaches (docs/solver.md).

The engine's score is a function of the position alone: ten points for every card gone (a pair
is two cards, a king one), ten for every emptied row, minus ten for every recycle.  So the par is
the largest score over the positions reachable from the start, which makes it a reachability
search again: a branch-and-bound depth-first search that skips a position when even its most
generous upper bound cannot beat the best score already reached.

Unlike the winnability search, nothing here may discard a position for being lost: a lost game
still scores, and the game ends exactly where the engine ends it (cleared, frozen, no move).
"""

from __future__ import annotations

from collections import Counter

from .solver_position import Position, SolverMove, Table
from .solver_search import Budget, deep_recursion


class ParSearch:
    def __init__(self, table: Table, budget: Budget, stock_size: int) -> None:
        self.table = table
        self.budget = budget
        self.stock_size = stock_size
        self.visited: dict[tuple[int, tuple[int, ...], tuple[int, ...], int, int], int] = {}
        self.best = -(10**9)
        self.best_line: list[SolverMove] = []
        self.path: list[SolverMove] = []
        #: once every row is empty, the cards outside the pyramid no longer score: the game is won
        self.rows = len(table.row_masks)

    def run(self, start: Position, floor: int | None = None, floor_line: list[SolverMove] | None = None) -> None:
        """Search from ``start``; ``floor`` is a score some known line (``floor_line``) already reaches."""
        self.best = self.table.score(start, self.stock_size)
        self.best_line = []
        if floor is not None and floor > self.best:
            self.best, self.best_line = floor, list(floor_line or [])
        with deep_recursion():
            self._search(start)

    def upper_bound(self, position: Position, score: int) -> int:
        """The score of ``position`` plus ten for every card and row that could still go."""
        table = self.table
        removed, stock, waste, drawn, _, _ = position
        present = table.full & ~removed
        pyramid_left = bin(present).count("1")
        rows_left = sum(1 for mask in table.row_masks if removed & mask != mask)
        outside = Counter(stock)
        outside.update(waste)
        if drawn:
            outside[drawn] += 1
        pyramid = Counter(table.values[i] for i in range(table.size) if present >> i & 1)
        king, pair_sum = table.king, table.pair_sum
        outside_removable = 0
        for v, count in outside.items():
            if v == king:
                outside_removable += count
            elif outside[pair_sum - v] - (pair_sum - v == v) > 0 or pyramid[pair_sum - v]:
                outside_removable += count
        if not table.stock_waste_pairs and table.reach == 1:
            kings = outside[king]
            outside_removable = kings + min(outside_removable - kings, pyramid_left)
        return score + 10 * (pyramid_left + rows_left + outside_removable)

    def _search(self, position: Position) -> None:
        table = self.table
        removed, stock, waste, drawn, recycles, house = position
        key = (removed, stock, waste, drawn, house)
        seen = self.visited.get(key)
        if seen is not None and seen <= recycles:
            return
        self.visited[key] = recycles
        self.budget.spend()
        score = table.score(position, self.stock_size)
        if score > self.best:
            self.best = score
            self.best_line = list(self.path)
        if removed == table.full or table.frozen(position):
            return
        if self.upper_bound(position, score) <= self.best:
            return
        removals = table.removals(position)
        removals.sort(key=lambda move: -(move[1] >= 0) - (move[2] >= 0))
        for move in removals + table.other_moves(position):
            self.path.append(move)
            self._search(table.apply(position, move))
            self.path.pop()
