"""No socket message gives away a seed or a card its viewer could not see at a real table.

Every socket type (play/watch a game, the challenge room, a race room, an unknown path) is opened
on every object of the day by each kind of viewer, and sent every message type it knows (and some
it does not); then moves are made while everyone listens, so live events (moves, summaries, room
updates, race progress) are scanned too.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings

from games.selectors import game_engine_state
from games.services import game_move_make
from races.selectors import race_entry_state
from races.services import race_move_make
from tests.sockets import session_cookie

from .leaks import Scanner
from .world import World, build_world

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

VIEWERS = ("anonymous", "alice", "bob", "carol", "dave")
PROBES = [
    {"type": "ping", "ref": "p"},
    {"type": "sync"},
    {"type": "sync", "since": 0},
    {"type": "sync", "since": 3},
    {"type": "replay"},
    {"type": "undo", "seen": 0},
    {"type": "join"},
    {"type": "no-such-type"},
    {"type": "move"},
    *(
        {"type": "move", "move": move, "seen": seen}
        for move in ("1.1", "2.1+S", "S", "W+S", "T", "B1", "R", "9.9")
        for seen in (0, 99)
    ),
]


@pytest.fixture(autouse=True)
def live_settings(settings: Any) -> None:
    settings.LIVE_ROOM_INTERVAL = 0.05
    settings.RACE_COUNTDOWN_MIN = 0
    settings.LIVE_RATE_BURST = 1000
    settings.LIVE_RATE_PER_SECOND = 1000.0


class Listener:
    def __init__(self, path: str, viewer: str, cookie: str | None) -> None:
        from piramide_site.asgi import application

        headers = [(b"origin", b"http://127.0.0.1")]
        if cookie:
            headers.append((b"cookie", f"{settings.SESSION_COOKIE_NAME}={cookie}".encode()))
        self.path, self.viewer = path, viewer
        self.c = WebsocketCommunicator(application, path, headers=headers)
        self.closed = False

    async def until_pong(self, ref: str) -> list[dict[str, Any]]:
        """Every message up to the answer to a ping sent last (a socket answers in order), or the close."""
        out: list[dict[str, Any]] = []
        while not self.closed:
            output = await self.c.receive_output(timeout=5)
            if output["type"] == "websocket.close":
                self.closed = True
            elif output["type"] == "websocket.send":
                message = json.loads(output["text"])
                if message.get("type") == "pong" and message.get("ref") == ref:
                    break
                out.append(message)
        return out

    async def drain(self, timeout: float = 0.15) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        while not self.closed and not await self.c.receive_nothing(timeout=timeout):
            output = await self.c.receive_output(timeout=timeout)
            if output["type"] == "websocket.send":
                out.append(json.loads(output["text"]))
            elif output["type"] == "websocket.close":
                self.closed = True
        return out


def hidden_for_path(world: World, viewer: Any, path: str) -> set[str]:
    from games.models import DailyChallenge, Game
    from races.models import Race

    parts = path.strip("/").split("/")
    if len(parts) < 3:
        return world.hidden_everywhere(viewer)
    kind, ident = parts[1:3]
    if kind == "games" and (game := Game.objects.select_related("challenge").filter(pk=ident).first()):
        return world.hidden_in_challenge(viewer, game.challenge)
    if kind == "challenges" and (challenge := DailyChallenge.objects.filter(pk=ident).first()):
        return world.hidden_in_challenge(viewer, challenge)
    if kind == "races" and (race := Race.objects.filter(code=ident).first()):
        return world.hidden_in_race(viewer, race)
    return world.hidden_everywhere(viewer)


async def test_no_socket_message_shows_a_seed_or_a_hidden_card(today):
    world = await database_sync_to_async(build_world)(today)
    scanner = Scanner(secrets=world.secrets())
    users = {name: (world.players[name] if name != "anonymous" else None) for name in VIEWERS}
    cookies = {
        name: (await database_sync_to_async(session_cookie)(user) if user else None) for name, user in users.items()
    }
    paths = [f"/ws/games/{game.pk}/" for game in world.games.values()] + ["/ws/games/999999/"]
    paths += [f"/ws/challenges/{c.pk}/" for c in (world.yesterday, world.classic, world.forty, world.tomorrow)]
    paths += [
        "/ws/challenges/999999/",
        f"/ws/races/{world.lobby.code}/",
        f"/ws/races/{world.race.code}/",
        "/ws/races/nosuch/",
        "/ws/nothing/",
    ]
    kinds: set[str] = set()

    async def check(listener: Listener, messages: list[dict[str, Any]]) -> None:
        hidden = await database_sync_to_async(hidden_for_path)(world, users[listener.viewer], listener.path)
        for message in messages:
            kinds.add(message.get("type", "?"))
            scanner.json(message, hidden, f"{listener.path} as {listener.viewer}: {message.get('type')}")

    listeners = []
    for viewer in VIEWERS:
        for path in paths:
            listener = Listener(path, viewer, cookies[viewer])
            connected, _ = await listener.c.connect(timeout=5)
            if connected:
                for probe in [*PROBES, {"type": "ping", "ref": "end"}]:
                    await listener.c.send_to(text_data=json.dumps(probe))
                await check(listener, await listener.until_pong("end"))
            if not listener.closed:
                listeners.append(listener)

    # Live events while everyone listens: alice plays on in both challenges and in the race.
    alice = world.players["alice"]
    for key in ("alice_classic", "alice_forty"):
        game = world.games[key]
        await database_sync_to_async(game.refresh_from_db)()
        state = await database_sync_to_async(game_engine_state)(game)
        for _ in range(2):
            move = str(state.legal_moves()[0])
            play = await database_sync_to_async(game_move_make)(
                game_id=game.pk, player=alice, move=move, seen=len(state.moves)
            )
            state = play.state
    race_state = await database_sync_to_async(
        lambda: race_entry_state(world.race, world.race.entries.get(player=alice))
    )()
    move = str(race_state.legal_moves()[0])
    await database_sync_to_async(race_move_make)(
        code=world.race.code, player=alice, move=move, seen=len(race_state.moves)
    )
    for listener in listeners:
        await check(listener, await listener.drain(0.2))
        await listener.c.disconnect()

    print(
        f"\nleak scan: {len(paths)} socket paths x {len(VIEWERS)} viewers, {scanner.scanned} messages of {len(kinds)} types"
    )
    assert not scanner.leaks, "\n".join(scanner.leaks)
    expected = {
        "hello",
        "state",
        "summary",
        "synced",
        "pong",
        "replay",
        "error",
        "room.snapshot",
        "room.update",
        "race.state",
        "game.move_made",
        "game.progress",
        "race.progress",
        "move.ok",
    }
    assert expected - {"move.ok"} <= kinds, sorted(kinds)
    assert scanner.scanned > 1000
