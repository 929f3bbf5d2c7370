"""The compiled clearing search of the par search against the pure-Python one it must match.

``KernelPerfect`` promises the answers of ``Perfect`` exactly, with the same bounds in the same
order, so that a fresh one of each, asked the same questions, makes the same stops and finds the
same line (docs/solver.md, "The compiled kernel").  These tests hold it to that, on the questions
real par searches ask and on positions along random games and winning lines, for every preset it
runs under; the brute-force reference on the small variants is in ``test_solver_par``.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from games.engine import PRESETS, Game, Rules, deal_from_seed, get_rules
from games.engine.solver import solve, solve_par
from games.engine.solver.budget import Budget, OutOfBudget
from games.engine.solver.kernel import par_kernel
from games.engine.solver.par import ParSearch
from games.engine.solver.parbound import Perfect, RelaxedMax, StackMax
from games.engine.solver.position import Position, Table, position_of, table_for

pytest.importorskip("numba")

from games.engine.solver.kernels.par import KernelPerfect, _relaxed, _stack

#: the presets whose clearing search runs compiled (removals take only the tops), egyptian and
#: forty-open as rules version 2 has them (``compiled_rules``)
COMPILED_PRESETS = ["classic", "one-pass", "egyptian", "forty-open", "double"]


def compiled_rules(preset: str) -> Rules:
    """``preset``'s rules where its clearing search runs compiled: from rules version 3 egyptian's and
    forty-open's two top waste cards pair, which only the pure-Python search takes; the games stored
    under version 2 still ask the compiled one."""
    rules = PRESETS[preset]
    return get_rules(preset, 2) if rules.house_waste_reach == 2 else rules


Question = tuple[Position, int, bool]


@pytest.fixture(autouse=True)
def kernel_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """The kernel, whatever the environment says."""
    monkeypatch.setenv("PIRAMIDE_SOLVER_KERNEL", "numba")


def fresh(table: Table, clears: bool) -> tuple[Perfect, KernelPerfect, Budget, Budget]:
    """A fresh pure-Python clearing search and a fresh compiled one, each with its own bounds and
    its own budget, which counts the stops."""
    pair = []
    for _ in range(2):
        relaxed = RelaxedMax(table, table.stock_waste_pairs or table.reach > 1, clears=clears)
        budget = Budget(None, None)
        pair.append((Perfect(table, relaxed, StackMax(table, relaxed), budget.spend), budget))
    (python, python_budget), (base, kernel_budget) = pair
    return python, KernelPerfect(base, kernel_budget), python_budget, kernel_budget


def asked_by_par(game: Game, node_limit: int) -> Iterator[Question]:
    """The questions a pure-Python par search of ``game`` asks its clearing searches, in order."""
    asked: list[Question] = []
    python = Perfect.possible

    def noted(self: Perfect, position: Position, loss: int) -> bool:
        asked.append((position, loss, self.clears))
        return python(self, position, loss)

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PIRAMIDE_SOLVER_KERNEL", "python")
        patch.setattr(Perfect, "possible", noted)
        solve_par(game, node_limit=node_limit)
    return iter(asked)


def along_random_games(table: Table, start: Position, rng: random.Random) -> Iterator[Position]:
    """Positions along a random game from ``start``, a few moves apart, recycles included."""
    position = start
    yield position
    for _ in range(rng.randrange(10, 45)):
        moves = table.removals(position) + table.other_moves(position)
        if not moves or position[0] == table.full:
            return
        position = table.apply(position, rng.choice(moves))
        if rng.random() < 0.3 and position[0] != table.full:
            yield position


def same_both_ways(table: Table, questions: list[Question]) -> tuple[int, int]:
    """Each question to a fresh pair of searches (one pair for each kind of line): the same answer,
    the same stops, the same line.  How many answers were yes, and how many took over 100 stops.
    (The compiled search in one call a question: a try going on from the top after a call comes
    back for the clock walks its first stops again.)"""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(KernelPerfect, "CHUNK", 1 << 40)
        return _same_both_ways(table, questions)


def _same_both_ways(table: Table, questions: list[Question]) -> tuple[int, int]:
    pairs = {clears: fresh(table, clears) for clears in (True, False)}
    yes = long = 0
    for position, loss, clears in questions:
        python, kernel, python_budget, kernel_budget = pairs[clears]
        before = python_budget.nodes
        answer = python.possible(position, loss)
        assert kernel.possible(position, loss) is answer, (position, loss, clears)
        assert kernel_budget.nodes == python_budget.nodes, (position, loss, clears)
        if answer:
            assert kernel.line == python.line, (position, loss, clears)
            yes += 1
        long += python_budget.nodes - before > 100
    return yes, long


@pytest.mark.slow  # a sweep of par searches, the slowest classic deals among them, each question asked twice
@pytest.mark.parametrize(
    ("preset", "seeds", "node_limit", "yes_at_least", "long_at_least"),
    [
        # (seeds whose par search asks the clearing search: many deals never need it)
        ("classic", [1, 3, 5, 7], 30_000, 1, 0),
        ("one-pass", [18, 32, 56], 30_000, 0, 0),
        ("egyptian", [2, 7], 30_000, 0, 0),
        # deals whose par search spends most of its time in the clearing search, in long questions
        ("classic", [257, 534], 60_000, 0, 3),
    ],
)
def test_the_compiled_clearing_search_makes_the_stops_of_a_fresh_pure_python_one_on_a_par_searchs_questions(
    preset: str, seeds: list[int], node_limit: int, yes_at_least: int, long_at_least: int
) -> None:
    compared = yes = long = 0
    for seed in seeds:
        game = Game.start(deal_from_seed(compiled_rules(preset), seed))
        table = table_for(game)
        questions = list(asked_by_par(game, node_limit))
        sample = random.Random(seed).sample(questions, min(25, len(questions)))
        found, slow = same_both_ways(table, sample)
        compared, yes, long = compared + len(sample), yes + found, long + slow
    assert compared >= min(20, 5 * len(seeds)) and yes >= yes_at_least and long >= long_at_least, (
        f"{compared} compared, {yes} yes, {long} long"
    )


@pytest.mark.parametrize("preset", COMPILED_PRESETS)
def test_the_compiled_clearing_search_makes_the_stops_of_a_fresh_pure_python_one_along_random_games(
    preset: str,
) -> None:
    rng = random.Random(f"kernel perfect {preset}")
    compared = yes = 0
    for seed in range(8 if preset != "double" else 2):
        game = Game.start(deal_from_seed(compiled_rules(preset), seed))
        table = table_for(game)
        positions = list(along_random_games(table, position_of(game), rng))
        questions = [
            (position, loss, clears) for position in positions for loss in range(4) for clears in (True, False)
        ]
        found, _ = same_both_ways(table, questions)
        compared, yes = compared + len(questions), yes + found
    assert compared >= 50, compared
    if preset == "classic":
        assert yes >= 1


@pytest.mark.parametrize("preset", COMPILED_PRESETS)
def test_the_compiled_clearing_search_makes_the_stops_of_a_fresh_pure_python_one_along_winning_lines(
    preset: str,
) -> None:
    """Positions along the second half of a winning line, with losses from none to past where the
    answers turn to yes.  Random games seldom leave a line that loses only the few units they are
    asked about, and the par search of a double deal is too slow in pure Python to ask its
    questions; near the end of a double deal's winning line, the best clearing line still loses 28
    to 42 units, so those questions are the only ones that reach the kernel's lines there."""
    compared = yes = long = 0
    # (few one-pass deals can be won)
    for seed in [12, 18, 26, 32] if preset == "one-pass" else range(4):
        game = Game.start(deal_from_seed(compiled_rules(preset), seed))
        line = solve(game, node_limit=200_000).line
        table = table_for(game)
        positions = [position_of(Game.replay(game.deal, line[:k])) for k in range(len(line) // 2, len(line), 8)]
        questions = [
            (position, loss, clears) for position in positions for loss in range(0, 48, 6) for clears in (True, False)
        ]
        found, slow = same_both_ways(table, questions)
        compared, yes, long = compared + len(questions), yes + found, long + slow
    assert compared >= 100 and 0 < yes < compared and long >= 1, f"{compared} compared, {yes} yes, {long} long"


@pytest.mark.parametrize("preset", ["classic", "egyptian"])
def test_the_compiled_bounds_answer_as_the_pure_python_ones(preset: str) -> None:
    """``RelaxedMax.value`` and ``StackMax.value``, asked of positions along random games, from fresh
    instances on both sides, with goals around the answer."""
    rng = random.Random(f"bounds {preset}")
    for seed in range(6):
        game = Game.start(deal_from_seed(compiled_rules(preset), seed))
        table = table_for(game)
        for clears in (True, False):
            python, kernel, _, _ = fresh(table, clears)
            relaxed, stack = python.relaxed, python.stack
            for position in along_random_games(table, position_of(game), rng):
                removed, stock, waste = position[:3]
                kings, bag = 0, 0
                for v in stock:
                    kings, bag = (kings + 1, bag) if v == table.king else (kings, bag + (1 << 4 * v))
                waste_kings, waste_bag = 0, 0
                for v in waste:
                    waste_kings, waste_bag = (
                        (waste_kings + 1, waste_bag) if v == table.king else (waste_kings, waste_bag + (1 << 4 * v))
                    )
                value = relaxed.value(removed, bag + waste_bag)
                assert _relaxed(kernel.tab, kernel.memos[0], *kernel.rwork, removed, bag + waste_bag) == value
                for goal in (value - 3, value, value + 2):
                    expected = stack.value(removed, waste, bag, goal)
                    kernel.swork[2][:] = 0
                    for k, v in enumerate(waste):
                        kernel.swork[2][k // 15] |= v << 4 * (k % 15)
                    got = _stack(
                        kernel.tab,
                        kernel.memos[:2],
                        kernel.rwork,
                        kernel.swork,
                        bytes(waste),
                        removed,
                        bag,
                        goal,
                        waste_kings,
                        waste_bag,
                    )
                    assert got == expected, (position, goal)


def test_a_clearing_search_cut_into_short_calls_finds_what_one_long_call_finds() -> None:
    """A call into the kernel comes back every ``CHUNK`` stops for the budget's clock; the uncapped
    try then goes on from the top (a ``CHUNK`` too small to get past the stretches still open doubles
    up to that).  Cut into calls of a few stops, every answer and line stays."""
    answered = []
    for seed, short in ((1, 7), (3, 7), (5, 7), (257, 1000)):
        game = Game.start(deal_from_seed(PRESETS["classic"], seed))
        table = table_for(game)
        questions = list(asked_by_par(game, 30_000))[:30]
        answers = []
        for chunk in (1 << 40, short):
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(KernelPerfect, "CHUNK", chunk)
                kernels = {clears: fresh(table, clears)[1] for clears in (True, False)}
                answers.append(
                    [
                        (kernels[clears].possible(position, loss), kernels[clears].line)
                        for position, loss, clears in questions
                    ]
                )
        assert answers[0] == answers[1], seed
        answered += [answer for answer, _ in answers[0]]
    assert True in answered and False in answered


def test_a_par_search_with_a_time_limit_compiles_its_clearing_search_only_where_the_kernel_is_loaded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table = table_for(Game.start(deal_from_seed(PRESETS["classic"], 0)))
    monkeypatch.setattr("games.engine.solver.kernel._loaded", False)
    assert par_kernel(table, timed=False) and not par_kernel(table, timed=True)
    monkeypatch.setattr("games.engine.solver.kernel._loaded", True)
    assert par_kernel(table, timed=True)
    for preset in ("forty-house", "forty", "egyptian", "forty-open"):
        # house rules and draw-only-when-stuck: no clearing search at all; a card held in play, or
        # two waste cards that pair (egyptian and forty-open from rules version 3): pure Python
        other = table_for(Game.start(deal_from_seed(PRESETS[preset], 0)))
        assert not par_kernel(other, timed=False)
    monkeypatch.setenv("PIRAMIDE_SOLVER_KERNEL", "python")
    assert not par_kernel(table, timed=False)


@pytest.mark.slow  # whole par searches in pure Python and compiled, deal after deal
@pytest.mark.parametrize("preset", ["classic", "one-pass", "egyptian", "forty-open"])
def test_the_par_is_the_same_with_the_clearing_search_compiled(preset: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whole par searches both ways (where pure Python finishes within its nodes): the same par, and
    a line that reaches it.  (Not double: its par takes minutes in pure Python.)"""
    compared = compiled_searches = 0
    for seed in [1, 3, 5, 7]:
        game = Game.start(deal_from_seed(compiled_rules(preset), seed))
        monkeypatch.setenv("PIRAMIDE_SOLVER_KERNEL", "python")
        python = solve_par(game, node_limit=150_000)
        if not python.exact:
            continue
        monkeypatch.setenv("PIRAMIDE_SOLVER_KERNEL", "numba")
        search = ParSearch(table_for(game), Budget(None, None), game.rules.stock_size)
        compiled_searches += isinstance(search.perfect, KernelPerfect)
        compiled = solve_par(game, node_limit=150_000)
        assert compiled.exact and compiled.score == python.score, (preset, seed)
        assert Game.replay(game.deal, compiled.line).score == compiled.score
        compared += 1
    assert compared >= 2 and compiled_searches == compared


def test_a_compiled_clearing_search_stops_at_its_budgets_node_limit() -> None:
    """A call into the kernel makes no more stops than the node limit leaves: the search ends at the
    limit's next stop, as the pure-Python one does."""
    game = Game.start(deal_from_seed(PRESETS["classic"], 257))
    table = table_for(game)
    python, kernel, _, _ = fresh(table, True)
    for search, budget in ((python, Budget(None, 12_345)), (kernel, Budget(None, 12_345))):
        if search is kernel:
            kernel.budget = budget
        else:
            python.spend = budget.spend
        with pytest.raises(OutOfBudget):
            search.possible(position_of(game), 1)
        assert budget.nodes == 12_346
