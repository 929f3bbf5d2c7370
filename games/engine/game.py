"""The game value: a position reached from a deal, its legal moves, outcome, score and public view.

A ``Game`` is immutable: ``apply`` returns the next one.  It is rebuilt from its deal and its
move list alone (``replay``), which is how the service keeps games and recomputes scores.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from enum import Enum
from functools import cached_property
from typing import Any

from .cards import Card
from .deal import Deal, deal_from_seed
from .geometry import Geometry, geometry
from .moves import (
    DRAW,
    RECYCLE,
    RETURN_THREE,
    STOCK,
    Kind,
    Move,
    Place,
    Ref,
    put_back,
    pyramid_ref,
    remove,
    waste_ref,
)
from .rules import Rules, StockModel, get_rules
from .scoring import Counters


class IllegalMoveError(ValueError):
    """A move the rules refuse; the message says why, in words a player reads."""


class Outcome(Enum):
    IN_PROGRESS = "in_progress"
    WON = "won"
    LOST = "lost"


def _plural(count: int, word: str, words: str = "") -> str:
    return f"{count} {word}" if count == 1 else f"{count} {words or word + 's'}"


@dataclass(frozen=True)
class Game:
    deal: Deal
    #: bit i set: pyramid position i is gone
    removed: int = 0
    #: cards still to draw, the next one first (in ``STOCK_TOP_AND_WASTE`` the first lies face up)
    stock: tuple[Card, ...] = ()
    #: the waste from its bottom to its top
    waste: tuple[Card, ...] = ()
    #: ``DRAWN_AND_WASTE`` only: the card in play from the last draw
    drawn: Card | None = None
    counters: Counters = field(default_factory=Counters)
    returned_three: bool = False
    moves: tuple[Move, ...] = ()

    # ----------------------------------------------------------------- building

    @classmethod
    def start(cls, deal: Deal) -> Game:
        return cls(deal=deal, stock=deal.stock)

    @classmethod
    def from_seed(cls, preset: str, seed: int) -> Game:
        return cls.start(deal_from_seed(get_rules(preset), seed))

    @classmethod
    def replay(cls, deal: Deal, moves: Iterable[Move]) -> Game:
        """The game after ``moves``; raises IllegalMoveError naming the first move that fails (1-based)."""
        game = cls.start(deal)
        for number, move in enumerate(moves, start=1):
            try:
                game = game.apply(move)
            except IllegalMoveError as error:
                raise IllegalMoveError(f"move {number} ({move}): {error}") from None
        return game

    # ----------------------------------------------------------------- looking

    @property
    def rules(self) -> Rules:
        return self.deal.rules

    @property
    def geometry(self) -> Geometry:
        return geometry(self.rules.rows)

    @property
    def score(self) -> int:
        return self.counters.points(self.rules.row_bonus)

    @property
    def recycles_left(self) -> int:
        return self.rules.recycles - self.counters.recycles

    def is_free(self, index: int) -> bool:
        return not self.removed >> index & 1 and self.geometry.cover_masks[index] & ~self.removed == 0

    def is_face_up(self, index: int) -> bool:
        return not self.rules.face_down or self.is_free(index)

    def free_positions(self) -> list[int]:
        removed, masks = self.removed, self.geometry.cover_masks
        return [i for i in range(len(masks)) if not removed >> i & 1 and masks[i] & ~removed == 0]

    @property
    def stock_card(self) -> Card | None:
        """The card that ``S`` names: the face-up stock top, or the drawn card."""
        model = self.rules.stock_model
        if model is StockModel.STOCK_TOP_AND_WASTE:
            return self.stock[0] if self.stock else None
        if model is StockModel.DRAWN_AND_WASTE:
            return self.drawn
        return None

    def _playable(self) -> list[tuple[Ref, Card]]:
        places = self.geometry.places
        cards: list[tuple[Ref, Card]] = [
            (pyramid_ref(places[i][0] + 1, places[i][1] + 1), self.deal.pyramid[i]) for i in self.free_positions()
        ]
        stock_card = self.stock_card
        if stock_card is not None:
            cards.append((STOCK, stock_card))
        reach = max(1, self.rules.house_waste_reach)
        for depth in range(1, min(reach, len(self.waste)) + 1):
            cards.append((waste_ref(depth), self.waste[-depth]))
        return cards

    # ----------------------------------------------------------------- moves

    @cached_property
    def _removals(self) -> tuple[tuple[Move, tuple[Card, ...]], ...]:
        """Every king and pair the rules allow now, each with its cards."""
        rules = self.rules
        value = rules.value
        playable = self._playable()
        removals: list[tuple[Move, tuple[Card, ...]]] = []
        for i, (ref, card) in enumerate(playable):
            deep = ref.place is Place.WASTE and ref.depth > 1
            if value(card.rank) == rules.king_value and not deep:
                removals.append((remove(ref), (card,)))
                continue
            for other_ref, other in playable[i + 1 :]:
                if value(card.rank) + value(other.rank) != rules.pair_sum:
                    continue
                if self._pair_refusal(ref, other_ref) is None:
                    removals.append((remove(ref, other_ref), (card, other)))
        return tuple(removals)

    def _candidate_moves(self) -> list[Move]:
        """Every legal move, ignoring whether the game has already ended."""
        moves: list[Move] = [move for move, _ in self._removals]
        if self._draw_refusal() is None:
            moves.append(DRAW)
        if self._recycle_refusal() is None:
            moves.append(RECYCLE)
        if self._put_back_refusal(1) is None:
            moves.extend(put_back(n) for n in range(1, len(self.stock) + 1))
        if self._return_three_refusal() is None:
            moves.append(RETURN_THREE)
        return moves

    @cached_property
    def _candidates(self) -> tuple[Move, ...]:
        return tuple(self._candidate_moves())

    def legal_moves(self) -> list[Move]:
        if self.outcome is not Outcome.IN_PROGRESS:
            return []
        return list(self._candidates)

    def apply(self, move: Move) -> Game:
        """The game after ``move``, or IllegalMoveError with the reason; ``self`` never changes."""
        if self.outcome is not Outcome.IN_PROGRESS:
            raise IllegalMoveError(f"the game is over: {self.outcome_reason}")
        if move.kind is Kind.REMOVE:
            return self._apply_remove(move)
        if move.kind is Kind.DRAW:
            refusal = self._draw_refusal()
        elif move.kind is Kind.RECYCLE:
            refusal = self._recycle_refusal()
        elif move.kind is Kind.PUT_BACK:
            refusal = self._put_back_refusal(move.count)
        else:
            refusal = self._return_three_refusal()
        if refusal is not None:
            raise IllegalMoveError(refusal)
        moves = self.moves + (move,)
        if move.kind is Kind.DRAW:
            return self._after_draw(moves)
        if move.kind is Kind.RECYCLE:
            stock = self.waste + ((self.drawn,) if self.drawn is not None else ())
            return replace(self, stock=stock, waste=(), drawn=None, moves=moves, counters=self.counters.add(recycles=1))
        if move.kind is Kind.PUT_BACK:
            card = self.waste[-1]
            stock = self.stock[: move.count] + (card,) + self.stock[move.count :]
            return replace(self, stock=stock, waste=self.waste[:-1], moves=moves)
        return replace(self, stock=self.stock + self.waste, waste=(), returned_three=True, moves=moves)

    def _after_draw(self, moves: tuple[Move, ...]) -> Game:
        if self.rules.stock_model is StockModel.DRAWN_AND_WASTE:
            waste = self.waste + ((self.drawn,) if self.drawn is not None else ())
            return replace(self, stock=self.stock[1:], waste=waste, drawn=self.stock[0], moves=moves)
        return replace(self, stock=self.stock[1:], waste=self.waste + self.stock[:1], moves=moves)

    def _draw_refusal(self) -> str | None:
        if self.stock:
            if self.rules.draw_only_when_stuck and self._removals:
                move, cards = self._removals[0]
                if len(cards) == 1:
                    can = f"{cards[0].label} ({move}) counts {self.rules.king_value} and leaves alone"
                else:
                    can = f"{cards[0].label} + {cards[1].label} ({move}) make {self.rules.pair_sum}"
                return f"you may draw only when nothing can be removed: {can}"
            return None
        recycle = self._recycle_refusal()
        if recycle is None:
            return "the stock is empty: turn the waste over with R"
        if self.rules.recycle_needs_removal and (self.waste or self.drawn is not None):
            return f"the stock is empty and {recycle}"
        return "the stock is empty and no redeal is left"

    def _recycle_refusal(self) -> str | None:
        if self.stock:
            return f"the stock still has {_plural(len(self.stock), 'card')}: draw them first"
        if self.recycles_left <= 0:
            return f"no redeal is left: {self.rules.name} allows {_plural(self.rules.passes, 'pass', 'passes')} through the stock"
        if not self.waste and self.drawn is None:
            return "the waste is empty: there is nothing to turn over"
        if self.rules.recycle_needs_removal and not self.removed_this_pass:
            return "this pass through the stock removed no card: another would deal the same cards again"
        return None

    @cached_property
    def removed_this_pass(self) -> bool:
        """A card has been removed since the last recycle (or the start): what
        ``Rules.recycle_needs_removal`` asks of a recycle."""
        for move in reversed(self.moves):
            if move.kind is Kind.REMOVE:
                return True
            if move.kind is Kind.RECYCLE:
                return False
        return False

    def _put_back_refusal(self, count: int) -> str | None:
        rules = self.rules
        if not rules.house_put_back:
            return f"{rules.name} has no put-back rule"
        if not self.moves or self.moves[-1].kind is not Kind.DRAW:
            return "only the card just drawn can go back into the stock"
        card = self.waste[-1]
        fellows = sum(1 for i in self.free_positions() if self.deal.pyramid[i].rank == card.rank)
        if fellows != 3:
            return f"{card.label} may go back only while the other three of its rank lie free in the pyramid"
        if not self.stock:
            return "the stock is empty: there is nothing to put the card under"
        if not 1 <= count <= len(self.stock):
            return (
                f"the stock has {_plural(len(self.stock), 'card')}: put the card under 1 to {len(self.stock)} of them"
            )
        return None

    def _return_three_refusal(self) -> str | None:
        rules = self.rules
        if not rules.house_return_three:
            return f"{rules.name} has no rule for returning the first three cards"
        if self.returned_three:
            return "the first three cards have already gone back once"
        draws = sum(1 for move in self.moves if move.kind is Kind.DRAW)
        if draws != 3 or self.counters.pairs or len(self.waste) != 3:
            return "the three cards go back only right after the first three draws, before any pair is made"
        return None

    def _locate(self, ref: Ref) -> Card:
        """The card at ``ref`` if it is in play now, else IllegalMoveError."""
        rules = self.rules
        if ref.place is Place.PYRAMID:
            if ref.row > rules.rows:
                raise IllegalMoveError(f"there is no {ref}: the pyramid has {rules.rows} rows")
            index = self.geometry.index(ref.row - 1, ref.col - 1)
            if self.removed >> index & 1:
                raise IllegalMoveError(f"the card at {ref} is already gone")
            covering = bin(self.geometry.cover_masks[index] & ~self.removed).count("1")
            if covering:
                name = f"the face-down card at {ref}" if not self.is_face_up(index) else self.deal.pyramid[index].label
                raise IllegalMoveError(f"{name} is covered by {_plural(covering, 'card')}")
            return self.deal.pyramid[index]
        if ref.place is Place.STOCK:
            model = rules.stock_model
            if model is StockModel.WASTE_ONLY:
                raise IllegalMoveError(f"in {rules.name} a drawn card goes to the waste: play it as W")
            card = self.stock_card
            if card is None:
                raise IllegalMoveError(
                    "the stock is empty" if model is StockModel.STOCK_TOP_AND_WASTE else "draw a card first (D)"
                )
            return card
        reach = max(1, rules.house_waste_reach)
        if ref.depth > reach:
            if reach == 1:
                raise IllegalMoveError("only the top card of the waste (W) is in play")
            raise IllegalMoveError(f"only the top {reach} cards of the waste (W to W{reach}) are in play")
        if len(self.waste) < ref.depth:
            if not self.waste:
                raise IllegalMoveError("the waste is empty")
            raise IllegalMoveError(f"the waste holds only {_plural(len(self.waste), 'card')}")
        return self.waste[-ref.depth]

    def _pair_refusal(self, first: Ref, second: Ref) -> str | None:
        """Why two cards in play may not pair whatever their values, or None."""
        places = {first.place, second.place}
        deep = [ref for ref in (first, second) if ref.place is Place.WASTE and ref.depth > 1]
        if deep and places != {Place.WASTE}:
            return f"{deep[0]} pairs only with another waste card"
        if Place.PYRAMID not in places and not (self.rules.stock_waste_pairs or places == {Place.WASTE}):
            return f"in {self.rules.name} every pair needs a pyramid card"
        return None

    def _apply_remove(self, move: Move) -> Game:
        rules = self.rules
        if not move.refs or len(move.refs) > 2 or len(set(move.refs)) != len(move.refs):
            raise IllegalMoveError("a move removes one king or two different cards")
        cards = [self._locate(ref) for ref in move.refs]
        values = [rules.value(card.rank) for card in cards]
        if len(cards) == 1:
            if move.refs[0].place is Place.WASTE and move.refs[0].depth > 1:
                raise IllegalMoveError(f"{move.refs[0]} pairs only with another waste card")
            if values[0] != rules.king_value:
                raise IllegalMoveError(
                    f"{cards[0].label} counts {values[0]}: only a king leaves alone; pair it to make {rules.pair_sum}"
                )
        else:
            refusal = self._pair_refusal(*move.refs)
            if refusal is not None:
                raise IllegalMoveError(refusal)
            if sum(values) != rules.pair_sum:
                raise IllegalMoveError(f"{cards[0].label} + {cards[1].label} is {sum(values)}, not {rules.pair_sum}")
        removed, stock, waste, drawn = self.removed, self.stock, list(self.waste), self.drawn
        for ref in sorted(move.refs, key=lambda ref: -ref.depth):
            if ref.place is Place.PYRAMID:
                removed |= 1 << self.geometry.index(ref.row - 1, ref.col - 1)
            elif ref.place is Place.STOCK:
                if rules.stock_model is StockModel.DRAWN_AND_WASTE:
                    drawn = None
                else:
                    stock = stock[1:]
            else:
                del waste[-ref.depth]
        rows_emptied = sum(
            1 for mask in self.geometry.row_masks if removed & mask == mask and self.removed & mask != mask
        )
        counters = self.counters.add(
            pairs=1 if len(cards) == 2 else 0, kings=1 if len(cards) == 1 else 0, rows=rows_emptied
        )
        normalised = remove(*move.refs)
        return replace(
            self,
            removed=removed,
            stock=stock,
            waste=tuple(waste),
            drawn=drawn,
            counters=counters,
            moves=self.moves + (normalised,),
        )

    # ----------------------------------------------------------------- outcome

    @cached_property
    def _status(self) -> tuple[Outcome, str]:
        if self.removed == self.geometry.full_mask:
            return Outcome.WON, "the pyramid is cleared"
        if self.rules.ends_when_frozen and self._frozen:
            return Outcome.LOST, "no free pyramid card can ever be removed: nothing still to come pairs with one"
        can_turn_stock = self._draw_refusal() is None or self._recycle_refusal() is None
        if not can_turn_stock and not self._candidates:
            if self.rules.recycle_needs_removal and not self.stock and (self.waste or self.drawn is not None):
                return Outcome.LOST, "no card can be removed, and this pass through the stock removed none"
            return Outcome.LOST, "no move is left"
        if self.rules.recycle_needs_removal and not self.stock and not self._removals and self._deck_dead:
            return Outcome.LOST, "the stock is through and no pair is left between the free cards and the deck"
        return Outcome.IN_PROGRESS, "the game goes on"

    @cached_property
    def _deck_dead(self) -> bool:
        """With the stock through (``STOCK_TOP_AND_WASTE``): no pass could ever remove a card again.

        While nothing is removed the next pass deals the waste again in the same order, each card
        face up on the stock with the one before it on the waste top.  So a pass can remove a card
        only if a deck card is a king, pairs with a free pyramid card, or pairs with its neighbour in
        that order; without one the pass ends where it began, and so does every pass after it.
        (Pairs of two free pyramid cards, and the waste top, are the removals of now.)
        """
        rules = self.rules
        values, pair_sum = rules.values, rules.pair_sum
        deck = [values[card.rank] for card in self.waste]
        free = {values[self.deal.pyramid[i].rank] for i in self.free_positions()}
        for before, v in zip([0] + deck, deck):
            if v == rules.king_value or pair_sum - v in free or before + v == pair_sum:
                return False
        return True

    @property
    def outcome(self) -> Outcome:
        return self._status[0]

    @property
    def outcome_reason(self) -> str:
        return self._status[1]

    @cached_property
    def pyramid_clearable(self) -> bool:
        """False once what the table shows proves that the pyramid can never be cleared.

        Under rules that play on past that point (every preset but one-pass since rules version 2)
        the player is told at once and may resign there, keeping the points, or go on collecting
        them.  It reads only what a player can know: the face-up cards, the waste, and the values of
        the unseen cards as a whole (the deck less every card seen), never where an unseen card lies.
        So it is sound (a pyramid it calls unclearable is) but not complete: an order of the stock
        that still dooms the game is not looked at.  The pyramid cannot be cleared when

        - it is frozen: no free card is a king or pairs with a free card or a card still to come; or
        - a face-up card other than a king has no partner left that could ever take it: no card of
          the partner value outside the pyramid (the waste's cards buried for good in the last pass
          left out) and none in the pyramid but those it covers or that cover it.
        """
        geo = self.geometry
        removed = self.removed
        if removed == geo.full_mask:
            return True
        rules, pyramid, covers = self.rules, self.deal.pyramid, geo.cover_masks
        values, pair_sum, king = rules.values, rules.pair_sum, rules.king_value
        face_down = rules.face_down
        # the cards no player has seen (the stock, face-down pyramid cards), by value alone
        unseen = [0] * (pair_sum + 1)
        for card in self.stock:
            unseen[values[card.rank]] += 1
        face_up: list[int] = []
        for i in range(geo.size):
            if removed >> i & 1:
                continue
            if face_down and covers[i] & ~removed:
                unseen[values[pyramid[i].rank]] += 1
            else:
                face_up.append(i)
        drawn = values[self.drawn.rank] if self.drawn is not None else 0
        if self._frozen_as_seen(unseen, drawn):
            return False
        outside = unseen[:]
        for card in self._waste_in_reach(face_up, unseen, drawn):
            outside[values[card.rank]] += 1
        if drawn:
            outside[drawn] += 1
        related = geo.related_masks
        for i in face_up:
            v = values[pyramid[i].rank]
            if v == king:
                continue
            partner = pair_sum - v
            if outside[partner]:
                continue
            unrelated = ~related[i] & ~(1 << i)
            if not any(values[pyramid[j].rank] == partner for j in face_up if unrelated >> j & 1):
                return False
        return True

    def _frozen_as_seen(self, unseen: list[int], drawn: int) -> bool:
        """``_frozen`` as the player can tell it: every unseen card (``unseen``, by value) may be
        still to come, a face-down pyramid card as much as a stock card."""
        values, pair_sum = self.rules.values, self.rules.pair_sum
        free_values = Counter(values[self.deal.pyramid[i].rank] for i in self.free_positions())
        to_come = {values[card.rank] for card in self.waste} | {v for v, count in enumerate(unseen) if count} | {drawn}
        for v in free_values:
            partner = pair_sum - v
            if v == pair_sum or free_values[partner] > (partner == v) or partner in to_come:
                return False
        return True

    def _waste_in_reach(self, face_up: list[int], unseen: list[int], drawn: int) -> tuple[Card, ...]:
        """The waste less the cards buried for good: with no recycle left and only the top in play
        (no house waste pairs), a card that nothing left can take never leaves, nor do those under it.
        ``unseen`` counts the unseen cards by value."""
        rules = self.rules
        if self.recycles_left > 0 or rules.house_waste_reach > 1 or not self.waste:
            return self.waste
        values, pair_sum = rules.values, rules.pair_sum
        in_pyramid = {values[self.deal.pyramid[i].rank] for i in face_up}
        if rules.face_down:
            # a face-down card may be any unseen value
            in_pyramid.update(v for v, count in enumerate(unseen) if count)
        for depth in range(len(self.waste) - 1, -1, -1):
            v = values[self.waste[depth].rank]
            if v == rules.king_value:
                continue
            partner = pair_sum - v
            if partner in in_pyramid or rules.stock_waste_pairs and (unseen[partner] or drawn == partner):
                continue
            return self.waste[depth + 1 :]
        return self.waste

    @cached_property
    def _frozen(self) -> bool:
        """True when no free pyramid card is a king or has a partner among the free cards or the cards to come.

        The pyramid only changes when a free card leaves, and the free cards only change when the
        pyramid does, so such a pyramid can never change again.  Every stock and waste card counts as
        still to come, which over-counts (a waste card may stay buried) and so never ends a live game.
        """
        rules = self.rules
        values, pair_sum = rules.values, rules.pair_sum
        free_values = Counter(values[self.deal.pyramid[i].rank] for i in self.free_positions())
        lonely = []
        for v in free_values:
            partner = pair_sum - v
            if v == pair_sum or free_values[partner] > (partner == v):
                return False
            lonely.append(partner)
        to_come = self.stock + self.waste + ((self.drawn,) if self.drawn is not None else ())
        return not any(values[card.rank] in lonely for card in to_come)

    # ----------------------------------------------------------------- the player's view

    def visible(self) -> dict[str, Any]:
        """Exactly what a player at the table sees: face-down and undrawn cards only as counts.

        The whole waste is shown: every card in it was drawn face up in front of the player.
        """
        rules = self.rules
        geo = self.geometry
        removed, covers, pyramid, hidden = self.removed, geo.cover_masks, self.deal.pyramid, rules.face_down
        rows: list[list[dict[str, Any] | None]] = []
        face_down = 0
        i = 0  # positions count row by row from the apex
        for r in range(rules.rows):
            row: list[dict[str, Any] | None] = []
            for _ in range(r + 1):
                if removed >> i & 1:
                    row.append(None)
                else:
                    free = covers[i] & ~removed == 0
                    if free or not hidden:
                        row.append({"card": str(pyramid[i]), "free": free})
                    else:
                        face_down += 1
                        row.append({"face_down": True, "free": False})
                i += 1
            rows.append(row)
        top = self.stock[0] if rules.stock_model is StockModel.STOCK_TOP_AND_WASTE and self.stock else None
        return {
            "preset": rules.name,
            "rows": rows,
            "face_down": face_down,
            "stock": {"count": len(self.stock), "top": str(top) if top else None},
            "drawn": str(self.drawn) if self.drawn else None,
            "waste": [str(card) for card in self.waste],
            # how many waste cards, from the top, are in play (W, W2, ...): the rules version says
            "waste_in_play": max(1, rules.house_waste_reach),
            "recycles_left": self.recycles_left,
            # unlimited: redeals need only a removal in the pass before (docs/rules.md, `unlimited`)
            "recycles_unlimited": rules.recycle_needs_removal,
            "moves": len(self.moves),
            "score": self.score,
            "counters": self.counters.as_dict(),
            "pyramid_left": geo.size - bin(self.removed).count("1"),
            "outcome": self.outcome.value,
            "reason": self.outcome_reason,
            "pyramid_clearable": self.pyramid_clearable,
            "legal_moves": [str(move) for move in self.legal_moves()],
        }
