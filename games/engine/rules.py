"""One parameterised rule set and the named presets built from it (see docs/rules.md)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum

#: The rules version every new challenge, game and race is dealt under (docs/rules.md, "Rules versions").
RULES_VERSION = 3
#: Version 1: every preset ended the game, lost, as soon as no free pyramid card could ever leave.
#: Version 2: only one-pass does (seed 003 states that end for it); elsewhere play goes on while a
#: move is left, and the player is told once the pyramid can no longer be cleared.
#: Version 3: in egyptian and forty-open the top two waste cards may pair with each other (seed 001,
#: read from its whole text: docs/rules.md, "Neighbouring pozzo cards").
RULES_VERSIONS = (1, 2, 3)

#: ``passes`` of a preset whose recycles have no limit of their own but each need a removal in the
#: pass before (``Rules.recycle_needs_removal``): one more than the 52 cards of a deck, the most
#: removals, so more than any game can use.
UNLIMITED_PASSES = 53

FULL_RANKS: tuple[int, ...] = tuple(range(1, 14))
#: The 40-card deck drops the 8, 9 and 10; its jack, queen and king count 8, 9 and 10.
SHORT_RANKS: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 11, 12, 13)


class StockModel(Enum):
    """Which cards outside the pyramid are in play."""

    #: Par Pyramid: the stock's top card lies face up and plays, as does the waste top.
    STOCK_TOP_AND_WASTE = "stock-top-and-waste"
    #: Piramide 40 carte: the card just drawn is held in play until the next draw puts it on the waste.
    DRAWN_AND_WASTE = "drawn-and-waste"
    #: Campagna d'Egitto, Piramide Doppia: a drawn card goes straight to the waste; only its top plays.
    WASTE_ONLY = "waste-only"


@dataclass(frozen=True, slots=True)
class Rules:
    name: str
    ranks: tuple[int, ...]
    decks: int
    rows: int
    pair_sum: int
    passes: int
    stock_model: StockModel
    #: The stock top (or drawn card) may pair with the waste top.
    stock_waste_pairs: bool = False
    #: Pyramid rows above the base are dealt face down and turn up when freed.
    face_down: bool = False
    #: House rule: the last card of a rank, just drawn while its three fellows lie free, may go back into the stock.
    house_put_back: bool = False
    #: Two waste cards among the top ``house_waste_reach`` may pair: forty-house's house rule (at most two
    #: cards between them, 4), or two neighbouring waste cards (2: egyptian and forty-open from version 3).
    house_waste_reach: int = 0
    #: House rule: after three draws and no pair, the three drawn cards may go back under the stock.
    house_return_three: bool = False
    #: A card may be drawn only when nothing can be removed (no pair and no king among the cards in play).
    draw_only_when_stuck: bool = False
    #: The game ends, lost, as soon as no free pyramid card is a king or can pair with a free card or
    #: a card still to come (seed 003's early end); otherwise only when no move is left at all.
    ends_when_frozen: bool = False
    #: A recycle needs a card removed since the last recycle (or the start): a pass that removed
    #: nothing would only deal the same cards again.  And the game ends, lost, once the stock is through
    #: and no card can be removed now nor in another pass (seed 004, ``unlimited``).
    recycle_needs_removal: bool = False
    #: Each emptied pyramid row scores (the service's design, from seed 001); seed 004's own scoring has no such bonus.
    row_bonus: bool = True
    #: The rules version this rule set belongs to (``RULES_VERSIONS``).
    version: int = RULES_VERSION
    #: rank -> value, filled in from ``ranks``
    values: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        short = self.ranks == SHORT_RANKS
        object.__setattr__(self, "values", tuple(rank - 3 if short and rank > 10 else rank for rank in range(14)))

    @property
    def deck_size(self) -> int:
        return len(self.ranks) * 4 * self.decks

    @property
    def pyramid_size(self) -> int:
        return self.rows * (self.rows + 1) // 2

    @property
    def stock_size(self) -> int:
        return self.deck_size - self.pyramid_size

    @property
    def recycles(self) -> int:
        """How many times the waste may be turned back into the stock."""
        return self.passes - 1

    def value(self, rank: int) -> int:
        """What a card of ``rank`` counts towards the pair sum."""
        return self.values[rank]

    @property
    def king_value(self) -> int:
        return self.pair_sum


#: Seed 001's base rules, read from its whole text: two neighbouring pozzo (waste) cards, the top
#: two, pair with each other (egyptian and forty-open from rules version 3).
NEIGHBOURS = 2

PRESETS: dict[str, Rules] = {
    rules.name: rules
    for rules in (
        Rules("classic", FULL_RANKS, 1, 7, 13, 3, StockModel.STOCK_TOP_AND_WASTE, stock_waste_pairs=True),
        Rules(
            "one-pass",
            FULL_RANKS,
            1,
            7,
            13,
            1,
            StockModel.STOCK_TOP_AND_WASTE,
            stock_waste_pairs=True,
            ends_when_frozen=True,
        ),
        Rules("egyptian", FULL_RANKS, 1, 7, 13, 2, StockModel.WASTE_ONLY, house_waste_reach=NEIGHBOURS),
        Rules(
            "forty",
            SHORT_RANKS,
            1,
            6,
            10,
            1,
            StockModel.DRAWN_AND_WASTE,
            stock_waste_pairs=True,
            face_down=True,
            draw_only_when_stuck=True,
        ),
        Rules("forty-open", SHORT_RANKS, 1, 6, 10, 2, StockModel.WASTE_ONLY, house_waste_reach=NEIGHBOURS),
        Rules(
            "forty-house",
            SHORT_RANKS,
            1,
            6,
            10,
            1,
            StockModel.WASTE_ONLY,
            house_put_back=True,
            house_waste_reach=4,
            house_return_three=True,
        ),
        Rules("double", FULL_RANKS, 2, 9, 13, 3, StockModel.WASTE_ONLY),
        # seed 004: recycles without limit.  Each needs a removal in the pass before it, so a game
        # makes at most one recycle per removal, at most 52: 53 passes never bind (docs/rules.md)
        Rules(
            "unlimited",
            FULL_RANKS,
            1,
            7,
            13,
            UNLIMITED_PASSES,
            StockModel.STOCK_TOP_AND_WASTE,
            stock_waste_pairs=True,
            recycle_needs_removal=True,
            row_bonus=False,
        ),
    )
}

#: The presets added after rules version 1: no game was ever dealt under version 1 with them.
_ADDED_IN: dict[str, int] = {"unlimited": 2}


def _before_neighbours(rules: Rules, version: int) -> Rules:
    """``rules`` as versions 1 and 2 had them: only the waste top of egyptian and forty-open in play."""
    reach = 0 if rules.name in ("egyptian", "forty-open") else rules.house_waste_reach
    return replace(rules, house_waste_reach=reach, version=version)


#: Every preset under each rules version; ``PRESETS`` is the current one.
PRESETS_BY_VERSION: dict[int, dict[str, Rules]] = {
    1: {
        name: replace(_before_neighbours(rules, 1), ends_when_frozen=True)
        for name, rules in PRESETS.items()
        if _ADDED_IN.get(name, 1) <= 1
    },
    2: {name: _before_neighbours(rules, 2) for name, rules in PRESETS.items() if _ADDED_IN.get(name, 1) <= 2},
    RULES_VERSION: PRESETS,
}


class UnknownPresetError(ValueError):
    pass


class UnknownRulesVersionError(ValueError):
    pass


def get_rules(preset: str, version: int = RULES_VERSION) -> Rules:
    """The rule set of ``preset`` as rules ``version`` has it: a game replays under the version it was dealt under."""
    try:
        presets = PRESETS_BY_VERSION[version]
    except KeyError:
        versions = ", ".join(str(known) for known in RULES_VERSIONS)
        raise UnknownRulesVersionError(f"unknown rules version {version!r}: choose one of {versions}") from None
    try:
        return presets[preset]
    except KeyError:
        raise UnknownPresetError(f"unknown preset {preset!r}: choose one of {', '.join(presets)}") from None
