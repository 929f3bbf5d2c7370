"""Deals: a seeded, platform-independent shuffle and the one-line deal text (docs/formats.md)."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from .cards import Card, NotationError, full_deck, parse_card
from .rules import Rules

SEED_LIMIT = 2**64
SHUFFLE_DOMAIN = b"piramide-shuffle-v1"


@dataclass(frozen=True, slots=True)
class Deal:
    """The pyramid row by row from the apex, then the stock from the first card drawn to the last."""

    rules: Rules
    pyramid: tuple[Card, ...]
    stock: tuple[Card, ...]

    def __str__(self) -> str:
        return " ".join(str(card) for card in self.pyramid + self.stock)


def _random_words(preset: str, seed: int) -> Iterator[int]:
    """SHA-256 in counter mode: an endless stream of 64-bit words fixed by (preset, seed)."""
    prefix = SHUFFLE_DOMAIN + b"\x00" + preset.encode("ascii") + b"\x00" + seed.to_bytes(8, "big")
    counter = 0
    while True:
        block = hashlib.sha256(prefix + counter.to_bytes(8, "big")).digest()
        for offset in range(0, 32, 8):
            yield int.from_bytes(block[offset : offset + 8], "big")
        counter += 1


def _below(words: Iterator[int], bound: int) -> int:
    """A uniform integer in [0, bound), by rejection so that no value is favoured."""
    limit = SEED_LIMIT - SEED_LIMIT % bound
    while True:
        word = next(words)
        if word < limit:
            return word % bound


def shuffled_deck(rules: Rules, seed: int) -> list[Card]:
    if not 0 <= seed < SEED_LIMIT:
        raise ValueError(f"a seed is a whole number from 0 to {SEED_LIMIT - 1}, not {seed}")
    cards = list(full_deck(rules.ranks, rules.decks))
    words = _random_words(rules.name, seed)
    for i in range(len(cards) - 1, 0, -1):
        j = _below(words, i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return cards


@lru_cache(maxsize=256)
def deal_from_seed(rules: Rules, seed: int) -> Deal:
    """The deal of ``seed``.  One object per (rules, seed) (deals are immutable), so every game of a
    day's challenge shares its deal and its cards: a position a server keeps then holds a few
    objects of its own instead of some sixty, for Python's collector to walk on every full pass
    (games/positions.py); the shuffle is not run again for each game either."""
    cards = shuffled_deck(rules, seed)
    return Deal(rules, tuple(cards[: rules.pyramid_size]), tuple(cards[rules.pyramid_size :]))


def parse_deal(rules: Rules, text: str) -> Deal:
    """Read a deal line for ``rules``; every card must belong to the preset's deck exactly as often as it holds it."""
    words = text.replace(",", " ").split()
    if len(words) != rules.deck_size:
        raise NotationError(
            f"a {rules.name} deal has {rules.deck_size} cards "
            f"({rules.pyramid_size} in the pyramid, {rules.stock_size} in the stock), not {len(words)}"
        )
    cards = [parse_card(word) for word in words]
    allowed = set(rules.ranks)
    for word, card in zip(words, cards):
        if card.rank not in allowed:
            raise NotationError(f"{word} is not in the {rules.name} deck: it has no 8, 9 or 10")
    counts = Counter(cards)
    for card, count in counts.items():
        if count > rules.decks:
            times = "once" if rules.decks == 1 else f"{rules.decks} times"
            raise NotationError(f"{card} appears {count} times: a {rules.name} deck holds each card {times}")
    return Deal(rules, tuple(cards[: rules.pyramid_size]), tuple(cards[rules.pyramid_size :]))
