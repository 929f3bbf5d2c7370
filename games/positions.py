"""A per-process memory of engine positions, so a move need not read and replay the whole log
(docs/live.md, *The move path*).

A game's newest position is remembered under (kind, id, creation time, version, number of moves),
so a key names one position for ever, in every process; beside it, a *hint* per game, the version
and move count this process last saw committed, which the move path tries its conditional UPDATE
against.  Neither is trusted for correctness: they only spare reads and replays.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from games.engine import Game as EngineGame

#: Games whose latest position a process keeps: about 2 KB each for classic.
CAPACITY = 20_000
#: Games whose latest committed version a process remembers.
HINT_CAPACITY = 50_000

Key = tuple[str, int, str, int, int]

#: Per game, only the newest position remembered: a move needs no other, a resync replays the
#: log, and a few objects per game keep the garbage collector's full passes short.
_positions: OrderedDict[tuple[str, int], tuple[Key, EngineGame]] = OrderedDict()
_hints: OrderedDict[tuple[str, int], Hint] = OrderedDict()
_lock = threading.Lock()


@dataclass(frozen=True)
class Hint:
    """What a process last saw committed for a game: its unchanging facts and its version."""

    version: int
    moves: int
    #: Facts that never change for the game (owner, challenge, creation time ...), for the caller.
    facts: Any


def key_of(kind: str, pk: int, created: object, version: int, moves: int) -> Key:
    return (kind, pk, str(created), version, moves)


def recall(key: Key) -> EngineGame | None:
    with _lock:
        found = _positions.get(key[:2])
        if found is None or found[0] != key:
            return None
        _positions.move_to_end(key[:2])
        return found[1]


def recall_latest(kind: str, pk: int) -> tuple[Key, EngineGame] | None:
    """The newest position remembered for a game, whatever its version (the caller checks it)."""
    with _lock:
        return _positions.get((kind, pk))


def remember(key: Key, state: EngineGame) -> None:
    """Keep ``state`` under ``key``, whose move count must be ``len(state.moves)``; a game keeps
    its newest version (an older one, remembered late by a slower thread, is dropped)."""
    if key[4] != len(state.moves):
        return
    game = key[:2]
    with _lock:
        known = _positions.get(game)
        if known is not None and known[0][2] == key[2] and known[0][3] > key[3]:
            return
        _positions[game] = (key, state)
        _positions.move_to_end(game)
        while len(_positions) > CAPACITY:
            _positions.popitem(last=False)


def hint(kind: str, pk: int) -> Hint | None:
    with _lock:
        return _hints.get((kind, pk))


def hint_set(kind: str, pk: int, hint: Hint) -> None:
    """Record a committed version; an older one never replaces a newer one."""
    with _lock:
        known = _hints.get((kind, pk))
        if known is not None and known.version > hint.version:
            return
        _hints[(kind, pk)] = hint
        _hints.move_to_end((kind, pk))
        while len(_hints) > HINT_CAPACITY:
            _hints.popitem(last=False)


def hint_drop(kind: str, pk: int) -> None:
    with _lock:
        _hints.pop((kind, pk), None)


def forget_all() -> None:
    with _lock:
        _positions.clear()
        _hints.clear()
