"""``/ws/races/<code>/``: the race room socket (docs/live.md, *Race rooms*).

Thin: each client message calls one race service or selector through
``db_call``; race events published by ``games.events`` are forwarded as they
are.  When the countdown ends, each socket sends its own ``race.started`` with the player's game.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from typing import Any

from django.utils import timezone

from games import events
from games.consumers import Handler, LiveConsumer, Unauthenticated, db_call, field_int, field_move
from games.live import player_ref
from plumbing import jsontext
from plumbing.errors import NotFound

from . import selectors, services


def _move_reply(ref: str | None, play: services.RacePlay) -> dict[str, Any]:
    return {
        "type": "move.ok",
        "ref": ref,
        "version": play.entry.move_count,
        "game": selectors.race_game_view(play.race, play.entry, play.state),
    }


def _race_move(code: str, player: Any, ref: str | None, move: str, seen: int) -> dict[str, Any]:
    return _move_reply(ref, services.race_move_make(code=code, player=player, move=move, seen=seen))


def _race_resign(code: str, player: Any, ref: str | None) -> dict[str, Any]:
    return _move_reply(ref, services.race_resign(code=code, player=player))


class RaceConsumer(LiveConsumer):
    code: str

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.starter: asyncio.Task[None] | None = None

    def handlers(self) -> dict[str, Handler]:
        return {
            "join": self.on_join,
            "leave": self.on_leave,
            "start": self.on_start,
            "move": self.on_move,
            "resign": self.on_resign,
            "sync": self.on_sync,
            "ping": self.on_ping,
        }

    async def connect(self) -> None:
        self.code = str(self.scope["url_route"]["kwargs"]["code"])
        await self.accept()
        if self.user is None:
            await self.close_with("unauthenticated", "sign in to enter a race room", 4401)
            return
        try:
            # what the race's group brings while its state is read goes out after that state
            async with self.holding():
                await self.join(events.race_group(self.code))
                state = await self._state()
                await self.send_json(
                    {"type": "hello", "v": 1, "race": self.code, "user": player_ref(self.user), "limits": self.limits()}
                )
                await self._send_state(state)
        except NotFound as error:
            await self.close_with("not_found", error.message, 4404)

    async def disconnect(self, code: int) -> None:
        if self.starter is not None:
            self.starter.cancel()
        await super().disconnect(code)

    async def _state(self) -> dict[str, Any]:
        return await db_call(selectors.race_state_message)(code=self.code, viewer=self.user)

    async def _send_state(self, state: dict[str, Any], ref: str | None = None) -> None:
        await self.send_json({**state, "ref": ref})
        race = state["race"]
        if race["status"] == "countdown":
            self._start_at(dt.datetime.fromisoformat(race["starts_at"]))

    def _start_at(self, starts_at: dt.datetime) -> None:
        if self.starter is None or self.starter.done():
            self.starter = asyncio.ensure_future(self._send_started(starts_at))

    async def _send_started(self, starts_at: dt.datetime) -> None:
        await asyncio.sleep(max(0.0, (starts_at - timezone.now()).total_seconds()))
        game = await db_call(selectors.race_game_for_player)(code=self.code, player=self.user)
        await self.send_json(
            {"type": "race.started", "race": self.code, "starts_at": starts_at.isoformat(), "game": game}
        )

    async def live_events(self, heard: list[events.Encoded]) -> None:
        for event in heard:
            await self.send(text_data=event["text"])
            if event["type"] == "race.countdown":
                self._start_at(dt.datetime.fromisoformat(jsontext.loads(event["text"])["starts_at"]))

    def _player(self) -> Any:
        if self.user is None:
            raise Unauthenticated("sign in to race")
        return self.user

    async def on_join(self, content: dict[str, Any], ref: str | None) -> None:
        await db_call(services.race_join)(code=self.code, player=self._player())
        await self._send_state(await self._state(), ref)

    async def on_leave(self, content: dict[str, Any], ref: str | None) -> None:
        await db_call(services.race_leave)(code=self.code, player=self._player())
        await self._send_state(await self._state(), ref)

    async def on_start(self, content: dict[str, Any], ref: str | None) -> None:
        countdown = field_int(content, "countdown", required=False)
        await db_call(services.race_start)(code=self.code, player=self._player(), countdown=countdown)
        await self._send_state(await self._state(), ref)

    async def on_move(self, content: dict[str, Any], ref: str | None) -> None:
        move, seen = field_move(content), field_int(content, "seen")
        reply = await db_call(_race_move)(self.code, self._player(), ref, move, seen)
        await self.send_json(reply)

    async def on_resign(self, content: dict[str, Any], ref: str | None) -> None:
        await self.send_json(await db_call(_race_resign)(self.code, self._player(), ref))

    async def on_sync(self, content: dict[str, Any], ref: str | None) -> None:
        await self._send_state(await self._state(), ref)

    async def on_ping(self, content: dict[str, Any], ref: str | None) -> None:
        state = await self._state()
        await self.send_json({"type": "pong", "version": state["version"], "ref": ref})
