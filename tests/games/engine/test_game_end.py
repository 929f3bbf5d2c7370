"""When a game ends, preset by preset, and under which rules version (docs/rules.md, "When a game ends").

Every test names the sentence of the seed page it follows (``shared/seeds/``).  A game ends:
won when the pyramid is cleared; lost when no move is left at all (no pair, no king, no draw, no
recycle); or given up (a service: tests/games/services/test_game_end.py).  The early end "as soon as
nothing still to come can pair" is one-pass's alone since rules version 2; under version 1 every
preset ended so, and games of that version replay to the very same outcome and score.
"""

from __future__ import annotations

import random
from dataclasses import replace
from functools import cache

import pytest

from games.engine import RULES_VERSION, deal_from_seed, get_rules
from games.engine.game import Game, IllegalMoveError, Outcome
from games.engine.moves import DRAW, RECYCLE, Kind, Move, parse_moves
from games.engine.rules import (
    FULL_RANKS,
    PRESETS,
    PRESETS_BY_VERSION,
    Rules,
    StockModel,
    UnknownPresetError,
    UnknownRulesVersionError,
)
from games.engine.solver import Verdict, solve

from .builders import deal_with

FROZEN = "no free pyramid card can ever be removed: nothing still to come pairs with one"
NO_MOVE = "no move is left"
PLAYS_ON = [preset for preset in PRESETS if preset not in ("one-pass", "unlimited")]

#: The sentence each preset's end follows: (the game is won, it is lost).
SENTENCES = {
    "classic": (
        "004: «La victoria se declara en cuanto se retira la última carta de la pirámide.»",
        "004: «Si has repasado el mazo y no quedan parejas posibles entre las cartas descubiertas y el mazo, la partida "
        "concluye sin victoria.»",
    ),
    "one-pass": (
        "003: «Lo stesso; il mazzo e gli scarti non vanno ripuliti.»",
        "003: «Quando non si può togliere nessuna coppia né nessun Re e non resta nessun passaggio, oppure appena "
        "nessuna carta ancora da venire può accoppiarsi con una carta libera.»",
    ),
    "egyptian": (
        "001: «per ogni fila che si riesce ad eliminare sono assegnati 10 punti, sicché il punteggio massimo è 70 punti»",
        "001: «Sono ammesse due distribuzioni.»",
    ),
    "forty": (
        "002: «Si continua così finchè si riesce a togliere tutta la piramide, compresa la cima, nel qual caso si ha "
        "una vittoria.»",
        "002: «Se il tallone finisce e non si possono più trovare delle coppie tra le carte visibili nella piramide e "
        "quella disponibile in cima al mazzetto degli scarti si ha una situazione di perdita.»",
    ),
    "forty-open": (
        "001: «Le regole sono uguali a quelle della variante con 52 carte»",
        "001: «Sono ammesse due distribuzioni.»",
    ),
    "forty-house": (
        "001: «Le regole sono uguali a quelle della variante con 52 carte»",
        "001: «è abitudine comune effettuare una sola distribuzione invece che due»",
    ),
    "double": (
        "000: «nell'istante in cui la piramide sparisce la partita è vinta, anche se davanti a te restano decine di "
        "carte»",
        "000: «Un tavolo morto è possibile soltanto dal terzo passaggio in poi.»",
    ),
    "unlimited": (
        "004: «La victoria se declara en cuanto se retira la última carta de la pirámide.»",
        "004: «Si has repasado el mazo y no quedan parejas posibles entre las cartas descubiertas y el mazo, la partida "
        "concluye sin victoria.»",
    ),
}
#: The presets rules version 1 knew (``unlimited`` came with version 2).
IN_VERSION_1 = [preset for preset in PRESETS if preset in PRESETS_BY_VERSION[1]]


def random_game(rules: Rules, seed: int) -> Game:
    """A random legal game of ``rules`` played to its end (as ``python -m games.engine random``)."""
    game = Game.start(deal_from_seed(rules, seed))
    chooser = random.Random(seed)
    while game.outcome is Outcome.IN_PROGRESS:
        game = game.apply(chooser.choice(game.legal_moves()))
    return game


@cache
def frozen_under_version_1(preset: str) -> tuple[int, tuple[Move, ...], int]:
    """The first seed whose random game under rules version 1 ended with the pyramid frozen while a
    move was still there: (seed, its moves, its score)."""
    old = get_rules(preset, 1)
    for seed in range(400):
        game = random_game(old, seed)
        if game.outcome_reason == FROZEN and game._candidates:
            return seed, game.moves, game.score
    raise AssertionError(f"no {preset} game froze with a move left in 400 seeds")


@cache
def winning_line(preset: str, version: int = RULES_VERSION) -> tuple[int, tuple[Move, ...]]:
    rules = get_rules(preset, version)
    for seed in range(200):
        game = Game.start(deal_from_seed(rules, seed))
        solution = solve(game, time_limit=5)
        if solution.verdict is Verdict.WINNABLE:
            return seed, tuple(solution.line)
    raise AssertionError(f"no winnable {preset} deal in 200 seeds")


# --------------------------------------------------------------------- versions


def test_since_rules_version_2_one_pass_alone_ends_when_frozen() -> None:
    assert RULES_VERSION == 3  # (version 3: egyptian's neighbouring waste cards, test_neighbours.py)
    for version in (2, RULES_VERSION):
        assert [name for name, rules in PRESETS.items() if get_rules(name, version).ends_when_frozen] == ["one-pass"]
    assert all(get_rules(name, 1).ends_when_frozen for name in IN_VERSION_1)
    assert get_rules("classic") is PRESETS["classic"] and get_rules("classic", 3) is PRESETS["classic"]


def test_an_unknown_rules_version_is_refused_by_name() -> None:
    with pytest.raises(UnknownRulesVersionError, match="unknown rules version 7: choose one of 1, 2, 3"):
        get_rules("classic", 7)


def test_unlimited_came_with_version_2_and_is_no_preset_of_version_1() -> None:
    assert list(PRESETS_BY_VERSION[1]) == [name for name in PRESETS if name != "unlimited"]
    with pytest.raises(UnknownPresetError, match="unknown preset 'unlimited'"):
        get_rules("unlimited", 1)


def test_a_version_deals_the_same_cards() -> None:
    for name in IN_VERSION_1:
        old, new = deal_from_seed(get_rules(name, 1), 5), deal_from_seed(get_rules(name), 5)
        assert (old.pyramid, old.stock) == (new.pyramid, new.stock)


# --------------------------------------------------------------------- won, per preset


@pytest.mark.parametrize("preset", list(PRESETS))
def test_the_game_is_won_the_moment_the_pyramid_is_cleared(preset: str) -> None:
    """Won: see ``SENTENCES[preset][0]`` (000, 002, 003, 004 say it outright; 001 scores a whole
    pyramid the most)."""
    assert SENTENCES[preset][0]
    for version in (1, RULES_VERSION) if preset in IN_VERSION_1 else (RULES_VERSION,):
        # (a line of version 3 may pair egyptian's two top waste cards, which version 1 refuses)
        seed, line = winning_line(preset, version)
        game = Game.replay(deal_from_seed(get_rules(preset, version), seed), line)
        assert game.outcome is Outcome.WON and game.outcome_reason == "the pyramid is cleared"
        assert game.pyramid_clearable and game.legal_moves() == []
        with pytest.raises(IllegalMoveError, match="the game is over: the pyramid is cleared"):
            game.apply(DRAW)


# --------------------------------------------------------------------- lost: no move at all


@pytest.mark.parametrize("preset", [preset for preset in PRESETS if preset != "unlimited"])
def test_the_game_is_lost_when_no_pair_no_king_no_draw_and_no_recycle_is_left(preset: str) -> None:
    """Lost: see ``SENTENCES[preset][1]``: the game ends when nothing at all can be done."""
    assert SENTENCES[preset][1]
    rules = PRESETS[preset]
    for seed in range(3):
        game = random_game(rules, seed)
        assert game.outcome is Outcome.LOST
        if game.outcome_reason == NO_MOVE:
            assert not game._candidates
            for move in (DRAW, RECYCLE):
                with pytest.raises(IllegalMoveError, match="the game is over: no move is left"):
                    game.apply(move)
            assert game.recycles_left == 0 and not game.stock


def test_one_pass_still_ends_as_soon_as_nothing_to_come_can_pair() -> None:
    """003, for the one-pass game: «oppure appena nessuna carta ancora da venire può accoppiarsi con
    una carta libera» — «La stessa regola, che senza ridistribuzione di solito chiude la partita poco
    dopo che il mazzo si è esaurito»."""
    seed, moves, score = frozen_under_version_1("one-pass")
    game = Game.replay(deal_from_seed(PRESETS["one-pass"], seed), moves)
    assert game.outcome is Outcome.LOST and game.outcome_reason == FROZEN
    assert game.score == score and not game.pyramid_clearable


# --------------------------------------------------------------------- playing on past a dead pyramid


@pytest.mark.parametrize("preset", PLAYS_ON)
def test_a_pyramid_that_can_never_change_leaves_the_game_open_for_the_points_still_there(preset: str) -> None:
    """004: «Si has repasado el mazo y no quedan parejas posibles ... la partida concluye sin
    victoria» (and its scoring pays every king and pair until then); 000: «Prima del terzo
    passaggio non puoi restare bloccato»; 002: the loss comes «Se il tallone finisce».  Version 1
    ended these games at once: their logs still do, with the same score."""
    seed, moves, score = frozen_under_version_1(preset)
    old = Game.replay(deal_from_seed(get_rules(preset, 1), seed), moves)
    assert old.outcome is Outcome.LOST and old.outcome_reason == FROZEN and old.score == score
    new = Game.replay(deal_from_seed(PRESETS[preset], seed), moves)
    assert new.outcome is Outcome.IN_PROGRESS and new.score == score
    # the player is told at once, unless face-down cards hide it: where a partner still unseen may
    # lie in the stock as well as under the pyramid, the table does not show the pyramid is lost
    # (test_whether_the_pyramid_can_be_cleared_is_read_from_what_the_player_sees_alone)
    told = not new.rules.face_down
    assert new.pyramid_clearable is not told and new.visible()["pyramid_clearable"] is not told
    assert new.legal_moves()
    # played on at random to the end: lost only with no move left, never with fewer points; once
    # told, never told otherwise
    chooser = random.Random(seed)
    while new.outcome is Outcome.IN_PROGRESS:
        told = told or not new.pyramid_clearable
        assert new.pyramid_clearable is not told
        new = new.apply(chooser.choice(new.legal_moves()))
    assert new.outcome is Outcome.LOST and new.outcome_reason == NO_MOVE
    assert new.score >= score - 10 * new.counters.recycles


def test_double_seed_363_draws_on_in_its_second_pass() -> None:
    """000: «Prima del terzo passaggio non puoi restare bloccato. Finché nel tallone ci sono carte
    puoi sempre pescare» (issue 41: version 1 refused this draw with "the game is over")."""
    old = random_game(get_rules("double", 1), 363)
    assert old.outcome_reason == FROZEN and old.recycles_left == 1 and len(old.stock) == 36
    with pytest.raises(IllegalMoveError, match="the game is over"):
        old.apply(DRAW)
    new = Game.replay(deal_from_seed(PRESETS["double"], 363), old.moves).apply(DRAW)
    assert new.outcome is Outcome.IN_PROGRESS and len(new.stock) == 35 and not new.pyramid_clearable


def test_classic_seed_13_plays_on_to_the_king_still_in_the_stock() -> None:
    """004: «Cada Rey retirado suma 10 puntos y cada pareja de 13 suma 20 puntos» — the game
    ended "lost" under version 1 with 5 stock cards, 8♣ face up and K♥ next (issue 41)."""
    old = random_game(get_rules("classic", 1), 13)
    assert old.outcome_reason == FROZEN and [str(card) for card in old.stock[:2]] == ["8c", "Kh"]
    new = Game.replay(deal_from_seed(PRESETS["classic"], 13), old.moves)
    assert new.outcome is Outcome.IN_PROGRESS
    new = new.apply(DRAW)
    king = next(move for move in new.legal_moves() if str(move) == "S")
    assert new.apply(king).score == old.score + 10


@pytest.mark.parametrize("seed", range(6))
def test_double_is_never_lost_before_its_third_pass(seed: int) -> None:
    """000: «Un tavolo morto è possibile soltanto dal terzo passaggio in poi»: with a pass still to
    come there is always a draw or a recycle."""
    game = Game.start(deal_from_seed(PRESETS["double"], seed))
    chooser = random.Random(seed)
    while game.outcome is Outcome.IN_PROGRESS:
        if game.recycles_left > 0:
            assert {"D", "R"} & {str(move) for move in game.legal_moves()}
        game = game.apply(chooser.choice(game.legal_moves()))
    assert game.outcome is Outcome.WON or game.recycles_left == 0


# --------------------------------------------------------------------- what the player is told


CLASSIC_ACE_OVER_QUEENS = "Ac 2c 2d 2h 2s 3c 3d 3h 3s 4c 4d 4h 4s 5d 5h 5s 6c 6d 6h 7c 7d Qc Qd Qh Qs Kc Kd Kh"


def test_a_card_with_every_partner_under_it_says_the_pyramid_can_no_longer_be_cleared() -> None:
    """Every card covers the apex: with the four queens in the pyramid, the apex ace has no partner
    left, though the game itself goes on (kings and pairs are still there)."""
    game = Game.start(deal_with("classic", CLASSIC_ACE_OVER_QUEENS))
    assert game.outcome is Outcome.IN_PROGRESS and not game.pyramid_clearable
    assert Game.start(deal_with("classic", CLASSIC_ACE_OVER_QUEENS.replace("Qs", "8c"))).pyramid_clearable


def test_a_partner_buried_for_good_in_the_last_pass_does_not_count() -> None:
    """Only the waste top plays and there is no recycle: a card nothing can take buries those under it."""
    rules = Rules("mini-buried", (1, 5, 12, 13), 1, 2, 13, 1, StockModel.WASTE_ONLY)
    deal = deal_with(rules, "Ac Kc Kd", "Qc 5c Qd 5d Qh 5h Qs")
    game = Game.replay(deal, parse_moves("D D D D D D D"))
    assert game.pyramid_clearable  # Q♠ on top still reaches the ace once the kings are gone
    buried = game.apply(DRAW)  # a 5 (its partner, an 8, is nowhere) buries the last queen
    assert buried.outcome is Outcome.IN_PROGRESS and not buried.pyramid_clearable


def test_a_face_down_card_never_tells_its_value() -> None:
    """Forty's face-down cards count as any value not seen yet: the test reads only what the player sees."""
    game = Game.from_seed("forty", 3)
    assert game.pyramid_clearable
    view = game.visible()
    assert view["pyramid_clearable"] is True and "face_down" in view


def test_a_rule_set_built_by_hand_follows_the_current_version() -> None:
    rules = Rules("mini", FULL_RANKS, 1, 2, 13, 3, StockModel.STOCK_TOP_AND_WASTE)
    assert rules.version == RULES_VERSION and not rules.ends_when_frozen


def _reshuffle_the_unseen(game: Game, rng: random.Random) -> Game:
    """The same table with the cards nobody has seen (the stock, the face-down pyramid cards) dealt
    among those places in another order: a player cannot tell the two apart."""
    geo = game.geometry
    hidden = [i for i in range(geo.size) if not game.removed >> i & 1 and not game.is_face_up(i)]
    unseen = [game.deal.pyramid[i] for i in hidden] + list(game.stock)
    rng.shuffle(unseen)
    pyramid = list(game.deal.pyramid)
    for i, card in zip(hidden, unseen):
        pyramid[i] = card
    deal = replace(game.deal, pyramid=tuple(pyramid))
    return replace(game, deal=deal, stock=tuple(unseen[len(hidden) :]))


def test_whether_the_pyramid_can_be_cleared_is_read_from_what_the_player_sees_alone() -> None:
    """Forty's face-down cards: the notice may not tell a stock card from a face-down one
    (the knowledge rule; games/engine/game.py ``pyramid_clearable``)."""
    rng = random.Random(7)
    told = 0
    for seed in range(300):
        game = Game.start(deal_from_seed(get_rules("forty"), seed))
        while game.outcome is Outcome.IN_PROGRESS and rng.random() < 0.97:
            game = game.apply(rng.choice(game.legal_moves()))
        for _ in range(4):
            other = _reshuffle_the_unseen(game, rng)
            seen, seen_other = game.visible(), other.visible()
            clearable, clearable_other = seen.pop("pyramid_clearable"), seen_other.pop("pyramid_clearable")
            assert seen == seen_other
            assert clearable == clearable_other, f"seed {seed} after {' '.join(map(str, game.moves))}"
            told += not clearable
    assert told > 50, "the sweep reaches tables whose pyramid cannot be cleared"


# --------------------------------------------------------------------- unlimited: seed 004's own ends

UNLIMITED_LOST = SENTENCES["unlimited"][1]
PASS_IN_VAIN = "no card can be removed, and this pass through the stock removed none"
DECK_DEAD = "the stock is through and no pair is left between the free cards and the deck"


@cache
def unlimited_end(reason: str) -> tuple[int, Game]:
    """The first seed whose random ``unlimited`` game ends for ``reason``, and that game."""
    for seed in range(100):
        game = random_game(PRESETS["unlimited"], seed)
        if game.outcome_reason == reason:
            return seed, game
    raise AssertionError(f"no unlimited game ended with {reason!r} in 100 seeds")


def test_unlimited_is_lost_when_the_stock_is_through_and_the_pass_removed_nothing() -> None:
    """004: «Si has repasado el mazo y no quedan parejas posibles ...» — a pass that removed no card
    found no pair, and another would deal the same cards in the same order again: no recycle then
    (docs/rules.md, ``unlimited``, *Decision*)."""
    assert UNLIMITED_LOST
    _, game = unlimited_end(PASS_IN_VAIN)
    assert game.outcome is Outcome.LOST and not game.stock and game.waste
    assert not game.removed_this_pass and not game._removals
    last_recycle = max((i for i, move in enumerate(game.moves) if move.kind is Kind.RECYCLE), default=-1)
    assert all(move.kind is Kind.DRAW for move in game.moves[last_recycle + 1 :])
    assert (
        game._recycle_refusal()
        == "this pass through the stock removed no card: another would deal the same cards again"
    )
    with pytest.raises(IllegalMoveError, match=f"the game is over: {PASS_IN_VAIN}"):
        game.apply(RECYCLE)


def test_unlimited_is_lost_when_no_further_pass_could_remove_a_card() -> None:
    """004: «Si has repasado el mazo y no quedan parejas posibles entre las cartas descubiertas y el
    mazo, la partida concluye sin victoria»: the stock is through, nothing can go now, and the deck
    dealt again holds no king, no partner of a free card and no two neighbours making 13."""
    assert UNLIMITED_LOST
    _, game = unlimited_end(DECK_DEAD)
    assert game.outcome is Outcome.LOST and not game.stock and game.waste and not game._removals
    # the same table under rules that never end a game so: each further pass removes nothing
    rules = replace(game.rules, recycle_needs_removal=False)
    again = replace(game, deal=replace(game.deal, rules=rules))
    assert again.outcome is Outcome.IN_PROGRESS
    for _ in range(2):
        again = again.apply(RECYCLE)
        for _ in range(len(again.stock)):
            assert not [move for move in again.legal_moves() if move.kind is Kind.REMOVE]
            again = again.apply(DRAW)
        assert (again.removed, again.waste) == (game.removed, game.waste)


def test_unlimited_is_lost_with_no_move_at_all() -> None:
    """004, the same sentence, when stock and waste are both gone: nothing is left to deal."""
    assert UNLIMITED_LOST
    _, game = unlimited_end(NO_MOVE)
    assert game.outcome is Outcome.LOST and not game.stock and not game.waste and not game._candidates


def test_unlimited_recycles_past_three_passes() -> None:
    """004: «Puedes reciclar el mazo de descarte cuando se acabe, con una leve penalización en el
    marcador (-10 puntos)»: no limit but the removal each recycle needs."""
    game = random_game(PRESETS["unlimited"], 0)
    assert game.outcome is Outcome.WON and game.counters.recycles >= 3
    assert game.score == 20 * game.counters.pairs + 10 * game.counters.kings - 10 * game.counters.recycles
