"""The stack relaxation (rule 6), and with it the final card's count (rule 8) and, where the rules
let it, the whole search (``solver_numba_search``), compiled where Numba is installed
(docs/solver.md, "The compiled kernel").

``StackKernel`` answers exactly what ``solver_relax.StackRelaxation`` answers, question for
question, so a search asking either makes the same stops; the pure-Python class stays the reference
(``PIRAMIDE_SOLVER_KERNEL=python``, or Numba missing).  A search moves to the kernel after
``KERNEL_AFTER`` questions, and one with a time limit only where the kernel is loaded (``warm``).
"""

from __future__ import annotations

import importlib.util
import os
import time
from collections.abc import Callable

from .solver_position import Table
from .solver_relax import Relaxation, StackRelaxation

#: where the kernel is not loaded in the process yet: the questions a search asks the pure-Python
#: stack relaxation before it moves to the kernel (and loads it); where it is, a search starts on it
KERNEL_AFTER = 1000
#: the same for the stops a search makes, where the whole search moves (``solver_numba_search``),
#: whether or not it has asked the stack relaxation
KERNEL_STOPS = 5000
#: the kernel's answers: lost, clearable, given up (more than ``effort`` steps or the stops allowed),
#: and a search's win
LOST, CLEARABLE, GAVE_UP, WON = 0, 1, 2, 3
#: the answer of a kernel search that would need more frames than it was given (never: the frames
#: are as many as the longest line can need); the search then walks that stretch in Python
TOO_DEEP = 9
#: where the rules let it, the whole search moves to the kernel with the stack relaxation
#: (``solver_numba_search.KernelSearch``)
SEARCH = True
#: the kernel's code is loaded in this process (``warm``, or a search has moved to it)
_loaded = False
#: the largest deals the kernel takes: the pyramid in a 64-bit mask, the outside cards in a memo key
#: of four 64-bit words (fifteen values each); every preset fits (double: 45 and 59)
MOST_PYRAMID, MOST_OUTSIDE = 62, 60


def loaded() -> bool:
    """The kernel's code is loaded in this process: a search costs nothing to move to it."""
    return _loaded


def available() -> bool:
    """Numba is installed and not turned off (``PIRAMIDE_SOLVER_KERNEL=python``)."""
    if os.environ.get("PIRAMIDE_SOLVER_KERNEL", "numba") == "python":
        return False
    return importlib.util.find_spec("numba") is not None


class StackKernel:
    """``StackRelaxation``'s answers, its search compiled (``solver_numba``): made from the
    pure-Python class, whose settings it takes and whose memo it starts from."""

    def __init__(self, python: StackRelaxation) -> None:
        from .solver_numba import Compiled

        self.table = python.table
        self.relaxation = python.relaxation
        self.unbury = python.unbury
        self.compiled = Compiled(python.table, python.reach, python.bag_reach, python.unbury, python.effort)
        self.compiled.remember(python.memo)
        #: the answers known on this side, so that asking again does not cross into the kernel (a
        #: call costs a microsecond or two); every one of them is in the kernel's memo too
        self.memo = dict(python.memo)

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
        if answer == GAVE_UP:
            return True
        if not prelude:
            self.memo[removed, waste, bag] = answer == CLEARABLE
        return answer == CLEARABLE


class Stack:
    """The stack relaxation a search asks: ``StackRelaxation`` for its first ``after`` questions,
    then, where the kernel is available, ``StackKernel`` with the class's memo handed over; for a
    search with a time limit (``timed``), only where the kernel is loaded already."""

    def __init__(self, table: Table, relaxation: Relaxation, after: int | None = None, timed: bool = False) -> None:
        self.python = StackRelaxation(table, relaxation)
        self.unbury = self.python.unbury
        self.timed = timed
        #: called with the kernel once the questions go to it
        self.moved: Callable[[StackKernel], None] | None = None
        fits = table.size <= MOST_PYRAMID and table.rules.stock_size <= MOST_OUTSIDE
        if after is None:
            after = 0 if _loaded else KERNEL_AFTER
        #: questions still to ask before the move; None: never
        self.left = after if fits and available() else None

    def clearable(self, removed: int, waste: tuple[int, ...], bag: int, waste_bag: int, unburied: bool = False) -> bool:
        if self.left is not None and self.left > 0:
            self.left -= 1
        elif self.move():
            # (``clearable`` is the kernel's now)
            return self.clearable(removed, waste, bag, waste_bag, unburied)
        return self.python.clearable(removed, waste, bag, waste_bag, unburied)

    def move(self) -> bool:
        """Move to the kernel now, where it may move at all: not where it is unavailable, and, in a
        search with a time limit, only where it is loaded already (loading it would come out of the
        search's time).  Whether it did; once it has, or cannot, it never moves again."""
        global _loaded
        if self.left is None or not (_loaded or not self.timed):
            self.left = None
            return False
        self.left = None
        kernel = StackKernel(self.python)
        # from now on the search calls the kernel itself
        self.clearable = kernel.clearable  # type: ignore[method-assign]
        _loaded = True
        if self.moved is not None:
            self.moved(kernel)
        return True


def par_kernel(table: Table, timed: bool) -> bool:
    """Whether the par search's clearing question runs compiled (``solver_numba_par``): where the
    kernel is available and the deal fits, where removals take only the pyramid's, the stock's and
    the waste's top cards (no card held in play, no house rules), and, in a search with a time
    limit, only where the kernel is loaded already."""
    fits = table.size <= MOST_PYRAMID and table.rules.stock_size <= MOST_OUTSIDE
    return fits and table.top_removals and available() and (_loaded or not timed)


def warm() -> float:
    """Compile the kernel, or load it from Numba's cache, now rather than in the middle of a
    search; the seconds it took.  ``python -m games.engine.solver_kernel`` does it from the command
    line (the image does it once, when it is built)."""
    from .deal import deal_from_seed
    from .game import Game
    from .rules import PRESETS
    from .solver_position import position_of, table_for

    started = time.perf_counter()
    table = table_for(Game.start(deal_from_seed(PRESETS["classic"], 0)))
    # a memo handed over, a question, the final card's count, the search and the beam's question to
    # its table (Numba compiles a function with everything it calls)
    python = StackRelaxation(table, Relaxation(table))
    python.memo[0, (2,), 0] = False
    kernel = StackKernel(python)
    kernel.clearable(0, (1,), 0, 1 << 4)
    from .solver_numba import warm_final_count
    from .solver_numba_search import KernelSearch

    warm_final_count()
    search = KernelSearch(kernel.compiled, 1, 2, True, True, 24)
    search.search(0, bytes((1, 12)), 1, 0, 0, 1)
    search.refuted(0, bytes((1, 12)), 1, 0)
    from .solver_numba_par import KernelPerfect
    from .solver_parbound import Perfect, RelaxedMax, StackMax
    from .solver_search import Budget

    relaxed = RelaxedMax(table, True)
    start = position_of(Game.start(deal_from_seed(PRESETS["classic"], 0)))
    KernelPerfect(Perfect(table, relaxed, StackMax(table, relaxed), lambda: None), Budget(None, None)).possible(
        start, 1
    )
    global _loaded
    _loaded = True
    return time.perf_counter() - started


if __name__ == "__main__":
    if not available():
        print("the stack relaxation runs in pure Python here (Numba missing or PIRAMIDE_SOLVER_KERNEL=python)")
    else:
        print(f"the solver's compiled kernel is ready ({warm():.1f} s)")
