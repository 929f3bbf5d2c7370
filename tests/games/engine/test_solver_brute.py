"""The solver against the brute-force reference on small variants, for every stock model and pass count.

Each variant keeps the real rule set (stock model, passes, who may pair with whom, house rules)
on a three- or four-row pyramid and a deck of three or four ranks, so that plain exhaustive
search over the engine's moves stays quick.  ``SOLVER_BRUTE_DEALS`` sets how many random deals
each variant gets (the default keeps the whole file to a few tens of seconds).
"""

from __future__ import annotations

import os
import random

import pytest

from games.engine.brute import explore
from games.engine.deal import deal_from_seed
from games.engine.game import Game, Outcome
from games.engine.moves import DRAW
from games.engine.rules import PRESETS, Rules, StockModel, get_rules
from games.engine.solver import Verdict, hint, solve, solve_par
from games.engine.solver.beam import Beam
from games.engine.solver.budget import Budget
from games.engine.solver.position import DRAW_KIND, Position, SolverMove, position_of, table_for
from games.engine.solver.relax import buried
from games.engine.solver.search import WinSearch, forced_move

from .builders import DRAWN, HOUSE, STOCK_TOP, WASTE, random_deal, random_games, random_midgame, tiny_rules, variants

DEALS = int(os.environ.get("SOLVER_BRUTE_DEALS", "80"))
NEEDS_REMOVAL = {"recycle_needs_removal": True, "row_bonus": False}


@pytest.fixture(autouse=True)
def pure_python(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pure-Python reference, whatever a test before this one loaded (a process with the kernel
    loaded starts every search on it): ``test_solver_kernel.py`` holds the kernel to brute force."""
    monkeypatch.setenv("PIRAMIDE_SOLVER_KERNEL", "python")


def variant(
    model: StockModel, passes: int, rows: int, ranks: tuple[int, ...], pair_sum: int, **flags: bool | int
) -> Rules:
    return tiny_rules("tiny", model, passes, rows, pair_sum=pair_sum, ranks=ranks, **flags)


VARIANTS = variants(
    [
        ("", variant(STOCK_TOP, 1, 3, (1, 2, 3), 4, stock_waste_pairs=True)),
        ("", variant(STOCK_TOP, 2, 3, (1, 2, 3), 4, stock_waste_pairs=True)),
        ("", variant(STOCK_TOP, 3, 3, (1, 2, 3), 4, stock_waste_pairs=True)),
        ("", variant(STOCK_TOP, 3, 4, (1, 2, 3, 4), 5, stock_waste_pairs=True)),
        ("-no-stock-waste-pairs", variant(STOCK_TOP, 2, 3, (1, 2, 3), 4)),
        ("", variant(DRAWN, 1, 3, (1, 2, 3), 4, stock_waste_pairs=True, face_down=True)),
        ("", variant(DRAWN, 2, 3, (1, 2, 3), 4, stock_waste_pairs=True)),
        ("", variant(DRAWN, 2, 4, (1, 2, 3, 4), 5, stock_waste_pairs=True)),
        ("", variant(WASTE, 1, 3, (1, 2, 3), 4)),
        ("", variant(WASTE, 2, 3, (1, 2, 3), 4)),
        ("", variant(WASTE, 3, 3, (1, 2, 3), 3)),
        ("", variant(WASTE, 2, 4, (1, 2, 3, 4), 5)),
        # double's stock model and passes on four rows
        ("", variant(WASTE, 3, 4, (1, 2, 3, 4), 5)),
        # egyptian's and forty-open's neighbouring waste cards (rules version 3), without house rules
        ("-neighbours", variant(WASTE, 1, 3, (1, 2, 3), 4, house_waste_reach=2)),
        ("-neighbours", variant(WASTE, 2, 3, (1, 2, 3), 4, house_waste_reach=2)),
        ("-neighbours", variant(WASTE, 2, 4, (1, 2, 3, 4), 5, house_waste_reach=2)),
        ("-neighbours", variant(WASTE, 3, 3, (1, 2, 3), 3, house_waste_reach=2)),
        ("-house", variant(WASTE, 1, 3, (1, 2, 3), 4, **HOUSE)),
        ("-house", variant(WASTE, 1, 4, (1, 2, 3, 4), 5, **HOUSE)),
        ("-house", variant(WASTE, 2, 3, (1, 2, 3), 4, **HOUSE)),
        ("-house", variant(STOCK_TOP, 1, 3, (1, 2, 3), 4, stock_waste_pairs=True, **HOUSE)),
        # forty's "draw only when nothing can be removed", on every stock model
        (
            "-stuck",
            variant(DRAWN, 1, 3, (1, 2, 3), 4, stock_waste_pairs=True, face_down=True, draw_only_when_stuck=True),
        ),
        ("-stuck", variant(DRAWN, 2, 4, (1, 2, 3, 4), 5, stock_waste_pairs=True, draw_only_when_stuck=True)),
        ("-stuck", variant(STOCK_TOP, 2, 3, (1, 2, 3), 4, stock_waste_pairs=True, draw_only_when_stuck=True)),
        ("-stuck", variant(WASTE, 2, 3, (1, 2, 3), 4, draw_only_when_stuck=True)),
        ("-house-stuck", variant(WASTE, 1, 3, (1, 2, 3), 4, draw_only_when_stuck=True, **HOUSE)),
        # unlimited's recycles (more passes than a deal of 12 or 16 cards has removals, each recycle
        # after a pass with a removal) and its scoring without the row bonus
        ("-needs-removal", variant(STOCK_TOP, 13, 3, (1, 2, 3), 4, stock_waste_pairs=True, **NEEDS_REMOVAL)),
        ("-needs-removal", variant(STOCK_TOP, 17, 4, (1, 2, 3, 4), 5, stock_waste_pairs=True, **NEEDS_REMOVAL)),
        (
            "-needs-removal-rows",
            variant(STOCK_TOP, 13, 3, (1, 2, 3), 4, stock_waste_pairs=True, recycle_needs_removal=True),
        ),
    ],
)


@pytest.mark.parametrize("name", VARIANTS)
def test_solver_agrees_with_brute_force_on_random_small_deals(name: str) -> None:
    rules = VARIANTS[name]
    rng = random.Random(name)
    verdicts = set()
    for game in random_games(rules, rng, DEALS, midgame_share=0.3, most_moves=12):
        deal = game.deal
        truth = explore(game)
        solution = solve(game)
        assert (solution.verdict is Verdict.WINNABLE) == truth.winnable, f"{deal} after {game.moves}"
        verdicts.add(solution.verdict)
        if truth.winnable:
            assert Game.replay(deal, game.moves + solution.line).outcome is Outcome.WON
        par = solve_par(game)
        assert par.exact and par.score == truth.par, f"{deal} after {game.moves}"
        assert Game.replay(deal, game.moves + par.line).score == par.score
    assert verdicts == {Verdict.WINNABLE, Verdict.UNWINNABLE}, "the variant should give both verdicts"


@pytest.mark.parametrize("name", VARIANTS)
def test_hint_keeps_a_winnable_game_winnable(name: str) -> None:
    rules = VARIANTS[name]
    rng = random.Random(f"hint {name}")
    for _ in range(max(1, DEALS // 5)):
        game = random_midgame(random_deal(rules, rng), rng, 12)
        answer = hint(game)
        if game.outcome is Outcome.IN_PROGRESS and explore(game).winnable:
            assert answer.verdict is Verdict.WINNABLE and answer.move is not None
            assert explore(game.apply(answer.move)).winnable
        elif game.outcome is not Outcome.WON:
            assert answer.verdict is Verdict.UNWINNABLE and answer.move is None


@pytest.mark.parametrize("name", VARIANTS)
def test_a_forced_move_keeps_a_winnable_position_winnable(name: str) -> None:
    """The moves the search makes without trying any other (docs/solver.md, rules 1 and 2) lose no
    win: wherever one is forced along a random game in a position brute force can win, brute force
    still wins after it."""
    rules = VARIANTS[name]
    rng = random.Random(f"forced {name}")
    checked = 0
    for _ in range(max(1, DEALS // 4)):
        game = Game.start(random_deal(rules, rng))
        while game.outcome is Outcome.IN_PROGRESS:
            table, position = table_for(game), position_of(game)
            search = WinSearch(table, Budget(None, None))
            settled = table.house and search.settled(position)
            move = forced_move(table, position, usable_bag(search, position), table.removals(position), settled)
            if move is not None and explore(game).winnable:
                checked += 1
                after = game.apply(table.to_move(move))
                assert explore(after).winnable, f"{game.deal} after {game.moves}: {after.moves[-1]} loses the win"
            game = game.apply(rng.choice(game.legal_moves()))
    assert checked, "some position should have had a forced move"


def usable_bag(search: WinSearch, position: Position) -> int:
    """The outside cards a forced move may count on, as the search counts them: in the last pass,
    not those buried for good (docs/solver.md, rule 5)."""
    table = search.table
    removed, stock, waste, drawn, recycles, _ = position
    dead = 0
    if recycles == table.recycles and len(waste) > table.stock_waste_pairs and not table.house:
        dead = buried(table, removed, waste, lambda w: w in stock or w == drawn)
    return search.outside_bag(stock + waste[dead:] + (drawn,))


#: the variants the beam runs under (not the house rules, waste pairs nor draw-only-when-stuck)
BEAM_VARIANTS = [
    name
    for name, rules in VARIANTS.items()
    if not (
        rules.house_put_back or rules.house_return_three or rules.house_waste_reach > 1 or rules.draw_only_when_stuck
    )
]


@pytest.mark.parametrize(
    ("name", "beam"),
    [pytest.param(name, True, id=f"{name}-with-beam") for name in BEAM_VARIANTS]
    + [pytest.param(name, False, id=f"{name}-runs-only") for name in VARIANTS],
)
def test_restarts_keep_every_verdict(name: str, beam: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs cut short after a handful of nodes, and restarted in shuffled orders, still agree with
    brute force: a half-searched position must leave no refutation behind (docs/solver.md, "Restarts").
    With the beam between the runs (docs/solver.md, "The beam") and without it, so that the runs
    themselves still find the lines the beam would find first."""
    monkeypatch.setattr(WinSearch, "FIRST_RUN_NODES", 2)
    if not beam:
        monkeypatch.setattr(Beam, "applies", staticmethod(lambda search: False))
    restarted = 0
    original_run = WinSearch.run

    def counting_run(self: WinSearch, start: Position) -> list[SolverMove] | None:
        nonlocal restarted
        line = original_run(self, start)
        restarted += self.runs > 0
        return line

    monkeypatch.setattr(WinSearch, "run", counting_run)
    rules = VARIANTS[name]
    rng = random.Random(f"restarts {name}")
    for game in random_games(rules, rng, DEALS // 2, midgame_share=0.3, most_moves=12):
        deal = game.deal
        solution = solve(game)
        assert (solution.verdict is Verdict.WINNABLE) == explore(game).winnable, f"{deal} after {game.moves}"
        if solution.verdict is Verdict.WINNABLE:
            assert Game.replay(deal, game.moves + solution.line).outcome is Outcome.WON
    if rules.house_put_back or rules.house_return_three:
        assert not restarted, "under the house rules a search makes one run only"
    else:
        assert restarted, "some search should have been restarted"


@pytest.mark.parametrize("preset", ["classic", "one-pass", "egyptian"])
def test_just_after_a_draw_the_waste_tops_removals_repeat_the_stop_befores(preset: str) -> None:
    """The removals a stop reached by a draw leaves out (``outside_removals(just_drawn=True)``)
    each give a position that a removal of the stop before gave (docs/solver.md, "No stop twice");
    only where the stock top plays is anything left out."""
    rules = get_rules(preset)
    rng = random.Random(f"waste top {preset}")
    compared = 0
    for _ in range(300):
        game = random_midgame(deal_from_seed(rules, rng.randrange(10_000)), rng, 30)
        table, before = table_for(game), position_of(game)
        if game.outcome is not Outcome.IN_PROGRESS or not before[1]:
            continue
        after = table.apply(before, (DRAW_KIND, 0, 0))
        kept = set(table.outside_removals(after, just_drawn=True))
        left_out = [move for move in table.outside_removals(after) if move not in kept]
        earlier = {table.apply(before, move) for move in table.removals(before)}
        for move in left_out:
            assert table.apply(after, move) in earlier, f"{game.deal} after {game.moves}: {move}"
            compared += 1
        assert all(move in table.removals(after) for move in kept)
    if table.stock_top:
        assert compared > 50
    else:
        assert not compared, "where only the waste top plays, the card just drawn is new"


@pytest.mark.parametrize("name", sorted(set(PRESETS) | set(VARIANTS)))
def test_removals_by_value_are_the_pairwise_removals_in_the_same_order(name: str) -> None:
    """Where only the waste top plays beside the pyramid, ``Table.removals`` looks the pyramid's
    partners up by value; it must list exactly the moves trying every two cards lists, in the same
    order (the order of trial, and of the restarts' shuffles, depends on it)."""
    rules = PRESETS[name] if name in PRESETS else VARIANTS[name]
    rng = random.Random(f"removals {name}")
    compared = 0
    for _ in range(150):
        if name in VARIANTS:
            game = random_midgame(random_deal(rules, rng), rng, 6)
        else:
            game = random_midgame(deal_from_seed(rules, rng.randrange(10_000)), rng, 40)
        table, position = table_for(game), position_of(game)
        if table.reach != 1:
            pytest.skip("deep waste cards play here: only the pairwise removals apply")
        for pyramid_pairs in (True, False):
            assert table.removals(position, pyramid_pairs) == table._pairwise_removals(position, pyramid_pairs), (
                f"{game.deal} after {game.moves}"
            )
        compared += bool(table.removals(position))
    assert compared > 30


NEEDS_REMOVAL_VARIANTS = [name for name, rules in VARIANTS.items() if rules.recycle_needs_removal]


@pytest.mark.parametrize("name", NEEDS_REMOVAL_VARIANTS)
def test_inside_a_pass_without_a_removal_the_solver_waits_for_one(name: str) -> None:
    """Under ``recycle_needs_removal`` a game a few draws into a pass that has removed nothing may
    not recycle before a removal, though the searches' positions do not say so (``_held_pass``):
    verdict, par, hint and lines agree with brute force there, and every line replays."""
    rules = VARIANTS[name]
    rng = random.Random(f"held {name}")
    held = 0
    for _ in range(DEALS):
        game = random_midgame(random_deal(rules, rng), rng, 12)
        # on to the start of a pass (after a recycle, or the deal's start), then draws only
        while game.waste and game.outcome is Outcome.IN_PROGRESS:
            game = game.apply(rng.choice(game.legal_moves()))
        for _ in range(rng.randrange(1, len(game.stock) + 1) if game.stock else 0):
            if game.outcome is not Outcome.IN_PROGRESS or not game.stock:
                break
            game = game.apply(DRAW)
        if game.outcome is not Outcome.IN_PROGRESS or not game.waste or game.removed_this_pass:
            continue
        held += 1
        truth = explore(game)
        solution = solve(game)
        assert (solution.verdict is Verdict.WINNABLE) == truth.winnable, f"{game.deal} after {game.moves}"
        if truth.winnable:
            assert Game.replay(game.deal, game.moves + solution.line).outcome is Outcome.WON
            assert explore(game.apply(hint(game).move)).winnable  # type: ignore[arg-type]
        par = solve_par(game)
        assert par.exact and par.score == truth.par, f"{game.deal} after {game.moves}"
        assert Game.replay(game.deal, game.moves + par.line).score == par.score
    assert held > DEALS // 4, "most games should have stood inside a pass without a removal"
