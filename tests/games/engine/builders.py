"""Deals laid out by hand for rule scenarios: name the cards that matter, the rest follow in deck order."""

from __future__ import annotations

from collections import Counter

from games.engine.cards import full_deck, parse_card
from games.engine.deal import Deal
from games.engine.game import Game
from games.engine.rules import Rules, get_rules


def deal_with(preset: str | Rules, pyramid: str, stock: str = "") -> Deal:
    """A deal whose pyramid is ``pyramid`` (row by row) and whose stock starts with ``stock``."""
    rules = get_rules(preset) if isinstance(preset, str) else preset
    pyramid_cards = [parse_card(word) for word in pyramid.split()]
    stock_cards = [parse_card(word) for word in stock.split()]
    assert len(pyramid_cards) == rules.pyramid_size, f"the pyramid needs {rules.pyramid_size} cards"
    left = Counter(full_deck(rules.ranks, rules.decks))
    left.subtract(pyramid_cards + stock_cards)
    assert all(count >= 0 for count in left.values()), "a card is used more often than the deck holds it"
    rest = [card for card in full_deck(rules.ranks, rules.decks) if left[card] > 0 and not left.subtract([card])]
    return Deal(rules, tuple(pyramid_cards), tuple(stock_cards + rest))


def game_with(preset: str | Rules, pyramid: str, stock: str = "", moves: str = "") -> Game:
    from games.engine.moves import parse_moves

    return Game.replay(deal_with(preset, pyramid, stock), parse_moves(moves))
