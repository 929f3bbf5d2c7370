"""Deals laid out by hand for rule scenarios: name the cards that matter, the rest follow in deck order."""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterator

from games.engine.cards import full_deck, parse_card
from games.engine.deal import Deal
from games.engine.game import Game
from games.engine.rules import Rules, StockModel, get_rules


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


# ----------------------------------------------------------------- small random deals, for brute force


def tiny_rules(
    prefix: str, model: StockModel, passes: int, rows: int, ranks: tuple[int, ...], pair_sum: int, **flags: bool | int
) -> Rules:
    """A small variant (few rows, few ranks, one deck) that exhaustive search can take whole."""
    return Rules(f"{prefix}-{model.value}-{passes}", ranks, 1, rows, pair_sum, passes, model, **flags)  # type: ignore[arg-type]


STOCK_TOP = StockModel.STOCK_TOP_AND_WASTE
DRAWN = StockModel.DRAWN_AND_WASTE
WASTE = StockModel.WASTE_ONLY
HOUSE = {"house_put_back": True, "house_waste_reach": 4, "house_return_three": True}


def variants(tagged: list[tuple[str, Rules]]) -> dict[str, Rules]:
    """Small variants by a name that says their rules (``waste-only-2p-3r-3x4-house``), for test ids."""
    return {
        f"{rules.stock_model.value}-{rules.passes}p-{rules.rows}r-{len(rules.ranks)}x{rules.pair_sum}{tag}": rules
        for tag, rules in tagged
    }


#: What a small variant's name says of its size: passes, rows, ranks (``variants``).
_SIZE = re.compile(r"-(\d+)p-(\d+)r-(\d+)x\d+")


def sweep_is_slow(name: str) -> bool:
    """Whether a brute-force sweep's variant is one of the larger boards, left to the slow lane
    (tests/conftest.py).  The fast lane keeps every rule family on three rows of at most four
    ranks and at most two passes (a pass "until no removal", which ``recycle_needs_removal``
    variants count as 13 or 17, included): those take a few seconds a sweep; three passes, four
    rows or five ranks took from about three to nine times as long a test (the fast lane's
    durations), and run in the slow lane, which CI runs."""
    size = _SIZE.search(name)
    if size is None:
        return False
    passes, rows, ranks = (int(group) for group in size.groups())
    return rows > 3 or ranks > 4 or (passes == 3)


def random_deal(rules: Rules, rng: random.Random) -> Deal:
    cards = list(full_deck(rules.ranks, rules.decks))
    rng.shuffle(cards)
    return Deal(rules, tuple(cards[: rules.pyramid_size]), tuple(cards[rules.pyramid_size :]))


def random_midgame(deal: Deal, rng: random.Random, most_moves: int) -> Game:
    """The deal after fewer than ``most_moves`` random legal moves."""
    game = Game.start(deal)
    for _ in range(rng.randrange(most_moves)):
        moves = game.legal_moves()
        if not moves:
            break
        game = game.apply(rng.choice(moves))
    return game


def random_games(
    rules: Rules, rng: random.Random, deals: int, *, midgame_share: float, most_moves: int
) -> Iterator[Game]:
    """Random games of a small variant: ``deals`` of them (a third as many over sixteen cards or more,
    which have ten times the positions), each at its start or, ``midgame_share`` of the time, after
    fewer than ``most_moves`` random legal moves."""
    for _ in range(max(1, deals if rules.deck_size < 16 else deals // 3)):
        deal = random_deal(rules, rng)
        yield random_midgame(deal, rng, most_moves) if rng.random() < midgame_share else Game.start(deal)
