"""The par search's bounds and its clearing search against exhaustive search on small variants.

``Perfect`` answers "can a line clear the pyramid losing at most ``loss`` units (outside cards
left, recycles made)?" exactly; the par search prunes with it, so a wrong "no" would lose the
par.  Both are checked here against a breadth-first walk over the engine's own moves, on three-
and four-row variants of every stock model the clearing search runs under, in pure Python and,
where Numba is installed, compiled (``kernels.par``) under the rules it is compiled for.
``SOLVER_PAR_DEALS`` sets how many random deals each variant gets.
"""

from __future__ import annotations

import os
import random
from typing import TYPE_CHECKING

import pytest

from games.engine import deal_from_seed
from games.engine.brute import explore, game_key
from games.engine.game import Game, Outcome
from games.engine.rules import Rules, StockModel
from games.engine.solver import solve_par
from games.engine.solver.budget import Budget
from games.engine.solver.kernel import available, par_kernel
from games.engine.solver.parbound import Perfect, RelaxedMax, StackMax
from games.engine.solver.position import position_of, table_for

if TYPE_CHECKING:
    from games.engine.solver.kernels.par import KernelPerfect

from .builders import DRAWN, HOUSE, STOCK_TOP, WASTE, deal_with, random_games, tiny_rules, variants

DEALS = int(os.environ.get("SOLVER_PAR_DEALS", "60"))


def variant(
    model: StockModel, passes: int, rows: int, ranks: tuple[int, ...], pair_sum: int, **flags: bool | int
) -> Rules:
    return tiny_rules("par", model, passes, rows, pair_sum=pair_sum, ranks=ranks, **flags)


VARIANTS = variants(
    [
        ("", variant(STOCK_TOP, 1, 3, (1, 2, 3), 4, stock_waste_pairs=True)),
        ("", variant(STOCK_TOP, 2, 3, (1, 2, 3), 4, stock_waste_pairs=True)),
        ("", variant(STOCK_TOP, 3, 3, (1, 2, 3), 4, stock_waste_pairs=True)),
        ("", variant(STOCK_TOP, 3, 4, (1, 2, 3, 4), 5, stock_waste_pairs=True)),
        ("", variant(STOCK_TOP, 2, 4, (1, 2, 3, 4, 5), 6, stock_waste_pairs=True)),
        ("-no-stock-waste-pairs", variant(STOCK_TOP, 2, 3, (1, 2, 3), 4)),
        ("", variant(DRAWN, 2, 3, (1, 2, 3), 4, stock_waste_pairs=True)),
        ("", variant(DRAWN, 2, 4, (1, 2, 3, 4), 5, stock_waste_pairs=True, face_down=True)),
        ("", variant(WASTE, 2, 3, (1, 2, 3), 4)),
        ("", variant(WASTE, 3, 3, (1, 2, 3), 3)),
        ("", variant(WASTE, 2, 4, (1, 2, 3, 4), 5)),
        # seed 003's early end (one-pass, and every preset under rules version 1): frozen is lost
        ("-frozen-ends", variant(STOCK_TOP, 3, 3, (1, 2, 3), 4, stock_waste_pairs=True, ends_when_frozen=True)),
        ("-frozen-ends", variant(STOCK_TOP, 1, 4, (1, 2, 3, 4), 5, stock_waste_pairs=True, ends_when_frozen=True)),
        ("-frozen-ends", variant(WASTE, 2, 4, (1, 2, 3, 4), 5, ends_when_frozen=True)),
    ],
)


#: rule sets the clearing search does not run under: only the par is checked there
PAR_ONLY_VARIANTS = variants(
    [
        ("-house", variant(WASTE, 2, 3, (1, 2, 3), 4, **HOUSE)),
        ("-house", variant(STOCK_TOP, 1, 3, (1, 2, 3), 4, stock_waste_pairs=True, **HOUSE)),
        ("-stuck", variant(DRAWN, 2, 3, (1, 2, 3), 4, stock_waste_pairs=True, draw_only_when_stuck=True)),
        ("-house-frozen-ends", variant(WASTE, 2, 3, (1, 2, 3), 4, ends_when_frozen=True, **HOUSE)),
    ],
)


def best_with(game: Game, removed: int) -> int | None:
    """The highest score of a game reachable from ``game`` whose pyramid mask is ``removed`` (None
    when none is), by brute force."""
    seen = {game_key(game)}
    frontier = [game]
    best = game.score if game.removed == removed else None
    while frontier:
        following = []
        for current in frontier:
            for move in current.legal_moves():
                after = current.apply(move)
                key = game_key(after)
                if key in seen:
                    continue
                seen.add(key)
                if after.removed == removed and (best is None or after.score > best):
                    best = after.score
                following.append(after)
        frontier = following
    return best


def perfect_for(game: Game, clears: bool, kernel: str = "python") -> Perfect | KernelPerfect:
    """The clearing search in pure Python, or compiled (``kernels.par``)."""
    table = table_for(game)
    relaxed = RelaxedMax(table, table.stock_waste_pairs or table.reach > 1, clears=clears)
    python = Perfect(table, relaxed, StackMax(table, relaxed), lambda: None)
    if kernel == "python":
        return python
    from games.engine.solver.kernels.par import KernelPerfect

    return KernelPerfect(python, Budget(None, None))


#: the clearing search in pure Python, and compiled where Numba is installed
KERNELS = ["python", pytest.param("numba", marks=pytest.mark.skipif(not available(), reason="Numba missing"))]


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("name", VARIANTS)
def test_clearing_search_agrees_with_brute_force(name: str, kernel: str, monkeypatch: pytest.MonkeyPatch) -> None:
    rules = VARIANTS[name]
    monkeypatch.setenv("PIRAMIDE_SOLVER_KERNEL", kernel)
    if kernel == "numba" and not par_kernel(table_for(Game.start(deal_from_seed(rules, 0))), timed=False):
        pytest.skip("the clearing search runs in pure Python under these rules")
    rng = random.Random(f"perfect {name}")
    answers = set()
    for game in random_games(rules, rng, DEALS, midgame_share=0.5, most_moves=10):
        deal = game.deal
        if game.outcome is not Outcome.IN_PROGRESS:
            continue
        position = position_of(game)
        # lines that clear the pyramid, where it can be; lines that leave the apex alone, always (the
        # par search asks about those on a deal that can be won, too)
        for clears in (True, False) if explore(game).winnable else (False,):
            goal = game.geometry.full_mask if clears else game.geometry.full_mask & ~1
            best = best_with(game, goal)
            perfect = perfect_for(game, clears, kernel)
            units = perfect.units(position)
            for loss in (0, 1, 2, 3):
                truth = best is not None and (best - game.score) // 10 >= units - loss
                answer = perfect.possible(position, loss)
                assert answer == truth, f"{deal} after {game.moves}, loss {loss}, clears {clears}"
                if answer:
                    # the line it found gets there, in the engine
                    end = Game.replay(deal, game.moves + table_for(game).to_moves(perfect.line))
                    assert end.removed == goal and (end.score - game.score) // 10 >= units - loss
                answers.add((clears, loss, answer))
    for clears in (True, False):
        assert {answer for c, _, answer in answers if c == clears} == {True, False}, f"clears {clears}: both answers"


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("name", VARIANTS | PAR_ONLY_VARIANTS)
def test_par_agrees_with_brute_force(name: str, kernel: str, monkeypatch: pytest.MonkeyPatch) -> None:
    rules = (VARIANTS | PAR_ONLY_VARIANTS)[name]
    monkeypatch.setenv("PIRAMIDE_SOLVER_KERNEL", kernel)
    if kernel == "numba" and not par_kernel(table_for(Game.start(deal_from_seed(rules, 0))), timed=False):
        pytest.skip("the clearing search runs in pure Python under these rules")
    rng = random.Random(f"par {name}")
    for game in random_games(rules, rng, DEALS, midgame_share=0.3, most_moves=10):
        deal = game.deal
        par = solve_par(game)
        assert par.exact and par.score == explore(game).par, f"{deal} after {game.moves}"
        assert Game.replay(deal, game.moves + par.line).score == par.score


def test_par_under_house_rules_with_a_recycle_left_counts_waste_pairs_below_the_top() -> None:
    """A recycle that cannot pay does not make the house rules' waste a stack: the best line here
    pairs two waste cards (at depths 1 and 2) and wins without recycling, 150 points."""
    rules = variant(WASTE, 2, 3, (1, 2, 3), 4, **HOUSE)
    game = Game.start(deal_with(rules, "2s 3s 3d As Ac 3c", "2h Ah 2c 2d Ad 3h"))
    par = solve_par(game)
    assert par.exact and par.score == explore(game).par == 150
    assert Game.replay(game.deal, par.line).score == 150
