"""The bag relaxation: could the pyramid be cleared if every card outside it were always at hand?

Forget the order of the stock and the waste, the passes and who covers whom out there: keep the
pyramid exactly, and let any outside card of the right value pair with a free pyramid card at any
time, each outside card once.  Every real line is also a line of this relaxed game (it uses each
outside card at most once, and only while the pyramid card is free), so a pyramid the relaxed game
cannot clear can never be cleared: the position is lost.

The relaxed position is just (pyramid mask, bag of outside values), and a search over the real
game meets the same pair many times over (differing only in stock order, pointer and passes),
so the answers are remembered for the whole solve.  A bag is an integer: four bits per value.
"""

from __future__ import annotations

from collections.abc import Callable

from .solver_position import Position, Table

BITS = 4
NIBBLE = (1 << BITS) - 1


def bag_of(values: tuple[int, ...] | list[int]) -> int:
    bag = 0
    for v in values:
        bag += 1 << BITS * v
    return bag


class Relaxation:
    def __init__(self, table: Table, tick: Callable[[], None] | None = None) -> None:
        self.table = table
        self.memo: dict[tuple[int, int], bool] = {}
        self.nodes = 0
        #: called every 64 steps, so that a caller's time limit also holds in here
        self.tick = tick

    def clearable(self, removed: int, bag: int) -> bool:
        key = (removed, bag)
        known = self.memo.get(key)
        if known is None:
            known = self._search(removed, bag)
            self.memo[key] = known
        return known

    def dead(self, removed: int, bag: int, v: int) -> bool:
        """Some pyramid card of value ``v`` has no partner left (neither in the bag nor unrelated)."""
        table = self.table
        w = table.pair_sum - v
        if v == table.king or bag >> BITS * w & NIBBLE:
            return False
        present = table.full & ~removed
        partners = table.by_value.get(w, 0) & present
        cards = table.by_value.get(v, 0) & present
        related = table.related
        while cards:
            low = cards & -cards
            cards ^= low
            if not partners & ~related[low.bit_length() - 1]:
                return True
        return False

    def any_dead(self, removed: int, bag: int) -> bool:
        table = self.table
        present = table.full & ~removed
        return any(mask & present and self.dead(removed, bag, v) for v, mask in table.by_value.items())

    def _search(self, removed: int, bag: int) -> bool:
        table = self.table
        full = table.full
        if removed == full:
            return True
        self.nodes += 1
        if self.tick is not None and not self.nodes & 63:
            self.tick()
        values, king, pair_sum, related, by_value = table.values, table.king, table.pair_sum, table.related, table.by_value
        free = table.free(removed)
        present = full & ~removed
        options: list[tuple[int, int, int]] = []
        for k, i in enumerate(free):
            v = values[i]
            if v == king:
                # a king leaves alone and only frees cards: take it at once
                return self.clearable(removed | 1 << i, bag)
            w = pair_sum - v
            in_bag = bag >> BITS * w & NIBBLE
            if in_bag and not by_value.get(w, 0) & present & ~related[i]:
                # only outside cards can ever take this one, and they are all alike: pair it now
                return self._after(removed | 1 << i, bag - (1 << BITS * w), v, w)
            for j in free[k + 1 :]:
                if values[j] == w:
                    options.append((removed | 1 << i | 1 << j, bag, v))
            if in_bag:
                options.append((removed | 1 << i, bag - (1 << BITS * w), v))
        for after, after_bag, v in options:
            if self._after(after, after_bag, v, pair_sum - v):
                return True
        return False

    def _after(self, removed: int, bag: int, v: int, w: int) -> bool:
        if removed != self.table.full and (self.dead(removed, bag, v) or self.dead(removed, bag, w)):
            return False
        return self.clearable(removed, bag)


def last_pass_bag(table: Table, position: Position, bag: int) -> int:
    """The bag of the outside cards still usable: ``bag`` itself, or, in the last pass, the bag
    without the waste cards that lie under a card that can never leave.

    With no recycle left a waste card only comes back into play when every card above it has
    gone.  Outside the house rules two waste cards never pair, so a waste card whose value has no
    partner among the pyramid cards left, nor among the stock (and drawn) cards when those may pair
    with the waste, stays for good, and everything under it with it.
    """
    removed, stock, waste, drawn, recycles, _ = position
    if recycles < table.recycles or len(waste) < 2 or table.house:
        return bag
    present = table.full & ~removed
    partners = {v for v, mask in table.by_value.items() if mask & present}
    if table.stock_waste_pairs:
        partners.update(stock)
        partners.add(drawn)
    king, pair_sum = table.king, table.pair_sum
    for depth in range(len(waste) - 1, 0, -1):
        v = waste[depth]
        if v == king or pair_sum - v in partners:
            continue
        return bag_of([u for u in stock + waste[depth:] + (drawn,) if u and u != king])
    return bag


class _GaveUp(Exception):
    pass


class StackRelaxation:
    """The last pass, relaxed less: the waste stays a stack, only the stock becomes a bag.

    With no recycle left, a waste card is in play only once every card above it has gone; the
    stock cards are still let loose (any of them, any time, without burying the waste), which only
    gives the player more.  A waste top goes alone (a king), with a free pyramid card, or with a
    stock card where the rules let those two pair.  If even this cannot clear the pyramid, the
    position is lost.  Answers are remembered by (pyramid, waste, stock bag).  A question that
    takes more than ``effort`` steps is given up and answered "clearable", which only prunes less.
    """

    def __init__(self, table: Table, relaxation: Relaxation, effort: int = 2000) -> None:
        self.table = table
        self.relaxation = relaxation
        self.effort = effort
        self.steps = 0
        self.memo: dict[tuple[int, tuple[int, ...], int], bool] = {}

    def clearable(self, removed: int, waste: tuple[int, ...], bag: int, waste_bag: int) -> bool:
        """``bag`` holds the stock's values, ``waste_bag`` the waste's (kings left out of both)."""
        self.steps = 0
        try:
            return self._clearable(removed, waste, bag, waste_bag)
        except _GaveUp:
            return True

    def _clearable(self, removed: int, waste: tuple[int, ...], bag: int, waste_bag: int) -> bool:
        if removed == self.table.full:
            return True
        key = (removed, waste, bag)
        known = self.memo.get(key)
        if known is None:
            # every move removes a card, so there are no cycles: only finished answers are kept
            known = self._search(removed, waste, bag, waste_bag)
            self.memo[key] = known
        return known

    def _search(self, removed: int, waste: tuple[int, ...], bag: int, waste_bag: int) -> bool:
        self.steps += 1
        if self.steps > self.effort:
            raise _GaveUp
        table = self.table
        king, pair_sum, values = table.king, table.pair_sum, table.values
        if not self.relaxation.clearable(removed, bag + waste_bag):
            return False
        top = waste[-1] if waste else 0
        if top == king:
            return self._clearable(removed, waste[:-1], bag, waste_bag)
        below = waste_bag - (1 << BITS * top) if top else waste_bag
        free = table.free(removed)
        present = table.full & ~removed
        options: list[tuple[int, tuple[int, ...], int, int]] = []
        for k, i in enumerate(free):
            v = values[i]
            if v == king:
                return self._clearable(removed | 1 << i, waste, bag, waste_bag)
            w = pair_sum - v
            in_bag = bag >> BITS * w & NIBBLE
            if in_bag and not waste_bag >> BITS * w & NIBBLE and not table.by_value.get(w, 0) & present & ~table.related[i]:
                # only stock cards can take this one, and they are all alike: pair it now
                return self._clearable(removed | 1 << i, waste, bag - (1 << BITS * w), waste_bag)
            for j in free[k + 1 :]:
                if values[j] == w:
                    options.append((removed | 1 << i | 1 << j, waste, bag, waste_bag))
            if top == w:
                options.append((removed | 1 << i, waste[:-1], bag, below))
            if in_bag:
                options.append((removed | 1 << i, waste, bag - (1 << BITS * w), waste_bag))
        if top and table.stock_waste_pairs and bag >> BITS * (pair_sum - top) & NIBBLE:
            options.append((removed, waste[:-1], bag - (1 << BITS * (pair_sum - top)), below))
        return any(self._clearable(*option) for option in options)


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
