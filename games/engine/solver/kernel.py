"""Where a search runs compiled: the stack relaxation (rule 6), with it the final card's count
(rule 8) and, where the rules let it, the whole search and the par search's clearing question go
to the kernels (``kernels/``) where Numba is installed (docs/solver.md, "The compiled kernel").

``kernels.relax.StackKernel`` answers exactly what ``relax.StackRelaxation`` answers, question for
question, so a search asking either makes the same stops; the pure-Python class stays the reference
(``PIRAMIDE_SOLVER_KERNEL=python``, or Numba missing).  A search moves to the kernel after
``KERNEL_AFTER`` questions, and one with a time limit only where the kernel is loaded (``warm.warm``).
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from .position import Table
from .relax import Relaxation, StackRelaxation

if TYPE_CHECKING:
    from .kernels.relax import StackKernel

#: where the kernel is not loaded in the process yet: the questions a search asks the pure-Python
#: stack relaxation before it moves to the kernel (and loads it); where it is, a search starts on it
KERNEL_AFTER = 1000
#: the same for the stops a search makes, where the whole search moves (``kernels.search``),
#: whether or not it has asked the stack relaxation
KERNEL_STOPS = 5000
#: where the rules let it, the whole search moves to the kernel with the stack relaxation
#: (``kernels.search.KernelSearch``)
SEARCH = True
#: the kernel's code is loaded in this process (``warm.warm``, or a search has moved to it)
_loaded = False
#: the largest deals the kernel takes: the pyramid in a 64-bit mask, the outside cards in a memo key
#: of four 64-bit words (fifteen values each); every preset fits (double: 45 and 59)
MOST_PYRAMID, MOST_OUTSIDE = 62, 60


def mark_loaded() -> None:
    """The kernel's code is loaded in this process now (``warm.warm``)."""
    global _loaded
    _loaded = True


def loaded() -> bool:
    """The kernel's code is loaded in this process: a search costs nothing to move to it."""
    return _loaded


def available() -> bool:
    """Numba is installed and not turned off (``PIRAMIDE_SOLVER_KERNEL=python``)."""
    if os.environ.get("PIRAMIDE_SOLVER_KERNEL", "numba") == "python":
        return False
    return importlib.util.find_spec("numba") is not None


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
        from .kernels.relax import StackKernel

        kernel = StackKernel(self.python)
        # from now on the search calls the kernel itself
        self.clearable = kernel.clearable  # type: ignore[method-assign]
        _loaded = True
        if self.moved is not None:
            self.moved(kernel)
        return True


def par_kernel(table: Table, timed: bool) -> bool:
    """Whether the par search's clearing question runs compiled (``kernels.par``): where the
    kernel is available and the deal fits, where removals take only the pyramid's, the stock's and
    the waste's top cards (no card held in play, no house rules), and, in a search with a time
    limit, only where the kernel is loaded already."""
    fits = table.size <= MOST_PYRAMID and table.rules.stock_size <= MOST_OUTSIDE
    return fits and table.top_removals and available() and (_loaded or not timed)
