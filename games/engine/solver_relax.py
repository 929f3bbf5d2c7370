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
    values = table.present_values(removed)
    pairs = table.stock_waste_pairs
    king, pair_sum = table.king, table.pair_sum
    for depth in range(len(waste) - 1, 0, -1):
        v = waste[depth]
        if v == king:
            continue
        w = pair_sum - v
        if values >> w & 1 or pairs and (w in stock or w == drawn):
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

    def _search(self, removed: int, waste: tuple[int, ...], bag: int, waste_bag: int) -> bool:
        self.steps += 1
        if self.steps > self.effort:
            raise _GaveUp
        table = self.table
        king, pair_sum, values, related, by_value = table.king, table.pair_sum, table.values, table.related, table.by_value
        relaxation = self.relaxation
        whole = bag + waste_bag
        known = relaxation.memo.get((removed, whole))
        if known is None:
            known = relaxation.clearable(removed, whole)
        if not known:
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
        present = table.full & ~removed
        # moves that dig into the waste first: once it is empty the bag relaxation answers
        options: list[tuple[int, tuple[int, ...], int, int]] = []
        later: list[tuple[int, tuple[int, ...], int, int]] = []
        for k, i in enumerate(free):
            v = values[i]
            if v == king:
                return self._clearable(removed | 1 << i, waste, bag, waste_bag)
            w = pair_sum - v
            shift = BITS * w
            in_bag = bag >> shift & NIBBLE
            if in_bag and not waste_bag >> shift & NIBBLE and not by_value.get(w, 0) & present & ~related[i]:
                # only stock cards can take this one, and they are all alike: pair it now
                return self._clearable(removed | 1 << i, waste, bag - (1 << shift), waste_bag)
            for j in free[k + 1 :]:
                if values[j] == w:
                    later.append((removed | 1 << i | 1 << j, waste, bag, waste_bag))
            if top == w:
                options.append((removed | 1 << i, waste[:-1], bag, below))
            if in_bag:
                later.append((removed | 1 << i, waste, bag - (1 << shift), waste_bag))
        n = len(waste)
        if self.bag_reach and n:
            for d in range(1, min(self.bag_reach, n) + 1):
                u = waste[n - d]
                if u != king and bag >> BITS * (pair_sum - u) & NIBBLE:
                    options.append(
                        (removed, waste[: n - d] + waste[n - d + 1 :], bag - (1 << BITS * (pair_sum - u)), waste_bag - (1 << BITS * u))
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
