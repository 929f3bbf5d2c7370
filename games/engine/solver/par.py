"""Par: the highest score any legal play of a deal reaches (docs/solver.md, *Par*).

A branch-and-bound depth-first search over the positions reachable from the start; unlike the
winnability search it never discards a position for being lost.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .budget import Budget, OutOfBudget, deep_recursion
from .kernel import par_kernel
from .parbound import Perfect, RelaxedMax, StackMax
from .position import (
    DRAW_KIND,
    KING_POINTS,
    NO_CARD,
    PAIR_POINTS,
    RECYCLE_KIND,
    REMOVE,
    Position,
    SolverMove,
    Table,
)
from .relax import BITS, NIBBLE, kings_and_bag
from .search import outside_after

if TYPE_CHECKING:
    from .kernels.par import KernelPerfect


def outside_first(move: SolverMove) -> int:
    """A sort key: removals that take outside cards first, pairs of two of them before one."""
    return -(move[1] < 0) - (move[2] < 0)


class _Capped(Exception):
    """The first, capped search has used its steps."""


class _Found(Exception):
    """A line reaches the most any line can score."""


class ParSearch:
    #: steps of the first search, which only looks for a good floor (on a deal that can be won)
    FIRST_STEPS = 3000
    cap: int | None = None
    #: a score no line can beat: reaching it ends the search
    enough = 10**9

    def __init__(self, table: Table, budget: Budget, stock_size: int, *, winnable: bool = True) -> None:
        """``winnable=False`` says the start position is known not to be winnable: then no position
        the search reaches is, and the bounds count only lines that leave the pyramid standing."""
        self.table = table
        self.budget = budget
        self.stock_size = stock_size
        self.visited: dict[tuple[int, tuple[int, ...], int], int] = {}
        #: under ``draw_only_when_stuck``: every stop entered, exactly (no dominance between stops)
        self.seen: set[Position] = set()
        self.stuck = table.stuck_draws
        outside_pairs = table.stock_waste_pairs or table.reach > 1
        self.relaxed = RelaxedMax(table, outside_pairs, budget.check_time, clears=winnable)
        self.stack = StackMax(table, self.relaxed)
        #: where a line must bring every unit still out: can it? (not under the house rules or draw-only-when-stuck)
        #: (not without the row bonus either: its units count an emptied row as ten points)
        self.perfect = (
            None if table.house or self.stuck or not table.row_points else self._clearing(self.relaxed, self.stack)
        )
        self.winnable = winnable
        #: kings at the stock or waste top go at once (``outside_king``)
        self.kings_first = not (table.house or self.stuck)
        #: on a deal that can be won, the same question for lines that leave the apex alone (built when first asked)
        self.apex: Perfect | KernelPerfect | None = None
        #: the values a pyramid still holds, by pyramid
        self.pyramid_values: dict[int, frozenset[int]] = {}
        self.best = -(10**9)
        self.best_line: list[SolverMove] = []
        #: the best score a line met so far really reaches (``best`` may be a target's assumed floor)
        self.known = -(10**9)
        self.known_line: list[SolverMove] = []
        self.path: list[SolverMove] = []
        #: the last pass's "buried waste" argument needs the waste to be a plain stack
        self.stack_waste = not table.house

    def run(self, start: Position, floor: int | None = None, floor_line: list[SolverMove] | None = None) -> None:
        """The par from ``start``; ``floor`` is a score some known line (``floor_line``) already reaches.

        A search told that some score is already reached prunes far harder than one that has to
        find good lines first.  So on a deal that can be won, a short search with a step cap gives
        a first floor; then, from the bound of the start downwards, each try assumes the par is the
        target ``T`` and searches for a line above ``T - 10``.  A try that finds none proves the
        par is below ``T``; so the first try that finds one has found the par and stops there.
        Once the target falls to the best score already reached, that score is the par.

        On a deal that cannot be won, the bound of the start stands further above the par, and
        stepping down from it costs more searches: there the first search has no cap, and raising
        the score to beat with each better line it meets, it finds the par alone (docs/solver.md,
        "Targets").
        """
        table = self.table
        self.best = table.score(start, self.stock_size)
        self.best_line = []
        if floor is not None and floor > self.best:
            self.best, self.best_line = floor, list(floor_line or [])
        self.known, self.known_line = self.best, self.best_line
        if table.ends(start):
            return
        with deep_recursion():
            score = table.score(start, self.stock_size)
            target = score + 10 * self.start_units(start)
            if self.best >= target:
                return
            self.cap = self.budget.nodes + self.FIRST_STEPS if self.winnable else None
            self.enough = target
            try:
                self._search(start, score)
            except _Capped:
                pass
            except _Found:
                return
            else:
                # the first search ended within its steps (or had none): it searched everything, its
                # best is the par
                return
            finally:
                self.cap = None
            # a line met by a try that finds nothing above its target's floor may still reach that floor:
            # the try's proof then makes it the par (``known``, kept by ``_reached``)
            while target > self.known:
                self.visited = {}
                self.seen = set()
                self.path = []
                self.best, self.best_line = target - 10, []
                # nothing scores above ``target`` (the try before proved it): a line reaching it is the par
                self.enough = target
                try:
                    self._search(start, score)
                except _Found:
                    return
                except OutOfBudget:
                    if self.best <= target - 10:
                        # no line above the target's floor yet: the floor itself was only assumed
                        self.best, self.best_line = self.known, self.known_line
                    raise
                if self.best > target - 10:
                    return
                target -= 10
            self.best, self.best_line = self.known, self.known_line

    def _apex(self) -> Perfect | KernelPerfect:
        if self.apex is None:
            relaxed = RelaxedMax(self.table, self.relaxed.outside_pairs, self.budget.check_time, clears=False)
            self.apex = self._clearing(relaxed, StackMax(self.table, relaxed))
        return self.apex

    def _clearing(self, relaxed: RelaxedMax, stack: StackMax) -> Perfect | KernelPerfect:
        """The clearing question: compiled where it may be (``kernel.par_kernel``), with memos
        of its own; else pure Python, sharing the search's bounds."""
        python = Perfect(self.table, relaxed, stack, self.budget.spend)
        if not par_kernel(self.table, timed=self.budget.deadline is not None):
            return python
        from .kernels.par import KernelPerfect

        return KernelPerfect(python, self.budget)

    def start_units(self, position: Position) -> int:
        """At most how many units any line from ``position`` still brings (the bound ``pruned`` uses)."""
        removed = position[0]
        general = self.units(removed, position[1] + position[2] + (position[3],), -1)
        if position[4] < self.table.recycles and self.stack_waste:
            usable = self.buried(position, kings_and_bag(position[1] + (position[3],), self.table.king))
            last = general if usable is None else self.units_of(removed, *usable, -1)
            return max(general - 1, min(general, last))
        return general

    # ------------------------------------------------------------------ bounds

    def units(self, removed: int, outside: tuple[int, ...], threshold: int) -> int:
        """At most how many units (cards and rows, ten points each) can still come, with ``outside``
        the values of the outside cards still usable.  Past ``threshold`` the exact figure does not
        matter: the quick ceiling is returned when it is no more than ``threshold``."""
        return self.units_of(removed, *kings_and_bag(outside, self.table.king), threshold)

    def units_of(self, removed: int, kings: int, bag: int, threshold: int) -> int:
        """``units`` with the outside values given as their kings and the bag of the others."""
        relaxed = self.relaxed
        known = relaxed.memo.get((removed, bag))
        if known is not None:
            return self.no_rows(kings + known, removed, kings, bag)
        quick = kings + relaxed.ceiling(removed, bag)
        if quick <= threshold:
            return quick
        return self.no_rows(kings + relaxed.value(removed, bag), removed, kings, bag)

    def no_rows(self, units: int, removed: int, kings: int, bag: int) -> int:
        """``units`` counts an emptied row as a unit; where rows score nothing (``Rules.row_bonus``)
        no line brings more units than cards are left: the pyramid's and the usable outside ones."""
        if self.table.row_points:
            return units
        cards = (self.table.full & ~removed).bit_count() + kings
        while bag:
            cards += bag & NIBBLE
            bag >>= BITS
        return min(units, cards)

    def buried(self, position: Position, stock_bag: tuple[int, int]) -> tuple[int, int] | None:
        """The outside values still usable if no recycle is made (their kings and the bag of the
        others), or None when that is all of them: a waste card with no partner left (no pyramid card
        of its partner value, nor a stock or drawn card where those pair with the waste) never leaves,
        and every card under it stays.  ``stock_bag``: the stock's and drawn card's kings and bag."""
        removed, stock, waste, drawn, _, _ = position
        table = self.table
        if not waste or not self.stack_waste:
            return None
        partners = self.pyramid_values.get(removed)
        if partners is None:
            present = table.full & ~removed
            partners = frozenset(v for v, mask in table.by_value.items() if mask & present)
            self.pyramid_values[removed] = partners
        pairs = table.stock_waste_pairs
        king, pair_sum = table.king, table.pair_sum
        kings, bag = stock_bag
        for depth in range(len(waste) - 1, -1, -1):
            v = waste[depth]
            if v == king:
                kings += 1
                continue
            w = pair_sum - v
            if w in partners or pairs and (w in stock or w == drawn):
                bag += 1 << BITS * v
                continue
            return kings, bag
        return None

    def pruned(
        self, position: Position, score: int, general: int, outside: tuple[int, int], waste_bag: tuple[int, int]
    ) -> bool:
        """Can no line from ``position`` beat the best score?  ``general`` bounds the units of any line;
        ``outside`` and ``waste_bag`` are the kings and the bag of the other values of all the outside
        cards and of the waste's.

        A line that makes no further recycle keeps the waste a stack (``buried``); a line that makes
        one or more loses ten points for each, so it scores at most ``general`` units less one.
        """
        need = (self.best - score) // 10  # a line must bring more than this many units
        perfect = self.perfect
        if perfect is not None and general - need <= 3:
            # a line beating the best loses at most ``loss`` of the units still out
            loss = perfect.units(position) - need - 1
            if loss <= 1 or loss <= 3 and self.winnable:
                # with one unit to lose, it clears the pyramid (or, if it cannot be won, leaves the
                # apex alone); with two or three, it clears the pyramid, or leaves the apex alone (its
                # card and row: two units) and loses at most one unit more
                asked = [(perfect, loss)] if loss <= 1 else [(perfect, loss), (self._apex(), loss - 2)]
                for search, allowed in asked:
                    if search.possible(position, allowed):
                        # the line it found beats the best: take it at once
                        self._take(position, score, search.line)
                        return False
                return True
        if position[4] < self.table.recycles and general - 1 > need:
            return False
        if not self.stack_waste:
            # under the house rules waste cards pair below the top and go back into the stock without
            # a recycle: the waste is no stack, whatever recycles are left
            return general <= need
        removed, _, waste, _, _, _ = position
        if not waste:
            return False
        # the stock's and the drawn card's: every outside card not in the waste
        kings, bag = outside[0] - waste_bag[0], outside[1] - waste_bag[1]
        usable = self.buried(position, (kings, bag))
        if usable is not None and self.units_of(removed, *usable, need) <= need:
            return True
        return kings + self.stack.value(removed, waste, bag, need + 1 - kings, waste_bag) <= need

    # ------------------------------------------------------------------ search

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

    def _search(self, position: Position, score: int, outside: tuple[int, int] | None = None) -> None:
        """(``outside``: the kings among the outside cards and the bag of the others, if known.)"""
        table = self.table
        stuck = self.stuck
        covered: int | None = None
        start = 0
        if stuck:
            if position in self.seen:
                return
            self.seen.add(position)
        else:
            key, code = self._key(position)
            start = code
            covered = self.visited.get(key)
            if covered is not None and covered <= code:
                return
            self.visited[key] = code
        if table.ends(position):
            self._reached(score)
            return
        house = table.house
        removed = position[0]
        # every stop of the stretch has the same pyramid and the same outside cards
        king_value = table.king
        if outside is None:
            outside = kings_and_bag(position[1] + position[2] + (position[3],), king_value)
        kings, bag = outside
        # the waste's kings and bag, kept up to date along the stretch (None: to be counted again)
        waste_bag: tuple[int, int] | None = None
        plain = not (house or self.stuck or table.drawn_model)
        row_of = self.relaxed.row_of
        row_points = table.row_points
        general = -1
        steps = 0
        first = True
        while True:
            self.budget.spend()
            if self.cap is not None and self.budget.nodes > self.cap:
                raise _Capped
            if first:
                # later stops only draw or recycle: their score is never higher
                self._reached(score)
            need = (self.best - score) // 10
            if general < 0:
                general = self.units_of(removed, *outside, need)
            if general <= need:
                break
            if waste_bag is None:
                waste_bag = kings_and_bag(position[2], king_value)
            if self.pruned(position, score, general, outside, waste_bag):
                break
            # a removal of pyramid cards alone was tried at the first stop: its child there covers this one
            if first or house:
                removals = table.removals(position)
            else:
                # just after a draw, the removals the stop before already made are left out
                removals = table.outside_removals(position, just_drawn=self.path[-1][0] == DRAW_KIND)
            first = False
            king = self.outside_king(removals)
            if king is not None:
                # a king at the stock or waste top goes at once: that covers every line from this
                # stop, the later stops of the stretch included (docs/solver.md)
                removals = [king]
            else:
                removals.sort(key=outside_first)
            for move in removals + table.other_moves(position) if house else removals:
                self.path.append(move)
                if move[0] == REMOVE:
                    # ``table.gain`` of a removal: a row can only empty where a card of it went
                    a, b = move[1], move[2]
                    after = removed
                    gain = KING_POINTS
                    if b != NO_CARD:
                        gain = PAIR_POINTS
                        if b >= 0:
                            after |= 1 << b
                    if a >= 0:
                        after |= 1 << a
                        mask = row_of[a]
                        if after & mask == mask:
                            gain += row_points
                    if b >= 0:
                        other = row_of[b]
                        if after & other == other and (a < 0 or other != row_of[a]):
                            gain += row_points
                    # the child's outside cards are these less the ones the move takes
                    self._search(
                        table.apply(position, move), score + gain, outside_after(position, move, table, kings, bag)
                    )
                else:
                    self._search(table.apply(position, move), score + table.gain(position, move))
                self.path.pop()
            if house or king is not None:
                break
            if position[1]:
                if stuck and removals:
                    # a king or pair can go here, so no draw: only the removals just tried
                    break
                step = (DRAW_KIND, 0, 0)
            elif position[4] < table.recycles and (position[2] or position[3]):
                step = (RECYCLE_KIND, 0, 0)
            else:
                break
            if step[0] == RECYCLE_KIND:
                score -= 10
                waste_bag = (0, 0)
            elif plain and waste_bag is not None:
                # the stock's top card goes onto the waste
                v = position[1][0]
                waste_bag = (
                    (waste_bag[0] + 1, waste_bag[1])
                    if v == king_value
                    else (waste_bag[0], waste_bag[1] + (1 << BITS * v))
                )
            else:
                waste_bag = None
            if plain and step[0] == DRAW_KIND:
                # ``table.apply`` of a draw where no card is held in play and no house rule looks back
                top = position[1]
                position = (removed, top[1:], position[2] + top[:1], 0, position[4], 0)
                code = (position[4] << 9) + (len(position[2]) << 1)  # ``_key``'s code: nothing drawn
            else:
                position = table.apply(position, step)
                code = -1 if stuck else self._key(position)[1]
            if stuck:
                if position in self.seen:
                    break
                self.seen.add(position)
            else:
                if covered is not None and code >= covered:
                    break
                if code >> 9 > start >> 9 and code & 511 >= start & 511:
                    # the same stop of an earlier pass of this stretch made every move there is here, with
                    # a recycle fewer made: its children cover these
                    break
            self.path.append(step)
            steps += 1
        if steps:
            del self.path[-steps:]

    def outside_king(self, removals: list[SolverMove]) -> SolverMove | None:
        """The removal of a king at the stock or waste top, except under the house rules and
        draw-only-when-stuck."""
        if not self.kings_first:
            return None
        for move in removals:
            if move[2] == NO_CARD and move[1] < 0:
                return move
        return None

    def _take(self, position: Position, score: int, line: list[SolverMove]) -> None:
        """A line from ``position`` (reached by ``path`` with ``score``) found by an exact search."""
        table = self.table
        for move in line:
            score += table.gain(position, move)
            position = table.apply(position, move)
        self._reached(score, line)

    def _reached(self, score: int, tail: list[SolverMove] | None = None) -> None:
        """A line reaching ``score``: ``path``, then ``tail`` if given."""
        if score > self.known:
            self.known = score
            self.known_line = self.path + tail if tail else list(self.path)
            if score > self.best:
                self.best, self.best_line = score, self.known_line
                if score >= self.enough:
                    raise _Found
