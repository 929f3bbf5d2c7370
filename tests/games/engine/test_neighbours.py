"""Rules version 3: in egyptian and forty-open the two top waste cards pair with each other
(docs/rules.md, "Seed 001's pozzo, read from its whole text"); version 2's games replay as they did.

Seed 001: «Dal tallone potete prendere una carta alla volta, abbinarla con una carta del tableau o
lasciarla nel pozzo», and its house rule, which removes two pozzo cards «saltando» one or two cards
between them, takes the case of none between them for granted.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from games.engine import RULES_VERSION, deal_from_seed, get_rules
from games.engine.game import Game, IllegalMoveError, Outcome
from games.engine.moves import parse_move, parse_moves
from games.engine.rules import PRESETS, RULES_VERSIONS, UnknownRulesVersionError

from .builders import game_with

NEIGHBOURING = ["egyptian", "forty-open"]
#: egyptian: a pyramid with no 10 and no 3 among its free cards' partners, a stock opening 3♥ 10♣
EGYPTIAN_PYRAMID = "Kh " + " ".join(
    ["Ks Kd", "Kc Qh Qs", "Qd Qc Jh Js", "Jd Jc 9h 9s 9d", "9c 8h 8s 8d 8c 7h", "7s 7d 7c 6h 6s 6d 6c"]
)
#: forty-open (jack 8, queen 9, king 10): a stock opening 3♥ 7♣
FORTY_PYRAMID = " ".join(["Kh", "Ks Kd", "Kc Qh Qs", "Qd Qc Jh Js", "Jd Jc 6h 6s 6d", "6c 5h 5s 5d 5c 4h"])


def two_drawn(preset: str, version: int) -> Game:
    if preset == "egyptian":
        return game_with(get_rules(preset, version), EGYPTIAN_PYRAMID, "3h Tc", "D D")
    return game_with(get_rules(preset, version), FORTY_PYRAMID, "3h 7c", "D D")


def test_version_3_is_current_and_changes_egyptian_and_forty_open_alone() -> None:
    assert RULES_VERSION == 3 and RULES_VERSIONS == (1, 2, 3)
    changed = [name for name in PRESETS if replace(get_rules(name, 2), version=3) != get_rules(name, 3)]
    assert changed == NEIGHBOURING
    for name in NEIGHBOURING:
        assert get_rules(name, 3).house_waste_reach == 2
        assert get_rules(name, 2).house_waste_reach == 0 and get_rules(name, 1).house_waste_reach == 0
    assert get_rules("forty-house", 2).house_waste_reach == get_rules("forty-house", 3).house_waste_reach == 4
    with pytest.raises(UnknownRulesVersionError, match="choose one of 1, 2, 3"):
        get_rules("egyptian", 4)


@pytest.mark.parametrize("preset", NEIGHBOURING)
def test_version_3_offers_the_two_top_waste_cards_as_a_pair(preset: str) -> None:
    game = two_drawn(preset, 3)
    assert parse_move("W+W2") in game.legal_moves()
    after = game.apply(parse_move("W+W2"))
    assert after.waste == () and after.counters.pairs == 1 and after.score == 20
    # the card under the top plays only with the top: never with a pyramid card, never alone
    with pytest.raises(IllegalMoveError, match="W2 pairs only with another waste card"):
        game.apply(parse_move("6.1+W2" if preset == "forty-open" else "7.1+W2"))
    # and no deeper than the top two
    deeper = game.apply(parse_move("D"))
    with pytest.raises(IllegalMoveError, match=r"only the top 2 cards of the waste \(W to W2\) are in play"):
        deeper.apply(parse_move("W+W3"))


@pytest.mark.parametrize("preset", NEIGHBOURING)
def test_version_2_refuses_the_same_pair(preset: str) -> None:
    game = two_drawn(preset, 2)
    assert parse_move("W+W2") not in game.legal_moves()
    with pytest.raises(IllegalMoveError, match=r"only the top card of the waste \(W\) is in play"):
        game.apply(parse_move("W+W2"))


@pytest.mark.parametrize("preset", NEIGHBOURING)
def test_a_stored_version_2_game_replays_unchanged(preset: str) -> None:
    """Random version-2 games played to their end replay under version 2 to the same moves,
    outcome and score, and never once offered a waste pair; under version 3 some of them could
    have made one."""
    old = get_rules(preset, 2)
    offered_now = 0
    for seed in range(12):
        game = Game.start(deal_from_seed(old, seed))
        chooser = random.Random(seed)
        while game.outcome is Outcome.IN_PROGRESS:
            assert not any("W2" in str(move) for move in game.legal_moves())
            game = game.apply(chooser.choice(game.legal_moves()))
        log = parse_moves(" ".join(str(move) for move in game.moves))
        again = Game.replay(deal_from_seed(get_rules(preset, 2), seed), log)
        assert (again.moves, again.outcome, again.outcome_reason, again.score) == (
            game.moves,
            game.outcome,
            game.outcome_reason,
            game.score,
        )
        # the same log under version 3: every move still legal, and somewhere a waste pair was there
        new = Game.start(deal_from_seed(get_rules(preset, 3), seed))
        for move in log:
            offered_now += any("W2" in str(candidate) for candidate in new.legal_moves())
            new = new.apply(move)
    assert offered_now


@pytest.mark.parametrize(
    ("preset", "version", "shown"),
    [("egyptian", 2, 1), ("egyptian", 3, 2), ("forty-open", 3, 2), ("forty-house", 3, 4)],
)
def test_the_view_says_how_many_waste_cards_are_in_play(preset: str, version: int, shown: int) -> None:
    """The play page shows as many waste cards as the game's rules version puts in play."""
    assert Game.start(deal_from_seed(get_rules(preset, version), 1)).visible()["waste_in_play"] == shown
