"""The live layer under load: players following solver lines, spectators, a saturation round, and a
bare Channels echo consumer on the same server stack measured in the same run as the floor.

    .venv/bin/python bench/live.py [--players 200] [--spectators 200] [--think 0.5]
                                   [--duration 20] [--saturation-duration 10] [--ws auto] [--servers 1]
                                   [--seed 1] [--repeat 1]

It drops and recreates the database ``piramide_bench`` on the Postgres of ``--database-url``,
migrates it, creates a classic challenge for today with a winnable deal (the first from ``--seed``
on, so that runs compare the same day), the players (each with a ranked game and practice games of
that deal, so they can keep playing; each live round opens with every player on a game stored
already played up to a point of the solver's line drawn at random, the first round on the ranked
game, so the players are at every stage of a game and games end all through every round, not all
within the same second) and the spectators (each with a ranked game of the day already over;
they watch move by move in summaries, as everyone but a game's owner does while the day lasts),
then starts one uvicorn process (uvloop, httptools) serving ``piramide_site.asgi`` plus an echo
route, with live events on Redis pub/sub.  ``--servers N`` starts N of them on ports of their own:
the players and the echo clients are dealt among them in turn, each spectator goes to one drawn at
random (so some events reach their watchers from another process, through Redis), and the
servers' CPU and memory are added up.

Rounds, each ``--duration`` seconds (the saturation rounds ``--saturation-duration``); in each,
every client's first socket is open before the clock starts, so no round is timed from a herd of
hundreds of sockets opening in the same instant (a player's next game opens its socket in the
round, as a player's would):

1. echo at human pace: one client per player sends a small JSON message after each think time
   and waits for it to come back;
2. live at human pace: each player plays full games over ``/ws/games/<id>/`` by following the
   solver's winning line, with a think time drawn uniformly from 0.5x to 1.5x ``--think`` before
   each move; each spectator watches one player's game;
3. the durable write at human pace: each player, after each think time, sends the statement the
   server stores a move with (``services.MOVE_WRITE_SQL``, the game's next move on a game of its
   own) on one of as many autocommit connections as a server process keeps for them
   (``LIVE_MOVE_CONNECTIONS``), and waits for its commit: the part of a move's round trip that is
   Postgres', measured at the same pace without the server (each write alone, as a server stores
   moves that do not meet; a busy server stores the moves that meet in one statement,
   ``services.MOVES_WRITE_SQL``);
4. echo saturated (think 0);
5. live saturated (think 0);
6. the durable write saturated (think 0).

``--repeat N`` runs the six rounds N times over, in that order, on the same server: the echo's
rate and round trips vary from one round to the next by as much as a fifth on a shared machine,
so a target set against the echo is better judged on several pairs of rounds than on one.  The
summary then gives each target's figure as the median of the N, with the lowest and highest.

Printed per round: messages (moves) per second, round-trip p50/p99, for live rounds the fan-out
delay p50/p99 (from the mover sending a move to a spectator receiving its ``game.move_made``)
and the round trips of three kinds of move apart: those that ended a game, the others sent within
``AFTER_END`` (0.1 s) after a game ended (while its sockets close and the next game's open), and
the rest; the server's CPU per message and the share of it on the event loop's thread (the
process's main thread: the rest is its worker threads', reading what sockets need as they open,
and they share the one interpreter lock with the loop), its resident memory (now and peak), and
errors; for live rounds also how long the games the players opened on the clock took from the
socket's connecting to ``synced`` (the next game's page ready), p50/p99.  The summary sets the
move's p50 beside its floor, the echo's p50 plus the durable write's.  Afterwards every game's
stored move log is compared with the moves the server accepted: none may be lost or duplicated.

``--events`` chooses what the live events travel on between the publisher and the sockets: the
site's hub (games/events.py: one Redis subscription per process, events handed to the process's own
sockets before Redis sees them), or a Channels layer of channels_redis, ``pubsub-layer``
(``RedisPubSubChannelLayer``) or ``redis-layer`` (``RedisChannelLayer``, the core layer), used as
a textbook Channels site uses it: a channel per socket, ``group_add``, one ``group_send`` per
group (``use_channel_layer``).  Everything else is the site's, so runs with each, one after the
other on the same machine, compare the two ways alone.

The server is the site's own application, with its per-user and per-address socket limits
counting every frame in Redis as they do in production; their rates and the per-connection rate
limit (``LIVE_RATE_PER_SECOND``) are raised so the saturation rounds measure the server, not the
limiter, and so that every client can share one address.  The clients' own garbage collector is
paused during each round (bench/collector.py), so its pauses are not counted as the server's.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import json
import os
import random
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import collector as client_collector  # noqa: E402
from bench.processes import (  # noqa: E402
    answering,
    cpu_seconds,
    free_ports,
    main_thread_cpu_seconds,
    stop,
    uvicorn_command,
)

ECHO_PATH = "/ws/echo/"
#: The six rounds of a run, in order: (key, kind, saturated, label).
ROUNDS = [
    ("echo", "echo", False, "echo"),
    ("live", "live", False, "live"),
    ("write", "write", False, "durable write"),
    ("echo saturated", "echo", True, "echo, saturated"),
    ("live saturated", "live", True, "live, saturated"),
    ("write saturated", "write", True, "durable write, saturated"),
]
#: ``--textbook``: one more saturated round, after the live one, on ``TextbookConsumer``
TEXTBOOK_ROUND = ("textbook saturated", "textbook", True, "textbook consumer, saturated")
TEXTBOOK_PATH = "/ws/textbook/{}/"
#: seconds after a game's end within which a move counts as sent "after a game ended"
AFTER_END = 0.1


# ----------------------------------------------------------------- the server side


def __getattr__(name: str) -> Any:
    """``uvicorn bench.live:application``: the site's own ASGI application (``piramide_site.asgi``,
    socket limits included), with one more route beside it, a bare echo."""
    if name != "application":
        raise AttributeError(name)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "piramide_site.settings.local")
    from channels.auth import AuthMiddlewareStack
    from channels.generic.websocket import AsyncWebsocketConsumer
    from channels.routing import URLRouter
    from channels.security.websocket import AllowedHostsOriginValidator
    from django.urls import path

    from piramide_site.asgi import application as site

    events = os.environ.get("BENCH_LIVE_EVENTS", "hub")
    if events != "hub":
        use_channel_layer(LAYERS[events])

    class EchoConsumer(AsyncWebsocketConsumer):
        async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
            await self.send(text_data=text_data)

    echo = AllowedHostsOriginValidator(
        AuthMiddlewareStack(URLRouter([path(ECHO_PATH.strip("/") + "/", EchoConsumer.as_asgi())]))
    )
    textbook = AllowedHostsOriginValidator(
        AuthMiddlewareStack(URLRouter([path("ws/textbook/<int:game_id>/", textbook_consumer().as_asgi())]))
    )

    async def application(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "websocket" and scope["path"] == ECHO_PATH:
            return await echo(scope, receive, send)
        if scope["type"] == "websocket" and scope["path"].startswith("/ws/textbook/"):
            return await textbook(scope, receive, send)
        return await site(scope, receive, send)

    return application


#: ``--events``: the Channels layers the live events may travel on instead of the hub
#: (games/events.py), each as channels_redis configures it.
LAYERS = {
    "pubsub-layer": "channels_redis.pubsub.RedisPubSubChannelLayer",
    "redis-layer": "channels_redis.core.RedisChannelLayer",
}


def use_channel_layer(backend: str) -> None:
    """Live events on a Channels layer, as a textbook Channels site sends them: each live socket
    gets a channel of its own and joins its groups with ``group_add``, and an event is one
    ``group_send`` per group, which reaches every socket of the group, this process's too, through
    Redis.  What the sockets do with an event is the site's (``LiveConsumer.hear``), as is
    everything else; only the way between the publisher and the sockets changes."""
    from channels.layers import get_channel_layer
    from django.conf import settings

    from games import consumers
    from games import events as site_events

    settings.CHANNEL_LAYERS = {
        "default": {"BACKEND": backend, "CONFIG": {"hosts": [settings.REDIS_URL], "prefix": "piramide-bench"}}
    }

    class LayerHub:
        """``games.events.Hub``'s part, on the layer."""

        async def add(self, group: str, listener: Any) -> None:
            await get_channel_layer().group_add(group, listener.channel_name)

        async def discard(self, group: str, listener: Any) -> None:
            await get_channel_layer().group_discard(group, listener.channel_name)

        async def publish(self, groups: dict[str, list[dict[str, Any]]]) -> None:
            layer = get_channel_layer()
            for group, heard in groups.items():
                await layer.group_send(group, {"type": "live.heard", "group": group, "events": heard})

    only = LayerHub()
    site_events.hub = lambda: only  # type: ignore[assignment,return-value]

    async def live_heard(self: Any, message: dict[str, Any]) -> None:
        self.hear(message["group"], message["events"])

    consumers.LiveConsumer.channel_layer_alias = "default"
    consumers.LiveConsumer.live_heard = live_heard  # type: ignore[attr-defined]


def textbook_consumer() -> type:
    """The consumer a Channels tutorial would have a site write (``--textbook``): each move checked
    against the rules and saved by the ORM on the thread pool, in a transaction that locks the game,
    then ``group_send`` to the game's group on Channels' core Redis layer, whose members (the player
    and the game's spectators) each forward it.  It speaks as much of the site's protocol as the
    bench's clients read (``state``/``synced``, ``hello``, ``move.ok``, ``game.progress``)."""
    from channels.db import database_sync_to_async
    from channels.generic.websocket import AsyncJsonWebsocketConsumer
    from django.conf import settings
    from django.db import transaction

    from games.engine import Game as EngineGame
    from games.engine import parse_move
    from games.models import Game, Move

    settings.CHANNEL_LAYERS = {
        **getattr(settings, "CHANNEL_LAYERS", {}),
        "textbook": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [settings.REDIS_URL], "prefix": "piramide-bench-textbook"},
        },
    }

    class TextbookConsumer(AsyncJsonWebsocketConsumer):
        channel_layer_alias = "textbook"

        async def connect(self) -> None:
            self.game_id = int(self.scope["url_route"]["kwargs"]["game_id"])
            self.group = f"textbook-{self.game_id}"
            self.version, self.owner = await self.opening()
            await self.channel_layer.group_add(self.group, self.channel_name)
            await self.accept()
            if self.owner:
                await self.send_json({"type": "state", "version": self.version})
                await self.send_json({"type": "synced"})
            else:
                await self.send_json({"type": "hello", "view": "summary"})

        @database_sync_to_async
        def opening(self) -> tuple[int, bool]:
            game = Game.objects.get(pk=self.game_id)
            return game.moves.count(), game.player_id == self.scope["user"].pk

        async def disconnect(self, code: int) -> None:
            await self.channel_layer.group_discard(self.group, self.channel_name)

        async def receive_json(self, content: Any, **kwargs: Any) -> None:
            if not self.owner or content.get("type") != "move":
                await self.send_json({"type": "error", "code": "bad_message", "message": "not a move of yours"})
                return
            version = await self.store(content["move"])
            await self.channel_layer.group_send(
                self.group, {"type": "game.progress", "game": self.game_id, "version": version}
            )
            await self.send_json({"type": "move.ok", "version": version})

        @database_sync_to_async
        def store(self, notation: str) -> int:
            with transaction.atomic():
                game = Game.objects.select_for_update().get(pk=self.game_id)
                moves = [parse_move(text) for text in game.moves.order_by("number").values_list("notation", flat=True)]
                EngineGame.replay(game.deal, moves).apply(parse_move(notation))
                version = len(moves) + 1
                Move.objects.create(game=game, number=version, notation=notation)
                game.move_count = game.version = version
                game.save(update_fields=["move_count", "version"])
                return version

        async def game_progress(self, event: dict[str, Any]) -> None:
            await self.send_json(event)

    return TextbookConsumer


# ----------------------------------------------------------------- set-up


def server_env(args: argparse.Namespace) -> dict[str, str]:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "piramide_site.settings.local",
        "DJANGO_DEBUG": "false",
        "DATABASE_URL": f"{args.database_url.rstrip('/')}/piramide_bench",
        "REDIS_URL": args.redis_url,
        "DJANGO_CONN_MAX_AGE": "600",
        "LEADERBOARD_KEY_PREFIX": "piramide-bench:lb",
        "LIVE_RATE_PER_SECOND": "100000",
        "LIVE_RATE_BURST": "100000",
        # every client is on one address, and the saturation rounds send as fast as they can
        "LIVE_SOCKETS_PER_IP": "100000",
        "LIVE_FRAMES_PER_IP": "100000000/min",
        "LIVE_FRAMES_PER_USER": "100000000/min",
        "HTTP_REQUESTS_PER_ADDRESS": "0",
        "CELERY_TASK_ALWAYS_EAGER": "true",
        "DJANGO_LOG_LEVEL": "WARNING",
        "PYTHONPATH": str(ROOT),
        "BENCH_LIVE_EVENTS": args.events,
    }


def recreate_database(args: argparse.Namespace) -> None:
    import psycopg

    with psycopg.connect(f"{args.database_url.rstrip('/')}/postgres", autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS piramide_bench WITH (FORCE)")
        conn.execute("CREATE DATABASE piramide_bench")
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=server_env(args), check=True
    )
    import redis

    client = redis.Redis.from_url(args.redis_url)
    keys = list(client.scan_iter(match="piramide-bench:*", count=1000))
    if keys:
        client.delete(*keys)


@dataclass
class World:
    challenge_id: int
    seed: int
    line: list[str]
    #: per player: the session cookie and the ids of the fresh games it will play, in order
    players: list[tuple[str, list[int]]]
    #: per player: the game it opens each live round on, stored part-played (the ranked one first)
    openers: list[list[int]]
    spectators: list[str]
    #: per player: practice games of its own for the write rounds, which no socket plays
    write_games: list[list[int]] = field(default_factory=list)
    #: the moves of the line stored before the rounds, by game (the openers)
    played: dict[int, int] = field(default_factory=dict)


def build_world(args: argparse.Namespace, games_per_player: int) -> World:
    os.environ.update(server_env(args))
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    from accounts.models import User
    from accounts.names import display_name_skeleton
    from games.engine import Game as EngineGame
    from games.engine.solver import solve
    from games.models import DailyChallenge, Game, Move, commitment_fields
    from games.selectors import local_today
    from games.services import draw_seed

    # the first winnable classic deal from --seed on (a random one with --seed -1): the same seed,
    # the same day to play, so that two runs compare like with like
    seed = draw_seed() if args.seed < 0 else args.seed
    while True:
        solution = solve(EngineGame.from_seed("classic", seed), time_limit=5)
        if solution.line:
            break
        seed = draw_seed() if args.seed < 0 else seed + 1
    challenge = DailyChallenge.objects.create(
        date=local_today(),
        preset="classic",
        seed=seed,
        **commitment_fields("classic", seed),
        status=DailyChallenge.Status.DONE,
        verdict=DailyChallenge.Verdict.WINNABLE,
        line_length=len(solution.line),
    )
    # as its verification leaves a challenge: its solver lines kept, so that no fair-play
    # assessment of a finished game (eager here, as on the embedded default) searches for them
    from fairplay.services import challenge_lines

    challenge_lines(challenge)
    users = User.objects.bulk_create(
        [
            User(
                username=f"p{i}",
                display_name=f"Player {i}",
                display_name_skeleton=display_name_skeleton(f"Player {i}"),
                password="!",
            )
            for i in range(args.players)
        ]
        + [
            User(
                username=f"s{i}",
                display_name=f"Spectator {i}",
                display_name_skeleton=display_name_skeleton(f"Spectator {i}"),
                password="!",
            )
            for i in range(args.spectators)
        ]
    )
    if users[0].pk is None:  # backends without RETURNING
        users = list(User.objects.order_by("pk"))

    def cookie(user: Any) -> str:
        session = SessionStore()
        session[SESSION_KEY] = str(user.pk)
        session[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
        session[HASH_SESSION_KEY] = user.get_session_auth_hash()
        session.create()
        return str(session.session_key)

    players, spectators = users[: args.players], users[args.players :]
    # Each live round opens with every player on a game stored part-played, up to a point of the
    # line drawn at random (the first round on the player's ranked game, the others on practice
    # games), so that the players are at every stage of a game at once and games end all through
    # every round, as on a real day.  (Started together on fresh games, all of them would finish
    # within a second or two; and a round's clock leaves the players' games wherever they are: after
    # a saturated round most players are waiting for their next game's socket to open.)
    line = [str(move) for move in solution.line]
    chooser = random.Random(4)
    live_rounds = args.repeat * sum(kind == "live" for _, kind, _, _ in ROUNDS)
    played = {user.pk: [chooser.randrange(len(line)) for _ in range(live_rounds)] for user in players}
    # the write rounds may go as fast as Postgres commits: about 10,000 writes a second in all, in each run
    writes = args.repeat * (
        args.duration / max(0.05, args.think) + 10_000 * args.saturation_duration / max(1, args.players)
    )
    write_games_per_player = 2 + int(writes / len(line))
    openers = [
        Game(challenge=challenge, player=user, ranked=r == 0, move_count=count, version=count)
        for user in players
        for r, count in enumerate(played[user.pk])
    ]
    fresh = [Game(challenge=challenge, player=user, ranked=False) for user in players for _ in range(games_per_player)]
    writing = [
        Game(challenge=challenge, player=user, ranked=False) for user in players for _ in range(write_games_per_player)
    ]
    # Spectators have played their own ranked game; while the day lasts they still watch in summaries.
    watching = [
        Game(challenge=challenge, player=user, ranked=True, outcome=Game.Outcome.RESIGNED, score=0)
        for user in spectators
    ]
    Game.objects.bulk_create(openers + fresh + writing + watching)  # Postgres returns the new ids

    def by_player(rows: list[Any]) -> dict[int, list[int]]:
        ids: dict[int, list[int]] = defaultdict(list)
        for game in rows:
            ids[game.player_id].append(game.pk)
        return ids

    opening, games, write_games = by_player(openers), by_player(fresh), by_player(writing)
    stored = {game.pk: game.move_count for game in openers}
    Move.objects.bulk_create(
        [
            Move(game_id=game_id, number=n, notation=line[n - 1])
            for game_id, count in stored.items()
            for n in range(1, count + 1)
        ]
    )
    return World(
        challenge_id=challenge.pk,
        seed=seed,
        line=line,
        players=[(cookie(user), games[user.pk]) for user in players],
        openers=[opening[user.pk] for user in players],
        spectators=[cookie(user) for user in spectators],
        write_games=[write_games[user.pk] for user in players],
        played=stored,
    )


def checkpoint(args: argparse.Namespace) -> None:
    """Write out what setting up left dirty, so that no round pays for the set-up's writes."""
    import psycopg

    with psycopg.connect(f"{args.database_url.rstrip('/')}/piramide_bench", autocommit=True) as conn:
        conn.execute("CHECKPOINT")


def start_server(args: argparse.Namespace, port: int) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(
        uvicorn_command("bench.live:application", port, "--ws-max-queue", "256", "--ws", args.ws),
        cwd=ROOT,
        env=server_env(args),
    )
    try:
        answering(process, f"http://127.0.0.1:{port}/api/challenges/today/", timeout=60)
    except RuntimeError as error:
        process.kill()
        raise SystemExit(str(error)) from None
    return process


def memory_mb(pid: int) -> tuple[float, float]:
    """(resident now, peak resident) of a process, in MB."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def total_memory_mb(pids: list[int]) -> tuple[float, float]:
    """(resident now, peak resident) of the server processes together, in MB."""
    figures = [memory_mb(pid) for pid in pids]
    return sum(now for now, _ in figures), sum(peak for _, peak in figures)


# ----------------------------------------------------------------- the clients


@dataclass
class Tally:
    name: str
    rtts: list[float] = field(default_factory=list)
    #: which of ``rtts`` are of moves that ended a game (the locked path, scoring, the leaderboard)
    ending: set[int] = field(default_factory=set)
    #: when each of ``rtts``'s moves was sent (live rounds), on the clients' clock
    sent: list[float] = field(default_factory=list)
    #: whether the clients think between messages (else a round trip is mostly queueing, and the
    #: moves sent after a game ended are not told apart)
    paced: bool = True
    fanouts: list[float] = field(default_factory=list)
    #: live rounds: the seconds from a player's next game's socket starting to connect to its
    #: ``synced`` (the game's state sent and the groups joined), for the games opened on the clock
    opens: list[float] = field(default_factory=list)
    messages: int = 0
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0
    #: CPU seconds the server process used during the round, and its event loop's thread of them
    server_cpu: float = 0.0
    loop_cpu: float = 0.0
    #: whether the round went through the server (the durable writes do not)
    served: bool = True


@dataclass
class Cursor:
    """A player's place among its prepared games, across rounds: each live round opens on the
    player's next opener (a game stored part-played, ``build_world``), then fresh games in order.
    A game a round's clock leaves unfinished is left so, as a player closing the page would."""

    games: list[int]
    openers: list[int]
    index: int = 0
    opening: int | None = None

    def begin(self) -> None:
        """A live round begins: its first game is the next opener."""
        self.opening = self.openers.pop(0) if self.openers else None

    def take(self) -> int | None:
        """The game to open next: the round's opener, else the next fresh game (None: none left)."""
        if self.opening is not None:
            game_id, self.opening = self.opening, None
            return game_id
        if self.index >= len(self.games):
            return None
        self.index += 1
        return self.games[self.index - 1]


@dataclass
class Ledger:
    """Moves the server accepted (move.ok), per game: checked against the database at the end."""

    accepted: dict[int, list[tuple[int, str]]] = field(default_factory=lambda: defaultdict(list))
    sent_at: dict[tuple[int, int], float] = field(default_factory=dict)


async def open_socket(port: int, path: str, cookie: str | None = None) -> Any:
    from websockets.asyncio.client import connect

    headers = {"Cookie": f"sessionid={cookie}"} if cookie else None
    return await connect(
        f"ws://127.0.0.1:{port}{path}",
        origin="http://127.0.0.1",
        additional_headers=headers,
        proxy=None,
        compression=None,
        max_queue=1024,
        open_timeout=60,
        ping_interval=None,
    )


async def receive_until(ws: Any, kind: str, timeout: float = 30) -> dict[str, Any]:
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), timeout))
        if message["type"] == kind:
            return message
        if message["type"] == "error":
            raise RuntimeError(f"{message['code']}: {message['message']}")


def think_time(think: float, rng: random.Random) -> float:
    return rng.uniform(0.5 * think, 1.5 * think) if think > 0 else 0.0


async def echo_client(
    port: int, think: float, stop: asyncio.Event, tally: Tally, rng: random.Random, started: asyncio.Event
) -> None:
    ws = await open_socket(port, ECHO_PATH)
    await started.wait()
    try:
        payload = json.dumps({"type": "move", "move": "7.1+7.4", "seen": 12})
        while not stop.is_set():
            await asyncio.sleep(think_time(think, rng))
            sent = time.perf_counter()
            await ws.send(payload)
            await asyncio.wait_for(ws.recv(), 30)
            if not stop.is_set():
                tally.rtts.append(time.perf_counter() - sent)
                tally.messages += 1
    except Exception as error:
        tally.errors.append(f"echo: {type(error).__name__}: {error}")
    finally:
        await ws.close()


class Follow:
    """Tells a spectator which game its player moved on to (None: the round is over)."""

    def __init__(self) -> None:
        self.game: asyncio.Queue[int | None] = asyncio.Queue()


class Ready:
    """Counts clients whose first socket is open; the round's clock starts when all are, as the echo's does."""

    def __init__(self, expected: int) -> None:
        self.expected, self.count = expected, 0
        self.all = asyncio.Event()
        if expected == 0:
            self.all.set()

    def one(self) -> None:
        self.count += 1
        if self.count >= self.expected:
            self.all.set()


async def player_client(
    port: int,
    cookie: str,
    line: list[str],
    think: float,
    clock: dict[str, float],
    tally: Tally,
    ledger: Ledger,
    follows: list[Follow],
    rng: random.Random,
    started: asyncio.Event,
    ready: Ready,
    cursor: Cursor,
    path: str = "/ws/games/{}/",
) -> None:
    async def open_next() -> tuple[int, Any, dict[str, Any]] | None:
        game_id = cursor.take()
        if game_id is None:
            tally.errors.append("a player ran out of prepared games: raise the games per player")
            return None
        for follow in follows:
            follow.game.put_nowait(game_id)
        opening = time.perf_counter()
        ws = await open_socket(port, path.format(game_id), cookie)
        try:
            state = await receive_until(ws, "state")
            await receive_until(ws, "synced")
        except BaseException:
            await ws.close()
            raise
        if started.is_set():
            tally.opens.append(time.perf_counter() - opening)
        return game_id, ws, state

    try:
        opened = await open_next()  # the first game's socket is open before the clock starts
        ready.one()
        if opened is None:
            for follow in follows:
                follow.game.put_nowait(None)  # its spectators have nothing to watch
        await started.wait()
        while opened is not None:
            game_id, ws, state = opened
            try:
                for seen in range(state["version"], len(line)):
                    if time.monotonic() >= clock["until"]:
                        break
                    await asyncio.sleep(think_time(think, rng))
                    sent = time.perf_counter()
                    ledger.sent_at[(game_id, seen + 1)] = sent
                    await ws.send(json.dumps({"type": "move", "move": line[seen], "seen": seen}))
                    reply = await receive_until(ws, "move.ok")
                    tally.rtts.append(time.perf_counter() - sent)
                    tally.sent.append(sent)
                    if seen + 1 == len(line):
                        tally.ending.add(len(tally.rtts) - 1)
                    tally.messages += 1
                    ledger.accepted[game_id].append((reply["version"], line[seen]))
            finally:
                await ws.close()
            opened = await open_next() if time.monotonic() < clock["until"] else None
    except Exception as error:
        ready.one()
        tally.errors.append(f"player: {type(error).__name__}: {error}")


async def spectator_client(
    port: int, cookie: str, follow: Follow, tally: Tally, ledger: Ledger, ready: Ready, path: str = "/ws/games/{}/"
) -> None:
    """Watch the player's current game; move to its next game when told; return when told None."""
    first = True
    try:
        game_id = await follow.game.get()
        if game_id is None:
            ready.one()
        while game_id is not None:
            ws = await open_socket(port, path.format(game_id), cookie)
            try:
                hello = await receive_until(ws, "hello")
                if first:
                    first = False
                    ready.one()
                if hello["view"] != "summary":
                    tally.errors.append("a spectator saw the cards of another player's game before the day was over")
                switch = asyncio.ensure_future(follow.game.get())
                while True:
                    receive = asyncio.ensure_future(ws.recv())
                    await asyncio.wait({receive, switch}, return_when=asyncio.FIRST_COMPLETED)
                    if not receive.done():
                        receive.cancel()
                        await asyncio.wait({receive})
                        break
                    message = json.loads(receive.result())
                    if message["type"] == "game.progress" and not message.get("replayed"):
                        sent = ledger.sent_at.get((message["game"], message["version"]))
                        if sent is not None:
                            tally.fanouts.append(time.perf_counter() - sent)
                    elif message["type"] == "error":
                        tally.errors.append(f"spectator: {message['code']}")
                    if switch.done():
                        break
                game_id = await switch
            finally:
                await ws.close()
    except Exception as error:
        if first:
            ready.one()
        tally.errors.append(f"spectator: {type(error).__name__}: {error}")


async def run_echo(ports: list[int], clients: int, think: float, seconds: float, name: str) -> Tally:
    """One echo client per player (on the player's server), all connected before the clock starts;
    stopped after ``seconds``."""
    tally = Tally(name)
    started, stop = asyncio.Event(), asyncio.Event()
    rng = random.Random(1)
    tasks = [
        asyncio.ensure_future(
            echo_client(ports[i % len(ports)], think, stop, tally, random.Random(rng.random()), started)
        )
        for i in range(clients)
    ]
    await clocked(tally, started, stop, tasks, seconds, settle=1.0 + clients * 0.005)
    return tally


async def clocked(
    tally: Tally,
    started: asyncio.Event,
    stop: asyncio.Event,
    tasks: list[asyncio.Future[None]],
    seconds: float,
    settle: float,
) -> None:
    """Give the clients ``settle`` seconds to get ready, then start them, stop them after ``seconds``
    (the round's time, in ``tally``) and wait for them to finish."""
    await asyncio.sleep(settle)
    begin = time.monotonic()
    started.set()
    await asyncio.sleep(seconds)
    stop.set()
    tally.seconds = time.monotonic() - begin
    await asyncio.gather(*tasks)


async def run_live(
    ports: list[int],
    world: World,
    spectators: int,
    think: float,
    seconds: float,
    name: str,
    ledger: Ledger,
    cursors: list[Cursor],
    path: str = "/ws/games/{}/",
) -> Tally:
    tally = Tally(name, paced=think > 0)
    started = asyncio.Event()
    ready = Ready(len(world.players) + min(spectators, len(world.spectators)))
    follows: list[list[Follow]] = [[] for _ in world.players]
    spectator_tasks = []
    # a spectator's server is drawn at random, as a load balancer would send it: with more than one
    # server, some of the events it watches come from another process, through Redis
    servers = random.Random(3)
    for i, cookie in enumerate(world.spectators[:spectators]):
        follow = Follow()
        follows[i % len(world.players)].append(follow)
        port = ports[servers.randrange(len(ports))]
        spectator_tasks.append(
            asyncio.ensure_future(spectator_client(port, cookie, follow, tally, ledger, ready, path))
        )
    rng = random.Random(2)
    clock = {"until": float("inf")}
    for cursor in cursors:
        cursor.begin()
    player_tasks = [
        asyncio.ensure_future(
            player_client(
                ports[i % len(ports)],
                cookie,
                world.line,
                think,
                clock,
                tally,
                ledger,
                follows[i],
                random.Random(rng.random()),
                started,
                ready,
                cursors[i],
                path,
            )
        )
        for i, (cookie, _) in enumerate(world.players)
    ]
    try:
        await asyncio.wait_for(ready.all.wait(), 120)
    except TimeoutError:
        tally.errors.append(f"only {ready.count} of {ready.expected} sockets opened within 120 s")
    begin = time.monotonic()
    clock["until"] = begin + seconds
    started.set()
    await asyncio.gather(*player_tasks)
    tally.seconds = time.monotonic() - begin
    await asyncio.sleep(0.5)  # the last events on their way to the spectators
    for player_follows in follows:
        for follow in player_follows:
            follow.game.put_nowait(None)
    await asyncio.gather(*spectator_tasks)
    return tally


async def run_writes(world: World, think: float, seconds: float, name: str, cursors: list[list[int]]) -> Tally:
    """Each player writes the next move of its write game as the server would (``MOVE_WRITE_SQL``,
    one statement in autocommit) after each think time, on as many connections as a server process
    keeps for them (``live_moves.connection_params``: the server's settings, ``synchronous_commit``
    included); the round trip is to the commit.  ``cursors``: per player, the write game it is on
    and the moves it holds, carried from round to round (a fresh practice game's version is its
    move count)."""
    import psycopg
    from django.conf import settings
    from django.utils import timezone

    from games.live_moves import connection_params
    from games.services import MOVE_WRITE_SQL, MoveRow

    pool: asyncio.Queue[Any] = asyncio.Queue()
    for _ in range(settings.LIVE_MOVE_CONNECTIONS):
        pool.put_nowait(await psycopg.AsyncConnection.connect(**connection_params()))
    tally = Tally(name, served=False)
    started, stop = asyncio.Event(), asyncio.Event()
    rng = random.Random(3)
    length = len(world.line)

    async def writer(games: list[int], cursor: list[int], chooser: random.Random) -> None:
        await started.wait()
        try:
            while not stop.is_set():
                if cursor[1] == length:
                    cursor[:] = [cursor[0] + 1, 0]
                if cursor[0] == len(games):
                    raise RuntimeError("a player ran out of prepared games: raise the games per player")
                game_id, moves = games[cursor[0]], cursor[1]
                await asyncio.sleep(think_time(think, chooser))
                sent = time.perf_counter()
                conn = await pool.get()
                try:
                    written = await conn.execute(
                        MOVE_WRITE_SQL, MoveRow(game_id, moves, moves, world.line[moves], timezone.now()).args()
                    )
                finally:
                    pool.put_nowait(conn)
                if written.rowcount != 1:
                    raise RuntimeError(f"the write of move {moves + 1} of game {game_id} found the row moved on")
                cursor[1] = moves + 1
                if not stop.is_set():
                    tally.rtts.append(time.perf_counter() - sent)
                    tally.messages += 1
        except Exception as error:
            tally.errors.append(f"write: {type(error).__name__}: {error}")

    tasks = [
        asyncio.ensure_future(writer(games, cursor, random.Random(rng.random())))
        for games, cursor in zip(world.write_games, cursors, strict=True)
    ]
    await clocked(tally, started, stop, tasks, seconds, settle=0.2)
    while not pool.empty():
        await pool.get_nowait().close()
    return tally


# ----------------------------------------------------------------- reporting


def percentile(values: list[float], share: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def report(tally: Tally, memory: tuple[float, float]) -> dict[str, Any]:
    ending = [rtt for number, rtt in enumerate(tally.rtts) if number in tally.ending]
    others = [rtt for number, rtt in enumerate(tally.rtts) if number not in tally.ending]
    # the other moves sent within AFTER_END seconds after a game ended (its socket closing, the next
    # game's opening, the ending's own work), and the rest
    after_end: list[float] = []
    rest: list[float] = []
    if tally.paced and tally.ending:  # a live round: every move's sending time is there
        ends = sorted(tally.sent[number] for number in tally.ending)
        for number, rtt in enumerate(tally.rtts):
            if number not in tally.ending:
                place = bisect.bisect_left(ends, tally.sent[number] - AFTER_END)
                (after_end if place < len(ends) and ends[place] <= tally.sent[number] else rest).append(rtt)
    row = {
        "round": tally.name,
        "per_second": tally.messages / tally.seconds if tally.seconds else 0.0,
        "rtt_p50_ms": percentile(tally.rtts, 0.50) * 1000,
        "rtt_p99_ms": percentile(tally.rtts, 0.99) * 1000,
        "ending_moves": len(ending),
        "ending_rtt_p50_ms": percentile(ending, 0.50) * 1000 if ending else None,
        "other_rtt_p99_ms": percentile(others, 0.99) * 1000 if ending else None,
        "after_end_moves": len(after_end),
        "after_end_rtt_p50_ms": percentile(after_end, 0.50) * 1000 if after_end else None,
        "after_end_rtt_p99_ms": percentile(after_end, 0.99) * 1000 if after_end else None,
        "rest_rtt_p50_ms": percentile(rest, 0.50) * 1000 if rest else None,
        "rest_rtt_p99_ms": percentile(rest, 0.99) * 1000 if rest else None,
        "fanout_p50_ms": percentile(tally.fanouts, 0.50) * 1000 if tally.fanouts else None,
        "fanout_p99_ms": percentile(tally.fanouts, 0.99) * 1000 if tally.fanouts else None,
        "fanout_events": len(tally.fanouts),
        "opens": len(tally.opens),
        "open_p50_ms": percentile(tally.opens, 0.50) * 1000 if tally.opens else None,
        "open_p99_ms": percentile(tally.opens, 0.99) * 1000 if tally.opens else None,
        "server_cpu_s": tally.server_cpu if tally.served else None,
        "server_cpu_ms_per_message": 1000 * tally.server_cpu / tally.messages
        if tally.messages and tally.served
        else None,
        "loop_cpu_share": tally.loop_cpu / tally.server_cpu if tally.server_cpu and tally.served else None,
        "rss_mb": memory[0],
        "peak_rss_mb": memory[1],
        "errors": len(tally.errors),
    }
    fanout = (
        f"  fan-out p50 {row['fanout_p50_ms']:.2f} ms p99 {row['fanout_p99_ms']:.2f} ms ({row['fanout_events']} events)"
        if tally.fanouts
        else ""
    )
    print(
        f"{tally.name:<24} {row['per_second']:8.0f} msg/s  RTT p50 {row['rtt_p50_ms']:6.2f} ms p99 {row['rtt_p99_ms']:6.2f} ms"
        f"{fanout}"
        + (
            f"  server CPU {tally.server_cpu:.1f} s ({row['server_cpu_ms_per_message'] or 0:.2f} ms/msg, "
            f"{100 * (row['loop_cpu_share'] or 0):.0f}% on the loop's thread)"
            f"  RSS {memory[0]:.0f} MB (peak {memory[1]:.0f})"
            if tally.served
            else "  (Postgres only, no server)"
        )
        + f"  errors {len(tally.errors)}",
        flush=True,
    )
    if ending:
        print(
            f"{'':<24} the {row['ending_moves']} moves that ended a game: RTT p50 {row['ending_rtt_p50_ms']:.2f} ms; "
            f"the others' p99 {row['other_rtt_p99_ms']:.2f} ms"
        )
        if after_end and rest:
            print(
                f"{'':<24} the {len(after_end)} others sent within {AFTER_END:g} s after a game ended: RTT p50 "
                f"{row['after_end_rtt_p50_ms']:.2f} ms p99 {row['after_end_rtt_p99_ms']:.2f} ms; the {len(rest)} "
                f"sent later: p50 {row['rest_rtt_p50_ms']:.2f} ms p99 {row['rest_rtt_p99_ms']:.2f} ms"
            )
    if tally.opens:
        print(
            f"{'':<24} the {len(tally.opens)} games opened on the clock: socket open to synced p50 "
            f"{row['open_p50_ms']:.2f} ms p99 {row['open_p99_ms']:.2f} ms"
        )
    for error in sorted(set(tally.errors))[:5]:
        print(f"    error: {error}")
    return row


def check_logs(ledger: Ledger) -> tuple[int, int, int]:
    """(games checked, moves lost, moves duplicated or unexpected): the stored logs against the accepted moves."""
    from games.models import Game, Move

    lost = extra = 0
    stored: dict[int, list[tuple[int, str]]] = defaultdict(list)
    for game_id, number, notation in (
        Move.objects.filter(game_id__in=list(ledger.accepted))
        .order_by("game_id", "number")
        .values_list("game_id", "number", "notation")
    ):
        stored[game_id].append((number, notation))
    counts = dict(Game.objects.filter(pk__in=list(ledger.accepted)).values_list("pk", "move_count"))
    for game_id, accepted in ledger.accepted.items():
        have = stored.get(game_id, [])
        lost += len(set(accepted) - set(have))
        extra += len(have) - len(set(have)) + len(set(have) - set(accepted))
        if counts.get(game_id) != len(have):
            extra += 1
    return len(ledger.accepted), lost, extra


async def main_async(
    args: argparse.Namespace, ports: list[int], server_pids: list[int], world: World
) -> tuple[list[dict[str, dict[str, Any]]], dict[str, Any]]:
    """The figures of each run of the six rounds, by ``ROUNDS``' keys, and the move logs' check."""
    ledger = Ledger()
    for game_id, count in world.played.items():
        ledger.accepted[game_id].extend((n, world.line[n - 1]) for n in range(1, count + 1))
    cursors = [Cursor(games, list(openers)) for (_, games), openers in zip(world.players, world.openers, strict=True)]
    write_cursors = [[0, 0] for _ in world.players]
    runs: list[dict[str, dict[str, Any]]] = []
    for run in range(1, args.repeat + 1):
        figures: dict[str, dict[str, Any]] = {}
        for key, kind, saturated, label in [*ROUNDS, *([TEXTBOOK_ROUND] if args.textbook else [])]:
            think = 0.0 if saturated else args.think
            seconds = args.saturation_duration if saturated else args.duration
            name = label if saturated else f"{label}, think {args.think}s"
            if args.repeat > 1:
                name = f"{name} ({run}/{args.repeat})"
            print(f"... {name}", file=sys.stderr, flush=True)
            cpu = sum(cpu_seconds(pid) for pid in server_pids)
            loop_cpu = sum(main_thread_cpu_seconds(pid) for pid in server_pids)
            with client_collector.paused():
                if kind == "echo":
                    tally = await run_echo(ports, len(world.players), think, seconds, name)
                elif kind == "write":
                    tally = await run_writes(world, think, seconds, name, write_cursors)
                elif kind == "textbook":
                    tally = await run_live(
                        ports, world, args.spectators, think, seconds, name, ledger, cursors, TEXTBOOK_PATH
                    )
                else:
                    tally = await run_live(ports, world, args.spectators, think, seconds, name, ledger, cursors)
            tally.server_cpu = sum(cpu_seconds(pid) for pid in server_pids) - cpu
            tally.loop_cpu = sum(main_thread_cpu_seconds(pid) for pid in server_pids) - loop_cpu
            figures[key] = report(tally, total_memory_mb(server_pids))
        runs.append(figures)
    games, lost, extra = await asyncio.to_thread(check_logs, ledger)
    print(
        f"move logs: {games} games checked, {sum(len(v) for v in ledger.accepted.values())} accepted moves, "
        f"{lost} lost, {extra} duplicated or unexpected",
        flush=True,
    )
    return runs, {"round": "logs", "games": games, "lost": lost, "duplicated": extra}


def median_of(values: list[float], fmt: str) -> str:
    """The median of one figure over the runs, and its range when there are several."""
    middle = statistics.median(values)
    if len(values) == 1:
        return fmt.format(middle)
    return (
        f"{fmt.format(middle)} (median of {len(values)} runs, {fmt.format(min(values))} to {fmt.format(max(values))})"
    )


def summary(runs: list[dict[str, dict[str, Any]]], spectators: int) -> None:
    """Each target's figure: the median over the runs of the six rounds, each run's own ratio."""

    def each(key: str, figure: str) -> list[Any]:
        return [run[key][figure] for run in runs]

    echo_p50, live_p50, write_p50 = each("echo", "rtt_p50_ms"), each("live", "rtt_p50_ms"), each("write", "rtt_p50_ms")
    print(
        f"move RTT p50 at human pace: {median_of(live_p50, '{:.2f} ms')}; the echo's {median_of(echo_p50, '{:.2f} ms')}"
    )
    print(
        f"  as a multiple of the echo's: {median_of([m / e for m, e in zip(live_p50, echo_p50)], '{:.2f}x')} (target <= 2x)"
    )
    print(
        f"  its floor, the echo's p50 + the durable write's ({median_of(write_p50, '{:.2f} ms')}): "
        f"{median_of([(e + w) / e for e, w in zip(echo_p50, write_p50)], '{:.2f}x')} the echo's"
    )
    print(f"move RTT p99 at human pace: {median_of(each('live', 'rtt_p99_ms'), '{:.2f} ms')} (target <= 20 ms)")
    fanouts = [fanout for fanout in each("live", "fanout_p99_ms") if fanout is not None]
    if fanouts:
        print(f"fan-out p99 to {spectators} spectators: {median_of(fanouts, '{:.2f} ms')} (target <= 50 ms)")
    echo_rate, live_rate = each("echo saturated", "per_second"), each("live saturated", "per_second")
    print(
        f"saturated: {median_of(live_rate, '{:.0f} moves/s')}; the echo's {median_of(echo_rate, '{:.0f} messages/s')}"
    )
    print(
        f"  as a share of the echo's: {median_of([100 * m / e for m, e in zip(live_rate, echo_rate)], '{:.0f}%')} (target >= 25%); "
        f"the durable write alone: {median_of(each('write saturated', 'per_second'), '{:.0f} writes/s')}"
    )
    if "textbook saturated" in runs[0]:
        textbook_rate = each("textbook saturated", "per_second")
        print(
            f"the textbook consumer saturated: {median_of(textbook_rate, '{:.0f} moves/s')}, "
            f"p99 {median_of(each('textbook saturated', 'rtt_p99_ms'), '{:.1f} ms')}; the site's moves/s "
            f"{median_of([m / b for m, b in zip(live_rate, textbook_rate)], '{:.2f}x')} the textbook's"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--spectators", type=int, default=200)
    parser.add_argument("--think", type=float, default=0.5, help="mean seconds a player thinks before a move")
    parser.add_argument("--duration", type=float, default=20.0, help="seconds of each human-pace round")
    parser.add_argument("--saturation-duration", type=float, default=10.0)
    parser.add_argument(
        "--database-url", default=os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432")
    )
    parser.add_argument("--redis-url", default=os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/3"))
    parser.add_argument(
        "--servers", type=int, default=1, help="uvicorn processes, each on a port of its own (default 1)"
    )
    parser.add_argument("--ws", default="auto", help="uvicorn's WebSocket implementation (its --ws)")
    parser.add_argument(
        "--events",
        choices=["hub", *LAYERS],
        default="hub",
        help="what the live events travel on: the site's hub (games/events.py), or a channels_redis layer",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=1,
        help="the day's deal: the first winnable classic deal from this seed on (-1: a random one)",
    )
    parser.add_argument(
        "--repeat", type=int, default=1, help="run the six rounds this many times over; the summary gives medians"
    )
    parser.add_argument(
        "--textbook",
        action="store_true",
        help="one more saturated round, on a textbook Channels consumer (ORM save, group_send): the baseline",
    )
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    if args.spectators > args.players * 4:
        parser.error("at most four spectators per player")
    if args.servers < 1:
        parser.error("--servers must be at least 1")

    import uvloop

    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start")
    print(
        f"players {args.players}, spectators {args.spectators}, think {args.think} s, "
        f"rounds of {args.duration} s (saturated {args.saturation_duration} s); Postgres + Redis, events on {args.events}, "
        f"{'one uvicorn process' if args.servers == 1 else f'{args.servers} uvicorn processes'}",
        flush=True,
    )
    recreate_database(args)
    moves_per_game = 60
    saturated_moves = (2 if args.textbook else 1) * 4000 * args.saturation_duration / max(1, args.players)
    games_per_player = int(
        2 + args.repeat * (args.duration / max(0.05, args.think) / moves_per_game + saturated_moves / 30)
    )
    world = build_world(args, games_per_player)
    print(
        f"challenge {world.challenge_id} (classic seed {world.seed}): a {len(world.line)}-move winning line; {games_per_player} games prepared per player",
        flush=True,
    )
    checkpoint(args)
    ports = free_ports(args.servers)
    servers: list[subprocess.Popen[bytes]] = []
    try:
        for port in ports:
            servers.append(start_server(args, port))
        runs, logs = uvloop.run(main_async(args, ports, [server.pid for server in servers], world))
    finally:
        stop(servers, timeout=15)
    print()
    summary(runs, args.spectators)
    print(f"machine load average {os.getloadavg()[0]:.1f} at the end")
    rows = [*(row for run in runs for row in run.values()), logs]
    errors = sum(row.get("errors", 0) for row in rows)
    print(f"errors: {errors}; moves lost: {logs['lost']}; duplicated: {logs['duplicated']}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
