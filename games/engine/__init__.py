"""Piramide's rules engine: every Pyramid Solitaire preset, seeded deals, scoring and notation.

Standard library only; nothing here knows about the web service.
"""

from .cards import Card, NotationError, parse_card
from .deal import Deal, deal_from_seed, parse_deal
from .game import Game, IllegalMoveError, Outcome
from .moves import Move, format_moves, parse_move, parse_moves
from .record import GameRecord, parse_record
from .rules import (
    PRESETS,
    RULES_VERSION,
    RULES_VERSIONS,
    Rules,
    StockModel,
    UnknownPresetError,
    UnknownRulesVersionError,
    get_rules,
)
from .scoring import Counters, count_moves, score_moves

__all__ = [
    "PRESETS",
    "RULES_VERSION",
    "RULES_VERSIONS",
    "Card",
    "Counters",
    "Deal",
    "Game",
    "GameRecord",
    "IllegalMoveError",
    "Move",
    "NotationError",
    "Outcome",
    "Rules",
    "StockModel",
    "UnknownPresetError",
    "UnknownRulesVersionError",
    "count_moves",
    "deal_from_seed",
    "format_moves",
    "get_rules",
    "parse_card",
    "parse_deal",
    "parse_move",
    "parse_moves",
    "parse_record",
    "score_moves",
]
