"""The stack relaxation (rule 6), and with it the final card's count (rule 8), compiled where
Numba is installed (docs/solver.md, "The compiled kernel").

``StackKernel`` answers exactly what ``solver_relax.StackRelaxation`` answers, question for question:
the same moves in the same order, the same memo, the same step cap, so a search asking either makes
the same stops; only the time differs.  The pure-Python class stays the reference: the tests run
both side by side, and ``PIRAMIDE_SOLVER_KERNEL=python`` (or Numba missing) keeps the search on it.

Loading the compiled code costs about half a second a process (compiling it, once per
installation, some seconds), which most searches never earn back: a search starts on the
pure-Python class and moves to the kernel once it has asked ``KERNEL_AFTER`` questions, handing
over what the class has answered so far.  A search with a time limit moves only where the kernel
is loaded already (``warm``, which the Celery worker's processes call as they start), so that
loading it never eats a search's time.
"""

from __future__ import annotations

import importlib.util
import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from .solver_position import Table
from .solver_relax import Relaxation, StackRelaxation

if TYPE_CHECKING:
    from .solver_numba import FinalCount

#: questions a search asks the pure-Python stack relaxation before it moves to the kernel
KERNEL_AFTER = 1000
#: the kernel's answers: lost, clearable, given up (more than ``effort`` steps)
LOST, CLEARABLE, GAVE_UP = 0, 1, 2
#: the kernel has answered a question in this process: its code is loaded
_loaded = False
#: the largest deals the kernel takes: the pyramid in a 64-bit mask, the outside cards in a memo key
#: of four 64-bit words (fifteen values each); every preset fits (double: 45 and 59)
MOST_PYRAMID, MOST_OUTSIDE = 62, 60


def available() -> bool:
    """Numba is installed and not turned off (``PIRAMIDE_SOLVER_KERNEL=python``)."""
    if os.environ.get("PIRAMIDE_SOLVER_KERNEL", "numba") == "python":
        return False
    return importlib.util.find_spec("numba") is not None


class StackKernel:
    """``StackRelaxation``'s interface and answers, its search compiled (``solver_numba``)."""

    def __init__(
        self,
        table: Table,
        relaxation: Relaxation,
        effort: int = 2000,
        memo: dict[tuple[int, tuple[int, ...], int], bool] | None = None,
    ) -> None:
        from .solver_numba import Compiled

        self.table = table
        self.relaxation = relaxation
        self.effort = effort
        self.reach = table.reach
        self.bag_reach = max(table.reach - 1, 1 if table.stock_waste_pairs else 0)
        self.unbury = self.reach == 1 and not self.bag_reach
        self.compiled = Compiled(table, self.reach, self.bag_reach, self.unbury, effort)
        #: the answers known on this side, so that asking again does not cross into the kernel (a
        #: call costs a few microseconds); every one of them is in the kernel's memo too
        self.memo: dict[tuple[int, tuple[int, ...], int], bool] = {}
        if memo:
            self.compiled.remember(memo)
            self.memo.update(memo)

    def clearable(self, removed: int, waste: tuple[int, ...], bag: int, waste_bag: int, unburied: bool = False) -> bool:
        """``StackRelaxation.clearable``."""
        table = self.table
        if unburied and self.unbury:
            bag &= table.useful_nibbles(removed)
            prelude = False
        else:
            if removed == table.full:
                return True
            prelude = self.unbury
        if not prelude:
            if not waste:
                return self.relaxation.clearable(removed, bag)
            known = self.memo.get((removed, waste, bag))
            if known is not None:
                return known
        answer = self.compiled.ask(removed, waste, bag, waste_bag, prelude)
        global _loaded
        _loaded = True
        if answer == GAVE_UP:
            return True
        if not prelude:
            self.memo[removed, waste, bag] = answer == CLEARABLE
        return answer == CLEARABLE


class Stack:
    """The stack relaxation a search asks: ``StackRelaxation`` for its first ``after`` questions,
    then, where the kernel is available, ``StackKernel`` with the class's memo handed over; for a
    search with a time limit (``timed``), only where the kernel is loaded already."""

    def __init__(
        self,
        table: Table,
        relaxation: Relaxation,
        after: int | None = None,
        timed: bool = False,
        moved: Callable[[], None] | None = None,
    ) -> None:
        self.python = StackRelaxation(table, relaxation)
        self.unbury = self.python.unbury
        self.timed = timed
        #: called once the questions go to the kernel
        self.moved = moved
        fits = table.size <= MOST_PYRAMID and table.rules.stock_size <= MOST_OUTSIDE
        #: questions still to ask before the move; -1: never
        self.left = (KERNEL_AFTER if after is None else after) if fits and available() else -1

    def clearable(self, removed: int, waste: tuple[int, ...], bag: int, waste_bag: int, unburied: bool = False) -> bool:
        if self.left:
            if self.left > 0:
                self.left -= 1
            return self.python.clearable(removed, waste, bag, waste_bag, unburied)
        python = self.python
        if self.timed and not _loaded:
            self.left = -1
            return python.clearable(removed, waste, bag, waste_bag, unburied)
        kernel = StackKernel(python.table, python.relaxation, python.effort, python.memo)
        # from now on the search calls the kernel itself
        self.clearable = kernel.clearable  # type: ignore[method-assign]
        answer = kernel.clearable(removed, waste, bag, waste_bag, unburied)
        if self.moved is not None:
            self.moved()
        return answer


def final_count(king: int) -> FinalCount:
    """The final card's count compiled (``solver_numba.FinalCount``), for ``FinalCard.compile``."""
    from .solver_numba import FinalCount

    return FinalCount(king)


def warm() -> float:
    """Compile the kernel, or load it from Numba's cache, now rather than in the middle of a
    search; the seconds it took.  ``python -m games.engine.solver_kernel`` does it from the command
    line (the image does it once, when it is built)."""
    from .deal import deal_from_seed
    from .game import Game
    from .rules import PRESETS
    from .solver_position import table_for

    started = time.perf_counter()
    table = table_for(Game.start(deal_from_seed(PRESETS["classic"], 0)))
    # a memo handed over, a question, and the final card's count
    StackKernel(table, Relaxation(table), memo={(0, (2,), 0): False}).clearable(0, (1,), 0, 1 << 4)
    from .solver_numba import warm_final_count

    warm_final_count()
    return time.perf_counter() - started


if __name__ == "__main__":
    if not available():
        print("the stack relaxation runs in pure Python here (Numba missing or PIRAMIDE_SOLVER_KERNEL=python)")
    else:
        print(f"the solver's compiled kernel is ready ({warm():.1f} s)")
