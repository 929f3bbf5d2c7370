"""One object per event loop (a hub, a publisher, a queue, a set of connections), for the life of the loop."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def of_loop(
    registry: dict[asyncio.AbstractEventLoop, T],
    loop: asyncio.AbstractEventLoop,
    make: Callable[[], T],
    drop: Callable[[T], object] | None = None,
) -> T:
    """``registry``'s object for ``loop``, made on first use; those of loops closed since are let go
    then (``drop`` called on each)."""
    found = registry.get(loop)
    if found is None:
        for old in [known for known in registry if known.is_closed()]:
            gone = registry.pop(old)
            if drop is not None:
                drop(gone)
        found = registry[loop] = make()
    return found
