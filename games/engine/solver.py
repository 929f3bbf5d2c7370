"""The exact solver: verdict and winning line, par, hints and the point of no return.

The service knows every card of a deal, face-down and undrawn ones included, so these answers
come from a perfect-information search (docs/solver.md describes it and argues every pruning).
An answer is ``unknown`` only when an explicit time or node budget ran out; it is never a guess.
Every line returned here replays in the engine (``Game.replay``) to what it claims.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from .deal import Deal
from .game import Game, Outcome
from .moves import Move
from .solver_par import ParSearch
from .solver_position import Position, SolverMove, Table, position_of, table_for
from .solver_search import Budget, OutOfBudget, WinSearch


class Verdict(Enum):
    WINNABLE = "winnable"
    UNWINNABLE = "unwinnable"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class Solution:
    verdict: Verdict
    #: a winning line from the position solved; () unless winnable
    line: tuple[Move, ...]
    states: int
    seconds: float


@dataclass(frozen=True)
class ParResult:
    #: the best total score (of the whole game, what it already has included) any legal play reaches
    score: int
    #: False when the budget ran out: ``score`` is then a lower bound that ``line`` reaches
    exact: bool
    line: tuple[Move, ...]
    states: int
    seconds: float


@dataclass(frozen=True)
class Hint:
    verdict: Verdict
    #: the next move of a winning line; None unless winnable
    move: Move | None


@dataclass(frozen=True)
class Review:
    start_verdict: Verdict
    #: 1-based number of the first move after which the deal could no longer be won; None when the
    #: game was won, the deal was never winnable, it never became unwinnable, or the budget ran out
    point_of_no_return: int | None
    #: a winning line from the position just before that move (or from the last position, while
    #: it can still be won)
    line: tuple[Move, ...]
    states: int
    seconds: float


def _winning_line(game: Game, budget: Budget) -> tuple[Move, ...] | None:
    """A winning line from ``game``, None when there is none; raises OutOfBudget."""
    if game.outcome is Outcome.WON:
        return ()
    if game.outcome is Outcome.LOST:
        return None
    table = table_for(game)
    start = position_of(game)
    line = WinSearch(table, budget).run(start)
    return None if line is None else table.to_moves(line)


def solve(game: Game, *, time_limit: float | None = None, node_limit: int | None = None) -> Solution:
    """Can ``game`` still be won from where it stands, and how."""
    budget = Budget(time_limit, node_limit)
    try:
        line = _winning_line(game, budget)
    except OutOfBudget:
        return Solution(Verdict.UNKNOWN, (), budget.nodes, budget.seconds)
    if line is None:
        return Solution(Verdict.UNWINNABLE, (), budget.nodes, budget.seconds)
    return Solution(Verdict.WINNABLE, line, budget.nodes, budget.seconds)


def solve_par(game: Game, *, time_limit: float | None = None, node_limit: int | None = None) -> ParResult:
    """The best score reachable from ``game`` (its current score included) and a line reaching it."""
    budget = Budget(time_limit, node_limit)
    if game.outcome is not Outcome.IN_PROGRESS:
        return ParResult(game.score, True, (), 0, budget.seconds)
    table = table_for(game)
    start = position_of(game)
    stock_size = game.rules.stock_size
    # the winnability search is quick; its answer tightens the bounds, and its line is a first floor
    try:
        winning = WinSearch(table, budget).run(start)
    except OutOfBudget:
        search = ParSearch(table, budget, stock_size)
        search.best = table.score(start, stock_size)
        return _par_result(game, search, start, False, budget)
    search = ParSearch(table, budget, stock_size, winnable=winning is not None)
    exact = True
    try:
        if winning is None:
            search.run(start)
        else:
            search.run(start, table.score(_play(table, start, winning), stock_size), winning)
    except OutOfBudget:
        exact = False
    return _par_result(game, search, start, exact, budget)


def _play(table: Table, start: Position, line: list[SolverMove]) -> Position:
    position = start
    for move in line:
        position = table.apply(position, move)
    return position


def _par_result(game: Game, search: ParSearch, start: Position, exact: bool, budget: Budget) -> ParResult:
    table = search.table
    line = table.to_moves(search.best_line)
    best = search.best - table.score(start, game.rules.stock_size)
    return ParResult(game.score + best, exact, line, budget.nodes, budget.seconds)


def hint(game: Game, *, time_limit: float | None = None) -> Hint:
    """The next move of a winning line from ``game``, or the verdict that there is none."""
    solution = solve(game, time_limit=time_limit)
    if solution.verdict is Verdict.WINNABLE and solution.line:
        return Hint(Verdict.WINNABLE, solution.line[0])
    if solution.verdict is Verdict.WINNABLE:
        return Hint(Verdict.WINNABLE, None)
    return Hint(solution.verdict, None)


def review(deal: Deal, moves: Sequence[Move], *, time_limit: float | None = None) -> Review:
    """Where a game record stopped being winnable: winnability only falls along a game, so bisect.

    Raises IllegalMoveError when ``moves`` do not replay on ``deal``.
    """
    budget = Budget(time_limit, None)
    games = [Game.start(deal)]
    for move in moves:
        games.append(games[-1].apply(move))
    try:
        return _review(games, budget)
    except OutOfBudget:
        return Review(Verdict.UNKNOWN, None, (), budget.nodes, budget.seconds)


def _review(games: list[Game], budget: Budget) -> Review:
    start_line = _winning_line(games[0], budget)
    if start_line is None:
        return Review(Verdict.UNWINNABLE, None, (), budget.nodes, budget.seconds)
    last = games[-1]
    if last.outcome is Outcome.WON:
        return Review(Verdict.WINNABLE, None, (), budget.nodes, budget.seconds)
    last_line = _winning_line(last, budget)
    if last_line is not None:
        return Review(Verdict.WINNABLE, None, last_line, budget.nodes, budget.seconds)
    # games[low] can be won, games[high] cannot
    low, high, low_line = 0, len(games) - 1, start_line
    while high - low > 1:
        middle = (low + high) // 2
        line = _winning_line(games[middle], budget)
        if line is None:
            high = middle
        else:
            low, low_line = middle, line
    return Review(Verdict.WINNABLE, high, low_line, budget.nodes, budget.seconds)


__all__ = ["Hint", "ParResult", "Review", "Solution", "Verdict", "hint", "review", "solve", "solve_par"]
