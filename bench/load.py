"""Load test: players sign in over HTTP and play full ranked games over WebSockets and HTTP,
against the production shape, then every stored move and score is checked.

    .venv/bin/python bench/load.py [--players 1000] [--duration 300] [--servers 2] [--seed -1]
                                   [--database-url postgres://postgres@127.0.0.1:5432]
                                   [--redis-url redis://127.0.0.1:6379/3] [--server-root DIR]

It drops and recreates the database ``piramide_load`` on that Postgres, migrates it, creates
today's classic challenge with a winnable deal and the players (each with a real password hash),
then starts the production shape on loopback: ``--servers`` uvicorn processes (uvloop,
httptools) serving ``piramide_site.asgi`` with the production settings, and a Celery worker, all
on Postgres and Redis.  Every client runs in this one process (asyncio; websockets and a small
HTTP/1.1 client).

Each player starts at a moment spread over the first ``--ramp`` (70%) of ``--duration``, then:

1. ``GET /api/auth/csrf/`` and ``POST /api/auth/signin/`` (HTTP, on one server);
2. ``GET /api/challenges/today/``, ``POST /api/challenges/<id>/ranked/``;
3. opens ``/ws/games/<id>/`` on the *other* server and plays the solver's winning line with a
   think time that ends the game within the duration, but no shorter than a socket's message
   allowance (``LIVE_RATE_PER_SECOND``) allows; every fifth move goes over
   ``POST /api/games/<id>/moves/`` instead, so REST and socket moves interleave on one game;
   one player in ten resigns halfway;
4. ``GET /api/games/<id>/`` and ``GET /api/leaderboards/challenges/<id>/``.

Printed: players, requests per second (HTTP requests and socket messages), the round trip of a
move (p50/p99, socket and HTTP), sign-in p50/p99, errors (any refusal, unexpected status or
timeout), the servers' CPU seconds, and then the check: every move a client saw accepted is
stored exactly once (no accepted move missing, none stored twice or unasked), every game's move
count matches its log, and every finished game's score, and its leaderboard row, equal the score
of a replay of its stored move log.  Per-address limits are raised for the run (every client
shares 127.0.0.1); per-user limits stay as configured.  The clients' own garbage collector is
paused while they play (bench/collector.py), so its pauses are not counted as the servers'.

To compare two versions of the code, run both on the same deal (``--seed``: the first classic deal
from that seed on whose winning line the solver finds; -1, the default, draws one), the servers
and the worker of the other from its checkout (``--server-root``, e.g. ``git worktree add
/tmp/before <commit>``), one after the other, alternately.

tests/integration/test_load.py runs a short form of it in the suite.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import collector as client_collector  # noqa: E402
from bench.processes import answering, cpu_seconds, free_ports, stop, uvicorn_command  # noqa: E402

PASSWORD = "load-test-password-1"
DB_NAME = "piramide_load"
#: Every client comes from 127.0.0.1: the per-address limits would count them all as one.
LOOPBACK_LIMITS = {
    "THROTTLE_ANON": "100000/min",
    "THROTTLE_AUTH": "100000/min",
    # A sign-in counts against its address before the password is checked (and is taken back when
    # right), so with a thousand players on one address the sign-ins in flight at once are counted.
    "SIGNIN_FAILURES_PER_IP": "100000/15min",
    "LIMIT_AUTH_PER_IP": "100000/min",
    "LIMIT_MOVES_PER_IP": "1000000/min",
    "LIVE_SOCKETS_PER_IP": "100000",
    "LIVE_FRAMES_PER_IP": "1000000/min",
    "HTTP_REQUESTS_PER_ADDRESS": "0",
}


# ----------------------------------------------------------------- the production shape


def server_env(database_url: str, redis_url: str, prefix: str) -> dict[str, str]:
    """The environment of the servers and the worker: production settings on loopback HTTP."""
    return {
        **os.environ,
        **LOOPBACK_LIMITS,
        "DJANGO_SETTINGS_MODULE": "piramide_site.settings.production",
        "DJANGO_SECRET_KEY": "load-test-secret-key-not-for-anything-else-0123456789",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DJANGO_SECURE_SSL_REDIRECT": "false",
        "DJANGO_SECURE_COOKIES": "false",
        "DJANGO_DEBUG": "false",
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "CELERY_TASK_ALWAYS_EAGER": "false",
        "LEADERBOARD_KEY_PREFIX": f"{prefix}:lb",
        "LIMITS_KEY_PREFIX": f"{prefix}:limits",
        "DJANGO_LOG_LEVEL": "WARNING",
        "PYTHONPATH": str(ROOT),
    }


@dataclass
class Shape:
    servers: list[tuple[subprocess.Popen[bytes], int]]
    worker: subprocess.Popen[bytes]
    logs: list[Path]

    @property
    def ports(self) -> list[int]:
        return [port for _, port in self.servers]

    def cpu_seconds(self) -> float:
        return sum(cpu_seconds(process.pid) for process, _ in self.servers)

    def stop(self) -> None:
        stop([process for process, _ in self.servers] + [self.worker], timeout=20)


def start_shape(env: dict[str, str], servers: int, log_dir: Path) -> Shape:
    """``servers`` uvicorn processes and one Celery worker; returns once every server answers."""
    log_dir.mkdir(parents=True, exist_ok=True)
    started: list[tuple[subprocess.Popen[bytes], int]] = []
    logs = []
    for port in free_ports(servers):
        log = log_dir / f"server-{port}.log"
        logs.append(log)
        process = subprocess.Popen(
            uvicorn_command("piramide_site.asgi:application", port, "--backlog", "4096"),
            cwd=ROOT,
            env=env,
            stdout=log.open("wb"),
            stderr=subprocess.STDOUT,
        )
        started.append((process, port))
    worker_log = log_dir / "worker.log"
    logs.append(worker_log)
    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "piramide_site",
            "worker",
            "--pool=solo",
            "--loglevel=WARNING",
            f"--hostname=piramide-load-{os.getpid()}@%h",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
        ],
        cwd=ROOT,
        env=env,
        stdout=worker_log.open("wb"),
        stderr=subprocess.STDOUT,
    )
    shape = Shape(started, worker, logs)
    for process, port in started:
        try:
            answering(process, f"http://127.0.0.1:{port}/healthz/", timeout=90, log=log_dir / f"server-{port}.log")
        except RuntimeError:
            shape.stop()
            raise
    return shape


# ----------------------------------------------------------------- the world (Django ORM, in this process)


@dataclass
class World:
    challenge_id: int
    line: list[str]
    usernames: list[str]


def build_world(players: int, seed: int = -1) -> World:
    """Today's classic challenge with a winnable deal (the first from ``seed`` on; -1: a random one),
    and ``players`` players sharing one password hash.

    The hash is made by the first hasher of the servers' settings (Argon2id, OWASP's minimum work),
    as a password set or re-hashed in production is, whatever hashers this process's settings list
    (the tests' fast one, say): every sign-in costs what it costs there, and none is re-hashed.
    """
    from django.utils.module_loading import import_string

    from accounts.models import User
    from accounts.names import display_name_skeleton
    from games.engine import Game as EngineGame
    from games.engine.solver import solve
    from games.models import DailyChallenge, commitment_fields
    from games.selectors import local_today
    from games.services import draw_seed
    from piramide_site.settings import base

    today = local_today()
    challenge = DailyChallenge.objects.filter(date=today, preset="classic").first()
    if challenge is not None:
        line = solve(EngineGame.start(challenge.deal), time_limit=20).line
    else:
        tried = seed
        while True:
            seed = draw_seed() if tried < 0 else seed
            line = solve(EngineGame.from_seed("classic", seed), time_limit=5).line
            if line:
                break
            seed += 1
        challenge = DailyChallenge.objects.create(
            date=today,
            preset="classic",
            seed=seed,
            **commitment_fields("classic", seed),
            status=DailyChallenge.Status.DONE,
            verdict=DailyChallenge.Verdict.WINNABLE,
            line_length=len(line),
        )
    if not line:
        raise RuntimeError("today's classic challenge has no winning line the solver finds in time")
    hasher = import_string(base.PASSWORD_HASHERS[0])()
    encoded = hasher.encode(PASSWORD, hasher.salt())
    names = [f"load{index:05d}" for index in range(players)]
    User.objects.bulk_create(
        [
            User(
                username=name,
                display_name=f"Load {name[4:]}",
                display_name_skeleton=display_name_skeleton(f"Load {name[4:]}"),
                password=encoded,
            )
            for name in names
        ]
    )
    return World(challenge.pk, [str(move) for move in line], names)


# ----------------------------------------------------------------- clients


class HttpError(Exception):
    pass


async def http(
    port: int,
    method: str,
    path: str,
    *,
    body: Any = None,
    cookies: dict[str, str] | None = None,
    csrf: str | None = None,
    timeout: float = 60,
) -> tuple[int, dict[str, str], Any]:
    """One HTTP/1.1 request on its own connection: (status, cookies set, decoded JSON body or None)."""
    data = json.dumps(body).encode() if body is not None else b""
    head = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Connection: close", "Accept: application/json"]
    if body is not None:
        head += ["Content-Type: application/json", f"Content-Length: {len(data)}"]
    if cookies:
        head.append("Cookie: " + "; ".join(f"{name}={value}" for name, value in cookies.items()))
    if csrf:
        head.append(f"X-CSRFToken: {csrf}")

    async def exchange() -> bytes:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + data)
            return await reader.read()
        finally:
            writer.close()

    raw = await asyncio.wait_for(exchange(), timeout)
    header_block, _, payload = raw.partition(b"\r\n\r\n")
    lines = header_block.decode("latin-1").split("\r\n")
    if not lines or not lines[0].startswith("HTTP/1.1 "):
        raise HttpError(f"{method} {path}: no HTTP answer")
    status = int(lines[0].split()[1])
    headers: list[tuple[str, str]] = []
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers.append((name.strip().lower(), value.strip()))
    if ("transfer-encoding", "chunked") in headers:
        payload = _unchunk(payload)
    set_cookies = {}
    for name, value in headers:
        if name == "set-cookie":
            pair = value.split(";", 1)[0]
            key, _, val = pair.partition("=")
            set_cookies[key.strip()] = val.strip()
    decoded = json.loads(payload) if payload and any(n == "content-type" and "json" in v for n, v in headers) else None
    return status, set_cookies, decoded


def _unchunk(payload: bytes) -> bytes:
    out, rest = b"", payload
    while rest:
        size_line, _, rest = rest.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        if size == 0:
            break
        out, rest = out + rest[:size], rest[size + 2 :]
    return out


@dataclass
class Results:
    http_requests: int = 0
    socket_messages: int = 0
    ws_moves: list[float] = field(default_factory=list)
    http_moves: list[float] = field(default_factory=list)
    signins: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    #: per game: (number, notation) of every move a client saw accepted
    accepted: dict[int, list[tuple[int, str]]] = field(default_factory=lambda: defaultdict(list))
    #: per game: (number, notation) of every move a client sent (accepted or not: it may time out)
    sent: dict[int, list[tuple[int, str]]] = field(default_factory=lambda: defaultdict(list))
    finished_players: int = 0
    seconds: float = 0.0


class Player:
    def __init__(self, index: int, name: str, ports: list[int], world: World, results: Results) -> None:
        self.name, self.world, self.results = name, world, results
        self.http_port = ports[index % len(ports)]
        self.ws_port = ports[(index + 1) % len(ports)]
        self.resigns = index % 10 == 9
        self.cookies: dict[str, str] = {}

    async def request(self, method: str, path: str, body: Any = None, expect: tuple[int, ...] = (200,)) -> Any:
        status, cookies, decoded = await http(
            self.http_port, method, path, body=body, cookies=self.cookies, csrf=self.cookies.get("csrftoken")
        )
        self.results.http_requests += 1
        self.cookies.update(cookies)
        if status not in expect:
            raise HttpError(f"{method} {path}: {status} {json.dumps(decoded)[:200]}")
        return decoded

    async def play(self, start_at: float, think: float, rng: random.Random) -> None:
        await asyncio.sleep(max(0.0, start_at - time.monotonic()))
        try:
            await self._play(think, rng)
            self.results.finished_players += 1
        except Exception as error:
            self.results.errors.append(f"{type(error).__name__}: {error}"[:300])

    async def _play(self, think: float, rng: random.Random) -> None:
        results = self.results
        await self.request("GET", "/api/auth/csrf/")
        began = time.perf_counter()
        await self.request("POST", "/api/auth/signin/", {"username": self.name, "password": PASSWORD})
        results.signins.append(time.perf_counter() - began)
        today = await self.request("GET", "/api/challenges/today/")
        if not any(challenge["id"] == self.world.challenge_id for challenge in today):
            raise RuntimeError("today's challenge is not listed")
        game = await self.request("POST", f"/api/challenges/{self.world.challenge_id}/ranked/", expect=(200, 201))
        game_id = game["id"]
        ws = await open_socket(self.ws_port, f"/ws/games/{game_id}/", self.cookies)
        try:
            await receive_until(ws, "synced", results)
            line = self.world.line
            stop = len(line) // 2 if self.resigns else len(line)
            for seen in range(stop):
                await asyncio.sleep(rng.uniform(0.5 * think, 1.5 * think))
                move = line[seen]
                results.sent[game_id].append((seen + 1, move))
                began = time.perf_counter()
                if seen % 5 == 4:
                    body = await self.request("POST", f"/api/games/{game_id}/moves/", {"move": move, "seen": seen})
                    results.http_moves.append(time.perf_counter() - began)
                    version = body["moves"]
                else:
                    await ws.send(json.dumps({"type": "move", "move": move, "seen": seen, "ref": str(seen)}))
                    results.socket_messages += 1
                    reply = await receive_until(ws, "move.ok", results)
                    results.ws_moves.append(time.perf_counter() - began)
                    version = reply["version"]
                if version != seen + 1:
                    raise RuntimeError(f"game {game_id}: move {seen + 1} answered as version {version}")
                results.accepted[game_id].append((version, move))
            if self.resigns:
                await ws.send(json.dumps({"type": "resign"}))
                results.socket_messages += 1
                await receive_until(ws, "move.ok", results)
        finally:
            await ws.close()
        final = await self.request("GET", f"/api/games/{game_id}/")
        expected = "resigned" if self.resigns else "won"
        if final["outcome"] != expected:
            raise RuntimeError(f"game {game_id} ended {final['outcome']}, not {expected}")
        await self.request("GET", f"/api/leaderboards/challenges/{self.world.challenge_id}/")


async def open_socket(port: int, path: str, cookies: dict[str, str]) -> Any:
    from websockets.asyncio.client import connect

    header = "; ".join(f"{name}={value}" for name, value in cookies.items())
    return await connect(
        f"ws://127.0.0.1:{port}{path}",
        origin="http://127.0.0.1",
        additional_headers={"Cookie": header},
        proxy=None,
        compression=None,
        open_timeout=60,
        ping_interval=None,
        max_queue=1024,
    )


async def receive_until(ws: Any, kind: str, results: Results, timeout: float = 60) -> dict[str, Any]:
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), timeout))
        results.socket_messages += 1
        if message["type"] == kind:
            return message
        if message["type"] == "error":
            raise RuntimeError(f"socket error {message['code']}: {message['message']}")


async def run_players(
    ports: list[int], world: World, players: int, duration: float, ramp_share: float = 0.7
) -> Results:
    """Players start one after another over the first ``ramp_share`` of ``duration`` and think so
    that each game ends within it (a sign-in costs about 0.02 CPU-seconds of Argon2id: arrivals are spread)."""
    from django.conf import settings

    results = Results()
    rng = random.Random(7)
    ramp = ramp_share * duration
    # no quicker than a socket's message allowance on the servers (the same settings): quicker, the
    # servers refuse moves as flooding once the burst is spent, which no person playing meets
    think = max(1 / settings.LIVE_RATE_PER_SECOND, (duration - ramp - 20) / max(1, len(world.line)) / 1.2)
    begin = time.monotonic()
    tasks = [
        asyncio.ensure_future(
            Player(index, name, ports, world, results).play(
                begin + ramp * index / max(1, players), think, random.Random(rng.random())
            )
        )
        for index, name in enumerate(world.usernames[:players])
    ]
    await asyncio.gather(*tasks)
    results.seconds = time.monotonic() - begin
    return results


# ----------------------------------------------------------------- the check (Django ORM, in this process)


@dataclass
class Check:
    games: int
    moves: int
    lost: int
    duplicated: int
    count_mismatches: int
    score_mismatches: int
    unfinished: int
    #: stored moves whose answer the client never got (it timed out)
    unanswered: int
    problems: list[str]


def verify(world: World, results: Results) -> Check:
    """Stored logs against the accepted moves, and every finished game's score against a replay of its log."""
    from games.engine import Game as EngineGame
    from games.engine import parse_move, score_moves
    from games.models import DailyChallenge, Game, Move
    from leaderboard.models import Score

    challenge = DailyChallenge.objects.get(pk=world.challenge_id)
    games = {game.pk: game for game in Game.objects.filter(challenge=challenge, player__username__in=world.usernames)}
    stored: dict[int, list[tuple[int, str]]] = defaultdict(list)
    for game_id, number, notation in (
        Move.objects.filter(game_id__in=list(games))
        .order_by("game_id", "number")
        .values_list("game_id", "number", "notation")
    ):
        stored[game_id].append((number, notation))
    scores = {score.game_id: score for score in Score.objects.filter(challenge=challenge, game_id__in=list(games))}
    lost = duplicated = counts = wrong = unfinished = unanswered = 0
    problems: list[str] = []
    for game_id, game in games.items():
        have = stored.get(game_id, [])
        accepted = set(results.accepted.get(game_id, []))
        sent = set(results.sent.get(game_id, []))
        missing = accepted - set(have)
        extra = (len(have) - len(set(have))) + len(set(have) - sent)
        if missing or extra:
            problems.append(
                f"game {game_id}: {len(missing)} accepted moves missing, {extra} stored twice or never sent"
            )
        lost += len(missing)
        duplicated += extra
        # Sent, stored, but the client gave up waiting for the answer: not a fault of the log.
        unanswered += len((set(have) & sent) - accepted)
        if [number for number, _ in have] != list(range(1, len(have) + 1)) or game.move_count != len(have):
            counts += 1
            problems.append(f"game {game_id}: move count {game.move_count}, log numbers {[n for n, _ in have][:5]}...")
        if game.outcome == Game.Outcome.IN_PROGRESS:
            unfinished += 1
            continue
        replayed = EngineGame.replay(challenge.deal, [parse_move(notation) for _, notation in have])
        points = score_moves(list(replayed.moves))
        score = scores.get(game_id)
        if game.score != points or score is None or score.points != points or score.moves != len(have):
            wrong += 1
            problems.append(
                f"game {game_id}: stored score {game.score} / board {score and score.points}, replay {points}"
            )
    return Check(
        len(games),
        sum(len(v) for v in stored.values()),
        lost,
        duplicated,
        counts,
        wrong,
        unfinished,
        unanswered,
        problems,
    )


# ----------------------------------------------------------------- reporting


def percentile(values: list[float], share: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def summary(results: Results, check: Check, players: int, cpu: float) -> dict[str, Any]:
    moves = results.ws_moves + results.http_moves
    requests = results.http_requests + results.socket_messages
    return {
        "players": players,
        "players_finished": results.finished_players,
        "seconds": results.seconds,
        "http_requests": results.http_requests,
        "socket_messages": results.socket_messages,
        "requests_per_second": requests / results.seconds if results.seconds else 0.0,
        "moves": len(moves),
        "move_p50_ms": 1000 * percentile(moves, 0.5),
        "move_p99_ms": 1000 * percentile(moves, 0.99),
        "socket_move_p50_ms": 1000 * percentile(results.ws_moves, 0.5),
        "socket_move_p99_ms": 1000 * percentile(results.ws_moves, 0.99),
        "http_move_p50_ms": 1000 * percentile(results.http_moves, 0.5),
        "http_move_p99_ms": 1000 * percentile(results.http_moves, 0.99),
        "signin_p50_ms": 1000 * percentile(results.signins, 0.5),
        "signin_p99_ms": 1000 * percentile(results.signins, 0.99),
        "errors": len(results.errors),
        "server_cpu_s": cpu,
        "games_checked": check.games,
        "moves_stored": check.moves,
        "lost": check.lost,
        "duplicated": check.duplicated,
        "count_mismatches": check.count_mismatches,
        "score_mismatches": check.score_mismatches,
        "unfinished": check.unfinished,
        "stored_unanswered": check.unanswered,
    }


def print_summary(row: dict[str, Any], results: Results, check: Check) -> None:
    print(
        f"players {row['players_finished']}/{row['players']} finished in {row['seconds']:.0f} s; "
        f"{row['http_requests']} HTTP requests + {row['socket_messages']} socket messages = "
        f"{row['requests_per_second']:.0f} requests/s"
    )
    print(
        f"moves {row['moves']}: p50 {row['move_p50_ms']:.1f} ms, p99 {row['move_p99_ms']:.1f} ms "
        f"(socket p50 {row['socket_move_p50_ms']:.1f} / p99 {row['socket_move_p99_ms']:.1f} ms, "
        f"HTTP p50 {row['http_move_p50_ms']:.1f} / p99 {row['http_move_p99_ms']:.1f} ms; target p99 <= 100 ms)"
    )
    print(
        f"sign-in p50 {row['signin_p50_ms']:.0f} ms, p99 {row['signin_p99_ms']:.0f} ms; "
        f"servers' CPU {row['server_cpu_s']:.0f} s"
    )
    print(f"errors: {row['errors']}")
    for error in sorted(set(results.errors))[:8]:
        print(f"    {error}")
    print(
        f"check: {check.games} games, {check.moves} stored moves; lost {check.lost}, duplicated {check.duplicated}, "
        f"move-count mismatches {check.count_mismatches}, scores unlike their replay {check.score_mismatches}, "
        f"unfinished {check.unfinished}; stored but unanswered (client timed out) {check.unanswered}"
    )
    for problem in check.problems[:8]:
        print(f"    {problem}")


# ----------------------------------------------------------------- main


def recreate_database(database_url: str, env: dict[str, str], name: str = DB_NAME) -> None:
    import psycopg
    from psycopg import sql

    with psycopg.connect(f"{database_url.rstrip('/')}/postgres", autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True)


def forget_keys(redis_url: str, prefix: str) -> None:
    import redis

    client = redis.Redis.from_url(redis_url)
    keys = list(client.scan_iter(match=f"{prefix}:*", count=1000))
    if keys:
        client.delete(*keys)


def main() -> None:
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--duration", type=float, default=300.0, help="seconds the whole run should take")
    parser.add_argument("--servers", type=int, default=2, help="ASGI server processes")
    parser.add_argument("--ramp", type=float, default=0.7, help="share of the duration over which players arrive")
    parser.add_argument(
        "--database-url", default=os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432")
    )
    parser.add_argument(
        "--database-name",
        default=os.environ.get("BENCH_DATABASE_NAME", DB_NAME),
        help="the database to (re)create and run on",
    )
    parser.add_argument("--redis-url", default=os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/3"))
    parser.add_argument(
        "--seed",
        type=int,
        default=-1,
        help="the day's deal: the first winnable classic deal from this seed on (-1: a random one)",
    )
    parser.add_argument("--server-root", help="run the servers and the worker from this checkout instead")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()

    prefix = "piramide-load"
    env = server_env(f"{args.database_url.rstrip('/')}/{args.database_name}", args.redis_url, prefix)
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start", flush=True)
    print(
        f"{args.players} players over {args.duration:.0f} s; {args.servers} uvicorn processes + a Celery worker, "
        f"Postgres + Redis, production settings",
        flush=True,
    )
    if args.server_root:
        # the other checkout's migrations too, so that its servers run on the schema they expect
        global ROOT
        ROOT = Path(args.server_root).resolve()
        env["PYTHONPATH"] = str(ROOT)
        print(f"servers and worker from {ROOT}", flush=True)
    recreate_database(args.database_url, env, args.database_name)
    forget_keys(args.redis_url, prefix)
    os.environ.update({key: env[key] for key in ("DATABASE_URL", "REDIS_URL", "LEADERBOARD_KEY_PREFIX")})
    os.environ["DJANGO_SETTINGS_MODULE"] = "piramide_site.settings.local"
    import django

    django.setup()
    world = build_world(args.players, args.seed)
    print(f"challenge {world.challenge_id}: a {len(world.line)}-move winning line", flush=True)
    shape = start_shape(env, args.servers, Path(tempfile.gettempdir()) / f"piramide-load-{os.getpid()}")
    try:
        import uvloop

        cpu = shape.cpu_seconds()
        with client_collector.paused():
            results = uvloop.run(run_players(shape.ports, world, args.players, args.duration, args.ramp))
        cpu = shape.cpu_seconds() - cpu
        crashed = [port for process, port in shape.servers if process.poll() is not None]
        if crashed or shape.worker.poll() is not None:
            results.errors.append(f"a process of the shape died during the run (servers {crashed})")
    finally:
        shape.stop()
    check = verify(world, results)
    row = summary(results, check, args.players, cpu)
    print()
    print_summary(row, results, check)
    print(f"machine load average {os.getloadavg()[0]:.1f} at the end")
    if args.json:
        Path(args.json).write_text(json.dumps(row, indent=2))


if __name__ == "__main__":
    main()
