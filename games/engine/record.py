"""Game records: the preset, the deal line and the moves, three ``key: value`` lines (docs/formats.md)."""

from __future__ import annotations

from dataclasses import dataclass

from .cards import NotationError
from .deal import Deal, parse_deal
from .game import Game
from .moves import Move, format_moves, parse_moves
from .rules import UnknownPresetError, get_rules

KEYS = ("preset", "deal", "moves")


@dataclass(frozen=True, slots=True)
class GameRecord:
    deal: Deal
    moves: tuple[Move, ...]

    def __str__(self) -> str:
        return f"preset: {self.deal.rules.name}\ndeal: {self.deal}\nmoves: {format_moves(self.moves)}\n"

    def replay(self) -> Game:
        return Game.replay(self.deal, self.moves)

    @classmethod
    def of(cls, game: Game) -> GameRecord:
        return cls(game.deal, game.moves)


def parse_record(text: str) -> GameRecord:
    fields: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        key, sep, value = line.partition(":")
        key = key.strip().lower()
        if not sep or key not in KEYS:
            raise NotationError(
                f"record line {number}: expected 'preset:', 'deal:' or 'moves:', not {line.strip()[:40]!r}"
            )
        if key in fields:
            raise NotationError(f"record line {number}: '{key}:' appears twice")
        fields[key] = value.strip()
    missing = [key for key in KEYS[:2] if key not in fields]
    if missing:
        raise NotationError(f"the record has no '{missing[0]}:' line")
    try:
        rules = get_rules(fields["preset"])
    except UnknownPresetError as error:
        raise NotationError(str(error)) from None
    return GameRecord(parse_deal(rules, fields["deal"]), tuple(parse_moves(fields.get("moves", ""))))
