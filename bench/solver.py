"""How fast the solver decides seeded deals of a preset, and how much memory it takes.

    .venv/bin/python bench/solver.py PRESET [--deals 1500] [--start 0] [--limit-s 30] [--par [--par-limit-s 5] [--par-scores FILE]] [--hints N] [--rules-version N]

Solves the deals of seeds ``--start`` .. ``--start + --deals - 1`` one after the other and prints
the share decided and winnable, the median, p90, p99 and worst seconds per deal (with the seed of
the worst), and the peak resident memory of the process.  ``--par`` also times the par search on
every deal; ``--hints N`` times hints from N mid-game positions: a random prefix of a winning line,
sometimes followed by a random legal move, so that both live and lost positions are asked about.
Every winning line is replayed in the engine.  Per-deal times are CPU seconds of this process
(``time.process_time``), steady on a shared machine; wall-clock figures follow them, with the
machine's load.  The worst seed is the one with the most CPU time.  The figures are printed, never
asserted.  Where Numba is installed the compiled kernel is loaded before the clock starts
(a worker has it loaded); ``PIRAMIDE_SOLVER_KERNEL=python`` times the pure-Python reference.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.engine import PRESETS, RULES_VERSION, RULES_VERSIONS, Game, Outcome, deal_from_seed, get_rules
from games.engine.solver import Verdict, hint, solve, solve_par
from games.engine.solver.budget import Budget
from games.engine.solver.kernel import available as kernel_available
from games.engine.solver.warm import warm


def quantile(sorted_values: list[float], share: float) -> float:
    """The nearest-rank quantile: the smallest value with at least ``share`` of the values at or below it."""
    if not sorted_values:
        return float("nan")
    rank = max(1, -(-len(sorted_values) * share // 1))
    return sorted_values[int(rank) - 1]


def timing_line(label: str, seconds: list[float], worst_seed: int | None = None) -> str:
    ordered = sorted(seconds)
    worst = f" (seed {worst_seed})" if worst_seed is not None else ""
    return (
        f"{label}: median {quantile(ordered, 0.5) * 1000:.2f} ms · p90 {quantile(ordered, 0.9) * 1000:.2f} ms · "
        f"p99 {quantile(ordered, 0.99) * 1000:.2f} ms · max {ordered[-1] * 1000:.1f} ms{worst}"
    )


def peak_megabytes() -> float:
    # ru_maxrss is in kilobytes on Linux
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def warm_kernel() -> str:
    """Load the compiled kernel before the clock starts, as a long-lived worker has it
    loaded (docs/solver.md, "The compiled kernel"), and say what that took."""
    if not kernel_available():
        return "solver: pure Python (Numba missing or PIRAMIDE_SOLVER_KERNEL=python)"
    return f"solver: compiled kernel, loaded in {warm():.2f} s before timing (wall clock)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("preset", choices=sorted(PRESETS))
    parser.add_argument("--deals", type=int, default=1500)
    parser.add_argument("--start", type=int, default=0, help="the first seed")
    parser.add_argument("--limit-s", type=float, default=30.0, help="per deal; past it the deal is undecided")
    parser.add_argument("--par", action="store_true", help="also time the par search")
    parser.add_argument("--par-limit-s", type=float, default=5.0, help="per deal for the par search (default 5)")
    parser.add_argument(
        "--par-scores", metavar="FILE", help="also write seed, par, exact and CPU seconds per deal to FILE"
    )
    parser.add_argument("--hints", type=int, default=0, metavar="N", help="also time N hints from mid-game positions")
    parser.add_argument(
        "--rules-version",
        type=int,
        choices=RULES_VERSIONS,
        default=RULES_VERSION,
        help="the rules version (docs/rules.md)",
    )
    args = parser.parse_args()

    rules = get_rules(args.preset, args.rules_version)
    kernel = warm_kernel()
    # time limits too are read on this process's CPU clock, so that a busy machine does not cut searches short
    Budget.clock = staticmethod(time.process_time)
    seconds: list[float] = []
    cpu_seconds: list[float] = []
    verdicts = {verdict: 0 for verdict in Verdict}
    undecided: list[int] = []
    par_seconds: list[float] = []
    par_cpu: list[float] = []
    par_inexact: list[int] = []
    par_late: list[int] = []
    par_scores: list[str] = []
    winning: list[tuple[int, Game, tuple[object, ...]]] = []
    worst_seed, worst = args.start, -1.0
    worst_par_seed, worst_par = args.start, -1.0
    for seed in range(args.start, args.start + args.deals):
        game = Game.start(deal_from_seed(rules, seed))
        started, cpu_started = time.perf_counter(), time.process_time()
        solution = solve(game, time_limit=args.limit_s)
        elapsed = time.perf_counter() - started
        seconds.append(elapsed)
        cpu_seconds.append(time.process_time() - cpu_started)
        verdicts[solution.verdict] += 1
        if solution.verdict is Verdict.UNKNOWN:
            undecided.append(seed)
        if cpu_seconds[-1] > worst:
            worst_seed, worst = seed, cpu_seconds[-1]
        if solution.verdict is Verdict.WINNABLE:
            if Game.replay(game.deal, solution.line).outcome is not Outcome.WON:
                raise SystemExit(f"seed {seed}: the winning line does not win in the engine")
            winning.append((seed, game, solution.line))
        if args.par:
            started, cpu_started = time.perf_counter(), time.process_time()
            par = solve_par(game, time_limit=args.par_limit_s)
            elapsed = time.perf_counter() - started
            cpu = time.process_time() - cpu_started
            par_seconds.append(elapsed)
            par_cpu.append(cpu)
            if par.exact:
                if cpu > args.par_limit_s:
                    # exact, but the budget is looked at every few stops: past the limit all the same
                    par_late.append(seed)
            else:
                par_inexact.append(seed)
            if cpu > worst_par:
                worst_par_seed, worst_par = seed, cpu
            if Game.replay(game.deal, par.line).score != par.score:
                raise SystemExit(f"seed {seed}: the par line does not reach the par in the engine")
            par_scores.append(f"{seed}\t{par.score}\t{'exact' if par.exact else 'floor'}\t{cpu:.3f}\n")

    decided = verdicts[Verdict.WINNABLE] + verdicts[Verdict.UNWINNABLE]
    print(
        f"{args.preset}, rules v{rules.version}: {args.deals} deals (seeds {args.start}..{args.start + args.deals - 1}), limit {args.limit_s:g} s a deal"
    )
    print(kernel)
    print(
        "times and time limits are CPU seconds of this process per deal (time.process_time) unless marked wall clock; "
        f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    print(
        f"decided {100 * decided / args.deals:.1f}% · winnable {100 * verdicts[Verdict.WINNABLE] / args.deals:.2f}% "
        f"· unknown {verdicts[Verdict.UNKNOWN]}" + (f" (seeds {' '.join(map(str, undecided))})" if undecided else "")
    )
    print(timing_line("solve, CPU time of this process", cpu_seconds, worst_seed))
    print(timing_line("solve, wall clock", seconds))
    if args.par:
        exact = args.deals - len(par_inexact) - len(par_late)
        print(
            f"par: exact within {args.par_limit_s:g} s on {exact}/{args.deals} deals ({100 * exact / args.deals:.1f}%)"
            + (f"; not exact: seeds {' '.join(map(str, par_inexact))}" if par_inexact else "")
            + (f"; exact, but past the limit: seeds {' '.join(map(str, par_late))}" if par_late else "")
        )
        print(timing_line("par, CPU time of this process", par_cpu, worst_par_seed))
        print(timing_line("par, wall clock", par_seconds))
        if args.par_scores:
            Path(args.par_scores).write_text("".join(par_scores))
    if args.hints and winning:
        print(hint_timings(winning, args.hints, args.limit_s))
    print(f"peak memory (max resident set): {peak_megabytes():.0f} MB")


def hint_timings(winning: list[tuple[int, Game, tuple[object, ...]]], count: int, limit: float) -> str:
    chooser = random.Random(0)
    seconds: list[float] = []
    live = 0
    for k in range(count):
        _, game, line = winning[k % len(winning)]
        for move in line[: chooser.randrange(len(line))]:
            game = game.apply(move)  # type: ignore[arg-type]
        if chooser.random() < 0.3 and game.legal_moves():
            game = game.apply(chooser.choice(game.legal_moves()))
        started = time.perf_counter()
        answer = hint(game, time_limit=limit)
        seconds.append(time.perf_counter() - started)
        live += answer.verdict is Verdict.WINNABLE
    return timing_line(f"hint ({count} mid-game positions, {live} still winnable)", seconds)


if __name__ == "__main__":
    main()
