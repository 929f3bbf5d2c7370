"""Upper bounds for the par search: how many points could a position still bring, at most?

The bag relaxation of ``solver_relax`` turned into a maximisation (``RelaxedMax``), and the same
bound made sharper on the last pass, where the stock's order is known (``StackMax``).  Each is an
upper bound because every real line is a line of the relaxed game, scored the same way.
"""

from __future__ import annotations

from collections.abc import Callable

from .solver_position import Table
from .solver_relax import BITS, NIBBLE, _GaveUp


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
        self.shapes: dict[int, tuple[int, int]] = {}
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
        total = 0
        for a, b in self.classes:
            ca = bag >> BITS * a & NIBBLE
            if ca:
                if a == b:
                    total += ca & ~1
                else:
                    cb = bag >> BITS * b & NIBBLE
                    total += 2 * (ca if ca < cb else cb)
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
        self.memo: dict[tuple[int, tuple[int, ...], int], int] = {}
        self.pairs = table.stock_waste_pairs

    def value(self, removed: int, waste: tuple[int, ...], bag: int) -> int:
        """``waste`` without kings' bearing on ``bag``: the waste as it lies, ``bag`` the stock's
        non-king values."""
        self.steps = 0
        try:
            return self._value(removed, waste, bag)
        except _GaveUp:
            return self._ceiling(removed, waste, bag)

    def _ceiling(self, removed: int, waste: tuple[int, ...], bag: int) -> int:
        king = self.table.king
        kings = 0
        for v in waste:
            if v == king:
                kings += 1
            else:
                bag += 1 << BITS * v
        return kings + self.relaxed.value(removed, bag)

    def _value(self, removed: int, waste: tuple[int, ...], bag: int) -> int:
        key = (removed, waste, bag)
        known = self.memo.get(key)
        if known is None:
            known = self._search(removed, waste, bag)
            self.memo[key] = known
        return known

    def _search(self, removed: int, waste: tuple[int, ...], bag: int) -> int:
        self.steps += 1
        if self.steps > self.effort:
            raise _GaveUp
        table = self.table
        relaxed = self.relaxed
        king, pair_sum, values = table.king, table.pair_sum, table.values
        top = waste[-1] if waste else 0
        if top == king:
            return 1 + self._value(removed, waste[:-1], bag)
        free = table.free(removed)
        full = table.full if not relaxed.clears else -1
        for i in free:
            if values[i] == king:
                after = removed | 1 << i
                if after == full:
                    continue
                return relaxed._gain(removed, after, 1) + self._value(after, waste, bag)
        ceiling = self._ceiling(removed, waste, bag)
        best = relaxed.value(removed, bag) if not waste else self._without_waste(removed, bag)
        if best >= ceiling:
            return best
        options: list[tuple[int, int, tuple[int, ...], int]] = []
        if top:
            w = pair_sum - top
            if self.pairs and bag >> BITS * w & NIBBLE:
                options.append((2, removed, waste[:-1], bag - (1 << BITS * w)))
        for k, i in enumerate(free):
            v = values[i]
            w = pair_sum - v
            for j in free[k + 1 :]:
                if values[j] == w:
                    options.append((-1, removed | 1 << i | 1 << j, waste, bag))
            if top == w:
                options.append((-1, removed | 1 << i, waste[:-1], bag))
            if bag >> BITS * w & NIBBLE:
                options.append((-1, removed | 1 << i, waste, bag - (1 << BITS * w)))
        for gain, after, after_waste, after_bag in options:
            if after == full:
                continue
            if gain < 0:
                gain = relaxed._gain(removed, after, 2)
            found = gain + self._value(after, after_waste, after_bag)
            if found > best:
                best = found
                if best >= ceiling:
                    return best
        return best

    def _without_waste(self, removed: int, bag: int) -> int:
        """What is left if the waste is never touched again: the bag relaxation on the stock alone."""
        return self.relaxed.value(removed, bag)
