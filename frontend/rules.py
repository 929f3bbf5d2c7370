"""A preset's rules page, written from the engine's rule set itself (games/engine/rules.py), so the
text says what the engine does: each sentence follows a field of ``Rules``; and a small drawing of
the layout (the pyramid's rows, face-down rows shaded, the stock and the cards in play beside it)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.engine import Rules, StockModel
from games.engine.rules import FULL_RANKS, NEIGHBOURS, SHORT_RANKS
from games.engine.scoring import KING_POINTS, PAIR_POINTS, RECYCLE_POINTS, ROW_POINTS

#: The drawing's card size and gaps, in SVG units.
CARD_W, CARD_H, GAP, ROW_STEP = 18, 26, 4, 15


def rules_sentences(rules: Rules) -> list[str]:
    """The rules of ``rules``, one sentence per paragraph, in the active language."""
    values = {"sum": rules.pair_sum, "rows": rules.rows, "pyramid": rules.pyramid_size, "stock": rules.stock_size}
    said: list[str] = []
    if rules.ranks == FULL_RANKS and rules.decks == 1:
        said.append(_("One 52-card deck. Ace counts 1, number cards their number, jack 11, queen 12, king 13."))
    elif rules.ranks == FULL_RANKS and rules.decks == 2:
        said.append(
            _(
                "Two 52-card decks shuffled together: 104 cards, every card twice. Ace counts 1, number cards their number, jack 11, queen 12, king 13."
            )
        )
    elif rules.ranks == SHORT_RANKS and rules.decks == 1:
        said.append(
            _(
                "A 40-card deck: a 52-card deck without the 8s, 9s and 10s. Ace counts 1, number cards their number, jack 8, queen 9, king 10."
            )
        )
    else:
        said.append(_("A deck of %(cards)s cards.") % {"cards": rules.deck_size})
    said.append(
        _("The pyramid has %(rows)s rows, %(pyramid)s cards; the other %(stock)s cards make the stock.") % values
    )
    if rules.face_down:
        said.append(
            _(
                "Every row but the base is dealt face down; a card turns face up when the two cards resting on it are gone."
            )
        )
    else:
        said.append(_("Every card of the pyramid lies face up."))
    said.append(
        _(
            "A pyramid card is free once the two cards resting on it are gone. Two cards in play whose values "
            "make %(sum)s leave together; a king counts %(sum)s and leaves alone."
        )
        % values
    )
    if rules.stock_model is StockModel.STOCK_TOP_AND_WASTE:
        said.append(
            _(
                "The top card of the stock lies face up and is in play, and so is the top card of the waste; "
                "the two may pair with each other. A draw moves the stock's top card onto the waste."
            )
        )
    elif rules.stock_model is StockModel.DRAWN_AND_WASTE:
        said.append(
            _(
                "You draw one card at a time: the card just drawn is in play, and so is the top card of the waste; "
                "the two may pair with each other. At the next draw an unused card goes onto the waste."
            )
        )
    else:
        said.append(
            _(
                "Drawn cards go straight onto the waste, one at a time; only the top card of the waste plays with the pyramid."
            )
        )
    if rules.draw_only_when_stuck:
        said.append(_("You may draw only when nothing can be removed: no king and no pair among the cards in play."))
    if rules.recycle_needs_removal:
        said.append(
            _(
                "Once the stock is empty, the waste may be turned back into it, in the same order, as often as you "
                "like, provided a card was removed since the last time (or since the start): a pass that removed "
                "nothing would only deal the same cards again."
            )
        )
    elif rules.recycles:
        said.append(
            ngettext(
                "%(passes)s passes through the stock: once it is empty, the waste may be turned back into it, in the same order, %(recycles)s time.",
                "%(passes)s passes through the stock: once it is empty, the waste may be turned back into it, in the same order, %(recycles)s times.",
                rules.recycles,
            )
            % {"passes": rules.passes, "recycles": rules.recycles}
        )
    else:
        said.append(_("One pass through the stock: the waste is never turned back."))
    if rules.house_waste_reach == NEIGHBOURS:
        said.append(
            _("The two top cards of the waste may also pair with each other: the second pairs with the top card only.")
        )
    elif rules.house_waste_reach:
        said.append(
            _(
                "House rule: two cards among the top %(reach)s of the waste may pair with each other; the cards between them stay."
            )
            % {"reach": rules.house_waste_reach}
        )
    if rules.house_put_back:
        said.append(
            _(
                "House rule: when the card just drawn is the last of its rank and the other three lie free in the "
                "pyramid, you may put it back into the stock, under one or more of its cards."
            )
        )
    if rules.house_return_three:
        said.append(
            _(
                "House rule: once a game, if the first three cards drawn made no pair, you may put them back under the stock."
            )
        )
    said.append(_("You win the moment the pyramid is empty, whatever is left in the stock and the waste."))
    if rules.recycle_needs_removal:
        said.append(
            _(
                "The game is lost once the stock is through and no card can be removed, now or in another pass "
                "through the stock. Once the pyramid can no longer be cleared you are told so, and may end the "
                "game there or play on for the points still to be had."
            )
        )
    elif rules.ends_when_frozen:
        said.append(
            _(
                "The game is lost when no move is left, or as soon as no free pyramid card is a king or can pair "
                "with a free card or with any card still to come."
            )
        )
    else:
        said.append(
            _(
                "The game is lost only when no move at all is left. Once the pyramid can no longer be cleared you "
                "are told so, and may end the game there or play on for the points still to be had."
            )
        )
    points = {"pair": PAIR_POINTS, "king": KING_POINTS, "row": ROW_POINTS, "recycle": -RECYCLE_POINTS}
    if rules.row_bonus:
        scoring = (
            _("Points: +%(pair)s for each pair, +%(king)s for each king, +%(row)s for each row of the pyramid emptied")
            % points
        )
    else:
        scoring = _("Points: +%(pair)s for each pair, +%(king)s for each king") % points
    if rules.recycles:
        scoring = _("%(scoring)s, −%(recycle)s each time the waste is turned back") % {**points, "scoring": scoring}
    said.append(_("%(scoring)s. You may give up at any time and keep the points made.") % {"scoring": scoring})
    return said


def layout_drawing(rules: Rules) -> dict[str, Any]:
    """The geometry of an inline SVG of the layout: pyramid cards (face down or up), the stock, the
    card drawn or face up on it when that is in play, and the waste cards in play."""
    width = rules.rows * (CARD_W + GAP)
    cards = []
    for row in range(rules.rows):
        left = (width - (row + 1) * (CARD_W + GAP)) / 2
        face_down = rules.face_down and row < rules.rows - 1
        for column in range(row + 1):
            cards.append(
                {"x": round(left + column * (CARD_W + GAP) + GAP / 2, 1), "y": row * ROW_STEP, "down": face_down}
            )
    top = (rules.rows - 1) * ROW_STEP + CARD_H + 12

    def pile(x: float, label: str) -> dict[str, Any]:
        return {"x": x, "y": top, "down": not label, "label": label, "tx": x + CARD_W / 2, "ty": top + CARD_H / 2 + 4}

    piles = [pile(GAP / 2, "")]
    if rules.stock_model is not StockModel.WASTE_ONLY:
        piles.append(pile(GAP / 2 + CARD_W + GAP, "S"))
    waste_at = GAP / 2 + 3 * (CARD_W + GAP)
    in_waste = max(1, rules.house_waste_reach)
    for depth in range(in_waste):
        piles.append(pile(waste_at + depth * (CARD_W + GAP), "W" if depth == 0 else f"W{depth + 1}"))
    return {
        "width": max(width, waste_at + in_waste * (CARD_W + GAP)),
        "height": top + CARD_H + 2,
        "card_w": CARD_W,
        "card_h": CARD_H,
        "cards": cards,
        "piles": piles,
    }
