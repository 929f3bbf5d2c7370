"""Cards and their text form: rank ``A23456789TJQK`` then suit ``cdhs``."""

from __future__ import annotations

from dataclasses import dataclass

RANK_CHARS = "A23456789TJQK"
SUIT_CHARS = "cdhs"
SUIT_SYMBOLS = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}
RANK_NAMES = {1: "A", 11: "J", 12: "Q", 13: "K"}


class NotationError(ValueError):
    """A deal, card, move or record text that cannot be read."""


@dataclass(frozen=True, order=True, slots=True)
class Card:
    """One playing card; ``rank`` runs from 1 (ace) to 13 (king)."""

    rank: int
    suit: str

    def __str__(self) -> str:
        return RANK_CHARS[self.rank - 1] + self.suit

    @property
    def label(self) -> str:
        """The name a player reads: ``10♥``, ``K♠``."""
        return RANK_NAMES.get(self.rank, str(self.rank)) + SUIT_SYMBOLS[self.suit]


def parse_card(text: str) -> Card:
    """Read ``7s``, ``TD``, ``qh`` (either case); raise NotationError otherwise."""
    if len(text) != 2:
        raise NotationError(
            f"{text!r} is not a card: write a rank ({RANK_CHARS}) then a suit ({SUIT_CHARS}), as in 7s or Td"
        )
    rank_char, suit_char = text[0].upper(), text[1].lower()
    if rank_char not in RANK_CHARS:
        raise NotationError(f"{text!r} has an unknown rank {text[0]!r}: ranks are {RANK_CHARS}")
    if suit_char not in SUIT_CHARS:
        raise NotationError(f"{text!r} has an unknown suit {text[1]!r}: suits are {SUIT_CHARS}")
    return Card(RANK_CHARS.index(rank_char) + 1, suit_char)


def full_deck(ranks: tuple[int, ...], copies: int) -> tuple[Card, ...]:
    """The unshuffled deck: for each copy, clubs, diamonds, hearts, spades, ranks ascending."""
    return tuple(Card(rank, suit) for _ in range(copies) for suit in SUIT_CHARS for rank in ranks)
