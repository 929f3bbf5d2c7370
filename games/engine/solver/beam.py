"""A beam search for a winning line, run between the depth-first search's runs (docs/solver.md, "The beam").

At each draw it makes every sequence of removals the stop allows, keeps ``width`` of them (half the
fewest pyramid cards left, half at random) and draws or recycles in each.  It may miss a line and
then says nothing; it never proves a deal lost; every line it returns is built with the table's
own moves.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from .position import DRAW_KIND, RECYCLE_KIND, Position, SolverMove
from .relax import buried

if TYPE_CHECKING:
    from .search import WinSearch


class Beam:
    """One winnability search's beam: it shares the search's table, budget and bag relaxation, so
    the answers either one leaves in the relaxation's memory serve the other."""

    def __init__(self, search: WinSearch) -> None:
        self.search = search
        self.table = search.table

    @staticmethod
    def applies(search: WinSearch) -> bool:
        """Draws run freely and nothing looks back at earlier moves: not under the house rules or
        draw-only-when-stuck, whose moves the beam does not make."""
        return not (search.table.house or search.table.stuck_draws)

    def run(self, start: Position, width: int, rng: random.Random) -> list[SolverMove] | None:
        """A winning line from ``start``, or None if the beam met none.  Every position it takes up
        counts as a stop of the search's budget (``OutOfBudget`` when it runs out)."""
        table = self.table
        full = table.full
        budget = self.search.budget
        # every position the beam has met, with the position and move it came from
        parent: dict[Position, tuple[Position, SolverMove] | None] = {start: None}
        frontier = [start]
        while frontier:
            layer = [position for position in frontier if self.alive(position)]
            # every sequence of removals at this stop: the layer grows as it is read
            i = 0
            while i < len(layer):
                position = layer[i]
                i += 1
                budget.spend()
                for move in table.removals(position):
                    child = table.apply(position, move)
                    if child in parent:
                        continue
                    parent[child] = (position, move)
                    if child[0] == full:
                        return _line(parent, child)
                    if self.alive(child):
                        layer.append(child)
            if len(layer) > width:
                layer = self.keep(layer, width, rng)
            frontier = []
            for position in layer:
                if position[1]:
                    step = (DRAW_KIND, 0, 0)
                elif position[4] < table.recycles and (position[2] or position[3]):
                    step = (RECYCLE_KIND, 0, 0)
                else:
                    continue
                child = table.apply(position, step)
                if child not in parent:
                    parent[child] = (position, step)
                    frontier.append(child)
        return None

    def keep(self, layer: list[Position], width: int, rng: random.Random) -> list[Position]:
        """The ``width`` positions the beam goes on with: half of them those with the fewest pyramid
        cards left, then the fewest recycles used (ties drawn at random, so that the beam does not
        favour whichever removals the table lists first), and half drawn at random from the rest.
        Fewest cards first is often wrong early: a line that must keep pyramid cards for the last
        pass ranks far down in the first (docs/solver.md, "The beam")."""
        full = self.table.full
        ranked = [entry[3] for entry in sorted(((full & ~p[0]).bit_count(), p[4], rng.random(), p) for p in layer)]
        best = width // 2
        return ranked[:best] + rng.sample(ranked[best:], width - best)

    def alive(self, position: Position) -> bool:
        """Rules 3 to 5 of the winnability search (docs/solver.md) do not find ``position`` lost: no
        pyramid card is left without a partner, the bag relaxation can clear the pyramid, and in
        the last pass the same holds of the waste cards not buried for good; nor have the runs
        before it refuted ``position`` (between runs the search's table of positions holds only
        refutations: docs/solver.md, "Restarts").  (The search's other cuts and its forced moves
        are left to the depth-first runs.)"""
        search = self.search
        table = self.table
        removed, stock, waste, drawn, recycles = position[:5]
        if search.refuted(position):
            return False
        dead = 0
        if recycles == table.recycles and len(waste) > table.stock_waste_pairs:
            dead = buried(table, removed, waste, lambda w: w in stock or w == drawn)
        # (a card with no partner among all the outside cards has none among those not buried either)
        bag = search.outside_bag(stock + waste[dead:] + (drawn,))
        relaxation = search.relaxation
        return not relaxation.any_dead(removed, bag) and relaxation.clearable(removed, bag)


def _line(parent: dict[Position, tuple[Position, SolverMove] | None], end: Position) -> list[SolverMove]:
    """The moves from the beam's start to ``end``, read back through ``parent``."""
    line: list[SolverMove] = []
    step = parent[end]
    while step is not None:
        position, move = step
        line.append(move)
        step = parent[position]
    line.reverse()
    return line
