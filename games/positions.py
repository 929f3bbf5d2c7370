"""A per-process memory of engine positions, so a move need not replay the whole log.

Rebuilding a game from its deal and move log costs about 1 ms (classic) to 3 ms (double) per
request.  A position is remembered under (kind, id, creation time, number of moves) only for logs
that can never change below their end — ranked games and race games, which have no undo — so a
key names one position for ever, in every process (the creation time keeps a key unique even
where ids are reused, as after a database restore or between tests).  The caller still reads the move count from the
database (inside its locked transaction for a move): the memory only skips the replay.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from games.engine import Game as EngineGame

#: Positions kept per process: about 2 KB each for classic.
CAPACITY = 20_000

Key = tuple[str, int, str, int]

_positions: OrderedDict[Key, EngineGame] = OrderedDict()
_lock = threading.Lock()


def key_of(kind: str, pk: int, created: object, moves: int) -> Key:
    return (kind, pk, str(created), moves)


def recall(key: Key) -> EngineGame | None:
    with _lock:
        state = _positions.get(key)
        if state is not None:
            _positions.move_to_end(key)
        return state


def remember(key: Key, state: EngineGame) -> None:
    """Keep ``state`` under ``key``, whose move count must be ``len(state.moves)``."""
    if key[3] != len(state.moves):
        return
    with _lock:
        _positions[key] = state
        _positions.move_to_end(key)
        while len(_positions) > CAPACITY:
            _positions.popitem(last=False)


def forget_all() -> None:
    with _lock:
        _positions.clear()
