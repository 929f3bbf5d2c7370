"""The solver's compiled kernels made ready before a process's first search.

``python -m games.engine.solver.warm`` does it from the command line (the image does it once, when
it is built); a solver process or a Celery worker calls ``warm`` beside its first jobs.
"""

from __future__ import annotations

import time

from ..deal import deal_from_seed
from ..game import Game
from ..rules import PRESETS
from . import kernel
from .budget import Budget
from .parbound import Perfect, RelaxedMax, StackMax
from .position import position_of, table_for
from .relax import Relaxation, StackRelaxation


def warm() -> float:
    """Compile the kernels, or load them from Numba's cache, now rather than in the middle of a
    search; the seconds it took."""
    from .kernels.par import KernelPerfect
    from .kernels.relax import StackKernel, warm_final_count
    from .kernels.search import KernelSearch

    started = time.perf_counter()
    table = table_for(Game.start(deal_from_seed(PRESETS["classic"], 0)))
    # a memo handed over, a question, the final card's count, the search and the beam's question to
    # its table (Numba compiles a function with everything it calls)
    python = StackRelaxation(table, Relaxation(table))
    python.memo[0, (2,), 0] = False
    stack = StackKernel(python)
    stack.clearable(0, (1,), 0, 1 << 4)
    warm_final_count()
    search = KernelSearch(stack.compiled, 1, 2, True, True, 24)
    search.search(0, bytes((1, 12)), 1, 0, 0, 1)
    search.refuted(0, bytes((1, 12)), 1, 0)
    relaxed = RelaxedMax(table, True)
    start = position_of(Game.start(deal_from_seed(PRESETS["classic"], 0)))
    KernelPerfect(Perfect(table, relaxed, StackMax(table, relaxed), lambda: None), Budget(None, None)).possible(
        start, 1
    )
    kernel.mark_loaded()
    return time.perf_counter() - started


if __name__ == "__main__":
    if not kernel.available():
        print("the stack relaxation runs in pure Python here (Numba missing or PIRAMIDE_SOLVER_KERNEL=python)")
    else:
        print(f"the solver's compiled kernel is ready ({warm():.1f} s)")
