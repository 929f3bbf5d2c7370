"""A brute-force reference for the solver: every position the engine's own moves reach, nothing pruned.

It walks ``Game.legal_moves``/``Game.apply`` breadth first and merges only games that are the
same in every field the rules read, so it shares no code and no reasoning with the solver; on
small variants (three to five rows, small decks) it is fast enough to check the solver against
thousands of deals in the test suite.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

from .game import Game, Outcome
from .moves import Kind


@dataclass(frozen=True)
class BruteResult:
    winnable: bool
    #: the highest score any reachable position has (the par)
    par: int
    positions: int


def game_key(game: Game) -> Hashable:
    """Everything a later move can depend on.

    The move list matters only to the house rules: put-back looks at the last move, return-three
    asks whether exactly three draws were made (so any count past three is the same).
    """
    rules = game.rules
    last = game.moves[-1].kind if game.moves and rules.house_put_back else None
    draws = min(4, sum(1 for move in game.moves if move.kind is Kind.DRAW)) if rules.house_return_three else 0
    # a recycle under ``recycle_needs_removal`` asks whether this pass has removed a card
    held = game.removed_this_pass if rules.recycle_needs_removal else False
    return (game.removed, game.stock, game.waste, game.drawn, game.counters, game.returned_three, last, draws, held)


def explore(game: Game, limit: int = 1_000_000) -> BruteResult:
    """Every position reachable from ``game``; raises RuntimeError past ``limit`` positions."""
    seen = {game_key(game)}
    frontier = [game]
    winnable = game.outcome is Outcome.WON
    par = game.score
    while frontier:
        following: list[Game] = []
        for current in frontier:
            for move in current.legal_moves():
                after = current.apply(move)
                key = game_key(after)
                if key in seen:
                    continue
                seen.add(key)
                if len(seen) > limit:
                    raise RuntimeError(f"more than {limit} positions: too big for brute force")
                par = max(par, after.score)
                if after.outcome is Outcome.WON:
                    winnable = True
                following.append(after)
        frontier = following
    return BruteResult(winnable, par, len(seen))
