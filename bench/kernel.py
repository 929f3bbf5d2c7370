"""The solver on the compiled kernel against the solver in pure Python, side by side.

    .venv/bin/python bench/kernel.py [PRESET:SEED ...] [--runs 3] [--limit-s 30]
    .venv/bin/python bench/kernel.py --preset PRESET --deals N

Solves each deal ``--runs`` times each way, the two ways in turn in this one process (the kernel
loaded before the first), and prints per deal the stops (the same both ways, or the line says
so), the median CPU seconds of each way and their ratio, then the sums.  Without deals it takes
the benchmark's slowest seeds of each preset.  With ``--preset``, seeds 0 .. N - 1 of it, once
each way in turn (which goes first alternates), and the median, p90, p99 and worst of each way.  The figures are printed,
never asserted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from solver import quantile

from games.engine import PRESETS, Game, deal_from_seed
from games.engine.solver import solve
from games.engine.solver.budget import Budget
from games.engine.solver.kernel import available
from games.engine.solver.warm import warm

SLOWEST = [
    "one-pass:615",
    "one-pass:74",
    "one-pass:145",
    "egyptian:872",
    "egyptian:91",
    "egyptian:789",
    "forty-house:788",
    "forty-house:720",
    "classic:205",
    "double:195",
    "forty-open:368",
]


def timed(game: Game, mode: str, limit: float) -> tuple[float, int, str]:
    os.environ["PIRAMIDE_SOLVER_KERNEL"] = mode
    started = time.process_time()
    solution = solve(game, time_limit=limit)
    return time.process_time() - started, solution.states, solution.verdict.value


def whole_preset(preset: str, deals: int, limit: float) -> None:
    seconds: dict[str, list[float]] = {"python": [], "numba": []}
    differ = []
    for seed in range(deals):
        game = Game.start(deal_from_seed(PRESETS[preset], seed))
        # which way goes first alternates: the second solve of a deal finds the shape caches the
        # first one filled (``Table.free`` and its kin are shared by every table of a size)
        if seed % 2:
            numba = timed(game, "numba", limit)
            python = timed(game, "python", limit)
        else:
            python = timed(game, "python", limit)
            numba = timed(game, "numba", limit)
        seconds["python"].append(python[0])
        seconds["numba"].append(numba[0])
        if python[1:] != numba[1:]:
            differ.append(seed)
    print(
        f"{preset}, seeds 0..{deals - 1}, once each way, in turn and first by turns; stops differ on {differ or 'no deal'}"
    )
    for mode, label in (("python", "pure Python"), ("numba", "kernel")):
        ordered = sorted(seconds[mode])
        print(
            f"{label:12}: median {quantile(ordered, 0.5) * 1000:.2f} ms · p90 {quantile(ordered, 0.9) * 1000:.2f} ms · "
            f"p99 {quantile(ordered, 0.99) * 1000:.2f} ms · max {ordered[-1] * 1000:.1f} ms · sum {sum(ordered):.2f} s"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("specs", nargs="*", metavar="PRESET:SEED", default=SLOWEST)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--limit-s", type=float, default=30.0)
    parser.add_argument("--preset", choices=sorted(PRESETS))
    parser.add_argument("--deals", type=int, default=1000)
    args = parser.parse_args()
    if not available():
        sys.exit("bench/kernel.py: Numba is not installed here (or PIRAMIDE_SOLVER_KERNEL=python)")
    Budget.clock = staticmethod(time.process_time)
    print(f"kernel loaded in {warm():.2f} s; CPU seconds of this process")
    if args.preset:
        whole_preset(args.preset, args.deals, args.limit_s)
        return
    print(f"{args.runs} runs each way, in turn")
    totals = {"python": 0.0, "numba": 0.0}
    for spec in args.specs:
        preset, _, seed = spec.partition(":")
        if preset not in PRESETS or not seed.isdigit():
            sys.exit(f"bench/kernel.py: {spec!r} is not PRESET:SEED")
        game = Game.start(deal_from_seed(PRESETS[preset], int(seed)))
        runs: dict[str, list[float]] = {"python": [], "numba": []}
        stops: dict[str, set[tuple[int, str]]] = {"python": set(), "numba": set()}
        for run in range(args.runs):
            for mode in ("python", "numba") if run % 2 == 0 else ("numba", "python"):
                seconds, states, verdict = timed(game, mode, args.limit_s)
                runs[mode].append(seconds)
                stops[mode].add((states, verdict))
        python, numba = statistics.median(runs["python"]), statistics.median(runs["numba"])
        totals["python"] += python
        totals["numba"] += numba
        same = (
            "same stops" if stops["python"] == stops["numba"] and len(stops["python"]) == 1 else f"STOPS DIFFER {stops}"
        )
        states, verdict = next(iter(stops["python"]))
        print(
            f"{spec:18} {verdict:10} {states:8} stops ({same}): pure Python {python * 1000:7.1f} ms, "
            f"kernel {numba * 1000:7.1f} ms, {python / numba:4.2f}x"
        )
    print(
        f"sum of medians: pure Python {totals['python']:.2f} s, kernel {totals['numba']:.2f} s, "
        f"{totals['python'] / totals['numba']:.2f}x"
    )


if __name__ == "__main__":
    main()
