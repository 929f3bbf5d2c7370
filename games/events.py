"""Every live event leaves from here, once, after the database commit (docs/live.md).

Services call the ``publish_*`` functions inside their transaction; the events go out on
``transaction.on_commit``.  Each event type has a JSON schema in ``SCHEMAS``.  Groups and delivery:
docs/live.md, *Servers*.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets
from typing import TYPE_CHECKING, Any, Protocol

from django.conf import settings
from django.db import transaction

from plumbing import jsontext
from plumbing.after_commit import Job, later, server_loop
from plumbing.loops import of_loop

if TYPE_CHECKING:
    from games.engine import Game as EngineGame
    from games.models import Game

log = logging.getLogger(__name__)


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
    "properties": {
        "id": _INT,
        "moves": _INT,
        "score": _INT,
        "outcome": {"enum": _OUTCOMES},
        "state": {"type": "object"},
    },
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
    ("race.player_left", 1): _event(
        "race.player_left", {"race": _STR, "version": _INT, "player": _PLAYER, "players": _INT, "host": _PLAYER}
    ),
    ("race.countdown", 1): _event(
        "race.countdown", {"race": _STR, "version": _INT, "starts_at": _STR, "seconds": _INT}
    ),
    ("race.progress", 1): _event(
        "race.progress", {"race": _STR, "version": _INT, "player": _PLAYER, "summary": RACE_SUMMARY_SCHEMA}
    ),
    ("race.finished", 1): _event("race.finished", {"race": _STR, "version": _INT, "results": _RESULTS, "seed": _STR}),
    ("race.rematch", 1): _event("race.rematch", {"race": _STR, "version": _INT, "rematch": _STR, "host": _PLAYER}),
}


# ----------------------------------------------------------------- sending
#
# Events reach sockets through a hub, one per server process (per event loop): it knows which of
# the process's sockets listen to which group.  With REDIS_URL set, a round of events is one
# Redis PUBLISH per group (pipelined), and each process holds one Redis subscription for the
# groups its sockets listen to, so an event costs the same in Redis however many sockets watch
# it; without Redis the hub delivers within the process.  Each event is encoded once, as the text
# frame the client receives: ``{"type", "version", "text"}``.  Delivery is at most once, like
# any pub/sub: a client that misses an event finds the gap by its version and asks ``sync``.

Send = tuple[str, dict[str, Any]]
Encoded = dict[str, Any]


def encode(event: dict[str, Any], text: str | None = None) -> Encoded:
    """An event as it travels: its type and version for the consumers, and its text for the client
    (``text``, when the caller has written it already)."""
    return {
        "type": event["type"],
        "version": event.get("version"),
        "text": jsontext.dumps(event) if text is None else text,
    }


def _by_group(sends: list[tuple[str, Encoded]]) -> dict[str, list[Encoded]]:
    """The encoded events per group, in the order they were written."""
    groups: dict[str, list[Encoded]] = {}
    for group, encoded in sends:
        groups.setdefault(group, []).append(encoded)
    return groups


def pubsub_prefix() -> str:
    """Redis pub/sub channels ignore the database number: the prefix names this deployment
    (its Redis URL and its database), so servers of another deployment sharing the Redis never hear it."""
    name = f"{settings.REDIS_URL}|{settings.DATABASES['default'].get('NAME')}"
    return f"piramide-live:{hashlib.sha1(name.encode()).hexdigest()[:12]}:"


#: A Redis message is the publishing hub's origin (hex) followed by the JSON list of encoded events.
ORIGIN_BYTES = 8
ORIGIN_CHARS = 2 * ORIGIN_BYTES
#: The origin of events published from outside any server's hub (a Celery task, a command).
NO_HUB = "0" * ORIGIN_CHARS


def _message(origin: str, events: list[Encoded]) -> str:
    return origin + jsontext.dumps(events)


class Listener(Protocol):
    def hear(self, group: str, events: list[Encoded]) -> None: ...


class Hub:
    """The groups this process's sockets listen to, and its one subscription to their Redis channels."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.members: dict[str, set[Listener]] = {}
        self.redis: Any = None
        self.pubsub: Any = None
        self.reader: asyncio.Task[None] | None = None
        self.prefix = pubsub_prefix()
        #: Marks this hub's own messages: it delivers them to its sockets before publishing, and skips them when Redis echoes them back.
        self.origin = secrets.token_hex(ORIGIN_BYTES)
        #: Groups this process is subscribed to in Redis, changed only by the rounds (``_change``).
        self.subscribed: set[str] = set()
        #: Groups whose members changed since the last round took them, and the future the round
        #: that takes them sets once its commands are sent.
        self.changed: set[str] = set()
        self.next_round: asyncio.Future[None] = loop.create_future()
        self.rounds: asyncio.Task[None] | None = None

    def _client(self) -> Any:
        if self.redis is None:
            import redis.asyncio

            self.redis = redis.asyncio.Redis.from_url(settings.REDIS_URL)
            self.pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        return self.redis

    async def add(self, group: str, listener: Listener) -> None:
        self.members.setdefault(group, set()).add(listener)
        if settings.REDIS_URL and group not in self.subscribed:
            await self._follow(group)

    async def discard(self, group: str, listener: Listener) -> None:
        members = self.members.get(group)
        if members is None or listener not in members:
            return
        members.discard(listener)
        if not members:
            del self.members[group]
            if settings.REDIS_URL:
                await self._follow(group)

    async def _follow(self, group: str) -> None:
        """Bring the Redis subscription of ``group`` in line with its members: return once a round
        that began after this call has sent what it needed.

        One task sends the rounds, one after the other: redis-py's pub/sub connects on its first
        command, and two first subscribes at once (sockets reconnecting together after a restart)
        could land on different connections; and a leave racing a join must not end unsubscribed
        while a socket listens (each round reads the members as they are when it begins).  A round
        takes every group changed since the last began, in one SUBSCRIBE and one UNSUBSCRIBE, so a
        busy server, with sockets opening and closing as games end, does not line its openings up
        one command at a time.
        """
        self.changed.add(group)
        sent = self.next_round
        if self.rounds is None or self.rounds.done():
            self.rounds = self.loop.create_task(self._rounds())
        await asyncio.shield(sent)  # a socket that goes away meanwhile does not cancel the others' round

    async def _rounds(self) -> None:
        while self.changed:
            changed, self.changed = self.changed, set()
            sent, self.next_round = self.next_round, self.loop.create_future()
            try:
                await self._change(
                    sorted(group for group in changed if group in self.members and group not in self.subscribed),
                    sorted(group for group in changed if group not in self.members and group in self.subscribed),
                )
            except Exception:
                # not a Redis error (``_change`` logs those): the rounds go on, or the sockets
                # that joined meanwhile would wait for a round no task is left to send
                log.exception("live events: a round of subscription changes failed")
            finally:
                sent.set_result(None)

    async def _change(self, joined: list[str], left: list[str]) -> None:
        # out of ``subscribed`` before anything is awaited: a socket joining one of them meanwhile
        # then waits for the next round, which subscribes again
        self.subscribed.difference_update(left)
        self._client()
        # a failure here is Redis gone: redis-py subscribes again to its channels when it reconnects
        if joined:
            try:
                await self.pubsub.subscribe(*(self.prefix + group for group in joined))
                self.subscribed.update(joined)
            except Exception as error:
                log.warning("live events: could not subscribe to %s: %r", joined, error)
        if left:
            try:
                await self.pubsub.unsubscribe(*(self.prefix + group for group in left))
            except Exception as error:
                log.warning("live events: could not unsubscribe from %s: %r", left, error)
        if self.subscribed and (self.reader is None or self.reader.done()):
            self.reader = self.loop.create_task(self._read())

    def deliver(self, groups: dict[str, list[Encoded]]) -> None:
        for group, events in groups.items():
            for listener in list(self.members.get(group, ())):
                listener.hear(group, events)

    async def publish(self, groups: dict[str, list[Encoded]]) -> None:
        """This process's sockets hear the events at once; with Redis, the other processes through it."""
        self.deliver(groups)
        if not settings.REDIS_URL:
            return
        async with self._client().pipeline(transaction=False) as pipe:
            for group, events in groups.items():
                pipe.publish(self.prefix + group, _message(self.origin, events))
            await pipe.execute()

    async def _read(self) -> None:
        """Deliver what Redis sends on the subscribed channels; after a lost connection, redis-py
        subscribes again when it reconnects (what was published meanwhile is missed: clients ``sync``)."""
        cut = len(self.prefix)
        own = self.origin.encode()
        while True:
            try:
                message = await self.pubsub.get_message(ignore_subscribe_messages=True, timeout=5.0)
            except asyncio.CancelledError:
                raise
            except Exception as error:
                log.warning("live events: the Redis subscription failed (%r); retrying", error)
                await asyncio.sleep(0.5)
                continue
            if message is None or message.get("type") != "message":
                continue
            channel = message["channel"]
            group = (channel.decode() if isinstance(channel, bytes) else channel)[cut:]
            data = message["data"]
            if data[:ORIGIN_CHARS] == own:
                continue  # published by this hub, which delivered it already
            try:
                events = jsontext.loads(data[ORIGIN_CHARS:])
            except ValueError:
                log.error("live events: unreadable message on %s", group)
                continue
            self.deliver({group: events})


_hubs: dict[asyncio.AbstractEventLoop, Hub] = {}


def hub() -> Hub:
    """The hub of the running event loop (one per server process)."""
    loop = asyncio.get_running_loop()
    return of_loop(_hubs, loop, lambda: Hub(loop))


class _Publisher:
    """One per event loop: sends what the loop's worker threads committed, in order, without making
    them wait.  Everything queued while a round is out leaves in the next round, one message per
    group, so a busy process sends fewer, larger messages (never reordered within a group: rounds
    run one after the other)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.pending: list[tuple[str, Encoded]] = []
        self.task: asyncio.Task[None] | None = None

    def put(self, sends: list[tuple[str, Encoded]]) -> None:
        self.pending.extend(sends)
        if self.task is None:
            self.task = self.loop.create_task(self._run())

    async def _run(self) -> None:
        try:
            while self.pending:
                batch, self.pending = self.pending, []
                groups = _by_group(batch)
                try:
                    await hub().publish(groups)
                except Exception as error:
                    _log_failure(groups, error)
        finally:
            self.task = None


async def published() -> None:
    """Until the running loop's publisher has sent everything queued so far (tests)."""
    publisher = _publishers.get(asyncio.get_running_loop())
    while publisher is not None and publisher.task is not None:
        await asyncio.shield(publisher.task)


def _log_failure(groups: dict[str, list[Encoded]], error: BaseException) -> None:
    for group, events in groups.items():
        log.error("could not publish %s to %s: %r", ", ".join(e["type"] for e in events), group, error)


_publishers: dict[asyncio.AbstractEventLoop, _Publisher] = {}


def _enqueue(loop: asyncio.AbstractEventLoop, sends: list[tuple[str, Encoded]]) -> None:
    """Runs on ``loop``'s thread."""
    of_loop(_publishers, loop, lambda: _Publisher(loop)).put(sends)


#: The clients ``_send_elsewhere`` publishes with, by URL: one for the process's ``REDIS_URL``, and
#: another only if the setting changes (as tests change it), never the first one's for the other.
_sync_redis: dict[str, Any] = {}


def _send_elsewhere(groups: dict[str, list[Encoded]]) -> None:
    """From outside a server's loop (a Celery task, a command, a test): publish to Redis and return,
    or, without Redis, hand the events to every running hub of this process."""
    url = settings.REDIS_URL
    if url:
        import redis

        client = _sync_redis.get(url)
        if client is None:
            client = _sync_redis[url] = redis.Redis.from_url(url)
        prefix = pubsub_prefix()
        pipe = client.pipeline(transaction=False)
        for group, events in groups.items():
            pipe.publish(prefix + group, _message(NO_HUB, events))
        pipe.execute()
        return
    for loop, known in list(_hubs.items()):
        if not loop.is_closed():
            loop.call_soon_threadsafe(known.deliver, groups)


def _send_now(sends: list[Send]) -> None:
    """Hand a committed write's events on; a failure is logged, never raised: the write stands, and
    a client that misses the event gets it back with ``sync``.

    Called from a worker thread of a server (a socket's or a request's database call), the events
    are queued on the server's loop and this returns at once: the thread goes back to its next
    database call, and the reply is not held up by Redis.
    """
    if not sends:
        return
    encoded = [(group, encode(event)) for group, event in sends]
    loop = server_loop()
    if loop is not None:
        try:
            loop.call_soon_threadsafe(_enqueue, loop, encoded)
            return
        except RuntimeError:  # the loop closed meanwhile
            pass
    groups = _by_group(encoded)
    try:
        _send_elsewhere(groups)
    except Exception as error:
        _log_failure(groups, error)


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


def _move_made_sends(game: Game, state: EngineGame) -> list[Send]:
    from .live import game_json, game_summary

    progress = progress_payload(game, game_summary(game, state))
    view = game_json(game, state)
    sends = [
        (game_group(game.pk, full=True), move_made_payload(game, move=str(state.moves[-1]), view=view)),
        (game_group(game.pk, full=False), progress),
    ]
    if game.ranked:
        sends.append((challenge_group(game.challenge_id), progress))
    return sends


def publish_game_move_made(*, game: Game, state: EngineGame) -> None:
    """A move was stored (the game row is locked by the caller); also publishes the end of the game."""
    _publish(_move_made_sends(game, state))
    if game.is_finished:
        publish_game_finished(game=game, state=state)


def with_view(message: dict[str, Any], field: str, view_text: str) -> str:
    """``jsontext.dumps(message)`` with the game view's text, encoded once, as ``field``, which goes last."""
    head = jsontext.dumps({**{key: value for key, value in message.items() if key != field}, field: None})
    return head[: -len("null}")] + view_text + "}"


def move_made_from_loop(*, game: Game, state: EngineGame) -> tuple[str, list[tuple[str, Encoded]]]:
    """``_move_made_sends`` encoded, for a move made on the server's loop while its write is out
    (games/live_moves.py), and the text of the game view, which the mover's answer carries too:
    the view is encoded once, and an event sent to several groups once.  ``enqueue`` hands them to
    the loop's publisher once the write has committed.  A move that ended the game brings the
    game's end too (``publish_game_finished``'s events; its room job is the caller's)."""
    sends = _move_made_sends(game, state)
    if game.is_finished:
        sends += _finished_sends(game, state)
    view_text = jsontext.dumps(sends[0][1]["state"])
    encoded: dict[int, Encoded] = {}
    for _, event in sends:
        if id(event) not in encoded:
            moved = event["type"] == "game.move_made"
            encoded[id(event)] = encode(event, with_view(event, "state", view_text) if moved else None)
    return view_text, [(group, encoded[id(event)]) for group, event in sends]


def enqueue(sends: list[tuple[str, Encoded]]) -> None:
    """Encoded events of a committed write, from a coroutine on the server's loop: queued for its publisher."""
    _enqueue(asyncio.get_running_loop(), sends)


def _finished_sends(game: Game, state: EngineGame) -> list[Send]:
    from .live import game_summary

    payload = finished_payload(game, game_summary(game, state))
    sends = [(game_group(game.pk, full=True), payload), (game_group(game.pk, full=False), payload)]
    if game.ranked:
        sends.append((challenge_group(game.challenge_id), payload))
    return sends


def publish_game_finished(*, game: Game, state: EngineGame) -> None:
    """The game ended (won, lost or resigned); a ranked end also moves the counts and the leaderboard."""
    _publish(_finished_sends(game, state))
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
    """Counts and the top of the board are read after the commit, so they include this write, and
    after the writer is answered (``plumbing.after_commit``): one read for a round of game ends."""
    later(*challenge_changes(challenge_id, leaderboard=leaderboard))


def challenge_changes(challenge_id: int, *, leaderboard: bool) -> tuple[tuple[str, int, bool], Job]:
    """The after-commit job that reads the room's counts (and the top of its board) and sends
    them, under its key: ``_publish_challenge_changes``, and an ending move written from the loop."""

    def send() -> None:
        from .live import challenge_stats, challenge_top

        sends = [
            (
                challenge_group(challenge_id),
                {
                    "type": "challenge.stats",
                    "v": 1,
                    "challenge": challenge_id,
                    **challenge_stats(challenge_id=challenge_id),
                },
            )
        ]
        if leaderboard:
            top = challenge_top(challenge_id=challenge_id)
            sends.append(
                (
                    challenge_group(challenge_id),
                    {"type": "leaderboard.changed", "v": 1, "challenge": challenge_id, **top},
                )
            )
        _send_now(sends)

    return ("challenge-room", challenge_id, leaderboard), send


# ----------------------------------------------------------------- races


def publish_race_event(*, code: str, event: dict[str, Any]) -> None:
    """A race changed (the race row is locked by the caller); ``event`` is one of the ``race.*`` payloads."""
    _publish([(race_group(code), event)])
