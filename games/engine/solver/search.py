"""Winnability: a depth-first search for a line that clears the pyramid (docs/solver.md).

The search is plain reachability in a one-player game, so a global table of visited positions is
enough to make it complete and to stop it going round in circles; everything else here only
decides which moves need not be tried, and docs/solver.md argues each such rule.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from . import kernel as solver_kernel
from .apex import FinalCard
from .beam import Beam
from .budget import Budget, OutOfBudget, deep_recursion
from .codes import LOST, TOO_DEEP, WON
from .kernel import Stack
from .position import (
    DRAW_KIND,
    HOUSE_DRAWS_SHIFT,
    HOUSE_LAST_DRAW,
    HOUSE_NO_PAIR,
    HOUSE_RETURNED,
    NO_CARD,
    PUT_BACK_KIND,
    RECYCLE_KIND,
    REMOVE,
    RETURN_KIND,
    STOCK_REF,
    Position,
    SolverMove,
    Table,
)
from .relax import BITS, NIBBLE, Relaxation, SegmentRelaxation, bag_of, buried, buried_alone

if TYPE_CHECKING:
    from .kernels.relax import StackKernel
    from .kernels.search import KernelSearch

#: in a table key, the waste card that can never leave in the last pass, with every card under it
WALL = -2


class _Restart(Exception):
    """One run of the search used up its share of nodes: start again from the top, in another order."""


def lowest_first(move: SolverMove) -> int:
    """The sort key of a removal whose lowest pyramid card lies lowest first (pyramid places count up
    row by row; outside places are negative, so a pair of two outside cards comes last)."""
    return -max(move[1], move[2])


def partner_count(table: Table, removed: int, bag: int, place: int) -> int:
    """How many cards could ever pair with the pyramid card at ``place``, given the bag of the
    outside cards still usable."""
    w = table.pair_sum - table.values[place]
    count = bag >> BITS * w & NIBBLE
    return count + (table.mates[place] & ~removed).bit_count()


def forced_move(
    table: Table, position: Position, bag: int, removals: list[SolverMove], settled: bool = False
) -> SolverMove | None:
    """A removal that some winning line makes now whenever the position can be won at all
    (``settled``: under the house rules, the return-three can no longer happen)."""
    house = table.house
    if table.stuck_draws and position[4] < table.recycles:
        # a recycle may take a card out of play while a removal waits (docs/solver.md, rules 1 and 2)
        return None
    # under the house rules a put-back must follow its draw at once, and the return-three looks back
    # at the first pair: once the return-three is gone and the last move was no draw, neither is near
    loose = not house or settled and not position[5] & HOUSE_LAST_DRAW
    for move in removals:
        a, b = move[1], move[2]
        if b == NO_CARD:
            if loose or a >= 0 and not position[5] & HOUSE_LAST_DRAW:
                return move
        elif loose and (
            a >= 0
            and partner_count(table, position[0], bag, a) == 1
            or b >= 0
            and partner_count(table, position[0], bag, b) == 1
        ):
            if not fellows_at_stake(table, position[0], a, b):
                return move
    return None


def fellows_at_stake(table: Table, removed: int, a: int, b: int) -> bool:
    """Under the house rules, whether removing the pyramid cards among ``a`` and ``b`` early could
    forbid a later put-back: one needs three fellows of the drawn card free in the pyramid."""
    if not table.put_back:
        return False
    present = table.full & ~removed
    by_value, values = table.by_value, table.values
    return any(place >= 0 and (by_value[values[place]] & present).bit_count() >= 3 for place in (a, b))


class Compiled:
    """What a search moves to the kernel once its stack relaxation does (``Stack.moved``): the final
    card's count, and where the rules let it (``searches``), the whole search (``search``,
    ``kernels.search.KernelSearch``).  A callback on this, not on the search: a
    cycle through the search would keep the kernel's memory until the collector ran, which the
    kernel's allocations do not prompt."""

    def __init__(self, table: Table, final: FinalCard | None) -> None:
        self.final = final
        self.table = table
        #: the search itself moves too
        self.searching = solver_kernel.SEARCH and self.searches(table)
        #: the run the search is in (0: the first, whose order is not shuffled)
        self.run = 0
        self.search: KernelSearch | None = None

    @staticmethod
    def searches(table: Table) -> bool:
        """The kernel's search takes these rules: no draw-only-when-stuck, no card held in play, and
        either the stock top plays and pairs with the waste top, or only the waste top plays, with
        or without forty-house's house rules (whose positions it takes once the return-three can no
        longer happen)."""
        if table.stuck_draws or table.drawn_model or table.rules.recycle_needs_removal:
            # (``unlimited``: the kernel's search is not built for its many passes)
            return False
        if table.house:
            return not (table.stock_top or table.stock_waste_pairs)
        return table.reach == 1 and table.stock_top == table.stock_waste_pairs

    def __call__(self, kernel: StackKernel) -> None:
        if self.final is not None:
            self.final.compile()
        if self.searching:
            self.search = self.kernel_search(kernel, self.table, self.final.final if self.final is not None else 0)
            self.search.shuffle(self.run or None)

    @staticmethod
    def kernel_search(kernel: StackKernel, table: Table, final_value: int) -> KernelSearch:
        """The kernel's search for ``table``'s rules, on ``kernel``'s table and memo."""
        from .kernels.search import KernelSearch

        return KernelSearch(
            kernel.compiled,
            final_value,
            table.recycles,
            table.stock_top,
            table.stock_waste_pairs,
            table.rules.stock_size,
            table.house,
            table.put_back,
            WinSearch.HOUSE_STACK_AFTER if table.house else 0,
        )


class WinSearch:
    """One depth-first search over *stretches*: a position together with every position its draws
    and recycles lead to.

    Outside the house rules the cards outside the pyramid keep their order, so a position is that
    sequence, a pointer (how many lie in the waste) and the recycles used.  Drawing only moves the
    pointer on and recycling sends it back to 0 with one recycle fewer, so from one pointer the
    player reaches every later pointer of the same pass and every pointer of the later passes.
    The search therefore walks the pointer along inside one call, tries the removals at each
    stop, and recurses only on removals.  ``visited`` maps (pyramid, sequence) to the lowest
    (recycles, pointer) a stretch started from: a stretch starting at or after it is covered.
    """

    def __init__(self, table: Table, budget: Budget) -> None:
        self.table = table
        self.budget = budget
        self.relaxation = Relaxation(table, budget.check_time)
        self.stack = Stack(table, self.relaxation, timed=budget.deadline is not None)
        self.segment = SegmentRelaxation(table, self.relaxation)
        #: the key of a last-pass position leaves out its buried cards (where stock and waste never
        #: pair: elsewhere few cards are ever buried, and looking for them costs more than it saves)
        self.canonical = not (table.house or table.stock_waste_pairs)
        #: the segment relaxation of the last pass: not under the house rules, draw-only-when-stuck or
        #: a card held in play
        self.segmented = not (table.house or table.stuck_draws or table.drawn_model or table.stock_waste_pairs)
        self.final = FinalCard(table)
        #: the last pass's final card (rule 8): where only the waste top plays, and the apex is no king
        self.final_card = self.segmented and not table.stock_top and bool(self.final.final)
        #: what moves to the kernel with the stack relaxation: the final card's count, and where the
        #: rules let it, the whole search (``compiled.search``)
        self.compiled = Compiled(table, self.final if self.final_card else None)
        self.stack.moved = self.compiled
        #: the stops from which the whole search moves to the kernel, where the rules let it: at once
        #: where the kernel is loaded in the process already
        self.kernel_at = 1 << 62
        if self.compiled.searching:
            self.kernel_at = 0 if solver_kernel.loaded() else solver_kernel.KERNEL_STOPS
        self.visited: dict[tuple[int, tuple[int, ...], int], int] = {}
        #: under ``draw_only_when_stuck``: every stop entered, exactly (no dominance between stops)
        self.seen: set[Position] = set()
        self.stuck = table.stuck_draws
        self.line: list[SolverMove] = []
        self.drawn_model = int(table.drawn_model)
        self.house = table.house
        #: the order the removals of a stop are tried in during this run: None for lowest pyramid card
        #: first, else a shuffle drawn from this generator (docs/solver.md, "Restarts")
        self.shuffle: random.Random | None = None
        #: the node count at which this run gives way to the next one; None for no end
        self.run_end: int | None = None
        #: how many runs gave way to a restart in the last ``run``
        self.runs = 0

    #: nodes of the first run, in the plain order; each later run, in a shuffled order, gets
    #: ``RESTART_GROWTH`` times as many as the one before
    FIRST_RUN_NODES = 20_000
    #: under the house rules the stack relaxation costs more than it saves on the many deals decided
    #: within a few hundred stops: it starts once a search has made this many
    HOUSE_STACK_AFTER = 500
    RESTART_GROWTH = 2
    #: the width of the beam after the first run; it doubles after each run, as the runs' shares do,
    #: up to ``BEAM_MOST_WIDTH`` (its table of positions grows with it)
    BEAM_FIRST_WIDTH = 16
    BEAM_MOST_WIDTH = 2048
    #: stops the kernel's search makes between two looks at the clock, at first
    COMPILED_CHUNK = 4096

    def run(self, start: Position) -> list[SolverMove] | None:
        table = self.table
        removed, stock, waste, drawn = start[:4]
        if removed == table.full:
            return []
        bag = bag_of([v for v in stock + waste + (drawn,) if v and v != table.king])
        if self.relaxation.any_dead(removed, bag) or not self.relaxation.clearable(removed, bag):
            return None
        share = self.FIRST_RUN_NODES
        self.runs = runs = 0
        beam = Beam(self) if Beam.applies(self) else None
        with deep_recursion():
            while True:
                self.line = []
                # the house rules' put-backs can lead back to a position still being searched, so a
                # stretch's "lost" may lean on one further up: there, one run only (waste cards that
                # pair with each other alone lead back nowhere)
                self.run_end = None if self.table.looks_back else self.budget.nodes + share
                found: bool | None
                try:
                    found = self._search(start, bag)
                except _Restart:
                    # every position this run left half-searched was taken out of the tables on the
                    # way up: what they still hold are refutations, true whatever the order
                    found = None
                finally:
                    self.run_end = None
                if found is not None:
                    return list(reversed(self.line)) if found else None
                self.runs = runs = runs + 1
                if beam is not None:
                    # between two runs, a beam for a line (docs/solver.md, "The beam")
                    width = min(self.BEAM_FIRST_WIDTH << runs - 1, self.BEAM_MOST_WIDTH)
                    line = beam.run(start, width, random.Random(runs))
                    if line is not None:
                        return line
                self.shuffle = random.Random(runs)
                self.compiled.run = runs
                if self.compiled.search is not None:
                    self.compiled.search.shuffle(runs)
                share = int(share * self.RESTART_GROWTH)

    def _key(self, position: Position) -> tuple[tuple[int, tuple[int, ...], int], int]:
        removed, stock, waste, drawn, recycles, house = position
        if self.house:
            if self.settled(position):
                # only "was the last move a draw" still matters, and it only adds a put-back
                return (removed, waste + stock, -1), (recycles << 9) + (len(waste) << 1) + (not house & HOUSE_LAST_DRAW)
            # the three first draws may still go back under the stock: every position on its own
            return (removed, stock + (-1,) + waste + (-1, drawn), house), recycles
        if self.canonical and recycles == self.table.recycles:
            waste = self.unburied(position)
        if drawn:
            # a card held in play reaches at least what the same card on the waste top reaches
            return (removed, waste + (drawn,) + stock, 0), (recycles << 9) + (len(waste) + 1 << 1)
        return (removed, waste + stock, 0), (recycles << 9) + (len(waste) << 1) + self.drawn_model

    def refuted(self, position: Position) -> bool:
        """The table holds ``position`` at its code or a lower one: a stretch from there was searched
        to the end (between runs the table holds only such refutations) or is being searched."""
        key, code = self._key(position)
        covered = self.visited.get(key)
        if covered is not None and covered <= code:
            return True
        kernel = self.compiled.search
        return kernel is not None and kernel.refuted(
            position[0], bytes(position[2] + position[1]), len(position[2]), position[4]
        )

    def refute(self, position: Position) -> None:
        """Enter ``position`` in the table as lost (tests)."""
        key, code = self._key(position)
        self.visited[key] = code

    def unburied(self, position: Position) -> tuple[int, ...]:
        """The waste of a last-pass position as far as it still matters: the cards above those that
        never come back into play (``buried``), under a ``WALL`` that stands for those."""
        removed, stock, waste, drawn = position[:4]
        if not waste:
            return waste
        # (``canonical``: stock and waste never pair here)
        dead = buried_alone(self.table, removed, waste)
        return (WALL,) + waste[dead:] if dead else waste

    def _code(self, position: Position) -> int:
        """``_key(position)[1]`` without building the key, for a stop along a stretch."""
        _, _, waste, drawn, recycles, house = position
        if self.house:
            return (recycles << 9) + (len(waste) << 1) + (not house & HOUSE_LAST_DRAW)
        if drawn:
            return (recycles << 9) + (len(waste) + 1 << 1)
        return (recycles << 9) + (len(waste) << 1) + self.drawn_model

    def settled(self, position: Position) -> bool:
        """Under the house rules, the return-three can no longer happen (and no card is held in play)."""
        table, house = self.table, position[5]
        if table.drawn_model:
            return False
        return (
            not table.return_three
            or bool(house & HOUSE_RETURNED)
            or not house & HOUSE_NO_PAIR
            or house >> HOUSE_DRAWS_SHIFT >= 4
        )

    def outside_bag(self, values: tuple[int, ...]) -> int:
        king = self.table.king
        return bag_of([v for v in values if v and v != king])

    def _search(self, position: Position, bag: int) -> bool:
        table = self.table
        if self.budget.nodes >= self.kernel_at:
            self.kernel_at = 1 << 62
            self.stack.move()
        stuck = self.stuck
        covered: int | None = None
        key: tuple[int, tuple[int, ...], int] | None = None
        code = offset = 0
        if stuck:
            if position in self.seen:
                return False
            self.seen.add(position)
            entered = [position]
        else:
            key, code = self._key(position)
            # the stops along the stretch are coded as the stretch's key counts them (buried cards left out)
            if self.canonical and position[4] == table.recycles:
                offset = self._code(position) - code
            covered = self.visited.get(key)
            if covered is not None and covered <= code:
                return False
            self.visited[key] = code
            entered = []
        try:
            if self.compiled.search is not None and (not self.house or self.settled(position)):
                found = self._compiled_walk(position, bag)
                if found is not None:
                    return found
            return self._walk(position, bag, covered, entered, code, offset)
        except (_Restart, OutOfBudget):
            # this stretch was not searched to the end: it refutes nothing, so it leaves no trace
            if key is None:
                self.seen.difference_update(entered)
            elif covered is None:
                del self.visited[key]
            else:
                self.visited[key] = covered
            raise

    def _walk(
        self, position: Position, bag: int, covered: int | None, entered: list[Position], start: int, offset: int
    ) -> bool:
        """The stretch from ``position`` on (``_search`` has just entered it in the tables with the
        code ``start``)."""
        table = self.table
        stuck = self.stuck
        # one position at a time while the house rules still look back at the first draws
        single = self.house and not self.settled(position)
        steps: list[SolverMove] = []
        relaxation = self.relaxation
        first = True
        # the stock's and the waste's values in the last pass, kept up to date as cards are drawn
        stock_bag = waste_bag = -1
        # how many waste cards the last stop of this stretch found buried (-1: none looked at yet)
        last_dead = -1
        # where the last final card found lies in the waste above its buried cards and the stock, and
        # how many cards were buried then (rule 8)
        final_place = final_dead = -1
        # the bag of the waste's buried cards, and how many they were
        buried_bag, buried_dead = 0, 0
        plain = not (self.house or stuck or table.drawn_model)
        # the free cards by value: a stretch never changes its pyramid
        free_by_value = table.free_by_value(position[0])
        budget = self.budget
        # ``budget.spend()`` inline: a stop is the search's unit of work, and the call costs a few per cent
        node_limit = budget.node_limit
        run_end = self.run_end
        deadline = budget.deadline
        while True:
            budget.nodes += 1
            nodes = budget.nodes
            if node_limit is not None and nodes > node_limit:
                raise OutOfBudget
            if deadline is not None and not nodes % Budget.CHECK_EVERY and budget.clock() > deadline:
                raise OutOfBudget
            if run_end is not None and nodes > run_end:
                raise _Restart
            if position[4] == table.recycles:
                # in the last pass the waste only grows: once its buried cards make the pyramid
                # impossible, every later pointer of the pass is impossible too
                removed, stock, waste, drawn = position[:4]
                dead = 0
                if len(waste) > table.stock_waste_pairs and not self.house:
                    if table.stock_waste_pairs:
                        dead = buried(table, removed, waste, lambda w: w in stock or w == drawn)  # noqa: B023 (called at once)
                    else:
                        dead = buried_alone(table, removed, waste)
                    if dead and dead != last_dead:
                        usable = self.outside_bag(stock + waste[dead:] + (drawn,))
                        if usable != bag:
                            bag = usable
                            if relaxation.any_dead(removed, bag) or not relaxation.clearable(removed, bag):
                                return False
                if self.final_card and (dead != final_dead or final_place < len(waste) - dead):
                    # a count, cheaper than the relaxations below; a final card found in the stock
                    # stays one while it is there and no more cards are buried
                    final_place = self.final.last_pass(removed, waste[dead:], stock)
                    if final_place < 0:
                        return False
                    final_dead = dead
                if self.segmented and dead != last_dead:
                    # (before the stack relaxation, which costs more) a draw that buries nothing new
                    # moves a card within the first segment: the same segments
                    if not self.segment.clearable(removed, self.segment.segments(removed, waste[dead:], stock)):
                        return False
                if position[2] and not single and (not self.house or self.budget.nodes > self.HOUSE_STACK_AFTER):
                    if stock_bag < 0 or table.drawn_model:
                        stock_bag = self.outside_bag(position[1] + (position[3],))
                        waste_bag = self.outside_bag(position[2])
                    if self.stack.unbury:
                        # the buried cards just found, left out here as the relaxation would leave them
                        if dead != buried_dead:
                            buried_bag, buried_dead = self.outside_bag(waste[:dead]), dead
                        if not self.stack.clearable(
                            removed, waste[dead:], stock_bag, waste_bag - buried_bag, unburied=True
                        ):
                            return False
                    elif not self.stack_clearable(position, stock_bag, waste_bag):
                        return False
                last_dead = dead
            # a removal of pyramid cards alone was already tried at the first stop, which covers this one
            if first or single:
                removals = table.removals(position)
            elif self.house:
                # a pair of two waste cards below the tops lay one place higher at the stop before,
                # whose child covers this one's (docs/solver.md)
                removals = [
                    move
                    for move in table.removals(position, pyramid_pairs=False)
                    if -3 < move[1] < 0 or -3 < move[2] < 0
                ]
            else:
                # just after a draw, the removals the stop before already made are left out
                # (docs/solver.md, "No stop twice")
                removals = table.outside_removals(position, steps[-1][0] == DRAW_KIND, free_by_value)
            first = False
            forced = forced_move(table, position, bag, removals, bool(self.house) and not single) if removals else None
            if forced is not None:
                moves = [forced]
            else:
                # the lowest pyramid card first (pyramid places count up row by row; outside places are
                # negative, so a pair of two outside cards comes last): it opens the most cards above
                if len(removals) < 2:
                    pass
                elif self.shuffle is None:
                    removals.sort(key=lowest_first)
                else:
                    self.shuffle.shuffle(removals)
                moves = removals
                if single:
                    others = table.other_moves(position)
                    # the return-three first: it puts back three cards the pairs below would strand
                    moves = [move for move in others if move[0] == RETURN_KIND] + removals
                    moves += [move for move in others if move[0] != RETURN_KIND]
                elif self.house:
                    moves = removals + [move for move in table.other_moves(position) if move[0] == PUT_BACK_KIND]
            for move in moves:
                if self._try(position, bag, move):
                    self.line.extend(reversed(steps))
                    return True
            if forced is not None or single:
                return False
            # on to the next pointer: draw, or recycle once the stock is out
            if position[1]:
                if stuck and removals:
                    # a king or pair can go here, so no draw: only the removals just tried
                    return False
                step = (DRAW_KIND, 0, 0)
            elif position[4] < table.recycles and (position[2] or position[3]):
                step = (RECYCLE_KIND, 0, 0)
            else:
                return False
            if stock_bag >= 0 and step[0] == DRAW_KIND and position[1][0] != table.king:
                stock_bag -= 1 << BITS * position[1][0]
                waste_bag += 1 << BITS * position[1][0]
            if plain and step[0] == DRAW_KIND:
                # ``table.apply`` of a draw, where no card is held in play and no house rule looks back
                stock = position[1]
                position = (position[0], stock[1:], position[2] + stock[:1], 0, position[4], 0)
                code = (position[4] << 9) + (len(position[2]) << 1) - offset
            else:
                position = table.apply(position, step)
                code = 0 if stuck else self._code(position) - offset
            if stuck:
                if position in self.seen:
                    return False
                self.seen.add(position)
                entered.append(position)
            else:
                if covered is not None and code >= covered:
                    return False
                if code >> 9 > start >> 9 and code & 511 >= start & 511:
                    # the same stop of an earlier pass of this stretch tried every move there is here
                    return False
            steps.append(step)

    def _compiled_walk(self, position: Position, bag: int) -> bool | None:
        """``_walk`` of ``position``, and the whole search under it, in the kernel
        (``kernels.search.KernelSearch``): the same stops, tests and moves, in the same order in
        a run that does not shuffle.  The kernel cannot read the clock, so a search with a time limit
        gives it ``COMPILED_CHUNK`` stops at a time (more each time), and looks at the clock in
        between.  None if the kernel has too few frames for it (it is given enough for the longest
        line: never), and the stretch is searched here."""
        kernel = self.compiled.search
        assert kernel is not None
        budget = self.budget
        node_limit, run_end, deadline = budget.node_limit, self.run_end, budget.deadline
        outside = bytes(position[2] + position[1])
        chunk = self.COMPILED_CHUNK
        while True:
            limit = chunk if deadline is not None else 1 << 62
            for end in (node_limit, run_end):
                if end is not None:
                    limit = min(limit, end - budget.nodes)
            answer, stops, line = kernel.search(
                position[0],
                outside,
                len(position[2]),
                position[4],
                bag,
                limit,
                bool(position[5] & HOUSE_LAST_DRAW),
                budget.nodes,
            )
            budget.nodes += stops
            if answer == WON:
                self.line.extend(reversed(line))
                return True
            if answer == LOST:
                return False
            if answer == TOO_DEEP:
                return None
            if node_limit is not None and budget.nodes > node_limit:
                raise OutOfBudget
            if deadline is not None and budget.clock() > deadline:
                raise OutOfBudget
            if run_end is not None and budget.nodes > run_end:
                raise _Restart
            # the stretches it searched to the end stay in its memo: the next call starts further on
            chunk *= 2

    def stack_clearable(self, position: Position, stock_bag: int, waste_bag: int) -> bool:
        """The stack relaxation of a last-pass position (``stock_bag``, ``waste_bag``: its stock's
        and drawn card's values, its waste's, kings left out)."""
        waste = position[2]
        if self.house and self.table.put_back and position[5] & HOUSE_LAST_DRAW:
            # the card just drawn may still go back into the stock: it counts as a stock card
            top = waste[-1]
            if top != self.table.king:
                stock_bag += 1 << BITS * top
                waste_bag -= 1 << BITS * top
            waste = waste[:-1]
        return self.stack.clearable(position[0], waste, stock_bag, waste_bag)

    def _try(self, position: Position, bag: int, move: SolverMove) -> bool:
        table = self.table
        child = table.apply(position, move)
        if move[0] != REMOVE:
            if self._search(child, bag):
                self.line.append(move)
                return True
            return False
        if child[0] == table.full:
            self.line.append(move)
            return True
        a, b = move[1], move[2]
        if b != NO_CARD:
            relaxation = self.relaxation
            v = table.values[a] if a >= 0 else card_at(position, a, table)
            w = table.pair_sum - v
            if a < 0:
                bag -= 1 << BITS * v
            if b < 0:
                bag -= 1 << BITS * w
            removed = child[0]
            # (``dead`` answers at once when the bag holds a partner: asked only when it does not)
            if (
                not bag >> BITS * w & NIBBLE
                and relaxation.dead(removed, bag, v)
                or not bag >> BITS * v & NIBBLE
                and relaxation.dead(removed, bag, w)
            ):
                return False
            if not relaxation.clearable(removed, bag):
                return False
        if self._search(child, bag):
            self.line.append(move)
            return True
        return False


def card_at(position: Position, place: int, table: Table) -> int:
    """The value of the outside card at ``place`` (the stock card or a waste depth)."""
    if place == STOCK_REF:
        return position[3] if table.drawn_model else position[1][0]
    return position[2][place + 1]


def outside_after(position: Position, move: SolverMove, table: Table, kings: int, bag: int) -> tuple[int, int]:
    """The kings and the bag of the other values among ``position``'s outside cards, ``kings`` and
    ``bag``, once the removal ``move`` has taken its own."""
    for place in move[1:]:
        if place < 0 and place != NO_CARD:
            v = card_at(position, place, table)
            if v == table.king:
                kings -= 1
            else:
                bag -= 1 << BITS * v
    return kings, bag
