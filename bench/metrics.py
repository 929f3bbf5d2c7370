"""What the metrics cost a move: the counter and histogram calls of ``metrics.move_applied``.

    .venv/bin/python bench/metrics.py [--number 200000] [--repeat 5]

Printed: the best of ``--repeat`` timings of ``--number`` calls, per call, in the process's own
registry and in multiprocess mode (``PROMETHEUS_MULTIPROC_DIR``, values in memory-mapped files),
beside ``time.perf_counter()`` alone for scale.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

ONE_MODE = """
import sys, time, timeit
sys.path.insert(0, {root!r})
from plumbing import metrics
number, repeat = {number}, {repeat}
calls = timeit.repeat(lambda: metrics.move_applied("service", "classic", 0.002), number=number, repeat=repeat)
print(min(calls) / number * 1e9)
"""


def per_call(number: int, repeat: int, multiproc_dir: str | None) -> float:
    env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
    if multiproc_dir:
        env["PROMETHEUS_MULTIPROC_DIR"] = multiproc_dir
    code = ONE_MODE.format(root=str(ROOT), number=number, repeat=repeat)
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True)
    return float(out.stdout.strip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--number", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    import time

    clock = min(timeit.repeat(time.perf_counter, number=args.number, repeat=args.repeat)) / args.number * 1e9
    single = per_call(args.number, args.repeat, None)
    with tempfile.TemporaryDirectory() as folder:
        multi = per_call(args.number, args.repeat, folder)
    print(f"perf_counter() alone            {clock:8.0f} ns")
    print(f"move_applied, one process       {single:8.0f} ns per move")
    print(f"move_applied, multiprocess mode {multi:8.0f} ns per move")


if __name__ == "__main__":
    main()
