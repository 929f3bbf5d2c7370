"""What a search may spend: a node and wall-clock allowance shared by the searches of one request
(``Budget``), the exception that ends them when it runs out, and room for deep recursion."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager


class OutOfBudget(Exception):
    """The node or time budget ran out before the search could decide."""


class Budget:
    """A node and wall-clock allowance shared by the searches of one request."""

    CHECK_EVERY = 64
    #: the clock the time limit is read on; a benchmark on a shared machine may set ``time.process_time``
    clock: Callable[[], float] = staticmethod(time.perf_counter)

    def __init__(self, time_limit: float | None, node_limit: int | None) -> None:
        self.started = self.clock()
        self.deadline = None if time_limit is None else self.started + time_limit
        self.node_limit = node_limit
        self.nodes = 0

    def spend(self) -> None:
        self.nodes += 1
        if self.node_limit is not None and self.nodes > self.node_limit:
            raise OutOfBudget
        if self.deadline is not None and self.nodes % self.CHECK_EVERY == 0 and self.clock() > self.deadline:
            raise OutOfBudget

    def spend_many(self, count: int) -> None:
        """``count`` nodes spent at once (by a compiled search, which comes back for the clock)."""
        before = self.nodes
        self.nodes += count
        if self.node_limit is not None and self.nodes > self.node_limit:
            raise OutOfBudget
        # the clock as often as ``spend`` reads it: once every ``CHECK_EVERY`` nodes
        if self.nodes // self.CHECK_EVERY != before // self.CHECK_EVERY:
            self.check_time()

    def check_time(self) -> None:
        if self.deadline is not None and self.clock() > self.deadline:
            raise OutOfBudget

    @property
    def seconds(self) -> float:
        return self.clock() - self.started


@contextmanager
def deep_recursion(limit: int = 20_000) -> Iterator[None]:
    """A line is a few hundred moves deep at most; the default limit of 1,000 frames is too tight."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, limit))
    try:
        yield
    finally:
        sys.setrecursionlimit(old)
