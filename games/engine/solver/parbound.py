"""Upper bounds for the par search: how many points could a position still bring, at most?

The bag relaxation of ``relax`` turned into a maximisation (``RelaxedMax``), and the same
bound made sharper on the last pass, where the stock's order is known (``StackMax``).  Each is an
upper bound because every real line is a line of the relaxed game, scored the same way.
"""

from __future__ import annotations

from collections.abc import Callable

from .position import DRAW_KIND, NO_CARD, RECYCLE_KIND, Position, SolverMove, Table
from .relax import BITS, NIBBLE, _GaveUp, kings_and_bag
from .search import outside_after

#: ``RelaxedMax.moves``: the move taking the first free king, if any, and each free card's moves
Moves = tuple[tuple[int, int] | None, tuple[tuple[int, tuple[int, int] | None, tuple[tuple[int, int], ...]], ...]]

DRAW: SolverMove = (DRAW_KIND, 0, 0)
RECYCLE: SolverMove = (RECYCLE_KIND, 0, 0)


class RelaxedMax:
    """The bag relaxation as a maximisation: how many points could still come, at most?

    The same relaxed game as ``Relaxation`` (the pyramid exactly, the outside cards an unordered
    bag of values, any of them pairing with any free pyramid card at any time), scored: one unit
    for every card that leaves and for every row emptied.  Where two outside cards may pair
    (``outside_pairs``), the bag's own cards also pair among themselves, any two of matching values.
    Kings of the bag are left out (the caller counts them: each can leave on its own).  The
    relaxed game has no end but the empty pyramid, so every real line is a relaxed line that
    removes the same cards: its value bounds every real score from the position from above.
    Answers are remembered by (pyramid, bag) for the whole search.
    """

    def __init__(
        self, table: Table, outside_pairs: bool, tick: Callable[[], None] | None = None, *, clears: bool = True
    ) -> None:
        self.table = table
        self.outside_pairs = outside_pairs
        #: False: count only relaxed lines that never empty the pyramid (for a position that cannot be won)
        self.clears = clears
        self.memo: dict[tuple[int, int], int] = {}
        self._leftover: dict[int, int] = {}
        self.shapes: dict[int, tuple[int, int]] = {}
        self._moves: dict[int, Moves] = {}
        self.nodes = 0
        self.tick = tick
        pair_sum = table.pair_sum
        self.classes = tuple((a, pair_sum - a) for a in range(1, pair_sum // 2 + 1))
        rows = table.row_masks
        #: (position, its row's mask) for the rows-emptied count
        self.row_of = tuple(next(mask for mask in rows if mask >> i & 1) for i in range(table.size))

    def leftover(self, bag: int) -> int:
        """Cards the bag can pair among itself."""
        if not self.outside_pairs:
            return 0
        known = self._leftover.get(bag)
        if known is not None:
            return known
        total = 0
        for a, b in self.classes:
            ca = bag >> BITS * a & NIBBLE
            if ca:
                if a == b:
                    total += ca & ~1
                else:
                    cb = bag >> BITS * b & NIBBLE
                    total += 2 * (ca if ca < cb else cb)
        self._leftover[bag] = total
        return total

    def ceiling(self, removed: int, bag: int) -> int:
        """A quick bound on ``value``: within each pair of values, at most twice the rarer side goes."""
        info = self.shapes.get(removed)
        if info is None:
            info = self._shape(removed)
        base, pyramid = info
        both = pyramid + bag
        total = base
        outside_pairs = self.outside_pairs
        for a, b in self.classes:
            ca = both >> BITS * a & NIBBLE
            if not ca:
                continue
            if a == b:
                cards = ca & ~1
                if not outside_pairs:
                    pa = 2 * (pyramid >> BITS * a & NIBBLE)
                    if cards > pa:
                        cards = pa
            else:
                cb = both >> BITS * b & NIBBLE
                cards = 2 * (ca if ca < cb else cb)
                if not outside_pairs:
                    pab = 2 * ((pyramid >> BITS * a & NIBBLE) + (pyramid >> BITS * b & NIBBLE))
                    if cards > pab:
                        cards = pab
            total += cards
        return total

    def moves(self, removed: int) -> Moves:
        """The relaxed game's moves on a pyramid (cached): the pyramid and units once the first free
        king has gone, if one is free, else None; and, for each free card in order, its partner's
        value, (pyramid, units) once it has gone with an outside card, and (pyramid, units) for each
        pair it makes with a later free card.  A move that empties the pyramid is left out where
        the relaxation counts only lines that keep it (``clears`` False)."""
        known = self._moves.get(removed)
        if known is not None:
            return known
        table = self.table
        values, king, pair_sum = table.values, table.king, table.pair_sum
        full = table.full if not self.clears else -1
        free = table.free(removed)
        king_move: tuple[int, int] | None = None
        for i in free:
            if values[i] == king and removed | 1 << i != full:
                king_move = (removed | 1 << i, self._gain(removed, removed | 1 << i, 1))
                break
        cards: list[tuple[int, tuple[int, int] | None, tuple[tuple[int, int], ...]]] = []
        for k, i in enumerate(free):
            w = pair_sum - values[i]
            after = removed | 1 << i
            single = None if after == full else (after, self._gain(removed, after, 2))
            pairs = tuple(
                (removed | 1 << i | 1 << j, self._gain(removed, removed | 1 << i | 1 << j, 2))
                for j in free[k + 1 :]
                if values[j] == w and removed | 1 << i | 1 << j != full
            )
            cards.append((w, single, pairs))
        known = (king_move, tuple(cards))
        self._moves[removed] = known
        return known

    def _shape(self, removed: int) -> tuple[int, int]:
        """(rows not yet empty + kings left, the bag of the pyramid's other values) for a pyramid."""
        table = self.table
        present = table.full & ~removed
        base = sum(1 for mask in table.row_masks if mask & present)
        pyramid = 0
        for v, mask in table.by_value.items():
            count = bin(mask & present).count("1")
            if v == table.king:
                base += count
            else:
                pyramid += count << BITS * v
        info = (base, pyramid)
        self.shapes[removed] = info
        return info

    def value(self, removed: int, bag: int) -> int:
        key = (removed, bag)
        known = self.memo.get(key)
        if known is None:
            known = self._search(removed, bag)
            self.memo[key] = known
        return known

    def _gain(self, removed: int, after: int, cards: int) -> int:
        row_of = self.row_of
        rows = 0
        gone = after & ~removed
        seen = 0
        while gone:
            low = gone & -gone
            gone ^= low
            mask = row_of[low.bit_length() - 1]
            if not mask & seen and after & mask == mask:
                rows += 1
                seen |= mask
        return cards + rows

    def _search(self, removed: int, bag: int) -> int:
        table = self.table
        full = table.full
        if removed == full:
            return self.leftover(bag)
        self.nodes += 1
        if self.tick is not None and not self.nodes & 63:
            self.tick()
        values, king, pair_sum = table.values, table.king, table.pair_sum
        free = table.free(removed)
        clears = self.clears
        for i in free:
            if values[i] == king:
                # in the relaxed game nothing ends early: a free king may as well go at once
                after = removed | 1 << i
                if after == full and not clears:
                    continue
                return self._gain(removed, after, 1) + self.value(after, bag)
        ceiling = self.ceiling(removed, bag)
        if not clears:
            # the apex stays, so its row is never emptied (nor, if it is a king, does that king go)
            ceiling -= 1 + (values[0] == king)
        best = self.leftover(bag)
        if best >= ceiling:
            return best
        for k, i in enumerate(free):
            v = values[i]
            w = pair_sum - v
            for j in free[k + 1 :]:
                if values[j] == w:
                    after = removed | 1 << i | 1 << j
                    if after == full and not clears:
                        continue
                    found = self._gain(removed, after, 2) + self.value(after, bag)
                    if found > best:
                        best = found
                        if best >= ceiling:
                            return best
            if bag >> BITS * w & NIBBLE:
                after = removed | 1 << i
                if after == full and not clears:
                    continue
                found = self._gain(removed, after, 2) + self.value(after, bag - (1 << BITS * w))
                if found > best:
                    best = found
                    if best >= ceiling:
                        return best
        return best


class StackMax:
    """The last pass relaxed less, as a maximisation: the waste stays a stack, the stock is a bag.

    The pyramid and the waste are kept exactly (only the waste top is in play, a card under it
    only once everything above has gone); the stock (and a drawn card) becomes a bag whose cards
    may pair with a free pyramid card or the waste top at any time, and with each other where two
    outside cards may pair, without ever burying the waste.  A real line that makes no more recycle
    is a line of this game removing the same cards (a draw only puts a card where fewer moves reach
    it), so the value bounds it.  The value is one unit a card and a row, bag kings excluded.
    Answers are remembered by (pyramid, waste, bag); a question that takes more than ``effort``
    steps is given up and answered with the bag relaxation's figure, which bounds it too.
    """

    def __init__(self, table: Table, relaxed: RelaxedMax, effort: int = 3000) -> None:
        self.table = table
        self.relaxed = relaxed
        self.effort = effort
        self.steps = 0
        #: (answer, reached): a line of the relaxed game reaches it, or it bounds the value from above
        self.memo: dict[tuple[int, tuple[int, ...], int], tuple[int, bool]] = {}
        self.pairs = table.stock_waste_pairs

    def value(
        self, removed: int, waste: tuple[int, ...], bag: int, goal: int, waste_bag: tuple[int, int] | None = None
    ) -> int:
        """``waste`` without kings' bearing on ``bag``: the waste as it lies, ``bag`` the stock's
        non-king values.  Only whether the value reaches ``goal`` matters: an answer of ``goal`` or
        more is reached by some relaxed line (the value may be higher), an answer below it is an
        upper bound (the value may be lower).  ``waste_bag``, if given: the waste's kings and the bag
        of its other values."""
        self.steps = 0
        kings, waste_values = kings_and_bag(waste, self.table.king) if waste_bag is None else waste_bag
        try:
            return self._value(removed, waste, bag, goal, kings, waste_values)
        except _GaveUp:
            return self._ceiling(removed, kings, waste_values + bag)

    def _ceiling(self, removed: int, kings: int, bag: int, goal: int | None = None) -> int:
        """The bag relaxation of the same cards (``kings`` and ``bag``: the waste's and the stock's
        together), which bounds the value; past a ``goal`` the quick ceiling is enough when it
        already falls short of it."""
        known = self.relaxed.memo.get((removed, bag))
        if known is not None:
            return kings + known
        if goal is not None:
            quick = kings + self.relaxed.ceiling(removed, bag)
            if quick < goal:
                return quick
        return kings + self.relaxed.value(removed, bag)

    def _value(self, removed: int, waste: tuple[int, ...], bag: int, goal: int, kings: int, waste_bag: int) -> int:
        """(``kings`` and ``waste_bag``: the waste's kings and the bag of its other values.)"""
        key = (removed, waste, bag)
        known = self.memo.get(key)
        if known is not None and (known[0] >= goal if known[1] else known[0] < goal):
            return known[0]
        found = self._search(removed, waste, bag, goal, kings, waste_bag)
        # (answer, reached): reached by a line if it met its goal, else an upper bound
        self.memo[key] = (found, found >= goal)
        return found

    def _search(self, removed: int, waste: tuple[int, ...], bag: int, goal: int, kings: int, waste_bag: int) -> int:
        self.steps += 1
        if self.steps > self.effort:
            raise _GaveUp
        table = self.table
        relaxed = self.relaxed
        king, pair_sum = table.king, table.pair_sum
        top = waste[-1] if waste else 0
        if top == king:
            return 1 + self._value(removed, waste[:-1], bag, goal - 1, kings - 1, waste_bag)
        king_move, cards = relaxed.moves(removed)
        if king_move is not None:
            after, gain = king_move
            return gain + self._value(after, waste, bag, goal - gain, kings, waste_bag)
        ceiling = self._ceiling(removed, kings, waste_bag + bag, goal)
        if ceiling < goal:
            return ceiling
        if not waste:
            # the stack game with an empty waste is the bag relaxation itself
            return relaxed.value(removed, bag)
        # a first figure some line reaches: the bag relaxation on the stock alone if it is known, else
        # the stock's pairs among themselves (the search below plays the rest out)
        best = relaxed.memo.get((removed, bag), -1)
        if best < 0:
            best = relaxed.leftover(bag)
        if best >= goal:
            return best
        options: list[tuple[int, int, tuple[int, ...], int]] = []
        # the waste's bag once its top has gone
        below = waste_bag - (1 << BITS * top) if top else waste_bag
        if top:
            w = pair_sum - top
            if self.pairs and bag >> BITS * w & NIBBLE:
                options.append((2, removed, waste[:-1], bag - (1 << BITS * w)))
        for w, single, pairs in cards:
            for after, gain in pairs:
                options.append((gain, after, waste, bag))
            if single is not None:
                if top == w:
                    options.append((single[1], single[0], waste[:-1], bag))
                if bag >> BITS * w & NIBBLE:
                    options.append((single[1], single[0], waste, bag - (1 << BITS * w)))
        for gain, after, after_waste, after_bag in options:
            found = gain + self._value(
                after, after_waste, after_bag, goal - gain, kings, waste_bag if after_waste is waste else below
            )
            if found > best:
                best = found
                if best >= goal:
                    return best
        return best


#: a pointer beyond every stop (``Perfect._covered_from``)
NEVER = 1 << 30

#: each clearing question is searched in tries, (each pass's later stops first?, stops or -1 for no cap),
#: until one finishes (classic seed 125 finds its line backwards in 10k-15k stops)
TRIES = ((False, 5000), (True, 20_000), (False, -1))


class _Abandoned(Exception):
    """The clearing search's first, short try has used its stops."""


class Perfect:
    """Can a line from a position lose at most ``loss`` units of those it could still bring?

    The par search asks this where a line must bring all but a few units of those still out.
    Where the relaxation counts a cleared pyramid (``relaxed.clears``), the line clears the
    pyramid; otherwise (built for a start that cannot be won, or for lines that keep the apex) it
    ends with the apex alone in the pyramid, and a move that empties the pyramid is no success.
    Besides, it may leave at most ``loss`` outside cards or make at most ``loss`` recycles between
    them.  An exact search of the real game (stretches as in the par search), with forced moves
    that never lose such a line and tests that end a branch (docs: par, "Lines that must clear"):

    - a king at the stock or waste top goes at once; when the pyramid must be cleared, so does a
      free pyramid king that is not the apex, and a pair whose pyramid card has no other partner
      that could ever take it, unless the pair empties the pyramid;
    - a frozen pyramid (but for the apex alone where the rules play on past it: outside cards may
      still pair), more recycles than ``loss``, or an upper bound on the units to come
      (``RelaxedMax``; with no recycle left to pay for, a waste card no card left can take, and
      ``StackMax``) below the units needed ends the branch.

    Every move removes a card, moves the pointer on or spends a recycle, so there are no cycles and
    failures are remembered for the whole par search by (pyramid, outside sequence) and, under it,
    (recycles used, ``loss``) with the lowest pointer that failed; ``_covered`` says which stops a
    failure covers.  Each question is first given to a short search that tries each pass's stops
    from the last (it meets an existing line sooner); abandoned, it leaves only finished failures.
    Only outside the house rules and draw-only-when-stuck.
    """

    #: its tries (``TRIES``), read by the compiled question too (``kernels.par.KernelPerfect``)
    TRIES = TRIES

    def __init__(self, table: Table, relaxed: RelaxedMax, stack: StackMax, spend: Callable[[], None]) -> None:
        self.table = table
        self.relaxed = relaxed
        self.stack = stack
        self.spend = spend
        #: the current try (``TRIES``): the later stops of a pass first? how many stops it has left
        self.backwards = False
        self.stops_left = -1
        #: (pyramid, outside sequence) -> (recycles used, loss allowed) -> the lowest pointer that failed
        self.failed: dict[tuple[int, tuple[int, ...]], dict[tuple[int, int], int]] = {}
        #: the line the last ``possible`` found, once it answers yes (built backwards on the way up)
        self.line: list[SolverMove] = []
        self.drawn_model = int(table.drawn_model)
        self.clears = relaxed.clears
        #: the pyramid a line ends with at best: empty, or the apex alone
        self.goal = table.full if self.clears else table.full & ~1
        #: the units a pyramid still holds (its cards and rows; the apex and its row left out where
        #: the pyramid cannot be cleared), by pyramid
        self.pyramid_units: dict[int, int] = {}
        #: ``_lonely``'s answers, by (pyramid, bag of the outside cards): many stretches share both
        self.lonely: dict[tuple[int, int], int] = {}

    def units(self, position: Position) -> int:
        """The units a line can bring at most: every pyramid card and row and every outside card
        still out, less the apex and its row where the pyramid cannot be cleared."""
        removed, stock, waste, drawn = position[:4]
        pyramid = self.pyramid_units.get(removed)
        if pyramid is None:
            table = self.table
            present = table.full & ~removed
            pyramid = bin(present).count("1") + sum(1 for mask in table.row_masks if mask & present)
            if not self.clears:
                pyramid -= 2
            self.pyramid_units[removed] = pyramid
        return pyramid + len(stock) + len(waste) + (1 if drawn else 0)

    def possible(self, position: Position, loss: int) -> bool:
        """Whether such a line exists; when it does, ``line`` is one (its moves from ``position``)."""
        # short searches first, forwards then trying the later stops of each pass first (where a line
        # exists, that often finds it far sooner); the failures they prove stay for the searches after
        for self.backwards, self.stops_left in TRIES:
            self.line = []
            try:
                found = self._search(position, loss)
            except _Abandoned:
                continue
            if found:
                self.line.reverse()
            return found
        raise AssertionError("the last try has no cap")

    @classmethod
    def _covered(cls, entries: dict[tuple[int, int], int] | None, recycles: int, loss: int, pointer: int) -> bool:
        """Failed already from a stop that can do all this one can.  ``entries`` are the failures of
        the stop's pyramid and outside cards in order (``waste + (drawn,) + stock``), ``pointer`` how
        many of those lie before the stock, doubled (plus one for a card on the waste top where a
        drawn card ranks before it).
        """
        return entries is not None and pointer >= cls._covered_from(entries, recycles, loss)

    @staticmethod
    def _covered_from(entries: dict[tuple[int, int], int], recycles: int, loss: int) -> int:
        """The lowest pointer of a pass (``recycles`` used, ``loss`` allowed) from which its stops are
        covered by ``entries`` (``_covered``): 0 for all of them, ``NEVER`` for none.

        A failure with ``r`` recycles used, a loss of ``l`` allowed and pointer ``p`` covers a stop
        with at least as many recycles used and no larger loss allowed at pointer ``p`` or later (it
        draws there, with as many recycles left and as large a loss); and, having used fewer recycles,
        one at any pointer whose loss is smaller by at least the difference (it draws out and
        recycles there, each recycle costing one unit of its loss).
        """
        lowest = NEVER
        for (used, allowed), known in entries.items():
            if allowed < loss or used > recycles:
                continue
            if used < recycles and allowed - (recycles - used) >= loss:
                return 0
            if known < lowest:
                lowest = known
        return lowest

    def _pointer(self, position: Position) -> int:
        waste, drawn = position[2], position[3]
        if drawn:
            return len(waste) + 1 << 1
        return (len(waste) << 1) + self.drawn_model

    def _search(self, position: Position, loss: int, outside: tuple[int, int] | None = None) -> bool:
        """(``outside``: the kings among the outside cards and the bag of the others, if known.)"""
        removed, stock, waste, drawn, recycles = position[:5]
        # draws and recycles keep the outside cards' order: one sequence for the whole stretch
        sequence = waste + (drawn,) + stock if drawn else waste + stock
        pointer = self._pointer(position)
        # no stop below this one has the same pyramid and outside cards: these stay as they are
        entries = self.failed.get((removed, sequence))
        if self._covered(entries, recycles, loss, pointer):
            return False
        if self._walk(position, loss, sequence, entries, outside):
            return True
        if entries is None:
            entries = self.failed[(removed, sequence)] = {}
        known = entries.get((recycles, loss))
        if known is None or pointer < known:
            entries[(recycles, loss)] = pointer
        return False

    def _walk(
        self,
        position: Position,
        loss: int,
        sequence: tuple[int, ...],
        entries: dict[tuple[int, int], int] | None,
        outside: tuple[int, int] | None,
    ) -> bool:
        table = self.table
        full = table.full
        removed = position[0]
        # every stop of the stretch has the same pyramid and the same outside cards (``sequence``)
        if removed == self.goal and len(sequence) <= loss:
            # the apex alone is left (the pyramid cannot be cleared), and few enough outside cards
            return True
        king = table.king
        kings, bag = kings_and_bag(sequence, king) if outside is None else outside
        lonely = self.lonely.get((removed, bag))
        if lonely is None:
            lonely = self.lonely[removed, bag] = self._lonely(removed, bag)
        if lonely < 0:
            if table.ends_when_frozen or removed != self.goal:
                # the game ends here, or a pyramid that never changes again never reaches the goal
                return False
            # the apex alone is left and frozen, where play goes on: outside cards may still pair
            lonely = 0
        units = self.units(position)
        relaxed = self.relaxed
        known = relaxed.memo.get((removed, bag))
        if known is None and kings + relaxed.ceiling(removed, bag) < units - loss:
            return False
        general = kings + (known if known is not None else relaxed.value(removed, bag))
        first = True
        # the stock's kings and bag, once the stack bound is asked for (kept up to date along the stretch)
        stock: tuple[int, int] | None = None
        recycles = table.recycles
        # the draws and recycles made along the stretch so far
        steps: list[SolverMove] = []
        # the stops worth trying: (position, its moves, the loss it allows, how many steps lead to it)
        stops: list[tuple[Position, list[SolverMove], int, int]] = []
        # the free cards by value, the same at every stop
        free_by_value = table.free_by_value(removed)
        # the pointer from which this pass's stops are covered by a failure already known
        covered = NEVER if entries is None else self._covered_from(entries, position[4], loss)
        while True:
            self.spend()
            self.stops_left -= 1
            if not self.stops_left:
                raise _Abandoned
            least = units - loss
            if general < least:
                break
            if position[2] and not (loss and position[4] < recycles and general - 1 >= least):
                # no recycle a line could still pay for: the waste is a stack for good
                if stock is None:
                    stock = kings_and_bag(position[1] + (position[3],), king)
                if self._stack_hopeless(position, loss, least, stock, (kings - stock[0], bag - stock[1])):
                    # a later stop of the pass has the same pyramid and its outside cards buried deeper
                    break
            # a removal of pyramid cards alone was tried at the first stop: its child there covers a
            # later stop's; and a forced one would have been forced there already
            # just after a draw, the removals the stop before made already are left out (the same
            # child, with the same loss allowed: docs/solver.md, "No stop twice")
            removals = (
                table.removals(position)
                if first
                else table.outside_removals(position, steps[-1] is DRAW, free_by_value)
            )
            forced = self._forced(position, removals, lonely) if removals else None
            if forced is not None:
                # every such line from here, later stops included, may make it first
                stops.append((position, [forced], loss, len(steps)))
                break
            if removals:
                if len(removals) > 1:
                    removals.sort(key=lambda move: -(move[1] < 0) - (move[2] < 0))
                stops.append((position, removals, loss, len(steps)))
            first = False
            if position[1]:
                steps.append(DRAW)
                if stock is not None:
                    if self.drawn_model:
                        stock = None
                    else:
                        # the stock's top card goes onto the waste
                        v = position[1][0]
                        stock = (stock[0] - 1, stock[1]) if v == king else (stock[0], stock[1] - (1 << BITS * v))
                if self.drawn_model:
                    position = table.apply(position, DRAW)
                else:
                    # ``table.apply`` of a draw where no card is held in play
                    top = position[1]
                    position = (removed, top[1:], position[2] + top[:1], 0, position[4], 0)
            elif loss and position[4] < recycles and (position[2] or position[3]):
                position = table.apply(position, RECYCLE)
                steps.append(RECYCLE)
                loss -= 1
                stock = None
                if entries is not None:
                    covered = self._covered_from(entries, position[4], loss)
            else:
                break
            if covered != NEVER and self._pointer(position) >= covered:
                break
        if self.backwards:
            stops.sort(key=lambda stop: (stop[0][4], -stop[3]))
        for position, moves, allowed, made in stops:
            for move in moves:
                after = table.apply(position, move)
                if after[0] == full:
                    # a line that keeps the apex never gets here
                    if self.clears and len(after[1]) + len(after[2]) + (1 if after[3] else 0) <= allowed:
                        self.line.append(move)
                        self.line.extend(reversed(steps[:made]))
                        return True
                    continue
                # the child's outside cards are these less the ones the move takes
                if self._search(after, allowed, outside_after(position, move, table, kings, bag)):
                    self.line.append(move)
                    self.line.extend(reversed(steps[:made]))
                    return True
        return False

    def _lonely(self, removed: int, bag: int) -> int:
        """-1 if the pyramid is frozen (the engine's test: no free card is a king or has a partner to
        come); else, where the pyramid must be cleared, the free pyramid places whose card has exactly
        one card left that could ever take it, as a mask (``bag``: the outside cards' values other
        than kings).  Both hold for every stop of a stretch."""
        table = self.table
        values, king, pair_sum, by_value, related = (
            table.values,
            table.king,
            table.pair_sum,
            table.by_value,
            table.related,
        )
        free = table.free(removed)
        free_mask = 0
        for i in free:
            free_mask |= 1 << i
        present = table.full & ~removed
        frozen = True
        lonely = 0
        clears = self.clears
        for i in free:
            v = values[i]
            if v == king:
                frozen = False
                continue
            w = pair_sum - v
            outside = bag >> BITS * w & NIBBLE
            pyramid = by_value.get(w, 0)
            if outside or pyramid & free_mask & ~(1 << i):
                frozen = False
            if clears and outside + (pyramid & present & ~related[i]).bit_count() == 1:
                lonely |= 1 << i
        return -1 if frozen else lonely

    def _forced(self, position: Position, removals: list[SolverMove], lonely: int) -> SolverMove | None:
        """(``lonely``: the free pyramid places whose card has one possible partner, ``_lonely``.)"""
        table = self.table
        removed = position[0]
        full = table.full
        clears = self.clears
        for move in removals:
            a, b = move[1], move[2]
            if b == NO_CARD and (a < 0 or clears and removed | 1 << a != full):
                return move
        if not clears:
            # a line that keeps the apex may end with outside pairs while one pyramid card keeps the
            # pyramid from freezing: removing that card first could end the game early
            return None
        if not lonely:
            return None
        for move in removals:
            a, b = move[1], move[2]
            if b == NO_CARD:
                continue
            mine = (1 << a if a >= 0 else 0) | (1 << b if b >= 0 else 0)
            if mine & lonely and removed | mine != full:
                return move
        return None

    def _stack_hopeless(
        self, position: Position, loss: int, least: int, stock: tuple[int, int], waste_bag: tuple[int, int]
    ) -> bool:
        """With no recycle that a line could still pay for, the waste is a stack for good: can such a
        line still bring ``least`` units?  (``stock``, ``waste_bag``: the kings and the bag of the
        other values among the stock and drawn cards, and among the waste's.)"""
        table = self.table
        removed, _, waste, drawn = position[:4]
        king, pair_sum = table.king, table.pair_sum
        kings, bag = stock
        known = self.stack.memo.get((removed, waste, bag))
        if known is not None and (known[0] >= least - kings if known[1] else known[0] < least - kings):
            # answered before (the test below only finds sooner what the stack bound finds too)
            return not known[1]
        # the values a waste card could still pair with: in the pyramid, or in the stock where they pair
        pyramid = table.present_values(removed)
        pairs = table.stock_waste_pairs
        for depth in range(len(waste) - 1, -1, -1):
            v = waste[depth]
            if v == king:
                continue
            w = pair_sum - v
            if not (pyramid >> w & 1 or pairs and (bag >> BITS * w & NIBBLE or w == drawn)):
                # it never leaves, nor does any card under it
                if depth + 1 > loss:
                    return True
                break
        return kings + self.stack.value(removed, waste, bag, least - kings, waste_bag) < least
