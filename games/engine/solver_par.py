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

from .solver_position import DRAW_KIND, RECYCLE_KIND, Position, SolverMove, Table
from .solver_relax import Relaxation, bag_of
from .solver_search import Budget, deep_recursion


class ParSearch:
    def __init__(self, table: Table, budget: Budget, stock_size: int) -> None:
        self.table = table
        self.budget = budget
        self.stock_size = stock_size
        self.visited: dict[tuple[int, tuple[int, ...], int], int] = {}
        self.relaxation = Relaxation(table, budget.check_time)
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
        """The score of ``position`` plus ten for every card and row that could still go.

        A pyramid card with no partner left anywhere it could meet one stays for good, and so does
        every card it holds up; that may leave others without partners, so this runs to a fixed
        point.  If even the bag relaxation cannot clear the pyramid, the apex stays.  Among the
        rest, a card can only go with a partner: within each pair of values (a, b) at most
        2·min(#a, #b) cards go, 2·floor(#a / 2) when a pairs with itself, and kings all go; when
        every pair needs a pyramid card, a class loses at most two cards per pyramid card in it.
        """
        table = self.table
        removed, stock, waste, drawn, _, _ = position
        present = table.full & ~removed
        outside = Counter(stock)
        outside.update(waste)
        if drawn:
            outside[drawn] += 1
        king, pair_sum, values, related, by_value = table.king, table.pair_sum, table.values, table.related, table.by_value
        if position[4] == table.recycles and waste and not table.house:
            # last pass: a waste card with no partner left stays, and buries the cards under it
            partners = {v for v, mask in by_value.items() if mask & present}
            if table.stock_waste_pairs:
                partners.update(stock)
                partners.add(drawn)
            for depth in range(len(waste) - 1, -1, -1):
                v = waste[depth]
                if v == king or pair_sum - v in partners:
                    continue
                outside.subtract(waste[: depth + 1])
                break
        stuck = 0
        if present and not self.relaxation.clearable(removed, self.bag(position)):
            stuck = table.above[0]
        changed = True
        while changed:
            changed = False
            live = present & ~stuck
            rest = live
            while rest:
                low = rest & -rest
                rest ^= low
                i = low.bit_length() - 1
                v = values[i]
                if v == king:
                    continue
                w = pair_sum - v
                if outside[w] or by_value.get(w, 0) & live & ~related[i]:
                    continue
                stuck |= table.above[i]
                changed = True
                break
        live = present & ~stuck
        rows_left = sum(1 for mask in table.row_masks if removed & mask != mask and not mask & stuck)
        pyramid: Counter[int] = Counter()
        for v, mask in by_value.items():
            mask &= live
            if mask:
                pyramid[v] = bin(mask).count("1")
        counts = outside + pyramid
        needs_pyramid = not table.stock_waste_pairs and table.reach == 1
        removable = counts[king]
        for a, count in counts.items():
            b = pair_sum - a
            if a == king or b < a:
                continue
            pairs = count // 2 if a == b else min(count, counts[b])
            if needs_pyramid:
                pairs = min(pairs, pyramid[a] + (pyramid[b] if a != b else 0))
            removable += 2 * pairs
        return score + 10 * (rows_left + removable)

    def bag(self, position: Position) -> int:
        king = self.table.king
        return bag_of([v for v in position[1] + position[2] + (position[3],) if v and v != king])

    def _key(self, position: Position) -> tuple[tuple[int, tuple[int, ...], int], int]:
        """As in the winnability search: (pyramid, outside sequence) and the (recycles, pointer) code.

        A recycle costs ten points, and a stretch from a lower code reaches each position of a
        stretch from a higher one with the same recycles used, so with the same score.
        """
        removed, stock, waste, drawn, recycles, house = position
        if self.table.house:
            return (removed, stock + (-1,) + waste + (-1, drawn), house), recycles
        if drawn:
            return (removed, waste + (drawn,) + stock, 0), (recycles << 9) + (len(waste) + 1 << 1)
        return (removed, waste + stock, 0), (recycles << 9) + (len(waste) << 1) + self.table.drawn_model

    def _search(self, position: Position) -> None:
        table = self.table
        key, code = self._key(position)
        covered = self.visited.get(key)
        if covered is not None and covered <= code:
            return
        self.visited[key] = code
        if position[0] == table.full or table.frozen(position):
            self._reached(position)
            return
        house = table.house
        steps = 0
        while True:
            self.budget.spend()
            score = self._reached(position)
            # later stops of the stretch only lose points to recycles: one bound covers them all
            if self.upper_bound(position, score) <= self.best:
                break
            removals = table.removals(position)
            removals.sort(key=lambda move: -(move[1] >= 0) - (move[2] >= 0))
            for move in removals + table.other_moves(position) if house else removals:
                self.path.append(move)
                self._search(table.apply(position, move))
                self.path.pop()
            if house:
                break
            if position[1]:
                step = (DRAW_KIND, 0, 0)
            elif position[4] < table.recycles and (position[2] or position[3]):
                step = (RECYCLE_KIND, 0, 0)
            else:
                break
            position = table.apply(position, step)
            if covered is not None and self._key(position)[1] >= covered:
                break
            self.path.append(step)
            steps += 1
        if steps:
            del self.path[-steps:]

    def _reached(self, position: Position) -> int:
        score = self.table.score(position, self.stock_size)
        if score > self.best:
            self.best = score
            self.best_line = list(self.path)
        return score
