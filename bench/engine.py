"""Random-playout throughput of the rules engine, per preset.

    .venv/bin/python bench/engine.py [--games 200] [--rounds 5] [--preset classic ...]

Each round plays ``--games`` seeded random games to the end (legal_moves, then apply, as the
server does on every move).  Printed: moves applied per second and games per second, the median
round and the slowest round, plus the mean game length.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.engine import PRESETS, Game, Outcome, deal_from_seed


def play_round(preset: str, games: int, first_seed: int) -> tuple[int, float]:
    rules = PRESETS[preset]
    moves = 0
    start = time.perf_counter()
    for seed in range(first_seed, first_seed + games):
        game = Game.start(deal_from_seed(rules, seed))
        chooser = random.Random(seed)
        while game.outcome is Outcome.IN_PROGRESS:
            game = game.apply(chooser.choice(game.legal_moves()))
            moves += 1
    return moves, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--preset", action="append", choices=list(PRESETS))
    args = parser.parse_args()
    print(
        f"{'preset':<12} {'moves/s med':>12} {'moves/s min':>12} {'games/s med':>12} {'games/s min':>12} {'moves/game':>11}"
    )
    for preset in args.preset or list(PRESETS):
        move_rates, game_rates, lengths = [], [], []
        for round_number in range(args.rounds):
            moves, seconds = play_round(preset, args.games, round_number * args.games)
            move_rates.append(moves / seconds)
            game_rates.append(args.games / seconds)
            lengths.append(moves / args.games)
        print(
            f"{preset:<12} {statistics.median(move_rates):>12,.0f} {min(move_rates):>12,.0f} "
            f"{statistics.median(game_rates):>12,.1f} {min(game_rates):>12,.1f} {statistics.mean(lengths):>11.1f}"
        )


if __name__ == "__main__":
    main()
