"""The bag relaxation: could the pyramid be cleared if every card outside it were always at hand?

If not, the position is lost.  A relaxed position is (pyramid mask, bag of outside values), its
answer remembered for the whole solve.  Why it is sound: docs/solver.md, rule 4 of *Pruning rules*.
"""

from __future__ import annotations

from collections.abc import Callable

from .position import Table

BITS = 4
NIBBLE = (1 << BITS) - 1


def bag_of(values: tuple[int, ...] | list[int]) -> int:
    bag = 0
    for v in values:
        bag += 1 << BITS * v
    return bag


def kings_and_bag(values: tuple[int, ...], king: int, bag: int = 0) -> tuple[int, int]:
    """How many of ``values`` are kings, and ``bag`` with the others added (a 0, no card, is skipped)."""
    kings = 0
    for v in values:
        if v == king:
            kings += 1
        elif v:
            bag += 1 << BITS * v
    return kings, bag


class Relaxation:
    def __init__(self, table: Table, tick: Callable[[], None] | None = None) -> None:
        self.table = table
        self.memo: dict[tuple[int, int], bool] = {}
        self.nodes = 0
        #: called every 64 steps, so that a caller's time limit also holds in here
        self.tick = tick

    def clearable(self, removed: int, bag: int) -> bool:
        memo = self.memo
        known = memo.get((removed, bag))
        if known is None:
            # a card whose partner value has left the pyramid can never be used: positions that
            # differ only in such cards are one (the answer is kept under both bags)
            useful = bag & self.table.useful_nibbles(removed)
            if useful != bag:
                known = memo.get((removed, useful))
            if known is None:
                known = memo[removed, useful] = self._search(removed, useful)
            memo[removed, bag] = known
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
        values, king, pair_sum, all_mates = table.values, table.king, table.pair_sum, table.mates
        free = table.free(removed)
        free_bits = table.free_bits(removed)
        present = full & ~removed
        options: list[tuple[int, int, int]] = []
        for i in free:
            v = values[i]
            if v == king:
                # a king leaves alone and only frees cards: take it at once
                return self.clearable(removed | 1 << i, bag)
            w = pair_sum - v
            in_bag = bag >> BITS * w & NIBBLE
            mates = all_mates[i] & present
            if in_bag and not mates:
                # only outside cards can ever take this one, and they are all alike: pair it now
                return self._after(removed | 1 << i, bag - (1 << BITS * w), v, w)
            if mates & mates - 1 == 0 and free_bits & mates:
                # one free pyramid card is the only pyramid card that can ever take this one: pair them
                # now (pairing it with an outside card instead is dominated: docs/solver.md)
                return self._after(removed | 1 << i | mates, bag, v, w)
            # the free cards after this one that pair with it (free cards never cover one another)
            fellows = mates & free_bits & -(2 << i)
            while fellows:
                low = fellows & -fellows
                options.append((removed | 1 << i | low, bag, v))
                fellows ^= low
            if in_bag and not mates & free_bits:
                # with an outside card, unless a free pyramid card can take this one: that pair
                # dominates it (docs/solver.md)
                options.append((removed | 1 << i, bag - (1 << BITS * w), v))
        for after, after_bag, v in options:
            if self._after(after, after_bag, v, pair_sum - v):
                return True
        return False

    def _after(self, removed: int, bag: int, v: int, w: int) -> bool:
        if removed != self.table.full and (self.dead(removed, bag, v) or self.dead(removed, bag, w)):
            return False
        return self.clearable(removed, bag)


def buried_alone(table: Table, removed: int, waste: tuple[int, ...]) -> int:
    """``buried`` where stock and waste never pair (its callers there need no ``stock_partners``)."""
    king = table.king
    partnered, limit = table.waste_rule(removed)
    depth = 0
    for index in range(len(waste) - 1, -1, -1):
        v = waste[index]
        if v != king:
            depth += 1
            if depth > limit or not partnered >> v & 1:
                return index + 1
    return 0


def buried(table: Table, removed: int, waste: tuple[int, ...], stock_partners: Callable[[int], bool]) -> int:
    """How many cards at the bottom of a last-pass waste never come back into play (house rules aside).

    With no recycle left a waste card only comes back into play when every card above it has gone,
    and outside the house rules two waste cards never pair.  So a card stays for good, and every
    card under it with it, when its value has no partner among the pyramid cards left, nor among
    the stock (and drawn) cards where those may pair with the waste (``stock_partners``).  Where
    they may not, every waste card leaves with a pyramid card (or alone, a king): a card with d
    cards other than kings above it needs d + 1 pyramid cards to leave, so it stays for good when
    the pyramid has fewer cards other than kings left.
    """
    if not table.stock_waste_pairs:
        return buried_alone(table, removed, waste)
    king = table.king
    values = table.present_values(removed)
    pair_sum = table.pair_sum
    for index in range(len(waste) - 1, -1, -1):
        v = waste[index]
        if v == king:
            continue
        w = pair_sum - v
        if values >> w & 1 or stock_partners(w):
            continue
        return index + 1
    return 0


class _GaveUp(Exception):
    pass


class StackRelaxation:
    """The last pass, relaxed less: the waste stays a stack, only the stock becomes a bag.

    With no recycle left, a waste card is in play only once every card above it has gone; the
    stock cards are still let loose (any of them, any time, without burying the waste), which only
    gives the player more.  A waste top goes alone (a king), with a free pyramid card, or with a
    stock card where the rules let those two pair.  Where the house rules let waste cards pair
    among the top ``reach``, two of those pair too, and a stock card pairs with any of the top
    ``reach - 1`` (drawn, it would lie on them).  If even this cannot clear the pyramid, the
    position is lost.  Answers are remembered by (pyramid, waste, stock bag).  A question that
    takes more than ``effort`` steps is given up and answered "clearable", which only prunes less.
    """

    def __init__(self, table: Table, relaxation: Relaxation, effort: int = 2000) -> None:
        self.table = table
        self.relaxation = relaxation
        self.effort = effort
        self.steps = 0
        self.memo: dict[tuple[int, tuple[int, ...], int], bool] = {}
        self.reach = table.reach
        #: how deep under the waste top a stock card finds a partner
        self.bag_reach = max(table.reach - 1, 1 if table.stock_waste_pairs else 0)
        #: the waste's buried cards (``buried``) are left out (where stock and waste pair, only the
        #: top is looked at, in ``_search``: cheaper)
        self.unbury = self.reach == 1 and not self.bag_reach

    def clearable(self, removed: int, waste: tuple[int, ...], bag: int, waste_bag: int, unburied: bool = False) -> bool:
        """``bag`` holds the stock's values, ``waste_bag`` the waste's (kings left out of both);
        ``unburied``: the caller has already taken the buried cards off ``waste`` and its bag."""
        self.steps = 0
        try:
            if unburied and self.unbury:
                return self._known(removed, waste, bag & self.table.useful_nibbles(removed), waste_bag)
            return self._clearable(removed, waste, bag, waste_bag)
        except _GaveUp:
            return True

    def _clearable(self, removed: int, waste: tuple[int, ...], bag: int, waste_bag: int) -> bool:
        if removed == self.table.full:
            return True
        if self.unbury:
            waste, waste_bag = self._unburied(removed, waste, bag, waste_bag)
            # a stock card meets only pyramid cards here: one whose partner value has left is of no use
            bag &= self.table.useful_nibbles(removed)
        return self._known(removed, waste, bag, waste_bag)

    def _known(self, removed: int, waste: tuple[int, ...], bag: int, waste_bag: int) -> bool:
        if not waste:
            # with the waste gone, only the bag is left: the bag relaxation itself
            return self.relaxation.clearable(removed, bag)
        key = (removed, waste, bag)
        known = self.memo.get(key)
        if known is None:
            # every move removes a card, so there are no cycles: only finished answers are kept
            known = self._search(removed, waste, bag, waste_bag)
            self.memo[key] = known
        return known

    def _unburied(self, removed: int, waste: tuple[int, ...], bag: int, waste_bag: int) -> tuple[tuple[int, ...], int]:
        """The waste without its cards that never come back into play (``buried``), and its bag."""
        # (``unbury``: stock and waste never pair here)
        dead = buried_alone(self.table, removed, waste)
        if not dead:
            return waste, waste_bag
        king = self.table.king
        for u in waste[:dead]:
            if u != king:
                waste_bag -= 1 << BITS * u
        return waste[dead:], waste_bag

    def _search(self, removed: int, waste: tuple[int, ...], bag: int, waste_bag: int) -> bool:
        self.steps += 1
        if self.steps > self.effort:
            raise _GaveUp
        table = self.table
        king, pair_sum, values, all_mates = table.king, table.pair_sum, table.values, table.mates
        relaxation = self.relaxation
        if not relaxation.clearable(removed, bag + waste_bag):
            return False
        top = waste[-1] if waste else 0
        if top == king:
            return self._clearable(removed, waste[:-1], bag, waste_bag)
        if (
            top
            and self.reach == 1
            and not table.present_values(removed) >> pair_sum - top & 1
            and not (self.bag_reach and bag >> BITS * (pair_sum - top) & NIBBLE)
        ):
            # the top never leaves, and nothing under it comes back: the bag alone is left
            return relaxation.clearable(removed, bag)
        below = waste_bag - (1 << BITS * top) if top else waste_bag
        free = table.free(removed)
        free_bits = table.free_bits(removed)
        present = table.full & ~removed
        # moves that dig into the waste first: once it is empty the bag relaxation answers
        options: list[tuple[int, tuple[int, ...], int, int]] = []
        later: list[tuple[int, tuple[int, ...], int, int]] = []
        top_taken = False
        for i in free:
            v = values[i]
            if v == king:
                return self._clearable(removed | 1 << i, waste, bag, waste_bag)
            w = pair_sum - v
            shift = BITS * w
            in_bag = bag >> shift & NIBBLE
            in_waste = waste_bag >> shift & NIBBLE
            mates = all_mates[i] & present
            if in_bag and not in_waste and not mates:
                # only stock cards can take this one, and they are all alike: pair it now
                return self._clearable(removed | 1 << i, waste, bag - (1 << shift), waste_bag)
            # the only card but stock cards that can ever take this one is the waste top, or a free
            # pyramid card where stock cards pair with the waste: pair them now (pairing it with a
            # stock card instead is dominated: docs/solver.md)
            if not mates and in_waste == 1 and top == w:
                return self._clearable(removed | 1 << i, waste[:-1], bag, below)
            if not in_waste and mates & mates - 1 == 0 and free_bits & mates and (not in_bag or self.bag_reach):
                return self._clearable(removed | 1 << i | mates, waste, bag, waste_bag)
            # the free cards after this one that pair with it (free cards never cover one another)
            fellows = mates & free_bits & -(2 << i)
            while fellows:
                low = fellows & -fellows
                later.append((removed | 1 << i | low, waste, bag, waste_bag))
                fellows ^= low
            if top == w:
                options.append((removed | 1 << i, waste[:-1], bag, below))
                top_taken = True
            elif in_bag and not (self.bag_reach and mates & free_bits):
                # with a stock card, unless that is dominated by pairing it with the waste top or,
                # where stock cards pair with the waste, with a free pyramid card (docs/solver.md)
                later.append((removed | 1 << i, waste, bag - (1 << shift), waste_bag))
        n = len(waste)
        if self.bag_reach and n:
            # the top with a stock card is dominated by the top with a free pyramid card, where there is one
            for d in range(1 + top_taken, min(self.bag_reach, n) + 1):
                u = waste[n - d]
                if u != king and bag >> BITS * (pair_sum - u) & NIBBLE:
                    options.append(
                        (
                            removed,
                            waste[: n - d] + waste[n - d + 1 :],
                            bag - (1 << BITS * (pair_sum - u)),
                            waste_bag - (1 << BITS * u),
                        )
                    )
        if self.reach > 1:
            for d in range(1, min(self.reach, n) + 1):
                u = waste[n - d]
                for e in range(d + 1, min(self.reach, n) + 1):
                    if waste[n - e] + u == pair_sum:
                        rest = waste[: n - e] + waste[n - e + 1 : n - d] + waste[n - d + 1 :]
                        options.append((removed, rest, bag, waste_bag - (1 << BITS * u) - (1 << BITS * waste[n - e])))
        for option in options:
            if self._clearable(*option):
                return True
        for option in later:
            if self._clearable(*option):
                return True
        return False


class SegmentRelaxation:
    """The last pass with the stock kept in order, cut at its walls.

    With no recycle left, and where stock and waste cards never pair, a card that can never leave
    the waste (a *wall*: no partner value left in the pyramid) buries for good everything under it
    once it is drawn.  So the outside cards fall into *segments*, the runs between walls in the
    order they are drawn (the first one also holds the waste above its buried cards), and a card of
    a segment can pair with the pyramid only between the draw of the wall before it and the draw
    of the wall after it.  Relaxed: inside its window a segment is a bag whose cards pair with any
    free pyramid card at any time; the player chooses when to draw the next wall, and what the
    segment still holds is then lost.  If even this cannot clear the pyramid, the position is
    lost.  Answers are remembered by (pyramid, bag of the current segment, later segments); a
    question taking more than ``effort`` steps is answered "clearable", which only prunes less.
    """

    def __init__(self, table: Table, relaxation: Relaxation, effort: int = 2000) -> None:
        self.table = table
        self.relaxation = relaxation
        self.effort = effort
        self.steps = 0
        self.memo: dict[tuple[int, int, tuple[int, ...]], bool] = {}

    def segments(self, removed: int, live: tuple[int, ...], stock: tuple[int, ...]) -> tuple[int, ...]:
        """The bags of the segments, the current one first: ``live`` is the waste above its buried
        cards, ``stock`` the stock in drawing order.  Cards with no partner left in the pyramid are
        of no use to it and stay out of the bags."""
        table = self.table
        values = table.present_values(removed)
        king, pair_sum = table.king, table.pair_sum
        segments: list[int] = []
        current = 0
        for v in live:
            if v != king and values >> pair_sum - v & 1:
                current += 1 << BITS * v
        for v in stock:
            if v == king:
                continue
            if values >> pair_sum - v & 1:
                current += 1 << BITS * v
            elif current or not segments:
                # a wall: the segment so far ends
                segments.append(current)
                current = 0
        if current or not segments:
            segments.append(current)
        return tuple(segments)

    def clearable(self, removed: int, segments: tuple[int, ...]) -> bool:
        if len(segments) < 2:
            # no wall: the bag relaxation, asked already
            return True
        self.steps = 0
        tails = [segments[j + 1 :] for j in range(len(segments))]
        rests = [sum(tail) for tail in tails]
        try:
            return self._clearable(removed, 0, segments[0], tails, rests)
        except _GaveUp:
            return True

    def _clearable(self, removed: int, j: int, bag: int, tails: list[tuple[int, ...]], rests: list[int]) -> bool:
        table = self.table
        if removed == table.full:
            return True
        key = (removed, bag, tails[j])
        known = self.memo.get(key)
        if known is not None:
            return known
        self.steps += 1
        if self.steps > self.effort:
            raise _GaveUp
        known = self._search(removed, j, bag, tails, rests)
        self.memo[key] = known
        return known

    def _search(self, removed: int, j: int, bag: int, tails: list[tuple[int, ...]], rests: list[int]) -> bool:
        table = self.table
        rest = rests[j]
        if not self.relaxation.clearable(removed, bag + rest):
            return False
        king, pair_sum, values, all_mates = table.king, table.pair_sum, table.values, table.mates
        free = table.free(removed)
        free_bits = table.free_bits(removed)
        present = table.full & ~removed
        options: list[tuple[int, int]] = []
        for i in free:
            v = values[i]
            if v == king:
                return self._clearable(removed | 1 << i, j, bag, tails, rests)
            w = pair_sum - v
            shift = BITS * w
            in_bag = bag >> shift & NIBBLE
            if in_bag and not rest >> shift & NIBBLE and not all_mates[i] & present:
                # only this segment's cards can take this one, and they are all alike: pair it now
                return self._clearable(removed | 1 << i, j, bag - (1 << shift), tails, rests)
            fellows = all_mates[i] & free_bits & -(2 << i)
            while fellows:
                low = fellows & -fellows
                options.append((removed | 1 << i | low, bag))
                fellows ^= low
            if in_bag:
                options.append((removed | 1 << i, bag - (1 << shift)))
        for after, after_bag in options:
            if self._clearable(after, j, after_bag, tails, rests):
                return True
        if j + 1 < len(tails):
            # draw the next wall: what this segment still holds is lost
            return self._clearable(removed, j + 1, tails[j][0], tails, rests)
        return False
