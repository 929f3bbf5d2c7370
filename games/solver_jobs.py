"""The searches a request may ask for, as they run in a solver process (``games/solving.py``).

Nothing here imports Django: a solver process loads the engine alone.  Each job takes plain
values (a deal, move notation, a time limit) and returns plain values, so it crosses a process
boundary by pickling.  Every job runs under two budgets: the solver's own time limit (wall
clock), and a CPU-time limit on the process (``RLIMIT_CPU``), the backstop for a search that
would not stop itself; when that one runs out the job answers as an exhausted budget does
(``unknown``), and the process lives on for the next job.
"""

from __future__ import annotations

import math
import os
import resource
import signal
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from types import FrameType
from typing import Any

from games.engine import Deal, get_rules, parse_move
from games.engine import Game as EngineGame
from games.engine.solver import Verdict, hint, review, solve

#: How often a solver process checks that the process that started it is still there.
PARENT_CHECK_SECONDS = 1.0


class CpuLimitExceeded(Exception):
    """The job used up its CPU seconds (``SIGXCPU``)."""


def _on_sigxcpu(signum: int, frame: FrameType | None) -> None:
    raise CpuLimitExceeded("the search used up its CPU time")


def init_process(nice: int) -> None:
    """A solver process's start: lower its priority, so that the web process and the database are
    served first when the machine is busy, turn ``SIGXCPU`` into an exception, and load the
    compiled kernel beside the first jobs (as a Celery worker does: piramide_site/celery.py)."""
    if nice:
        os.nice(nice)
    signal.signal(signal.SIGXCPU, _on_sigxcpu)
    threading.Thread(target=_follow_parent, args=(os.getppid(),), name="solver-parent", daemon=True).start()
    from games.engine.solver.kernel import available

    if available():
        threading.Thread(target=_warm_kernel, name="solver-kernel", daemon=True).start()


def _follow_parent(parent: int) -> None:
    """End with the web process that started this one, even when it was killed without a word: a
    pool's processes hold both ends of its queue, so they would never see it go, and wait for ever."""
    import time

    while os.getppid() == parent:
        time.sleep(PARENT_CHECK_SECONDS)
    os._exit(0)


def _warm_kernel() -> None:
    from games.engine.solver.warm import warm

    try:
        warm()
    except Exception:  # the process solves in pure Python, as without Numba
        os.environ["PIRAMIDE_SOLVER_KERNEL"] = "python"


def _cpu_used() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


@contextmanager
def cpu_budget(seconds: float | None) -> Iterator[None]:
    """At most ``seconds`` more CPU seconds for this process (rounded up to the next whole second
    the kernel counts), then ``CpuLimitExceeded``.  Only where the caller set the handler
    (``init_process``): in any other process the limit is not set."""
    if not seconds or signal.getsignal(signal.SIGXCPU) is not _on_sigxcpu:
        yield
        return
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    soft = math.ceil(_cpu_used() + seconds)
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_CPU, (resource.RLIM_INFINITY, hard))


def _replay(deal: Deal, moves: Sequence[str]) -> EngineGame:
    return EngineGame.replay(deal, [parse_move(text) for text in moves])


def review_job(deal: Deal, moves: Sequence[str], time_limit: float, cpu_limit: float | None) -> dict[str, Any]:
    """Where a finished game was lost (``solver.review``), as plain values."""
    try:
        with cpu_budget(cpu_limit):
            result = review(deal, [parse_move(text) for text in moves], time_limit=time_limit)
    except CpuLimitExceeded:
        return {
            "start_verdict": Verdict.UNKNOWN.value,
            "point_of_no_return": None,
            "line": [],
            "seconds": float(time_limit),
        }
    return {
        "start_verdict": result.start_verdict.value,
        "point_of_no_return": result.point_of_no_return,
        "line": [str(move) for move in result.line],
        "seconds": result.seconds,
    }


def hint_job(deal: Deal, moves: Sequence[str], time_limit: float, cpu_limit: float | None) -> dict[str, Any]:
    """The next move of a winning line from the position the moves reach (``solver.hint``)."""
    try:
        with cpu_budget(cpu_limit):
            result = hint(_replay(deal, moves), time_limit=time_limit)
    except CpuLimitExceeded:
        return {"verdict": Verdict.UNKNOWN.value, "move": None}
    return {"verdict": result.verdict.value, "move": str(result.move) if result.move is not None else None}


def winnable_job(preset: str, seed: int, time_limit: float, cpu_limit: float | None) -> dict[str, Any]:
    """Whether a seed's deal can be won from the start, with the facts a pooled race deal keeps."""
    try:
        with cpu_budget(cpu_limit):
            solution = solve(EngineGame.from_seed(get_rules(preset).name, seed), time_limit=time_limit)
    except CpuLimitExceeded:
        return {"verdict": Verdict.UNKNOWN.value, "line_length": None, "states": 0, "seconds": float(time_limit)}
    return {
        "verdict": solution.verdict.value,
        "line_length": len(solution.line) if solution.verdict is Verdict.WINNABLE else None,
        "states": solution.states,
        "seconds": solution.seconds,
    }


def pid_job(time_limit: float, cpu_limit: float | None) -> int:
    """The solver process's id (the tests tell a solver process from the web process by it)."""
    return os.getpid()


def burn_job(seconds: float, time_limit: float, cpu_limit: float | None) -> str:
    """Spin for ``seconds`` of CPU under the limits: what the tests use to show the limit holds."""
    try:
        with cpu_budget(cpu_limit):
            start = _cpu_used()
            while _cpu_used() - start < seconds:
                pass
    except CpuLimitExceeded:
        return "stopped"
    return "finished"
