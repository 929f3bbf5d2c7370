"""WebSocket consumers for games and the challenge room (docs/live.md).

Thin and async: ``connect`` and ``disconnect`` join and leave groups, each client message calls
one service or selector through ``db_call`` (a worker thread), and ``live_events`` forwards what
``games.events`` published.  ``LiveConsumer`` holds what every socket shares: the message size
and rate limits, JSON parsing, typed errors and leaving every group on close.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import parse_qs

from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings
from django.db import InterfaceError, OperationalError

from plumbing import jsontext, metrics
from plumbing.db_calls import db_call
from plumbing.errors import UNAVAILABLE_MESSAGE, UNAVAILABLE_RETRY_AFTER, NotFound, ServiceError
from plumbing.internals import handler_name

from . import events, live, live_moves, services

log = logging.getLogger(__name__)

#: Service error codes as the socket protocol names them (REST keeps its own).
SOCKET_CODES = {"illegal_move": "illegal"}
#: Refused messages in a row after which a socket is closed.
MAX_REFUSED_IN_ROW = 50

Handler = Callable[[dict[str, Any], str | None], Awaitable[None]]


class BadMessage(ServiceError):
    code = "invalid"


class Unauthenticated(ServiceError):
    code = "unauthenticated"


class SpoilerRefused(ServiceError):
    code = "spoiler"


class TokenBucket:
    """``burst`` messages at once, then ``rate`` a second."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, float(burst)
        self.tokens = float(burst)
        self.stamp = time.monotonic()

    def take(self) -> float:
        """0 when a token was taken, else the seconds until one is there."""
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return 0.0
        return (1 - self.tokens) / self.rate


def field_int(content: dict[str, Any], name: str, *, required: bool = True) -> int | None:
    value = content.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise BadMessage(f"'{name}' must be a whole number from 0 up")
    return value


def query_version(value: str | None) -> int | None:
    """A ``?since=`` version from the query string, or None (a full state) for anything else:
    only ASCII digits, as many as a version can have ("²" is a digit to ``str.isdigit``, and
    ``int`` refuses past 4,300 digits)."""
    if value is None or not (value.isascii() and value.isdigit()) or len(value) > 18:
        return None
    return int(value)


def field_move(content: dict[str, Any]) -> str:
    value = content.get("move")
    if not isinstance(value, str) or not 0 < len(value) <= 16:
        raise BadMessage('\'move\' must be a move in the engine\'s notation, such as "D" or "7.1+S"')
    return value


class LiveConsumer(AsyncJsonWebsocketConsumer):
    """Limits, parsing, typed errors and group bookkeeping shared by every live socket."""

    #: No channel of its own on the Channels layer: every event reaches a live socket through the
    #: hub (games/events.py), so a channel would only be one more receive loop per socket.
    channel_layer_alias = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.bucket = TokenBucket(settings.LIVE_RATE_PER_SECOND, settings.LIVE_RATE_BURST)
        self.refused_in_row = 0
        self.joined: list[str] = []
        #: while a socket opens, what its groups bring, by group, until it knows which it keeps
        self.held: list[tuple[str, list[events.Encoded]]] | None = None
        self.outbox: list[events.Encoded] = []
        self.sender: asyncio.Future[None] | None = None
        #: accepted, and counted among the open sockets until it disconnects
        self.counted = False

    @property
    def user(self) -> Any:
        user = self.scope.get("user")
        return user if user is not None and user.is_authenticated else None

    def limits(self) -> dict[str, Any]:
        return {
            "rate_per_second": settings.LIVE_RATE_PER_SECOND,
            "burst": settings.LIVE_RATE_BURST,
            "max_message_bytes": settings.LIVE_MAX_MESSAGE_BYTES,
        }

    def handlers(self) -> dict[str, Handler]:
        raise NotImplementedError

    @classmethod
    async def encode_json(cls, content: Any) -> str:
        return jsontext.dumps(content)

    # ----------------------------------------------------------------- groups

    async def join(self, group: str) -> None:
        if group not in self.joined:
            self.joined.append(group)
            await events.hub().add(group, self)

    async def leave(self, group: str) -> None:
        if group in self.joined:
            self.joined.remove(group)
            await events.hub().discard(group, self)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:  # however the socket ended: closed, dropped, or its consumer failed
            if self.counted:
                self.counted = False
                metrics.OPEN_SOCKETS.labels(type(self).__name__).dec()

    async def accept(self, subprotocol: str | None = None, headers: list[tuple[bytes, bytes]] | None = None) -> None:
        await super().accept(subprotocol, headers)
        if not self.counted:
            self.counted = True
            metrics.OPEN_SOCKETS.labels(type(self).__name__).inc()

    async def websocket_disconnect(self, message: dict[str, Any]) -> None:
        """Channels' ``websocket_disconnect`` without its ``close_old_connections`` hop to the one
        thread-sensitive thread on every close: every database call of a live socket, its user's
        read as it opens among them (``plumbing.socket_auth``), goes through ``db_call``,
        which tidies its own.  Live sockets join no channel-layer groups."""
        await self.disconnect(message["code"])
        raise StopConsumer()

    async def disconnect(self, code: int) -> None:
        for group in list(self.joined):
            await self.leave(group)
        if self.sender is not None:
            self.sender.cancel()

    @asynccontextmanager
    async def holding(self) -> AsyncIterator[None]:
        """Within it, what the socket's groups bring is kept, then passed on for the groups it still
        listens to: a socket joins before it reads its opening state, so nothing falls between
        them, and sends that state before anything that came meanwhile.  (An unknown game, room or
        race, whose socket closes, has no events to pass on.)"""
        self.held = []
        try:
            yield
        finally:
            held, self.held = self.held, None
            for group, heard in held:
                if group in self.joined:
                    self.hear(group, heard)

    def hear(self, group: str, heard: list[events.Encoded]) -> None:
        """Events for a group this socket listens to (called by the hub, on the loop): sent in order
        by one task, so a slow client holds up only itself."""
        if self.held is not None:
            self.held.append((group, heard))
            return
        self.outbox.extend(heard)
        if self.sender is None:
            self.sender = asyncio.ensure_future(self._send_heard())

    async def _send_heard(self) -> None:
        try:
            while self.outbox:
                batch, self.outbox = self.outbox, []
                await self.live_events(batch)
        except Exception as error:  # the client went away: its disconnect cleans up
            log.debug("could not forward events: %r", error)
        finally:
            self.sender = None

    async def live_events(self, heard: list[events.Encoded]) -> None:
        """Events published by ``games.events``, each already encoded: sent as they are."""
        for event in heard:
            await self.send(text_data=event["text"])

    async def dispatch(self, message: dict[str, Any]) -> None:
        """Channels' dispatch without its close_old_connections hop to a thread on every message:
        here every database call goes through ``db_call``, which closes stale connections itself,
        and an event forwarded to a spectator touches no database at all."""
        handler = getattr(self, handler_name(message), None)
        if handler is None:
            raise ValueError(f"no handler for message type {message['type']}")
        await handler(message)

    # ----------------------------------------------------------------- messages

    async def send_error(self, code: str, message: str, ref: str | None = None, **extra: Any) -> None:
        await self.send_json({"type": "error", "code": code, "message": message, "ref": ref, **extra})

    async def close_with(self, code: str, message: str, close_code: int) -> None:
        await self.send_error(code, message)
        await self.close(code=close_code)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None, **kwargs: Any) -> None:
        wait = self.bucket.take()
        if wait:
            self.refused_in_row += 1
            if self.refused_in_row >= MAX_REFUSED_IN_ROW:
                await self.close_with("rate_limited", "too many messages: closing", 4429)
                return
            await self.send_error("rate_limited", f"too many messages: wait {wait:.2f} s", retry_after=round(wait, 3))
            return
        content, ref = self._parse(text_data)
        if content is None:
            return await self._refuse("invalid", ref)
        table = self.__dict__.get("_handlers")
        if table is None:
            table = self.__dict__["_handlers"] = self.handlers()
        kind = content.get("type")
        handler = table.get(kind) if isinstance(kind, str) else None
        try:
            if handler is None:
                raise BadMessage(f"unknown message type {kind!r}")
            await handler(content, ref)
        except (OperationalError, InterfaceError):
            # The database is down: nothing was stored (each service commits in one transaction),
            # so the client is told to retry, as REST answers 503, and the socket stays open.
            await self.send_error("unavailable", UNAVAILABLE_MESSAGE, ref, retry_after=UNAVAILABLE_RETRY_AFTER)
            return
        except ServiceError as error:
            self.refused_in_row += 1
            code = SOCKET_CODES.get(error.code, error.code)
            await self.send_error(code, error.message, ref, **error.extra)
            return
        self.refused_in_row = 0

    def _parse(self, text_data: str | None) -> tuple[dict[str, Any] | None, str | None]:
        self._problem = ""
        if text_data is None:
            self._problem = "send JSON objects in text frames"
        elif (
            len(text_data) > settings.LIVE_MAX_MESSAGE_BYTES
            or len(text_data.encode()) > settings.LIVE_MAX_MESSAGE_BYTES
        ):
            self._problem = f"a message may have at most {settings.LIVE_MAX_MESSAGE_BYTES} bytes"
        else:
            try:
                content = jsontext.loads(text_data)
            except ValueError:
                self._problem = "that is not JSON"
            else:
                if not isinstance(content, dict):
                    self._problem = "a message is a JSON object with a 'type'"
                else:
                    ref = content.get("ref")
                    if ref is not None and (not isinstance(ref, str) or len(ref) > 64):
                        self._problem = "'ref' is a string of at most 64 characters"
                        return None, None
                    return content, ref
        return None, None

    async def _refuse(self, code: str, ref: str | None) -> None:
        self.refused_in_row += 1
        await self.send_error(code, self._problem, ref)

    async def on_ping_pong(self, content: dict[str, Any], ref: str | None) -> None:
        await self.send_json({"type": "pong", "ref": ref})


# ----------------------------------------------------------------- the game socket


def _reply(play: services.Play, ref: str | None) -> dict[str, Any]:
    return {
        "type": "move.ok",
        "ref": ref,
        "version": play.game.move_count,
        "game": live.game_json(play.game, play.state),
    }


def _play_reply(call: Callable[..., services.Play], ref: str | None, **kwargs: Any) -> dict[str, Any]:
    return _reply(call(**kwargs), ref)


class GameConsumer(LiveConsumer):
    """``/ws/games/<id>/``: the owner plays; everyone else watches, in full or in summaries."""

    game_id: int
    owner_id: int
    challenge_id: int
    view: str
    #: Highest version this socket answered with ``move.ok``: its own echo is not sent again.
    answered: int = -1
    #: Set while a move of this socket is out: events heard meanwhile wait for its answer.
    answering: asyncio.Future[None] | None = None

    def handlers(self) -> dict[str, Handler]:
        return {
            "move": self.on_move,
            "resign": self.on_resign,
            "undo": self.on_undo,
            "sync": self.on_sync,
            "ping": self.on_ping,
            "replay": self.on_replay,
        }

    async def connect(self) -> None:
        """Listen to both audiences of the game before the one read that decides the view, so nothing
        falls between them; what they bring meanwhile is held, and only what the decided view may
        see is passed on, after the opening messages."""
        self.game_id = int(self.scope["url_route"]["kwargs"]["game_id"])
        await self.accept()
        query = parse_qs(self.scope.get("query_string", b"").decode())
        since = query.get("since", [None])[0]
        self.view = ""
        try:
            # once the view is decided, only its audience is still joined
            async with self.holding():
                for group in (events.game_group(self.game_id, full=True), events.game_group(self.game_id, full=False)):
                    await self.join(group)
                await self._resync(query_version(since))
        except NotFound as error:
            await self.close_with("not_found", error.message, 4404)

    def _hello(self) -> dict[str, Any]:
        user = self.user
        return {
            "type": "hello",
            "v": 1,
            "game": self.game_id,
            "role": "player" if user is not None and user.pk == self.owner_id else "spectator",
            "view": self.view,
            "user": live.player_ref(user) if user is not None else None,
            "limits": self.limits(),
        }

    async def _take_view(self, view: str) -> None:
        """Listen to the audience the viewer belongs to (joined before reading, so nothing falls between)."""
        self.view = view
        await self.join(events.game_group(self.game_id, full=view == live.FULL))
        await self.leave(events.game_group(self.game_id, full=view != live.FULL))

    async def _resync(self, since: int | None) -> None:
        """The opening messages; a changed view (always, on connect) first takes its audience and says ``hello``."""
        opening = await db_call(live.game_sync)(game_id=self.game_id, viewer=self.user, since=since)
        self.owner_id, self.challenge_id = opening.game.player_id, opening.game.challenge_id
        if opening.view != self.view:
            await self._take_view(opening.view)
            await self.send_json(self._hello())
        for message in opening.messages:
            await self.send_json(message)

    async def live_events(self, heard: list[events.Encoded]) -> None:
        if self.answering is not None:
            await asyncio.shield(self.answering)  # this socket's own answer goes first
        for event in heard:
            if event["type"] == "game.move_made" and event["version"] <= self.answered:
                continue  # this socket's own move: its move.ok carried it already
            await self.send(text_data=event["text"])

    def _player(self) -> Any:
        if self.user is None:
            raise Unauthenticated("sign in to play")
        return self.user

    async def _answer(self, call: Callable[..., services.Play], ref: str | None, **kwargs: Any) -> None:
        """Play, and answer before forwarding any event heard meanwhile (the move's own event among them).

        A move first tries the loop's own write (``live_moves``); whatever that leaves, the service decides.
        """
        player = self._player()
        self.answering = asyncio.get_running_loop().create_future()
        try:
            if call is services.game_move_make and live_moves.enabled():
                made = await live_moves.move_make(game_id=self.game_id, player=player, **kwargs)
                if made is not None:
                    self.answered = max(self.answered, made.version)
                    try:
                        await self.send(text_data=made.answer(ref))
                    finally:
                        made.publish()  # the move is stored: its events leave whatever became of this socket
                    return
            reply = await db_call(_play_reply)(call, ref, game_id=self.game_id, player=player, **kwargs)
            self.answered = max(self.answered, reply["version"])
            await self.send_json(reply)
        finally:
            self.answering.set_result(None)
            self.answering = None

    async def on_move(self, content: dict[str, Any], ref: str | None) -> None:
        move, seen = field_move(content), field_int(content, "seen")
        await self._answer(services.game_move_make, ref, move=move, seen=seen)

    async def on_resign(self, content: dict[str, Any], ref: str | None) -> None:
        await self._answer(services.game_resign, ref)

    async def on_undo(self, content: dict[str, Any], ref: str | None) -> None:
        seen = field_int(content, "seen")
        self.answered = -1  # after an undo the same version names a new position
        await self._answer(services.game_move_undo, ref, seen=seen)

    async def on_sync(self, content: dict[str, Any], ref: str | None) -> None:
        await self._resync(field_int(content, "since", required=False))

    async def on_ping(self, content: dict[str, Any], ref: str | None) -> None:
        pong = await db_call(live.game_pong)(game_id=self.game_id)
        await self.send_json({**pong, "ref": ref})

    async def on_replay(self, content: dict[str, Any], ref: str | None) -> None:
        if self.view != live.FULL:
            raise SpoilerRefused(
                "finish your own ranked game of this challenge first: until then you see summaries only"
            )
        replay = await db_call(live.game_replay)(game_id=self.game_id)
        await self.send_json({**replay, "ref": ref})


# ----------------------------------------------------------------- the challenge room


class ChallengeRoomConsumer(LiveConsumer):
    """``/ws/challenges/<id>/``: who is playing, summaries, counts and the top of the board, coalesced."""

    challenge_id: int

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.pending_games: dict[int, dict[str, Any]] = {}
        self.pending: dict[str, Any] = {}
        self.last_flush = 0.0
        self.flusher: asyncio.Task[None] | None = None

    def handlers(self) -> dict[str, Handler]:
        return {"sync": self.on_sync, "ping": self.on_ping_pong}

    async def connect(self) -> None:
        self.challenge_id = int(self.scope["url_route"]["kwargs"]["challenge_id"])
        await self.accept()
        try:
            async with self.holding():
                await self.join(events.challenge_group(self.challenge_id))
                await self._send_snapshot()
        except NotFound as error:
            await self.close_with("not_found", error.message, 4404)

    async def disconnect(self, code: int) -> None:
        if self.flusher is not None:
            self.flusher.cancel()
        await super().disconnect(code)

    async def on_sync(self, content: dict[str, Any], ref: str | None) -> None:
        # what the room's group brings while the snapshot is read follows it: an update never
        # reaches a client before the snapshot it updates
        async with self.holding():
            await self._send_snapshot()

    async def _send_snapshot(self) -> None:
        snapshot = await db_call(live.challenge_room_snapshot)(challenge_id=self.challenge_id)
        self.pending_games.clear()
        self.pending.clear()
        await self.send_json(snapshot)

    async def live_events(self, heard: list[events.Encoded]) -> None:
        for encoded in heard:
            kind = encoded["type"]
            if kind not in ("game.progress", "game.finished", "challenge.stats", "leaderboard.changed"):
                continue
            event = jsontext.loads(encoded["text"])
            if kind in ("game.progress", "game.finished"):
                self.pending_games[event["game"]] = event["summary"]
            elif kind == "challenge.stats":
                self.pending["stats"] = {key: event[key] for key in ("players", "playing", "finished", "wins")}
            else:
                self.pending["top"] = event["top"]
            if self.flusher is None or self.flusher.done():
                self.flusher = asyncio.ensure_future(self._flush_later())

    async def _flush_later(self) -> None:
        interval = settings.LIVE_ROOM_INTERVAL
        await asyncio.sleep(max(0.0, self.last_flush + interval - time.monotonic()))
        self.last_flush = time.monotonic()
        if not self.pending_games and not self.pending:
            return
        update: dict[str, Any] = {"type": "room.update", "v": 1, "games": list(self.pending_games.values())}
        update.update(self.pending)
        self.pending_games, self.pending = {}, {}
        await self.send_json(update)


class NotFoundConsumer(LiveConsumer):
    """Any other socket path: a readable error, then close 4404."""

    def handlers(self) -> dict[str, Handler]:
        return {}

    async def connect(self) -> None:
        await self.accept()
        await self.close_with("not_found", f"there is no live socket at {self.scope.get('path', '')}", 4404)
