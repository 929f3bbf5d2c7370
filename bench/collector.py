"""The load generators' own garbage collector, kept out of the latencies they measure.

A benchmark client holds hundreds of sockets, futures and messages; now and again CPython's
collector stops it to walk them (full passes of 40 to 120 ms were seen in bench/live.py's
client), and every round trip in flight at that moment would be counted as the server's.  So
during a timed round the client's collector is off, with everything built before it frozen out
of later passes, and it collects between rounds.  The servers keep their own settings.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    gc.collect()
    gc.freeze()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.unfreeze()
        gc.collect()
