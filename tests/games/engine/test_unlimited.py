"""``unlimited``, seed 004's own game: recycles without limit, each after a pass that removed a card,
and seed 004's scoring without the row bonus (docs/rules.md, ``unlimited``).  The ends of its game
are in test_game_end.py; its solver against brute force on small variants in test_solver_brute.py."""

from __future__ import annotations

import random

import pytest

from games.engine import deal_from_seed, get_rules
from games.engine.cards import full_deck, parse_card
from games.engine.deal import Deal
from games.engine.game import Game, IllegalMoveError, Outcome
from games.engine.moves import DRAW, RECYCLE, Kind, parse_moves
from games.engine.scoring import count_moves, score_moves
from games.engine.solver import Verdict, hint, normal_line, review, solve, solve_par

RULES = get_rules("unlimited")


def random_game(seed: int) -> Game:
    game = Game.start(deal_from_seed(RULES, seed))
    chooser = random.Random(seed)
    while game.outcome is Outcome.IN_PROGRESS:
        game = game.apply(chooser.choice(game.legal_moves()))
    return game


def test_it_is_seed_004s_table() -> None:
    """004: 52 cards, 28 in seven rows, pairs of 13, the stock top and the waste top in play and
    pairing with each other («dos cartas entre mazo y descarte»)."""
    assert (RULES.deck_size, RULES.rows, RULES.pair_sum, RULES.stock_waste_pairs) == (52, 7, 13, True)
    assert RULES.recycle_needs_removal and not RULES.row_bonus and not RULES.ends_when_frozen


@pytest.mark.parametrize("seed", range(40))
def test_a_recycle_is_offered_exactly_after_a_pass_that_removed_a_card(seed: int) -> None:
    """Along random games: R is legal once the stock is out if and only if a card went since the
    last recycle (or the start); recycles never outnumber the removals, so a game is never endless."""
    game = Game.start(deal_from_seed(RULES, seed))
    chooser = random.Random(seed)
    while game.outcome is Outcome.IN_PROGRESS:
        since = [move for move in reversed(game.moves)]
        removed = next((move.kind is Kind.REMOVE for move in since if move.kind in (Kind.REMOVE, Kind.RECYCLE)), False)
        assert (RECYCLE in game.legal_moves()) == (not game.stock and bool(game.waste) and removed)
        game = game.apply(chooser.choice(game.legal_moves()))
    removals = game.counters.pairs + game.counters.kings
    assert game.counters.recycles <= removals <= 52


def test_a_pass_of_draws_alone_then_nothing_to_remove_ends_the_game() -> None:
    """A pass of draws alone, then nothing to remove: the recycle would deal the very same game again,
    so it is not offered and the game is lost there (004: «Si has repasado el mazo y no quedan parejas
    posibles ...»).  The base row holds aces and 2s (their queens and jacks lie above), the last
    stock card is a 3."""
    base = [parse_card(word) for word in "Ac Ad Ah As 2c 2d 2h".split()]
    last = parse_card("3c")
    rest = [card for card in full_deck(RULES.ranks, 1) if card not in base and card != last]
    deal = Deal(RULES, tuple(rest[:21] + base), tuple(rest[21:] + [last]))
    game = Game.start(deal)
    for _ in range(len(game.stock)):
        assert game.outcome is Outcome.IN_PROGRESS
        game = game.apply(DRAW)
    assert game.outcome is Outcome.LOST and RECYCLE not in game.legal_moves()
    with pytest.raises(IllegalMoveError, match="the game is over: no card can be removed, and this pass"):
        game.apply(RECYCLE)


def test_a_pass_of_draws_alone_with_a_removal_left_goes_on_without_a_recycle() -> None:
    for seed in range(5):
        game = Game.from_seed("unlimited", seed)
        for _ in range(len(game.stock)):
            game = game.apply(DRAW)
        assert game.outcome is Outcome.IN_PROGRESS, "a random deal leaves a pair at the end of its first pass"
        assert RECYCLE not in game.legal_moves()
        assert game.legal_moves() and all(move.kind is Kind.REMOVE for move in game.legal_moves())
        after = game.apply(game.legal_moves()[0])
        if after.outcome is Outcome.IN_PROGRESS and after.waste:
            assert RECYCLE in after.legal_moves()


def test_the_score_has_no_row_bonus() -> None:
    """004: «Cada Rey retirado suma 10 puntos y cada pareja de 13 suma 20 puntos. Cada reciclaje del
    mazo resta 10 puntos.» — nothing for an emptied row (001's row points belong to its own game)."""
    game = random_game(0)
    counters = count_moves(game.moves)
    assert game.outcome is Outcome.WON and counters.rows == 7
    assert game.score == 20 * counters.pairs + 10 * counters.kings - 10 * counters.recycles
    assert score_moves(game.moves, RULES) == game.score == counters.score - 70
    assert score_moves(game.moves) == counters.score  # without rules: the row bonus, as elsewhere


@pytest.mark.parametrize("seed", range(6))
def test_par_is_never_below_a_line_played(seed: int) -> None:
    """The par is the best score: no random game scores more, and its line replays to it."""
    start = Game.start(deal_from_seed(RULES, seed))
    par = solve_par(start, time_limit=60)
    assert par.exact
    assert Game.replay(start.deal, par.line).score == par.score
    for offset in range(5):
        chooser = random.Random(offset)
        game = start
        while game.outcome is Outcome.IN_PROGRESS:
            game = game.apply(chooser.choice(game.legal_moves()))
        assert game.score <= par.score
    # a win removes all 52 cards: 520 less the recycles it needs
    if solve(start, time_limit=60).verdict is Verdict.WINNABLE:
        assert par.score <= 520 and par.score % 10 == 0


def test_hint_and_review_work_inside_a_pass_without_a_removal() -> None:
    """A few draws into a pass that has removed nothing: the hint's line waits for a removal before
    any recycle, and a review of the game replays."""
    for seed in range(20):
        game = Game.from_seed("unlimited", seed)
        game = game.apply(DRAW).apply(DRAW)
        if game.removed_this_pass or solve(game, time_limit=30).verdict is not Verdict.WINNABLE:
            continue
        solution = solve(game, time_limit=30)
        won = Game.replay(game.deal, game.moves + solution.line)
        assert won.outcome is Outcome.WON
        answer = hint(game, time_limit=30)
        assert answer.move is not None and solve(game.apply(answer.move), time_limit=30).verdict is Verdict.WINNABLE
        assert review(game.deal, game.moves, time_limit=30).start_verdict is Verdict.WINNABLE
        return
    raise AssertionError("no winnable deal in 20 seeds")


def test_normal_line_cuts_a_pass_that_removed_nothing() -> None:
    """A pass without a removal and its recycle lead back where they began: cut, the line is legal
    and scores ten more."""
    game = random_game(0)
    first_recycle = next(i for i, move in enumerate(game.moves) if move.kind is Kind.RECYCLE)
    # after the first recycle, one whole pass of draws and a recycle more, made as if allowed
    detour = [DRAW] * len(Game.replay(game.deal, game.moves[: first_recycle + 1]).stock) + [RECYCLE]
    line = game.moves[: first_recycle + 1] + tuple(detour) + game.moves[first_recycle + 1 :]
    start = Game.start(game.deal)
    assert normal_line(start, line) == game.moves
    assert normal_line(start, parse_moves("D D")) == tuple(parse_moves("D D"))


def test_the_players_view_says_the_redeals_are_unlimited_in_unlimited_alone() -> None:
    from games.engine import Game, deal_from_seed, get_rules
    from games.engine.rules import PRESETS

    for name in PRESETS:
        view = Game.start(deal_from_seed(get_rules(name), 3)).visible()
        assert view["recycles_unlimited"] is (name == "unlimited"), name
