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
from collections.abc import Iterator
from pathlib import Path

import pytest

from games.engine import PRESETS, Game, deal_from_seed
from games.engine.brute import explore
from games.engine.solver import Verdict, solve
from games.engine.rules import FULL_RANKS, Rules, StockModel
from games.engine.solver_apex import FinalCard
from games.engine.solver_kernel import KERNEL_AFTER, MOST_OUTSIDE, Stack, StackKernel, available
from games.engine.solver_position import Table, position_of, table_for
from games.engine.solver_relax import Relaxation, StackRelaxation
from games.engine.solver_search import Budget, OutOfBudget, WinSearch

from .builders import random_games
from .test_solver_brute import VARIANTS

pytest.importorskip("numba")

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
    if preset not in ("forty",):
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
    for seed in seeds:
        game = Game.start(deal_from_seed(PRESETS[preset], seed))
        monkeypatch.setenv("PIRAMIDE_SOLVER_KERNEL", "python")
        python = solve(game, node_limit=60_000)
        monkeypatch.setenv("PIRAMIDE_SOLVER_KERNEL", "numba")
        for after in (0, 50):
            monkeypatch.setattr("games.engine.solver_kernel.KERNEL_AFTER", after)
            compiled = solve(game, node_limit=60_000)
            assert (compiled.verdict, compiled.states, compiled.line) == (python.verdict, python.states, python.line), (
                f"{preset} seed {seed}, kernel after {after} questions"
            )


@pytest.mark.usefixtures("kernel_on")
def test_the_search_moves_to_the_kernel_after_its_first_questions() -> None:
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
    monkeypatch.setattr("games.engine.solver_kernel.KERNEL_AFTER", 0)
    rules = VARIANTS[name]
    rng = random.Random(f"kernel {name}")
    for game in random_games(rules, rng, 30, midgame_share=0.3, most_moves=12):
        truth = explore(game)
        assert (solve(game).verdict is Verdict.WINNABLE) == truth.winnable, f"{game.deal} after {game.moves}"


def test_the_images_warm_up_compiles_the_kernel_into_the_cache_it_is_given(tmp_path: Path) -> None:
    """The Dockerfile compiles the kernel once, as the user that runs the services, into
    ``NUMBA_CACHE_DIR``; a second process then finds it there."""
    dockerfile = (Path(__file__).resolve().parents[3] / "Dockerfile").read_text()
    user = dockerfile.index("USER piramide")
    cache = dockerfile.index("ENV NUMBA_CACHE_DIR=")
    warm_up = dockerfile.index("RUN python -m games.engine.solver_kernel")
    assert user < warm_up and cache < warm_up
    environment = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "PIRAMIDE_SOLVER_KERNEL": "numba"}
    command = [sys.executable, "-m", "games.engine.solver_kernel"]
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
    monkeypatch.setattr("games.engine.solver_kernel._loaded", loaded)
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
    """Rule 8's count, asked what real searches ask it, compiled and not: the same places."""
    compared = 0
    for game in deals(preset, 30):
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
def test_a_search_on_the_kernel_leaves_no_cycle_for_the_collector(preset: str, seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The kernel's memory (its typed dictionary, its frames) is not what prompts Python's
    collector: held in a reference cycle it would stay until the next full collection, and a
    worker solving deal after deal grew by hundreds of megabytes."""
    monkeypatch.setattr("games.engine.solver_kernel.KERNEL_AFTER", 0)
    game = Game.start(deal_from_seed(PRESETS[preset], seed))
    gc.collect()
    gc.disable()
    try:
        solution = solve(game, time_limit=60)
        left = gc.collect()
    finally:
        gc.enable()
    assert solution.verdict is not Verdict.UNKNOWN
    assert left == 0, f"{left} objects in cycles"
