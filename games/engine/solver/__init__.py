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

from ..deal import Deal
from ..game import Game, Outcome
from ..moves import DRAW, Kind, Move
from .budget import Budget, OutOfBudget
from .par import ParSearch
from .position import Position, SolverMove, Table, position_of, table_for
from .search import WinSearch


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


def _held_pass(game: Game) -> bool:
    """Under ``Rules.recycle_needs_removal`` (``unlimited``), ``game`` stands inside a pass that has
    removed nothing yet, past its first card: its recycle waits for a removal.

    The searches know recycles only by their number, with no limit that binds here, and they may
    always recycle; that is the same game wherever a search starts a stretch right after a removal
    (as it does below its root) or at a pass's first card (a pass without a removal from there
    deals the same cards again, and a line never needs one, ``normal_line``).  A root anywhere else
    in a pass without a removal is searched through ``_pass_children``."""
    return game.rules.recycle_needs_removal and bool(game.waste) and not game.removed_this_pass


def _pass_children(game: Game) -> list[tuple[tuple[Move, ...], Game]]:
    """Every removal the rest of ``game``'s pass offers, each with the draws before it, and the game
    after it (its pass has a removal: the searches take it as it stands)."""
    children: list[tuple[tuple[Move, ...], Game]] = []
    prefix: tuple[Move, ...] = ()
    current = game
    while current.outcome is Outcome.IN_PROGRESS:
        for move in current.legal_moves():
            if move.kind is Kind.REMOVE:
                children.append((prefix + (move,), current.apply(move)))
        if not current.stock:
            break
        prefix += (DRAW,)
        current = current.apply(DRAW)
    return children


def normal_line(game: Game, line: Sequence[Move]) -> tuple[Move, ...]:
    """``line`` from ``game`` less every pass that removed nothing (``Rules.recycle_needs_removal``):
    such a pass and its recycle lead back to the position before it, ten points poorer, so cutting
    it keeps every later move legal and only raises the score.  Other rules: ``line`` unchanged."""
    if not game.rules.recycle_needs_removal:
        return tuple(line)
    moves = list(line)
    # where the current pass began in ``moves`` (None: before the line, at ``game``) and whether a
    # card has gone since
    began: int | None = 0 if not game.waste else None
    removed = game.removed_this_pass
    i = 0
    while i < len(moves):
        kind = moves[i].kind
        if kind is Kind.REMOVE:
            removed = True
        elif kind is Kind.RECYCLE:
            if not removed and began is not None:
                del moves[began : i + 1]
                i = began
                continue
            began, removed = i + 1, False
        i += 1
    return tuple(moves)


def _winning_line(game: Game, budget: Budget) -> tuple[Move, ...] | None:
    """A winning line from ``game``, None when there is none; raises OutOfBudget."""
    if game.outcome is Outcome.WON:
        return ()
    if game.outcome is Outcome.LOST:
        return None
    if _held_pass(game):
        for prefix, child in _pass_children(game):
            found = _winning_line(child, budget)
            if found is not None:
                return prefix + found
        return None
    table = table_for(game)
    start = position_of(game)
    line = WinSearch(table, budget).run(start)
    return None if line is None else normal_line(game, table.to_moves(line))


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
    return _par_of(game, Budget(time_limit, node_limit))


def _par_of(game: Game, budget: Budget) -> ParResult:
    """``solve_par`` of ``game`` on a budget shared with other searches."""
    # the winnability search is quick; its answer tightens the bounds, and its line is a first floor
    if game.outcome is not Outcome.IN_PROGRESS:
        return ParResult(game.score, True, (), 0, budget.seconds)
    if _held_pass(game):
        return _held_par(game, budget)
    table = table_for(game)
    start = position_of(game)
    try:
        winning = WinSearch(table, budget).run(start)
    except OutOfBudget:
        search = ParSearch(table, budget, game.rules.stock_size)
        search.best = table.score(start, game.rules.stock_size)
        return _par_result(game, search, start, False, budget)
    search = ParSearch(table, budget, game.rules.stock_size, winnable=winning is not None)
    exact = True
    try:
        if winning is None:
            search.run(start)
        else:
            search.run(start, table.score(_play(table, start, winning), game.rules.stock_size), winning)
    except OutOfBudget:
        exact = False
    return _par_result(game, search, start, exact, budget)


def _held_par(game: Game, budget: Budget) -> ParResult:
    """The par of a game inside a pass that has removed nothing yet (``_held_pass``): the score it
    has, or the best par after one of the removals the rest of the pass offers."""
    best = ParResult(game.score, True, (), 0, budget.seconds)
    for prefix, child in _pass_children(game):
        try:
            par = _par_of(child, budget)
        except OutOfBudget:
            return ParResult(best.score, False, best.line, budget.nodes, budget.seconds)
        if par.score > best.score:
            best = ParResult(par.score, best.exact and par.exact, prefix + par.line, 0, 0.0)
        elif not par.exact:
            best = ParResult(best.score, False, best.line, 0, 0.0)
    return ParResult(best.score, best.exact, best.line, budget.nodes, budget.seconds)


def _play(table: Table, start: Position, line: list[SolverMove]) -> Position:
    position = start
    for move in line:
        position = table.apply(position, move)
    return position


def _par_result(game: Game, search: ParSearch, start: Position, exact: bool, budget: Budget) -> ParResult:
    table = search.table
    line = table.to_moves(search.best_line)
    best = search.best - table.score(start, game.rules.stock_size)
    if game.rules.recycle_needs_removal:
        # a line cut short by the budget may hold a pass without a removal: cut out, it scores more
        normal = normal_line(game, line)
        if normal != line:
            line, best = normal, Game.replay(game.deal, game.moves + normal).score - game.score
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
