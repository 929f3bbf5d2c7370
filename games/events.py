"""Every live event leaves from here, once, after the database commit (docs/live.md).

Services call the ``publish_*`` functions inside their transaction; each builds its payloads
from the rows and the engine state the service already holds, and hands them to
``transaction.on_commit``, so a rolled-back write publishes nothing and a reader woken by an
event always finds the write in the database.  Event types are dotted, carry a schema version
``v`` and have a JSON schema in ``SCHEMAS`` (tests/games/events/ checks every payload against it).

Groups: a game has two audiences, ``game-<id>-full`` (the owner and viewers past the spoiler
line) and ``game-<id>-summary`` (everyone else: never a card); a challenge's room listens on
``challenge-<id>``; a race room on ``race-<code>``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from typing import TYPE_CHECKING, Any

from asgiref.sync import SyncToAsync, async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

if TYPE_CHECKING:
    from games.engine import Game as EngineGame
    from games.models import Game

log = logging.getLogger(__name__)

#: The message type consumers handle (``live_event``): its ``event`` is sent to the client as is.
LAYER_TYPE = "live.event"


def game_group(game_id: int, *, full: bool) -> str:
    return f"game-{game_id}-{'full' if full else 'summary'}"


def challenge_group(challenge_id: int) -> str:
    return f"challenge-{challenge_id}"


def race_group(code: str) -> str:
    return f"race-{code}"


# ----------------------------------------------------------------- schemas

_INT = {"type": "integer"}
_STR = {"type": "string"}
_PLAYER = {
    "type": "object",
    "required": ["id", "display_name"],
    "properties": {"id": _INT, "display_name": _STR},
    "additionalProperties": False,
}
_OUTCOMES = ["in_progress", "won", "lost", "resigned"]
SUMMARY_SCHEMA = {
    "type": "object",
    "required": ["game", "challenge", "ranked", "player", "moves", "score", "pyramid_left", "finished", "outcome"],
    "properties": {
        "game": _INT,
        "challenge": _INT,
        "ranked": {"type": "boolean"},
        "player": _PLAYER,
        "moves": _INT,
        "score": _INT,
        "pyramid_left": _INT,
        "finished": {"type": "boolean"},
        "outcome": {"enum": _OUTCOMES},
    },
    "additionalProperties": False,
}
RACE_SUMMARY_SCHEMA = {
    "type": "object",
    "required": ["moves", "score", "pyramid_left", "finished", "outcome"],
    "properties": {
        "moves": _INT,
        "score": _INT,
        "pyramid_left": _INT,
        "finished": {"type": "boolean"},
        "outcome": {"enum": [*_OUTCOMES, "stopped"]},
    },
    "additionalProperties": False,
}
GAME_VIEW_SCHEMA = {
    "type": "object",
    "required": ["id", "challenge", "ranked", "outcome", "moves", "score", "started_at", "finished_at", "state"],
    "properties": {"id": _INT, "moves": _INT, "score": _INT, "outcome": {"enum": _OUTCOMES}, "state": {"type": "object"}},
}
_TOP = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["rank", "player", "points", "moves"],
        "properties": {"rank": _INT, "player": _PLAYER, "points": _INT, "moves": _INT},
        "additionalProperties": False,
    },
}
_RESULTS = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["place", "player", "outcome", "score", "moves", "pyramid_left", "finished_at"],
        "properties": {"place": _INT, "player": _PLAYER, "score": _INT, "moves": _INT, "pyramid_left": _INT},
    },
}


def _event(name: str, fields: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["type", "v", *fields],
        "properties": {"type": {"const": name}, "v": {"const": 1}, "replayed": {"type": "boolean"}, **fields},
        "additionalProperties": False,
    }


SCHEMAS: dict[tuple[str, int], dict[str, Any]] = {
    ("game.move_made", 1): _event(
        "game.move_made", {"game": _INT, "version": _INT, "move": _STR, "state": GAME_VIEW_SCHEMA}
    ),
    ("game.move_undone", 1): _event("game.move_undone", {"game": _INT, "version": _INT, "state": GAME_VIEW_SCHEMA}),
    ("game.progress", 1): _event("game.progress", {"game": _INT, "version": _INT, "summary": SUMMARY_SCHEMA}),
    ("game.finished", 1): _event(
        "game.finished",
        {"game": _INT, "version": _INT, "outcome": {"enum": _OUTCOMES[1:]}, "score": _INT, "summary": SUMMARY_SCHEMA},
    ),
    ("challenge.stats", 1): _event(
        "challenge.stats", {"challenge": _INT, "players": _INT, "playing": _INT, "finished": _INT, "wins": _INT}
    ),
    ("leaderboard.changed", 1): _event(
        "leaderboard.changed", {"challenge": _INT, "board": _STR, "top": _TOP, "total": _INT}
    ),
    ("race.player_joined", 1): _event(
        "race.player_joined", {"race": _STR, "version": _INT, "player": _PLAYER, "players": _INT}
    ),
    ("race.countdown", 1): _event(
        "race.countdown", {"race": _STR, "version": _INT, "starts_at": _STR, "seconds": _INT}
    ),
    ("race.progress", 1): _event(
        "race.progress", {"race": _STR, "version": _INT, "player": _PLAYER, "summary": RACE_SUMMARY_SCHEMA}
    ),
    ("race.finished", 1): _event(
        "race.finished", {"race": _STR, "version": _INT, "results": _RESULTS, "seed": _STR}
    ),
}


# ----------------------------------------------------------------- sending
#
# A layer message carries a list of events for one group, each already encoded as the text frame
# the client receives: ``{"type": "live.event", "events": [{"type", "version", "text"}, ...]}``.
# So an event is serialised once, however many sockets receive it, and the events of a burst of
# writes to one group travel in one ``group_send``.

Send = tuple[str, dict[str, Any]]


def encode(event: dict[str, Any]) -> dict[str, Any]:
    """An event as it travels on the layer: its type and version for the consumers, and its text."""
    return {"type": event["type"], "version": event.get("version"), "text": json.dumps(event)}


def layer_message(events: list[dict[str, Any]]) -> dict[str, Any]:
    return {"type": LAYER_TYPE, "events": events}


def _by_group(sends: list[tuple[str, dict[str, Any]]]) -> dict[str, list[dict[str, Any]]]:
    """The encoded events per group, in the order they were written."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for group, encoded in sends:
        groups.setdefault(group, []).append(encoded)
    return groups


async def _group_send_all(layer: Any, groups: dict[str, list[dict[str, Any]]]) -> None:
    names = list(groups)
    results = await asyncio.gather(
        *(layer.group_send(name, layer_message(groups[name])) for name in names), return_exceptions=True
    )
    for name, result in zip(names, results):
        if isinstance(result, BaseException):
            log.error("could not publish %s to %s: %r", ", ".join(e["type"] for e in groups[name]), name, result)


class _Publisher:
    """One per event loop: sends what the loop's worker threads committed, in order, without making
    them wait.  Everything queued while a round of ``group_send`` is out leaves in the next round,
    one message per group, so a busy process sends fewer, larger messages (never reordered within
    a group: rounds run one after the other)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.pending: list[tuple[str, dict[str, Any]]] = []
        self.task: asyncio.Task[None] | None = None

    def put(self, sends: list[tuple[str, dict[str, Any]]]) -> None:
        self.pending.extend(sends)
        if self.task is None:
            self.task = self.loop.create_task(self._run())

    async def _run(self) -> None:
        try:
            while self.pending:
                batch, self.pending = self.pending, []
                layer = get_channel_layer()
                if layer is not None:
                    await _group_send_all(layer, _by_group(batch))
        finally:
            self.task = None


_publishers: dict[asyncio.AbstractEventLoop, _Publisher] = {}


def _enqueue(loop: asyncio.AbstractEventLoop, sends: list[tuple[str, dict[str, Any]]]) -> None:
    """Runs on ``loop``'s thread."""
    publisher = _publishers.get(loop)
    if publisher is None:
        for old in [known for known in _publishers if known.is_closed()]:
            del _publishers[old]
        publisher = _publishers[loop] = _Publisher(loop)
    publisher.put(sends)


def _server_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop that called this thread through ``sync_to_async`` (a socket's or a request's), if any."""
    if getattr(SyncToAsync.threadlocal, "main_event_loop_pid", None) != os.getpid():
        return None
    loop = getattr(SyncToAsync.threadlocal, "main_event_loop", None)
    if loop is None or loop.is_closed() or not loop.is_running():
        return None
    return loop


def _send_now(sends: list[Send]) -> None:
    """Hand a committed write's events to the layer; a failure is logged, never raised: the write
    stands, and a client that misses the event gets it back with ``sync``.

    Called from a worker thread of a server (a socket's or a request's database call), the events
    are queued on the server's loop and this returns at once: the thread goes back to its next
    database call, and the reply is not held up by Redis.  Anywhere else (a Celery task, a
    management command, a test) they are sent before this returns.
    """
    if not sends or get_channel_layer() is None:
        return
    encoded = [(group, encode(event)) for group, event in sends]
    loop = _server_loop()
    if loop is not None:
        try:
            loop.call_soon_threadsafe(_enqueue, loop, encoded)
            return
        except RuntimeError:  # the loop closed meanwhile
            pass
    try:
        async_to_sync(_group_send_all)(get_channel_layer(), _by_group(encoded))
    except Exception as error:
        log.error("could not publish %s: %r", ", ".join(event["type"] for _, event in sends), error)


def _publish(sends: list[Send]) -> None:
    """Send after the surrounding transaction commits (at once when there is none)."""
    transaction.on_commit(lambda: _send_now(sends))


# ----------------------------------------------------------------- payloads


def move_made_payload(game: Game, *, move: str, view: dict[str, Any]) -> dict[str, Any]:
    return {"type": "game.move_made", "v": 1, "game": game.pk, "version": view["moves"], "move": move, "state": view}


def progress_payload(game: Game, summary: dict[str, Any]) -> dict[str, Any]:
    return {"type": "game.progress", "v": 1, "game": game.pk, "version": game.move_count, "summary": summary}


def finished_payload(game: Game, summary: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "game.finished",
        "v": 1,
        "game": game.pk,
        "version": game.move_count,
        "outcome": game.outcome,
        "score": game.score if game.score is not None else summary["score"],
        "summary": summary,
    }


# ----------------------------------------------------------------- games


def publish_game_move_made(*, game: Game, state: EngineGame) -> None:
    """A move was stored (the game row is locked by the caller); also publishes the end of the game."""
    from .live import game_json, game_summary

    summary = game_summary(game, state)
    view = game_json(game, state)
    sends = [
        (game_group(game.pk, full=True), move_made_payload(game, move=str(state.moves[-1]), view=view)),
        (game_group(game.pk, full=False), progress_payload(game, summary)),
    ]
    if game.ranked:
        sends.append((challenge_group(game.challenge_id), progress_payload(game, summary)))
    _publish(sends)
    if game.is_finished:
        publish_game_finished(game=game, state=state)


def publish_game_finished(*, game: Game, state: EngineGame) -> None:
    """The game ended (won, lost or resigned); a ranked end also moves the counts and the leaderboard."""
    from .live import game_summary

    payload = finished_payload(game, game_summary(game, state))
    sends = [(game_group(game.pk, full=True), payload), (game_group(game.pk, full=False), payload)]
    if game.ranked:
        sends.append((challenge_group(game.challenge_id), payload))
    _publish(sends)
    if game.ranked:
        _publish_challenge_changes(game.challenge_id, leaderboard=True)


def publish_game_move_undone(*, game: Game, state: EngineGame) -> None:
    from .live import game_json, game_summary

    view = game_json(game, state)
    undone = {"type": "game.move_undone", "v": 1, "game": game.pk, "version": game.move_count, "state": view}
    _publish(
        [
            (game_group(game.pk, full=True), undone),
            (game_group(game.pk, full=False), progress_payload(game, game_summary(game, state))),
        ]
    )


def publish_game_started(*, game: Game) -> None:
    """A ranked game began: the challenge room counts one more player."""
    if game.ranked:
        _publish_challenge_changes(game.challenge_id, leaderboard=False)


def _publish_challenge_changes(challenge_id: int, *, leaderboard: bool) -> None:
    """Counts and the top of the board are read after the commit, so they include this write."""

    def send() -> None:
        from .live import challenge_stats, challenge_top

        sends = [(challenge_group(challenge_id), {"type": "challenge.stats", "v": 1, "challenge": challenge_id,
                                                  **challenge_stats(challenge_id=challenge_id)})]
        if leaderboard:
            top = challenge_top(challenge_id=challenge_id)
            sends.append((challenge_group(challenge_id), {"type": "leaderboard.changed", "v": 1,
                                                          "challenge": challenge_id, **top}))
        _send_now(sends)

    transaction.on_commit(send)


# ----------------------------------------------------------------- races


def publish_race_event(*, code: str, event: dict[str, Any]) -> None:
    """A race changed (the race row is locked by the caller); ``event`` is one of the ``race.*`` payloads."""
    _publish([(race_group(code), event)])
