"""The solver's compact position: the engine's rules restated on plain integers and tuples.

A position is ``(removed, stock, waste, drawn, recycles, house)``, a move ``(kind, a, b)``;
``Table.to_move`` turns a move back into an engine move.  Design: docs/solver.md, *The position*.
"""

from __future__ import annotations

from functools import cache

from ..game import Game
from ..geometry import geometry
from ..moves import DRAW, RECYCLE, RETURN_THREE, STOCK, Move, Ref, put_back, pyramid_ref, remove, waste_ref
from ..moves import Kind as MoveKind
from ..rules import Rules, StockModel

Position = tuple[int, tuple[int, ...], tuple[int, ...], int, int, int]
SolverMove = tuple[int, int, int]

REMOVE, DRAW_KIND, RECYCLE_KIND, PUT_BACK_KIND, RETURN_KIND = range(5)
STOCK_REF = -1
NO_CARD = -100

#: ``house`` bits: the three cards went back once / the last move was a draw / no pair made yet;
#: bits 3-5 count draws, capped at 4 (the return-three rule only asks whether there were exactly 3).
HOUSE_RETURNED = 1
HOUSE_LAST_DRAW = 2
HOUSE_NO_PAIR = 4
HOUSE_DRAWS_SHIFT = 3

PAIR_POINTS, KING_POINTS, RECYCLE_POINTS, ROW_POINTS = 20, 10, -10, 10


class _Shape:
    """What a search needs of a pyramid's geometry alone, shared by every table with as many rows."""

    def __init__(self, rows: int) -> None:
        geo = geometry(rows)
        size, cover = geo.size, geo.cover_masks
        self.below = tuple(_cone(cover, size, i) for i in range(size))
        self.related = tuple(
            self.below[i] | sum(1 << j for j in range(size) if self.below[j] >> i & 1) for i in range(size)
        )
        self.above = tuple(self.related[i] & ~self.below[i] | 1 << i for i in range(size))
        #: removed mask -> its free places, and the same as a mask (``Table.free``, ``Table.free_bits``)
        self.free: dict[int, tuple[int, ...]] = {}
        self.free_bits: dict[int, int] = {}
        self.moves: dict[SolverMove, Move] = {}


def _cone(cover: tuple[int, ...], size: int, i: int) -> int:
    """Position i and every position covering it, directly or through others."""
    mask, frontier = 1 << i, cover[i]
    while frontier:
        mask |= frontier
        nxt = 0
        for j in range(size):
            if frontier >> j & 1:
                nxt |= cover[j]
        frontier = nxt & ~mask
    return mask


@cache
def _shape(rows: int) -> _Shape:
    return _Shape(rows)


@cache
def _partnered_by_values(pair_sum: int, king: int) -> dict[int, tuple[int, int]]:
    return {}


class Table:
    """Everything about a deal that never changes during a search, precomputed once."""

    def __init__(self, rules: Rules, pyramid_values: tuple[int, ...]) -> None:
        geo = geometry(rules.rows)
        self.rules = rules
        self.values = pyramid_values
        self.size = geo.size
        self.cover = geo.cover_masks
        self.full = geo.full_mask
        self.row_masks = geo.row_masks
        self.places = geo.places
        self.pair_sum = rules.pair_sum
        self.king = rules.king_value
        self.model = rules.stock_model
        self.stock_top = rules.stock_model is StockModel.STOCK_TOP_AND_WASTE
        self.drawn_model = rules.stock_model is StockModel.DRAWN_AND_WASTE
        self.stock_waste_pairs = rules.stock_waste_pairs
        self.reach = max(1, rules.house_waste_reach)
        self.put_back = rules.house_put_back
        self.return_three = rules.house_return_three
        #: the house rules look back at earlier moves (``house`` in a position: put-back, return-three)
        self.looks_back = rules.house_put_back or rules.house_return_three
        #: the outside cards do not simply keep their order: the house rules, or waste cards that pair
        #: with each other (egyptian and forty-open from rules version 3); the search takes such rules
        #: on its house-rule paths, which assume no more than this
        self.house = self.looks_back or self.reach > 1
        #: a removal takes pyramid cards, the stock top and the waste top, and touches nothing else (``apply``)
        self.top_removals = self.reach == 1 and not self.drawn_model and not self.house
        self.recycles = rules.recycles
        #: what an emptied row scores: ``ROW_POINTS``, or nothing where the rules pay no row bonus
        self.row_points = ROW_POINTS if rules.row_bonus else 0
        #: a draw only when no king or pair can go (forty): draws no longer run freely along a stretch
        self.stuck_draws = rules.draw_only_when_stuck
        #: the game ends, lost, once the pyramid is frozen (``frozen``); else play goes on while a move is left
        self.ends_when_frozen = rules.ends_when_frozen
        shape = _shape(rules.rows)
        #: position i and every position covering it, directly or through others
        self.below = shape.below
        #: positions whose card lies above or below position i (i included): never i's partner
        self.related = shape.related
        #: position i and every position it holds up: none of them can go while i stays
        self.above = shape.above
        self.by_value: dict[int, int] = {}
        for i, v in enumerate(pyramid_values):
            self.by_value[v] = self.by_value.get(v, 0) | 1 << i
        #: pyramid positions that could ever pair with position i (partner value, neither above nor below)
        self.mates = tuple(
            0 if v == self.king else self.by_value.get(self.pair_sum - v, 0) & ~self.related[i]
            for i, v in enumerate(pyramid_values)
        )
        #: the free places of a pyramid depend on its shape alone: every table of this size shares them
        self._free = shape.free
        self._free_bits = shape.free_bits
        #: solver move -> engine move: both name places only, so every table of this size shares them
        self._moves = shape.moves
        #: values present -> (the values with a partner value present, one bit each, and the bag mask
        #: of their nibbles): shared by every table with this pair sum
        self._partnered = _partnered_by_values(rules.pair_sum, rules.king_value)
        self._free_by_value: dict[int, dict[int, tuple[int, ...]]] = {}
        self._values: dict[int, int] = {}
        self._others: dict[int, int] = {}
        self._useful: dict[int, int] = {}
        self._waste_rule: dict[int, tuple[int, int]] = {}

    def free(self, removed: int) -> tuple[int, ...]:
        """The free pyramid positions once ``removed`` are gone (reachable shapes are few: cached)."""
        cached = self._free.get(removed)
        if cached is None:
            cover = self.cover
            cached = tuple(i for i in range(self.size) if not removed >> i & 1 and cover[i] & ~removed == 0)
            self._free[removed] = cached
        return cached

    def free_bits(self, removed: int) -> int:
        """``free(removed)`` as a bit mask (cached)."""
        cached = self._free_bits.get(removed)
        if cached is None:
            cached = self._free_bits[removed] = sum(1 << i for i in self.free(removed))
        return cached

    def present_values(self, removed: int) -> int:
        """The values still in the pyramid once ``removed`` are gone, one bit each (cached)."""
        known = self._values.get(removed)
        if known is None:
            present = self.full & ~removed
            known = 0
            for v, mask in self.by_value.items():
                if mask & present:
                    known |= 1 << v
            self._values[removed] = known
        return known

    def waste_rule(self, removed: int) -> tuple[int, int]:
        """What ``buried`` needs of a pyramid (cached): the values that still have a partner value in
        it, one bit each, and how many of its cards are not kings."""
        known = self._waste_rule.get(removed)
        if known is None:
            partnered = self._partnered_of(self.present_values(removed))[0]
            known = self._waste_rule[removed] = (partnered, self.count_besides_kings(removed))
        return known

    def useful_nibbles(self, removed: int) -> int:
        """A bag mask keeping the values that could still pair with a pyramid card once ``removed``
        are gone: four bits for each value whose partner value is left in the pyramid (cached)."""
        known = self._useful.get(removed)
        if known is None:
            known = self._useful[removed] = self._partnered_of(self.present_values(removed))[1]
        return known

    def _partnered_of(self, values: int) -> tuple[int, int]:
        """``waste_rule``'s and ``useful_nibbles``' answers for the values present (``present_values``)."""
        known = self._partnered.get(values)
        if known is None:
            pair_sum, king = self.pair_sum, self.king
            partnered = sum(1 << v for v in range(1, king) if values >> pair_sum - v & 1)
            useful = sum(15 << 4 * v for v in range(1, king) if partnered >> v & 1)
            known = self._partnered[values] = (partnered, useful)
        return known

    def count_besides_kings(self, removed: int) -> int:
        """How many pyramid cards other than kings are left once ``removed`` are gone (cached)."""
        known = self._others.get(removed)
        if known is None:
            known = self._others[removed] = (self.full & ~removed & ~self.by_value.get(self.king, 0)).bit_count()
        return known

    def rows_emptied(self, before: int, after: int) -> int:
        return sum(1 for mask in self.row_masks if after & mask == mask and before & mask != mask)

    def score(self, position: Position, stock_size: int) -> int:
        """The engine's score of a position: every card gone earns 10 (a pair is two cards, a king one)."""
        removed, stock, waste, drawn, recycles, _ = position
        pyramid_gone = bin(removed).count("1")
        outside_gone = stock_size - len(stock) - len(waste) - (1 if drawn else 0)
        rows = sum(1 for mask in self.row_masks if removed & mask == mask)
        return 10 * (pyramid_gone + outside_gone) + self.row_points * rows - 10 * recycles

    # ------------------------------------------------------------------ rules

    def playable(self, position: Position) -> list[tuple[int, int]]:
        """(place, value) of every card in play, pyramid first, as the engine lists them."""
        removed, stock, waste, drawn, _, _ = position
        values = self.values
        cards = [(i, values[i]) for i in self.free(removed)]
        if self.stock_top:
            if stock:
                cards.append((STOCK_REF, stock[0]))
        elif self.drawn_model and drawn:
            cards.append((STOCK_REF, drawn))
        n = len(waste)
        for depth in range(1, min(self.reach, n) + 1):
            cards.append((-1 - depth, waste[n - depth]))
        return cards

    def removals(self, position: Position, pyramid_pairs: bool = True) -> list[SolverMove]:
        """Every king and pair the rules allow now (without pairs of two pyramid cards if not
        ``pyramid_pairs``)."""
        if self.reach == 1:
            return self._top_removals(position, pyramid_pairs)
        return self._pairwise_removals(position, pyramid_pairs)

    def _pairwise_removals(self, position: Position, pyramid_pairs: bool) -> list[SolverMove]:
        """``removals`` by trying every two cards in play, deep waste cards included."""
        cards = self.playable(position)
        king, pair_sum = self.king, self.pair_sum
        moves: list[SolverMove] = []
        for k, (place, value) in enumerate(cards):
            deep = place < -2
            if value == king and not deep:
                moves.append((REMOVE, place, NO_CARD))
                continue
            want = pair_sum - value
            for other, other_value in cards[k + 1 :]:
                if (
                    other_value == want
                    and (pyramid_pairs or place < 0 or other < 0)
                    and self.pair_allowed(place, other)
                ):
                    moves.append((REMOVE, place, other))
        return moves

    def _top_removals(self, position: Position, pyramid_pairs: bool) -> list[SolverMove]:
        """``removals`` where only the top of the waste plays beside the pyramid (and the stock top
        or the drawn card): the same moves in the same order, the pyramid's partners looked up by
        value instead of by trying every pair."""
        removed, stock, waste, drawn = position[:4]
        king, pair_sum, values = self.king, self.pair_sum, self.values
        by_value = self.free_by_value(removed)
        outside: list[tuple[int, int]] = []
        if self.stock_top:
            if stock:
                outside.append((STOCK_REF, stock[0]))
        elif self.drawn_model and drawn:
            outside.append((STOCK_REF, drawn))
        if waste:
            outside.append((-2, waste[-1]))
        moves: list[SolverMove] = []
        for i in self.free(removed):
            v = values[i]
            if v == king:
                moves.append((REMOVE, i, NO_CARD))
                continue
            want = pair_sum - v
            if pyramid_pairs:
                # free cards come in increasing place: the partners after this one
                for j in by_value.get(want, ()):
                    if j > i:
                        moves.append((REMOVE, i, j))
            for place, value in outside:
                if value == want:
                    moves.append((REMOVE, i, place))
        for k, (place, value) in enumerate(outside):
            if value == king:
                moves.append((REMOVE, place, NO_CARD))
            elif k == 0 and len(outside) == 2 and self.stock_waste_pairs and value + outside[1][1] == pair_sum:
                moves.append((REMOVE, place, outside[1][0]))
        return moves

    def free_by_value(self, removed: int) -> dict[int, tuple[int, ...]]:
        """``free(removed)`` grouped by value, each group in ``free``'s order (cached)."""
        cached = self._free_by_value.get(removed)
        if cached is None:
            values = self.values
            cached = {}
            for i in self.free(removed):
                cached[values[i]] = cached.get(values[i], ()) + (i,)
            self._free_by_value[removed] = cached
        return cached

    def outside_removals(
        self, position: Position, just_drawn: bool = False, by_value: dict[int, tuple[int, ...]] | None = None
    ) -> list[SolverMove]:
        """The removals that use the stock or waste top: what a draw can change (house rules aside).

        ``just_drawn``: the position follows a draw.  Where the stock top plays, its waste top was
        then the stock top at the stop before, and every removal of that card alone or with a
        pyramid card gives the very position the same removal gave there: those are left out.
        ``by_value``: ``free_by_value`` of the position's pyramid, if the caller has it.
        """
        removed, stock, waste, drawn = position[:4]
        king, pair_sum = self.king, self.pair_sum
        if by_value is None:
            by_value = self.free_by_value(removed)
        moves: list[SolverMove] = []
        first = 0
        if self.stock_top:
            first = stock[0] if stock else 0
        elif self.drawn_model:
            first = drawn
        if first:
            if first == king:
                moves.append((REMOVE, STOCK_REF, NO_CARD))
            else:
                for i in by_value.get(pair_sum - first, ()):
                    moves.append((REMOVE, i, STOCK_REF))
        if waste:
            top = waste[-1]
            if not (just_drawn and self.stock_top):
                if top == king:
                    moves.append((REMOVE, -2, NO_CARD))
                else:
                    for i in by_value.get(pair_sum - top, ()):
                        moves.append((REMOVE, i, -2))
            if first and self.stock_waste_pairs and first + top == pair_sum:
                moves.append((REMOVE, STOCK_REF, -2))
        return moves

    def pair_allowed(self, a: int, b: int) -> bool:
        in_waste = (a < -1) + (b < -1)
        if (a < -2 or b < -2) and in_waste != 2:
            return False
        if a < 0 and b < 0:
            return self.stock_waste_pairs or in_waste == 2
        return True

    def other_moves(self, position: Position) -> list[SolverMove]:
        """Draws, recycles and the house rules' put-back and return-three."""
        _, stock, waste, drawn, recycles, house = position
        moves: list[SolverMove] = []
        if stock:
            if not self.stuck_draws or not self.removals(position):
                moves.append((DRAW_KIND, 0, 0))
        elif recycles < self.recycles and (waste or drawn):
            moves.append((RECYCLE_KIND, 0, 0))
        if self.put_back and house & HOUSE_LAST_DRAW and stock:
            card = waste[-1]
            values = self.values
            fellows = sum(1 for i in self.free(position[0]) if values[i] == card)
            if fellows == 3:
                moves.extend((PUT_BACK_KIND, n, 0) for n in range(1, len(stock) + 1))
        if (
            self.return_three
            and not house & HOUSE_RETURNED
            and house & HOUSE_NO_PAIR
            and house >> HOUSE_DRAWS_SHIFT == 3
            and len(waste) == 3
        ):
            moves.append((RETURN_KIND, 0, 0))
        return moves

    def apply(self, position: Position, move: SolverMove) -> Position:
        removed, stock, waste, drawn, recycles, house = position
        kind = move[0]
        if kind == REMOVE and self.top_removals:
            # only the stock top and the waste top can go beside pyramid cards, and nothing looks back
            a, b = move[1], move[2]
            if a >= 0:
                removed |= 1 << a
            if b >= 0:
                removed |= 1 << b
            if a == STOCK_REF or b == STOCK_REF:
                stock = stock[1:]
            if a == -2 or b == -2:
                waste = waste[:-1]
            return (removed, stock, waste, drawn, recycles, house)
        if self.looks_back:
            house &= ~HOUSE_LAST_DRAW
        if kind == REMOVE:
            a, b = move[1], move[2]
            if self.looks_back and b != NO_CARD:
                house &= ~HOUSE_NO_PAIR
            # the deeper waste card first, so that the other's depth still holds
            for place in sorted((a, b)) if b != NO_CARD else (a,):
                if place >= 0:
                    removed |= 1 << place
                elif place == STOCK_REF:
                    if self.drawn_model:
                        drawn = 0
                    else:
                        stock = stock[1:]
                else:
                    cut = len(waste) + place + 1
                    waste = waste[:cut] + waste[cut + 1 :]
            return (removed, stock, waste, drawn, recycles, house)
        if kind == DRAW_KIND:
            if self.looks_back:
                draws = min(4, (house >> HOUSE_DRAWS_SHIFT) + 1)
                house = house & ((1 << HOUSE_DRAWS_SHIFT) - 1) | HOUSE_LAST_DRAW | draws << HOUSE_DRAWS_SHIFT
            if self.drawn_model:
                return (removed, stock[1:], waste + (drawn,) if drawn else waste, stock[0], recycles, house)
            return (removed, stock[1:], waste + stock[:1], drawn, recycles, house)
        if kind == RECYCLE_KIND:
            return (removed, waste + (drawn,) if drawn else waste, (), 0, recycles + 1, house)
        if kind == PUT_BACK_KIND:
            n = move[1]
            return (removed, stock[:n] + waste[-1:] + stock[n:], waste[:-1], drawn, recycles, house)
        return (removed, stock + waste, (), drawn, recycles, house | HOUSE_RETURNED)

    def gain(self, position: Position, move: SolverMove) -> int:
        """What ``move`` adds to the engine's score."""
        kind = move[0]
        if kind == RECYCLE_KIND:
            return RECYCLE_POINTS
        if kind != REMOVE:
            return 0
        removed = position[0]
        after = removed
        for place in move[1:]:
            if place >= 0:
                after |= 1 << place
        points = PAIR_POINTS if move[2] != NO_CARD else KING_POINTS
        return points + self.row_points * self.rows_emptied(removed, after)

    def frozen(self, position: Position) -> bool:
        """The engine's ``Game._frozen``: no free card is a king or has a partner to come."""
        removed, stock, waste, drawn, _, _ = position
        values, king, pair_sum = self.values, self.king, self.pair_sum
        free_values = [values[i] for i in self.free(removed)]
        to_come = set(stock)
        to_come.update(waste)
        if drawn:
            to_come.add(drawn)
        for v in free_values:
            if v == king:
                return False
            partner = pair_sum - v
            if partner in to_come:
                return False
            if partner == v:
                if free_values.count(v) >= 2:
                    return False
            elif partner in free_values:
                return False
        return True

    def ends(self, position: Position) -> bool:
        """The engine ends the game here before looking at moves: the pyramid is cleared, or it is
        frozen where the rules end the game so (one-pass, and every preset under rules version 1)."""
        return position[0] == self.full or self.ends_when_frozen and self.frozen(position)

    def finished(self, position: Position) -> bool:
        """The engine's outcome is no longer in progress: won, frozen (where that ends it) or no move left."""
        if self.ends(position):
            return True
        return not self.removals(position) and not self.other_moves(position)

    # ------------------------------------------------------------------ to and from the engine

    def to_move(self, move: SolverMove) -> Move:
        """The engine's move for ``move``: it names places only, so it needs no position."""
        known = self._moves.get(move)
        if known is None:
            known = self._moves[move] = self._engine_move(move)
        return known

    def _engine_move(self, move: SolverMove) -> Move:
        kind = move[0]
        if kind == DRAW_KIND:
            return DRAW
        if kind == RECYCLE_KIND:
            return RECYCLE
        if kind == PUT_BACK_KIND:
            return put_back(move[1])
        if kind == RETURN_KIND:
            return RETURN_THREE
        return remove(*(self._ref(place) for place in move[1:] if place != NO_CARD))

    def _ref(self, place: int) -> Ref:
        if place >= 0:
            row, col = self.places[place]
            return pyramid_ref(row + 1, col + 1)
        if place == STOCK_REF:
            return STOCK
        return waste_ref(-1 - place)

    def to_moves(self, line: list[SolverMove]) -> tuple[Move, ...]:
        return tuple(self.to_move(move) for move in line)


def table_for(game: Game) -> Table:
    rules = game.rules
    return Table(rules, tuple(rules.value(card.rank) for card in game.deal.pyramid))


def position_of(game: Game) -> Position:
    """The compact position of an engine game (any point of it, not just the start)."""
    rules = game.rules
    value = rules.value
    house = 0
    if rules.house_put_back or rules.house_return_three:
        draws = min(4, sum(1 for move in game.moves if move.kind is MoveKind.DRAW))
        house = draws << HOUSE_DRAWS_SHIFT
        if game.returned_three:
            house |= HOUSE_RETURNED
        if game.moves and game.moves[-1].kind is MoveKind.DRAW:
            house |= HOUSE_LAST_DRAW
        if game.counters.pairs == 0:
            house |= HOUSE_NO_PAIR
    return (
        game.removed,
        tuple(value(card.rank) for card in game.stock),
        tuple(value(card.rank) for card in game.waste),
        value(game.drawn.rank) if game.drawn is not None else 0,
        game.counters.recycles,
        house,
    )
