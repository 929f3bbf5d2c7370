"""Solver work from one account, while others play: does it slow them down? (issue #40)

    .venv/bin/python bench/abuse.py [--players 40] [--think 1.0] [--duration 30] [--repeat 1]
                                    [--database-url postgres://postgres@127.0.0.1:5432]
                                    [--redis-url redis://127.0.0.1:6379/3]

It drops and recreates the database ``piramide_abuse`` on that Postgres, migrates it, and sets up:
today's classic challenge (winnable) with ``--players`` players, each with fresh games of it; an
attacker, with yesterday's challenge over and, of it, long practice games played at random until
lost (each a different move log, so no review is cached before it is asked) and practice games
stopped at random points (hints, likewise); and a few proven-winnable ``one-pass`` race deals in
the pool.  Then it starts the production shape of bench/load.py on loopback (``--servers``
uvicorn processes, production settings, and a Celery worker, on Postgres and Redis).

Rounds of ``--duration`` seconds, *without* the attacker and then *with* it (``--repeat`` pairs):

- the players play their games over ``/ws/games/<id>/`` (the solver's winning line, a think time
  drawn from 0.5x to 1.5x ``--think`` before each move, the next game as one ends); each move's
  round trip, from sending it to its ``move.ok``, is measured;
- four anonymous clients ask ``GET /api/challenges/today/`` every 0.25 s, each round trip measured;
- with the attacker: one account fires, in waves, 40 concurrent requests of every solver-backed
  kind (``GET /api/games/<id>/review/`` of a lost game not asked before, ``GET .../hint/`` of a
  practice game at a position not asked before, ``POST /api/races/`` for ``one-pass``): 120
  requests at once, the next wave when the last answer of the previous one is in and at least
  ``--wave-interval`` (1 s) after it started.

The attacker runs in a process of its own at the lowest priority (``--attacker-nice``, 19): in
real life it is another machine, and its own work, 120 connections a second in Python, must not
be counted against the server on a machine the clients share.  ``--server-root`` runs the servers and the worker from another checkout (the code before
a change, say: ``git worktree add /tmp/before <commit>``) against the same world.

Printed: the players' move round trip and the bystanders' ``today`` round trip, p50 and p99, with
and without the attacker side by side, and the ratio (target: the p99s within 1.5x); the
attacker's answers by kind and status; the servers' and the worker's CPU seconds per round.
Per-address limits are raised (every client shares 127.0.0.1); per-user limits stay as
configured, as does everything the attacker meets.  ``--proxy`` puts proxies from Debian's packages
in front (bench/proxies.py, over plain HTTP on loopback): ``caddy`` (``ops/Caddyfile``'s site block),
``gate`` (the nginx gate, ``ops/nginx/gate.conf.template``, whose per-address limits then meet the
attacker and nobody else, since only it asks the solver), or ``caddy+gate``, docker-compose.yml's
chain; every client then reaches the servers through them.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import collector as client_collector  # noqa: E402
from bench.load import forget_keys, http, open_socket, recreate_database, server_env, start_shape  # noqa: E402
from bench.processes import cpu_seconds, main_thread_cpu_seconds  # noqa: E402

DB_NAME = "piramide_abuse"
PREFIX = "piramide-abuse"
WAVE = 40
BYSTANDERS = 4
BYSTANDER_PAUSE = 0.25
RACE_PRESET = "one-pass"


def percentile(values: list[float], share: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


# ----------------------------------------------------------------- the world (Django ORM, in this process)


@dataclass
class World:
    challenge_id: int
    line: list[str]
    #: per player: its session cookie and its fresh games, in the order it plays them
    players: list[tuple[str, list[int]]]
    attacker: str
    #: the attacker's lost practice games (reviews) and stopped ones (hints), each asked once
    lost: list[int]
    stopped: list[int]


def session_cookie(user: Any) -> str:
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    return str(session.session_key)


def random_game(deal: Any, rng: random.Random, *, until_lost: bool, longest: int = 400) -> list[str] | None:
    """Moves played at random (a draw now and then, mostly removals): to a loss, or to a random stop."""
    from games.engine import Game as EngineGame
    from games.engine import Outcome

    state = EngineGame.start(deal)
    stop = None if until_lost else rng.randrange(3, 30)
    while state.outcome is Outcome.IN_PROGRESS and len(state.moves) < longest:
        if stop is not None and len(state.moves) >= stop:
            return [str(move) for move in state.moves]
        moves = state.legal_moves()
        removals = [move for move in moves if str(move) not in {"D", "R", "T"}]
        state = state.apply(rng.choice(removals if removals and rng.random() < 0.8 else moves))
    if until_lost and state.outcome is Outcome.LOST:
        return [str(move) for move in state.moves]
    return None


def build_world(players: int, games_per_player: int, attacks: int) -> World:
    import datetime as dt

    from accounts.models import User
    from accounts.names import display_name_skeleton
    from games.engine import Game as EngineGame
    from games.engine.solver import solve
    from games.models import DailyChallenge, Game, Move, commitment_fields
    from games.selectors import local_today
    from races.pool import race_pool_fill

    def challenge_on(date: dt.date, seed: int, line_length: int) -> DailyChallenge:
        return DailyChallenge.objects.create(
            date=date,
            preset="classic",
            seed=seed,
            **commitment_fields("classic", seed),
            status=DailyChallenge.Status.DONE,
            verdict=DailyChallenge.Verdict.WINNABLE,
            line_length=line_length,
        )

    seeds: list[int] = []
    lines: list[list[str]] = []
    seed = 1
    while len(seeds) < 2:
        solution = solve(EngineGame.from_seed("classic", seed), time_limit=5)
        if solution.line and len(solution.line) > 25:
            seeds.append(seed)
            lines.append([str(move) for move in solution.line])
        seed += 1
    today = challenge_on(local_today(), seeds[0], len(lines[0]))
    past = challenge_on(local_today() - dt.timedelta(days=1), seeds[1], len(lines[1]))
    from fairplay.services import challenge_lines

    challenge_lines(today)  # as a verification leaves it: no fair-play assessment searches for them
    users = User.objects.bulk_create(
        [
            User(
                username=f"a{i}",
                display_name=f"Abuse {i}",
                display_name_skeleton=display_name_skeleton(f"Abuse {i}"),
                password="!",
            )
            for i in range(players)
        ]
        + [
            User(
                username="mallory",
                display_name="Mallory",
                display_name_skeleton=display_name_skeleton("Mallory"),
                password="!",
            )
        ]
    )
    if users[0].pk is None:
        users = list(User.objects.order_by("pk"))
    attacker = users[-1]
    fresh = [Game(challenge=today, player=user, ranked=False) for user in users[:-1] for _ in range(games_per_player)]
    rng = random.Random(11)
    lost_logs: list[list[str]] = []
    while len(lost_logs) < attacks:
        log = random_game(past.deal, rng, until_lost=True)
        if log and len(log) >= 20:
            lost_logs.append(log)
    stopped_logs = [log for log in (random_game(past.deal, rng, until_lost=False) for _ in range(attacks * 2)) if log][
        :attacks
    ]
    lost = [
        Game(
            challenge=past,
            player=attacker,
            ranked=False,
            outcome=Game.Outcome.LOST,
            move_count=len(log),
            version=len(log),
            score=0,
        )
        for log in lost_logs
    ]
    stopped = [
        Game(challenge=past, player=attacker, ranked=False, move_count=len(log), version=len(log))
        for log in stopped_logs
    ]
    Game.objects.bulk_create(fresh + lost + stopped)
    Move.objects.bulk_create(
        [
            Move(game_id=game.pk, number=n, notation=text)
            for game, log in zip(lost + stopped, lost_logs + stopped_logs)
            for n, text in enumerate(log, start=1)
        ]
    )
    from django.utils import timezone

    Game.objects.filter(pk__in=[game.pk for game in lost]).update(finished_at=timezone.now())
    race_pool_fill(preset=RACE_PRESET, size=10)
    by_player: dict[int, list[int]] = defaultdict(list)
    for game in fresh:
        by_player[game.player_id].append(game.pk)
    return World(
        challenge_id=today.pk,
        line=lines[0],
        players=[(session_cookie(user), by_player[user.pk]) for user in users[:-1]],
        attacker=session_cookie(attacker),
        lost=[game.pk for game in lost],
        stopped=[game.pk for game in stopped],
    )


# ----------------------------------------------------------------- clients


@dataclass
class Tally:
    moves: list[float] = field(default_factory=list)
    today: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    attacks: Counter[tuple[str, int]] = field(default_factory=Counter)
    attack_seconds: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    #: CPU seconds of the servers' event loops in the round
    loop_cpu: float = 0.0


class Clock:
    """Which round is on: every measure goes to the round that was on when it started."""

    def __init__(self) -> None:
        self.tally: Tally | None = None
        #: errors outside the rounds (while warming up)
        self.errors: list[str] = []

    def error(self, text: str) -> None:
        (self.tally.errors if self.tally is not None else self.errors).append(text[:200])


async def player(
    port: int,
    cookie: str,
    games: list[int],
    line: list[str],
    think: float,
    clock: Clock,
    rng: random.Random,
    done: asyncio.Event,
) -> None:
    cookies = {"sessionid": cookie}
    for game_id in games:
        ws = await open_socket(port, f"/ws/games/{game_id}/", cookies)
        try:
            while json.loads(await ws.recv())["type"] != "synced":
                pass
            for seen, move in enumerate(line):
                await asyncio.sleep(rng.uniform(0.5 * think, 1.5 * think))
                if done.is_set():
                    return
                tally = clock.tally
                began = time.perf_counter()
                await ws.send(json.dumps({"type": "move", "move": move, "seen": seen, "ref": str(seen)}))
                while True:
                    message = json.loads(await asyncio.wait_for(ws.recv(), 60))
                    if message["type"] == "move.ok":
                        break
                    if message["type"] == "error":
                        raise RuntimeError(f"move refused: {message}")
                if tally is not None:
                    tally.moves.append(time.perf_counter() - began)
        except Exception as error:
            clock.error(f"player: {type(error).__name__}: {error}")
            return
        finally:
            await ws.close()
    clock.error("a player ran out of games")


async def bystander(port: int, clock: Clock, done: asyncio.Event) -> None:
    while not done.is_set():
        tally = clock.tally
        began = time.perf_counter()
        try:
            status, _, _ = await http(port, "GET", "/api/challenges/today/")
            if status != 200:
                raise RuntimeError(f"GET today: {status}")
            if tally is not None:
                tally.today.append(time.perf_counter() - began)
        except Exception as error:
            clock.error(f"bystander: {type(error).__name__}: {error}")
        await asyncio.sleep(BYSTANDER_PAUSE)


async def attack(
    port: int, cookie: str, lost: list[int], stopped: list[int], seconds: float, wave_interval: float
) -> Tally:
    """Waves of the attacker's requests for ``seconds``; the last wave's answers are waited for."""
    tally = Tally()
    cookies = {"sessionid": cookie}
    _, set_cookies, body = await http(port, "GET", "/api/auth/csrf/", cookies=cookies)
    cookies.update(set_cookies)
    csrf = body["csrf_token"]
    # each wave asks about games not asked in this run before, as long as there are (a review or
    # hint refused by a cap leaves its game unasked: it comes round again)
    reviews, hints = itertools.cycle(lost), itertools.cycle(stopped)

    async def one(kind: str, method: str, path: str, payload: Any = None) -> None:
        began = time.perf_counter()
        try:
            status, _, _ = await http(port, method, path, body=payload, cookies=cookies, csrf=csrf, timeout=120)
        except Exception as error:
            status = -1
            tally.errors.append(f"attacker: {type(error).__name__}: {error}"[:200])
        tally.attacks[(kind, status)] += 1
        tally.attack_seconds[kind].append(time.perf_counter() - began)

    end = time.monotonic() + seconds
    while time.monotonic() < end:
        began = time.monotonic()
        wave = []
        for _ in range(WAVE):
            wave.append(one("review", "GET", f"/api/games/{next(reviews)}/review/"))
            wave.append(one("hint", "GET", f"/api/games/{next(hints)}/hint/"))
            wave.append(one("race", "POST", "/api/races/", {"preset": RACE_PRESET}))
        await asyncio.gather(*wave)
        await asyncio.sleep(max(0.0, min(wave_interval - (time.monotonic() - began), end - time.monotonic())))
    return tally


def attacker_process(
    port: int,
    cookie: str,
    lost: list[int],
    stopped: list[int],
    seconds: float,
    wave_interval: float,
    nice: int,
    answers: Any,
) -> None:
    """The attacker in a process of its own, at a low priority: in real life it is another machine,
    and its own work (120 connections a second in Python) must not be counted against the server."""
    import resource

    import uvloop

    os.nice(nice)
    tally = uvloop.run(attack(port, cookie, lost, stopped, seconds, wave_interval))
    usage = resource.getrusage(resource.RUSAGE_SELF)
    tally.errors.append(f"(the attacker's own CPU: {usage.ru_utime + usage.ru_stime:.1f} s)")
    answers.put((dict(tally.attacks), dict(tally.attack_seconds), tally.errors))


async def attacker(port: int, world: World, seconds: float, wave_interval: float, offset: int, nice: int) -> Tally:
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    answers = context.Queue()
    lost = world.lost[offset:] + world.lost[:offset]
    stopped = world.stopped[offset:] + world.stopped[:offset]
    process = context.Process(
        target=attacker_process, args=(port, world.attacker, lost, stopped, seconds, wave_interval, nice, answers)
    )
    process.start()
    loop = asyncio.get_running_loop()
    counts, times, errors = await loop.run_in_executor(None, answers.get)
    await loop.run_in_executor(None, process.join)
    tally = Tally(errors=errors)
    tally.attacks.update(counts)
    tally.attack_seconds.update(times)
    return tally


async def run(ports: list[int], world: World, args: argparse.Namespace, shape: Any) -> list[tuple[str, Tally, float]]:
    clock = Clock()
    done = asyncio.Event()
    rng = random.Random(5)
    clients = [
        asyncio.ensure_future(
            player(
                ports[i % len(ports)], cookie, games, world.line, args.think, clock, random.Random(rng.random()), done
            )
        )
        for i, (cookie, games) in enumerate(world.players)
    ] + [asyncio.ensure_future(bystander(ports[i % len(ports)], clock, done)) for i in range(BYSTANDERS)]
    await asyncio.sleep(args.warmup)  # every socket open and playing before the first round
    for error in sorted(set(clock.errors))[:6]:
        print(f"while warming up: {error}", flush=True)
    rounds: list[tuple[str, Tally, float]] = []
    for number in range(args.repeat):
        for label in ("without attacker", "with attacker"):
            tally = Tally()
            clock.tally = tally
            cpu, loop = shape_cpu(shape), loop_cpu(shape)
            if label == "with attacker":
                offset = number * len(world.lost) // max(1, args.repeat)
                attacked = await attacker(
                    ports[0], world, args.duration, args.wave_interval, offset, args.attacker_nice
                )
                tally.attacks, tally.attack_seconds = attacked.attacks, attacked.attack_seconds
                tally.errors += attacked.errors
            else:
                await asyncio.sleep(args.duration)
            clock.tally = None
            tally.loop_cpu = loop_cpu(shape) - loop
            rounds.append((label, tally, shape_cpu(shape) - cpu))
            await asyncio.sleep(2)  # what the attacker left running finishes between rounds
    done.set()
    for client in clients:
        client.cancel()
    await asyncio.gather(*clients, return_exceptions=True)
    return rounds


# ----------------------------------------------------------------- report


def loop_cpu(shape: Any) -> float:
    """CPU seconds of the servers' event loops (their main threads) so far."""
    return sum(main_thread_cpu_seconds(process.pid) for process, _ in shape.servers)


def shape_cpu(shape: Any) -> float:
    """CPU seconds of the servers, their solver processes and the worker, so far."""
    roots = [process.pid for process, _ in shape.servers] + [shape.worker.pid]
    return sum(cpu_seconds(pid) for pid in descendants(roots))


def descendants(roots: list[int]) -> list[int]:
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parents[int(stat.parent.name)] = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
    found, frontier = set(roots), list(roots)
    while frontier:
        parent = frontier.pop()
        for pid, ppid in parents.items():
            if ppid == parent and pid not in found:
                found.add(pid)
                frontier.append(pid)
    return sorted(found)


def figures(tally: Tally) -> dict[str, float]:
    return {
        "move_p50_ms": 1000 * percentile(tally.moves, 0.5),
        "move_p99_ms": 1000 * percentile(tally.moves, 0.99),
        "today_p50_ms": 1000 * percentile(tally.today, 0.5),
        "today_p99_ms": 1000 * percentile(tally.today, 0.99),
    }


def report(rounds: list[tuple[str, Tally, float]]) -> dict[str, Any]:
    pairs = [(rounds[i], rounds[i + 1]) for i in range(0, len(rounds), 2)]
    out: dict[str, Any] = {"pairs": []}
    for number, ((_, quiet, quiet_cpu), (_, loud, loud_cpu)) in enumerate(pairs, start=1):
        a, b = figures(quiet), figures(loud)
        print(
            f"\nround pair {number}: {len(quiet.moves)} / {len(loud.moves)} moves, "
            f"{len(quiet.today)} / {len(loud.today)} GET today (without / with the attacker)"
        )
        print(f"{'':24}{'without attacker':>18}{'with attacker':>16}{'ratio':>8}")
        for key, label in (
            ("move_p50_ms", "move round trip p50"),
            ("move_p99_ms", "move round trip p99"),
            ("today_p50_ms", "GET today p50"),
            ("today_p99_ms", "GET today p99"),
        ):
            ratio = b[key] / a[key] if a[key] else float("nan")
            mark = "  (target <= 1.5)" if key.endswith("p99_ms") else ""
            print(f"{label:24}{a[key]:>15.1f} ms{b[key]:>13.1f} ms{ratio:>8.2f}{mark}")
        print(
            f"servers' + worker's CPU: {quiet_cpu:.1f} s without, {loud_cpu:.1f} s with the attacker "
            f"(of which the servers' event loops {quiet.loop_cpu:.1f} s and {loud.loop_cpu:.1f} s)"
        )
        kinds = sorted({kind for kind, _ in loud.attacks})
        for kind in kinds:
            statuses = ", ".join(
                f"{status}: {count}" for (k, status), count in sorted(loud.attacks.items()) if k == kind
            )
            seconds = loud.attack_seconds[kind]
            print(
                f"attacker {kind:7} {sum(c for (k, _), c in loud.attacks.items() if k == kind):5} requests ({statuses}); "
                f"answered in p50 {1000 * percentile(seconds, 0.5):.0f} ms, p99 {1000 * percentile(seconds, 0.99):.0f} ms"
            )
        notes = [error for error in loud.errors if error.startswith("(")]
        errors = [error for error in quiet.errors + loud.errors if not error.startswith("(")]
        for note in notes:
            print(note.strip("()"))
        print(f"errors: {len(errors)}")
        for error in sorted(set(errors))[:6]:
            print(f"    {error}")
        out["pairs"].append(
            {
                "without": a,
                "with": b,
                "attacks": {f"{k} {s}": c for (k, s), c in loud.attacks.items()},
                "cpu_without_s": quiet_cpu,
                "cpu_with_s": loud_cpu,
                "errors": len(errors),
            }
        )
    if len(pairs) > 1:
        # the machine's other work varies from one round to the next: the median of the pairs
        print(f"\nmedian of {len(pairs)} pairs:")
        print(f"{'':24}{'without attacker':>18}{'with attacker':>16}{'ratio':>8}")
        for key, label in (
            ("move_p50_ms", "move round trip p50"),
            ("move_p99_ms", "move round trip p99"),
            ("today_p50_ms", "GET today p50"),
            ("today_p99_ms", "GET today p99"),
        ):
            quiet_values = [pair["without"][key] for pair in out["pairs"]]
            loud_values = [pair["with"][key] for pair in out["pairs"]]
            ratios = [b / a for a, b in zip(quiet_values, loud_values) if a]
            print(
                f"{label:24}{statistics.median(quiet_values):>15.1f} ms{statistics.median(loud_values):>13.1f} ms"
                f"{statistics.median(ratios):>8.2f}  (pairs: {', '.join(f'{r:.2f}' for r in ratios)})"
            )
    return out


def proxies_start(kind: str, ports: list[int], log_dir: Path) -> tuple[list[Any], int]:
    """The proxies of ``--proxy`` in front of the servers: the processes, and the port clients use."""
    from bench.proxies import caddy_start, gate_start

    processes: list[Any] = []
    upstreams = [f"127.0.0.1:{port}" for port in ports]
    if "gate" in kind:
        gate, port = gate_start("; server ".join(upstreams), log_dir)
        processes.append(gate)
        upstreams = [f"127.0.0.1:{port}"]
    if "caddy" in kind:
        caddy, port = caddy_start(upstreams, log_dir)
        processes.append(caddy)
    return processes, port


def main() -> None:
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("--players", type=int, default=40)
    parser.add_argument("--think", type=float, default=1.0, help="mean seconds between a player's moves")
    parser.add_argument("--duration", type=float, default=30.0, help="seconds of each round")
    parser.add_argument("--repeat", type=int, default=1, help="pairs of rounds (without, with the attacker)")
    parser.add_argument(
        "--wave-interval",
        type=float,
        default=1.0,
        help="seconds from one wave of the attacker's to the next, at least (the next waits for the last answer)",
    )
    parser.add_argument(
        "--attacker-nice", type=int, default=19, help="the attacker process's niceness (it stands for another machine)"
    )
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds of play before the first round")
    parser.add_argument("--servers", type=int, default=1, help="ASGI server processes")
    parser.add_argument(
        "--attacker-games", type=int, default=400, help="lost games to review, and stopped ones to hint on"
    )
    parser.add_argument(
        "--database-url", default=os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432")
    )
    parser.add_argument("--redis-url", default=os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/3"))
    parser.add_argument("--server-root", help="run the servers and the worker from this checkout instead")
    parser.add_argument(
        "--proxy",
        choices=("caddy", "gate", "caddy+gate"),
        help="every client goes through Caddy, the nginx gate, or both as in docker-compose.yml (plain HTTP)",
    )
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()

    env = server_env(f"{args.database_url.rstrip('/')}/{DB_NAME}", args.redis_url, PREFIX)
    env["DJANGO_LOG_LEVEL"] = "ERROR"  # the attacker's refusals are warnings, by the thousand
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start", flush=True)
    recreate_database(args.database_url, env, DB_NAME)
    forget_keys(args.redis_url, PREFIX)
    import redis

    client = redis.Redis.from_url(args.redis_url)
    for pattern in ("*piramide:solver:*", "*piramide:races:*"):  # nothing cached by an earlier run
        for key in client.scan_iter(match=pattern, count=1000):
            client.delete(key)
    # the servers' secret too: the sessions made here must be valid there
    os.environ.update(
        {
            key: env[key]
            for key in ("DATABASE_URL", "REDIS_URL", "LEADERBOARD_KEY_PREFIX", "LIMITS_KEY_PREFIX", "DJANGO_SECRET_KEY")
        }
    )
    os.environ["DJANGO_SETTINGS_MODULE"] = "piramide_site.settings.local"
    os.environ["CELERY_TASK_ALWAYS_EAGER"] = "true"
    import django

    django.setup()
    rounds_time = args.warmup + args.repeat * 2 * (args.duration + 2)
    games = 2 + int(rounds_time / (args.think * 25))
    world = build_world(args.players, games, attacks=args.attacker_games)
    print(
        f"{args.players} players, think {args.think} s; rounds of {args.duration:.0f} s; the attacker has "
        f"{len(world.lost)} lost games to review and {len(world.stopped)} to ask hints on; {args.servers} uvicorn "
        f"process(es) + a Celery worker, Postgres + Redis, production settings",
        flush=True,
    )
    if args.server_root:
        from bench import load

        load.ROOT = Path(args.server_root).resolve()
        env["PYTHONPATH"] = str(load.ROOT)
        print(f"servers and worker from {load.ROOT}", flush=True)
    log_dir = Path(tempfile.gettempdir()) / f"piramide-abuse-{os.getpid()}"
    shape = start_shape(env, args.servers, log_dir)
    proxies: list[Any] = []
    try:
        ports = shape.ports
        if args.proxy:
            proxies, port = proxies_start(args.proxy, shape.ports, log_dir)
            ports = [port]
            print(
                f"every client through {args.proxy} on port {port}, in front of {len(shape.ports)} server(s)",
                flush=True,
            )
        import uvloop

        with client_collector.paused():
            rounds = uvloop.run(run(ports, world, args, shape))
        if any(process.poll() is not None for process, _ in shape.servers) or shape.worker.poll() is not None:
            print("a process of the shape died during the run")
    finally:
        for proxy in proxies:
            proxy.terminate()
            proxy.wait(timeout=10)
        shape.stop()
    out = report(rounds)
    print(f"\nmachine load average {os.getloadavg()[0]:.1f} at the end")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
