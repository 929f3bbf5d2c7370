"""The compiled stack relaxation against the pure-Python one it must match question for question.

``StackKernel`` promises the answers of ``StackRelaxation`` exactly, memo and step cap included,
so a search on either makes the same stops (docs/solver.md, "The compiled kernel").  These tests
hold it to that: the same questions in the same order, the same answers; whole searches on both,
the same stops and lines; and the brute-force reference on the small variants, with the kernel
from the search's first question.
"""

from __future__ import annotations

import gc
import os
import random
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from games.engine import PRESETS, Game, deal_from_seed, get_rules
from games.engine.brute import explore
from games.engine.game import Outcome
from games.engine.rules import FULL_RANKS, Rules, StockModel
from games.engine.solver import Verdict, solve
from games.engine.solver.apex import FinalCard
from games.engine.solver.budget import Budget, OutOfBudget, deep_recursion
from games.engine.solver.codes import GAVE_UP, LOST, WON
from games.engine.solver.kernel import KERNEL_AFTER, KERNEL_STOPS, MOST_OUTSIDE, Stack, available
from games.engine.solver.position import HOUSE_LAST_DRAW, Position, SolverMove, Table, position_of, table_for
from games.engine.solver.relax import Relaxation, StackRelaxation
from games.engine.solver.search import Compiled, WinSearch
from games.engine.solver.warm import warm

from .builders import random_games
from .test_solver_brute import VARIANTS

pytest.importorskip("numba")

if TYPE_CHECKING:
    from games.engine.solver.kernels.relax import StackKernel
    from games.engine.solver.kernels.search import KernelSearch
else:
    StackKernel = pytest.importorskip("games.engine.solver.kernels.relax").StackKernel
    KernelSearch = pytest.importorskip("games.engine.solver.kernels.search").KernelSearch

Question = tuple[int, tuple[int, ...], int, int, bool]


class Recording(StackRelaxation):
    """The pure-Python class, noting every question asked from outside and its answer."""

    def __init__(self, table: Table, relaxation: Relaxation, effort: int = 2000) -> None:
        super().__init__(table, relaxation, effort)
        self.asked: list[tuple[Question, bool]] = []

    def clearable(self, removed: int, waste: tuple[int, ...], bag: int, waste_bag: int, unburied: bool = False) -> bool:
        answer = super().clearable(removed, waste, bag, waste_bag, unburied)
        self.asked.append(((removed, waste, bag, waste_bag, unburied), answer))
        return answer


def recorded(game: Game, node_limit: int, effort: int = 2000) -> tuple[Table, list[tuple[Question, bool]]]:
    """The stack relaxation's questions of a pure-Python search of ``game`` (cut at ``node_limit``)."""
    table = table_for(game)
    search = WinSearch(table, Budget(None, node_limit))
    recording = Recording(table, search.relaxation, effort)
    search.stack = recording
    search.kernel_at = 1 << 62  # (the search itself stays in Python too)
    try:
        search.run(position_of(game))
    except OutOfBudget:
        pass  # what was asked until then is enough
    return table, recording.asked


def deals(preset: str, count: int) -> Iterator[Game]:
    for seed in range(count):
        yield Game.start(deal_from_seed(PRESETS[preset], seed))


@pytest.fixture
def kernel_on() -> Iterator[None]:
    """The kernel, whatever the environment says."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PIRAMIDE_SOLVER_KERNEL", "numba")
        yield


@pytest.mark.usefixtures("kernel_on")
@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("effort", [2000, 12])
def test_the_kernel_answers_each_question_as_the_pure_python_class_does(preset: str, effort: int) -> None:
    """The questions of real searches, in the order asked, to a fresh kernel: the same answers,
    given-up questions included (a small ``effort`` makes many of them)."""
    asked = 0
    for game in deals(preset, 40):
        table, questions = recorded(game, 3_000, effort)
        kernel = StackKernel(StackRelaxation(table, Relaxation(table), effort))
        for question, answer in questions:
            assert kernel.clearable(*question) == answer, f"{preset} {game.deal}: {question}"
        asked += len(questions)
    # (unlimited never reaches a last pass, where the stack relaxation is asked: its 53 passes never bind)
    if preset not in ("forty", "unlimited"):
        assert asked > 100, "the searches should have asked the stack relaxation"


@pytest.mark.usefixtures("kernel_on")
@pytest.mark.parametrize(
    ("preset", "seeds"),
    [
        ("one-pass", [615, 74, 3]),
        ("egyptian", [91, 3, 132]),
        ("forty-house", [720, 25]),
        ("classic", [417, 530]),
        ("double", [60, 171]),
        ("forty-open", [368]),
    ],
)
def test_a_search_on_the_kernel_makes_the_stops_of_a_pure_python_one(
    preset: str, seeds: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stack relaxation and the final count compiled (the search itself stays in Python:
    ``test_the_kernels_search_...`` below)."""
    monkeypatch.setattr("games.engine.solver.kernel.SEARCH", False)
    for seed in seeds:
        game = Game.start(deal_from_seed(PRESETS[preset], seed))
        monkeypatch.setenv("PIRAMIDE_SOLVER_KERNEL", "python")
        python = solve(game, node_limit=60_000)
        monkeypatch.setenv("PIRAMIDE_SOLVER_KERNEL", "numba")
        for after in (0, 50):
            monkeypatch.setattr("games.engine.solver.kernel.KERNEL_AFTER", after)
            monkeypatch.setattr("games.engine.solver.kernel._loaded", False)
            compiled = solve(game, node_limit=60_000)
            assert (compiled.verdict, compiled.states, compiled.line) == (python.verdict, python.states, python.line), (
                f"{preset} seed {seed}, kernel after {after} questions"
            )


@pytest.mark.usefixtures("kernel_on")
def test_the_search_moves_to_the_kernel_after_its_first_questions(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the kernel is not loaded in the process yet (loading it takes half a second)."""
    monkeypatch.setattr("games.engine.solver.kernel._loaded", False)
    game = Game.start(deal_from_seed(PRESETS["one-pass"], 74))
    table, questions = recorded(game, 5_000)
    assert len(questions) > KERNEL_AFTER
    stack = Stack(table, Relaxation(table))
    for number, (question, answer) in enumerate(questions):
        on_kernel = isinstance(getattr(stack.clearable, "__self__", None), StackKernel)
        assert on_kernel == (number > KERNEL_AFTER), f"question {number}"
        assert stack.clearable(*question) == answer


def test_turned_off_the_search_stays_on_the_pure_python_class(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PIRAMIDE_SOLVER_KERNEL", "python")
    assert not available()
    game = Game.start(deal_from_seed(PRESETS["one-pass"], 74))
    table, questions = recorded(game, 5_000)
    stack = Stack(table, Relaxation(table), after=0)
    for question, answer in questions:
        assert stack.clearable(*question) == answer
    assert getattr(stack.clearable, "__self__", None) is stack


@pytest.mark.usefixtures("kernel_on")
@pytest.mark.parametrize("name", VARIANTS)
def test_with_the_kernel_from_the_first_question_the_solver_agrees_with_brute_force(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("games.engine.solver.kernel.KERNEL_AFTER", 0)
    rules = VARIANTS[name]
    rng = random.Random(f"kernel {name}")
    for game in random_games(rules, rng, 30, midgame_share=0.3, most_moves=12):
        truth = explore(game)
        assert (solve(game).verdict is Verdict.WINNABLE) == truth.winnable, f"{game.deal} after {game.moves}"


@pytest.mark.slow  # two processes, one a cold Numba compile
def test_the_images_warm_up_compiles_the_kernel_into_the_cache_it_is_given(tmp_path: Path) -> None:
    """The Dockerfile compiles the kernel once, as the user that runs the services, into
    ``NUMBA_CACHE_DIR``; a second process then finds it there."""
    dockerfile = (Path(__file__).resolve().parents[3] / "Dockerfile").read_text()
    user = dockerfile.index("USER piramide")
    cache = dockerfile.index("ENV NUMBA_CACHE_DIR=")
    warm_up = dockerfile.index("RUN python -m games.engine.solver.warm")
    assert user < warm_up and cache < warm_up
    environment = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "PIRAMIDE_SOLVER_KERNEL": "numba"}
    command = [sys.executable, "-m", "games.engine.solver.warm"]
    first = subprocess.run(command, env=environment, capture_output=True, text=True, timeout=300)
    assert first.returncode == 0 and "compiled kernel is ready" in first.stdout, first.stderr
    cached = {path: path.stat().st_mtime_ns for path in tmp_path.rglob("*.nb*")}
    assert any("_stack" in path.name for path in cached), cached
    second = subprocess.run(command, env=environment, capture_output=True, text=True, timeout=300)
    # loaded, not compiled again: nothing in the cache was written anew
    assert second.returncode == 0 and {path: path.stat().st_mtime_ns for path in tmp_path.rglob("*.nb*")} == cached


@pytest.mark.usefixtures("kernel_on")
@pytest.mark.parametrize("loaded", [False, True])
def test_a_search_with_a_time_limit_moves_to_the_kernel_only_where_it_is_loaded(
    loaded: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Loading the kernel takes half a second or more, which must not come out of a search's time."""
    monkeypatch.setattr("games.engine.solver.kernel._loaded", loaded)
    game = Game.start(deal_from_seed(PRESETS["one-pass"], 74))
    table, questions = recorded(game, 5_000)
    stack = Stack(table, Relaxation(table), after=10, timed=True)
    for question, answer in questions:
        assert stack.clearable(*question) == answer
    assert isinstance(getattr(stack.clearable, "__self__", None), StackKernel) == loaded
    untimed = Stack(table, Relaxation(table), after=10)
    for question, answer in questions[:20]:
        assert untimed.clearable(*question) == answer
    assert isinstance(getattr(untimed.clearable, "__self__", None), StackKernel)


@pytest.mark.usefixtures("kernel_on")
def test_a_deal_too_large_for_the_kernels_words_stays_on_the_pure_python_class() -> None:
    rules = Rules("three-decks", FULL_RANKS, 3, 7, 13, 1, StockModel.WASTE_ONLY)
    table = table_for(Game.start(deal_from_seed(rules, 0)))
    assert rules.stock_size > MOST_OUTSIDE
    stack = Stack(table, Relaxation(table), after=0)
    question = (0, (1, 2), 0, (1 << 4) + (1 << 8))
    assert stack.clearable(*question) == StackRelaxation(table, Relaxation(table)).clearable(*question)
    assert getattr(stack.clearable, "__self__", None) is stack


@pytest.mark.usefixtures("kernel_on")
@pytest.mark.parametrize("preset", ["egyptian", "double", "forty-open"])
def test_the_compiled_final_count_answers_as_the_pure_python_one(preset: str) -> None:
    """Rule 8's count, asked what real searches ask it, compiled and not: the same places (under
    rules version 2 for egyptian and forty-open, whose waste pairs of version 3 leave rule 8 out)."""
    compared = 0
    for seed in range(30):
        game = Game.start(deal_from_seed(get_rules(preset, 2), seed))
        table = table_for(game)
        search = WinSearch(table, Budget(None, 3_000))
        asked: list[tuple[int, tuple[int, ...], tuple[int, ...], int]] = []
        python = search.final.last_pass

        def noted(removed: int, live: tuple[int, ...], stock: tuple[int, ...]) -> int:
            place = python(removed, live, stock)
            asked.append((removed, live, stock, place))
            return place

        search.final.last_pass = noted  # type: ignore[method-assign]
        search.stack.left = None  # the search stays on pure Python throughout
        try:
            search.run(position_of(game))
        except OutOfBudget:
            pass
        compiled = FinalCard(table)
        compiled.compile()
        for removed, live, stock, place in asked:
            assert compiled.last_pass(removed, live, stock) == place, f"{preset} {game.deal}: {removed} {live} {stock}"
        compared += len(asked)
    assert compared > 100, "the searches should have asked the final card's count"


@pytest.mark.usefixtures("kernel_on")
@pytest.mark.parametrize(("preset", "seed"), [("egyptian", 91), ("one-pass", 74)])
def test_a_search_on_the_kernel_leaves_no_cycle_for_the_collector(
    preset: str, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The kernel's memory (its typed dictionary, its frames) is not what prompts Python's
    collector: held in a reference cycle it would stay until the next full collection, and a
    worker solving deal after deal grew by hundreds of megabytes."""
    monkeypatch.setattr("games.engine.solver.kernel.KERNEL_AFTER", 0)
    game = Game.start(deal_from_seed(PRESETS[preset], seed))
    # (a first solve loads the compiled code, whose loader leaves ctypes classes for the collector)
    solve(game, time_limit=60)
    gc.collect()
    gc.disable()
    try:
        solution = solve(game, time_limit=60)
        left = gc.collect()
    finally:
        gc.enable()
    assert solution.verdict is not Verdict.UNKNOWN
    assert left == 0, f"{left} objects in cycles"


# ------------------------------------------------------------------ the search itself, compiled

#: the benchmark's slowest deal of each preset (each makes tens of thousands of stops)
SLOWEST = {
    "classic": 205,
    "one-pass": 615,
    "egyptian": 789,
    "forty-open": 368,
    "double": 195,
    "forty-house": 788,
    "forty": 59,
    "unlimited": 3,
}
#: the presets whose rules the kernel's search takes (``Compiled.searches``; forty-house's once the
#: return-three can no longer happen)
SEARCHED_PRESETS = ["classic", "one-pass", "egyptian", "forty-open", "double", "forty-house"]


def entered_positions(game: Game, node_limit: int) -> tuple[Table, list[tuple[Position, int]]]:
    """The positions (with their bags) a pure-Python search of ``game`` enters, in order, those
    the kernel's search takes (under the house rules, once the return-three can no longer happen)."""
    table = table_for(game)
    search = WinSearch(table, Budget(None, node_limit))
    search.stack.left = None  # pure Python throughout
    search.kernel_at = 1 << 62
    entered: list[tuple[Position, int]] = []
    python = search._search

    def noted(position: Position, bag: int) -> bool:
        if not table.house or search.settled(position):
            entered.append((position, bag))
        return python(position, bag)

    search._search = noted  # type: ignore[method-assign]
    try:
        search.run(position_of(game))
    except OutOfBudget:
        pass
    return table, entered


def fresh_kernel_search(table: Table) -> KernelSearch:
    search = WinSearch(table, Budget(None, None))
    final = search.final.final if search.final_card else 0
    kernel = Compiled.kernel_search(StackKernel(StackRelaxation(table, Relaxation(table))), table, final)
    kernel.shuffle(None)
    return kernel


def python_search(table: Table, position: Position, bag: int) -> tuple[bool, int, list[SolverMove]]:
    """A fresh pure-Python search from ``position``: won, stops, line."""
    search = WinSearch(table, Budget(None, None))
    search.stack.left = None
    search.kernel_at = 1 << 62
    with deep_recursion():
        won = search._search(position, bag)
    return won, search.budget.nodes, list(reversed(search.line)) if won else []


@pytest.mark.slow  # a sweep: 25 deals per preset, each searched twice
@pytest.mark.usefixtures("kernel_on")
@pytest.mark.parametrize(
    ("preset", "seeds", "node_limit", "sample", "long_ones"),
    [(preset, range(25), 3_000, 12, 10) for preset in SEARCHED_PRESETS]
    # the slowest deals of the benchmark
    + [
        ("classic", [205, 530, 417], 30_000, 12, 5),
        ("one-pass", [615, 74, 145], 30_000, 12, 5),
        ("egyptian", [872, 1134, 91, 789], 30_000, 12, 5),
        ("double", [195, 148], 30_000, 20, 3),
        ("forty-open", [969, 368], 30_000, 40, 3),
        ("forty-house", [788, 720, 561], 30_000, 12, 5),
    ],
)
def test_the_kernels_search_makes_the_stops_of_a_fresh_pure_python_search(
    preset: str, seeds: Sequence[int], node_limit: int, sample: int, long_ones: int
) -> None:
    """Positions that real searches enter, in every pass, each searched afresh both ways: the same
    verdict, the same stops, the same line.  (Within a solve the two part: before the move the
    kernel's memo does not hold what the pure-Python stretches refuted, and a shuffled run shuffles
    with another generator.)"""
    compared = long = 0
    for seed in seeds:
        game = Game.start(deal_from_seed(PRESETS[preset], seed))
        table, entered = entered_positions(game, node_limit)
        for position, bag in random.Random(seed).sample(entered, min(sample, len(entered))):
            won, stops, line = python_search(table, position, bag)
            answer, kernel_stops, kernel_line = fresh_kernel_search(table).search(
                position[0],
                bytes(position[2] + position[1]),
                len(position[2]),
                position[4],
                bag,
                1 << 62,
                bool(position[5] & HOUSE_LAST_DRAW),
            )
            assert (answer == WON, kernel_stops, kernel_line) == (won, stops, line), f"{preset} seed {seed}: {position}"
            compared += 1
            long += stops > 50
    assert compared >= min(30, len(seeds) * sample) and long >= long_ones, (
        f"{compared} positions compared, {long} of them over 50 stops"
    )


def kernel_from_the_start(patch: pytest.MonkeyPatch) -> None:
    """The kernel from the search's first questions and stops."""
    patch.setenv("PIRAMIDE_SOLVER_KERNEL", "numba")
    patch.setattr("games.engine.solver.kernel.KERNEL_AFTER", 0)
    patch.setattr("games.engine.solver.kernel.KERNEL_STOPS", 0)


@pytest.fixture
def kernel_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    kernel_from_the_start(monkeypatch)


@pytest.mark.parametrize("preset", SEARCHED_PRESETS)
def test_with_the_search_compiled_every_verdict_stays_and_every_line_wins(
    preset: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for game in deals(preset, 60):
        monkeypatch.setenv("PIRAMIDE_SOLVER_KERNEL", "python")
        python = solve(game, node_limit=200_000)
        with pytest.MonkeyPatch.context() as patch:
            kernel_from_the_start(patch)
            compiled = solve(game, node_limit=200_000)
        assert compiled.verdict is python.verdict is not Verdict.UNKNOWN, game.deal
        if compiled.verdict is Verdict.WINNABLE:
            assert Game.replay(game.deal, compiled.line).outcome is Outcome.WON


@pytest.mark.usefixtures("kernel_at_once")
@pytest.mark.parametrize(
    "name",
    [name for name, rules in VARIANTS.items() if Compiled.searches(table_for(Game.start(deal_from_seed(rules, 0))))],
)
def test_the_kernels_search_cut_short_and_restarted_agrees_with_brute_force(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Runs of two stops (so the kernel gives up in the middle of its stretches, again and again,
    and shuffles; under the house rules a search makes one run): a given-up search must leave only
    finished stretches in the memo."""
    monkeypatch.setattr(WinSearch, "FIRST_RUN_NODES", 2)
    rules = VARIANTS[name]
    rng = random.Random(f"kernel search {name}")
    for game in random_games(rules, rng, 40, midgame_share=0.3, most_moves=12):
        solution = solve(game)
        assert (solution.verdict is Verdict.WINNABLE) == explore(game).winnable, f"{game.deal} after {game.moves}"
        if solution.verdict is Verdict.WINNABLE:
            assert Game.replay(game.deal, game.moves + solution.line).outcome is Outcome.WON


@pytest.mark.slow  # the hardest deals known, solved twice each, one stop at a time
@pytest.mark.usefixtures("kernel_at_once")
@pytest.mark.parametrize(
    ("preset", "seed"), [("egyptian", 872), ("egyptian", 789), ("double", 195), ("classic", 205), ("forty-house", 788)]
)
def test_the_kernels_search_given_a_few_stops_at_a_time_reaches_the_same_verdict(
    preset: str, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under a time limit the kernel gets ``COMPILED_CHUNK`` stops at a time, twice as many each
    time; given one stop at first, it still decides, and as the untimed search does; a node
    limit stops it."""
    game = Game.start(deal_from_seed(PRESETS[preset], seed))
    untimed = solve(game)
    monkeypatch.setattr(WinSearch, "COMPILED_CHUNK", 1)
    warm()  # (a search with a time limit moves to the kernel only where it is loaded)
    given_up = 0
    search = KernelSearch.search

    def counted(self: KernelSearch, *args: Any) -> tuple[int, int, list[tuple[int, int, int]]]:
        nonlocal given_up
        answer = search(self, *args)
        given_up += answer[0] == GAVE_UP
        return answer

    monkeypatch.setattr(KernelSearch, "search", counted)
    timed = solve(game, time_limit=600)
    assert given_up, "the kernel should have run out of its first chunks"
    assert timed.verdict is untimed.verdict is not Verdict.UNKNOWN
    assert solve(game, node_limit=500).verdict is Verdict.UNKNOWN
    if timed.verdict is Verdict.WINNABLE:
        assert Game.replay(game.deal, timed.line).outcome is Outcome.WON


@pytest.mark.usefixtures("kernel_on")
def test_the_search_moves_to_the_kernel_where_its_rules_let_it_after_its_first_stops(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("games.engine.solver.kernel._loaded", False)
    monkeypatch.setattr("games.engine.solver.kernel.KERNEL_AFTER", 1 << 30)  # (not for its stack questions)
    for preset, seed in SLOWEST.items():
        game = Game.start(deal_from_seed(PRESETS[preset], seed))
        search = WinSearch(table_for(game), Budget(None, KERNEL_STOPS + 2_000))
        try:
            search.run(position_of(game))
        except OutOfBudget:
            pass
        assert (search.compiled.search is not None) == (preset in SEARCHED_PRESETS), preset


@pytest.mark.usefixtures("kernel_at_once")
@pytest.mark.parametrize(("preset", "seed"), [("forty-house", 788), ("egyptian", 91), ("classic", 530)])
def test_a_kernel_search_short_of_frames_leaves_the_stretch_to_python(
    preset: str, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The kernel is given frames for the longest line there can be; were it short of them, it
    would hand the stretch back, and the search would walk it in Python, with the same verdict."""
    moved = Compiled.__call__

    def short(self: Compiled, kernel: StackKernel) -> None:
        moved(self, kernel)
        assert self.search is not None
        self.search.stretches = self.search.stretches[:6].copy()

    monkeypatch.setattr(Compiled, "__call__", short)
    handed_back = 0
    walk = WinSearch._compiled_walk

    def counted(self: WinSearch, position: Position, bag: int) -> bool | None:
        nonlocal handed_back
        found = walk(self, position, bag)
        handed_back += found is None
        return found

    monkeypatch.setattr(WinSearch, "_compiled_walk", counted)
    game = Game.start(deal_from_seed(PRESETS[preset], seed))
    monkeypatch.setenv("PIRAMIDE_SOLVER_KERNEL", "python")
    python = solve(game)
    monkeypatch.setenv("PIRAMIDE_SOLVER_KERNEL", "numba")
    compiled = solve(game)
    assert handed_back, "six frames should have been too few"
    assert compiled.verdict is python.verdict is not Verdict.UNKNOWN
    if compiled.verdict is Verdict.WINNABLE:
        assert Game.replay(game.deal, compiled.line).outcome is Outcome.WON


@pytest.mark.usefixtures("kernel_on")
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_where_the_kernel_is_loaded_a_search_starts_on_it(preset: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Loaded already (a worker loads it as it starts), the kernel costs a search nothing to move
    to: it starts there, timed or not, where the rules let it."""
    warm()
    game = Game.start(deal_from_seed(PRESETS[preset], SLOWEST[preset]))
    for time_limit in (None, 60.0):
        search = WinSearch(table_for(game), Budget(time_limit, None))
        line = search.run(position_of(game))
        on_kernel = isinstance(getattr(search.stack.clearable, "__self__", None), StackKernel)
        # (unlimited reaches no last pass: nothing asks the stack relaxation, nothing moves it)
        assert on_kernel is (preset != "unlimited"), preset
        assert (search.compiled.search is not None) == (preset in SEARCHED_PRESETS), preset
        if line is not None:
            assert Game.replay(game.deal, table_for(game).to_moves(line)).outcome is Outcome.WON


@pytest.mark.usefixtures("kernel_on")
def test_the_kernels_table_covers_a_stretch_from_the_same_pointer_or_later_never_from_earlier() -> None:
    """Dominance (docs/solver.md, "Stretches"): a lost stretch covers the stretches of its key that
    start at its pointer or later in the same pass, and no earlier one (those reach stops it never
    stood on)."""
    game = Game.start(deal_from_seed(PRESETS["classic"], 205))
    table, entered = entered_positions(game, 3_000)
    checked = 0
    for position, bag in entered:
        removed, stock, waste, _, recycles, _ = position
        if recycles == table.recycles or not waste or not stock:
            continue
        kernel = fresh_kernel_search(table)
        outside, p = bytes(waste + stock), len(waste)
        if kernel.search(removed, outside, p, recycles, bag, 1 << 62)[0] != LOST:
            continue
        assert kernel.search(removed, outside, p, recycles, bag, 1 << 62)[:2] == (LOST, 0)
        assert kernel.search(removed, outside, p + 1, recycles, bag, 1 << 62)[:2] == (LOST, 0)
        assert kernel.search(removed, outside, p - 1, recycles, bag, 1 << 62)[1] > 0
        checked += 1
        if checked == 20:
            break
    assert checked == 20, "the search should have entered lost stretches with cards on the waste and in the stock"
