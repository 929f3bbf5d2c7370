"""The solver's tables: what they share between deals and what each keeps to its own deal."""

from __future__ import annotations

import random

import pytest

from games.engine.deal import deal_from_seed
from games.engine.game import Game, Outcome
from games.engine.moves import Kind
from games.engine.rules import PRESETS
from games.engine.solver.position import Table, position_of, table_for


def random_games(preset: str, seed: int, count: int) -> list[Game]:
    """``count`` games of the preset's deal ``seed``, each played some random legal moves in."""
    chooser = random.Random(seed)
    game = Game.start(deal_from_seed(PRESETS[preset], seed))
    games = [game]
    while len(games) < count and game.outcome is Outcome.IN_PROGRESS:
        moves = game.legal_moves()
        removals = [move for move in moves if move.kind is Kind.REMOVE]
        game = game.apply(chooser.choice(removals or moves))
        games.append(game)
    return games


def expected_useful(table: Table, removed: int) -> int:
    present = {table.values[i] for i in range(table.size) if not removed >> i & 1}
    return sum(15 << 4 * v for v in range(1, table.king) if table.pair_sum - v in present)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_tables_of_one_size_share_the_shapes_yet_answer_for_their_own_cards(preset: str) -> None:
    # the free places of a pyramid are shared by every table with as many rows; what depends on the
    # cards (which values still have a partner) must stay each deal's own, however the asking interleaves
    seeds = range(6)
    played = [random_games(preset, seed, 40) for seed in seeds]
    tables = [table_for(games[0]) for games in played]
    asked = [(k, game) for k, games in enumerate(played) for game in games]
    random.Random(1).shuffle(asked)
    for k, game in asked:
        table = tables[k]
        removed = game.removed
        assert table.free(removed) == tuple(game.free_positions())
        assert table.free_bits(removed) == sum(1 << i for i in game.free_positions())
        assert table.useful_nibbles(removed) == expected_useful(table, removed)
        partnered = table.waste_rule(removed)[0]
        assert partnered == sum(1 << v for v in range(1, table.king) if expected_useful(table, removed) >> 4 * v & 15)
        position = position_of(game)
        for move in table.removals(position):
            assert table.to_move(move) in game.legal_moves()
