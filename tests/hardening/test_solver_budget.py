"""Solver work from one account cannot take the site down (issue #40), against a real uvicorn on
Postgres and Redis: one account fires reviews of long lost games, hints and race creations at
once, and gets searches, clear refusals (429 for itself, 503 for the site, each with Retry-After)
and race deals from the pool; meanwhile an unrelated anonymous request is answered, the health
check stays green, and no error reaches the log.  How fast belongs to bench/abuse.py, not here.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import requests
from django.conf import settings

from games.engine import Game as EngineGame
from games.engine import Outcome, parse_move
from games.models import Game
from games.services import game_move_make, game_practice_start
from races.models import PooledDeal
from tests.factories import BIG_WINNABLE, end_the_day, make_challenge, make_player
from tests.sockets import session_cookie
from tests.uvicorn_server import database_env, uvicorn_server

pytestmark = [pytest.mark.needs_redis, pytest.mark.needs_postgres]

ATTACKS = 40


@pytest.fixture
def server(postgres: Any, redis_url: str, transactional_db: Any, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    env = {
        **database_env(),
        "REDIS_URL": redis_url,
        "LIMITS_KEY_PREFIX": f"{settings.LIMITS_KEY_PREFIX}:budget",
        "SOLVER_PROCESSES": "1",
        "SOLVER_JOBS_PER_USER": "2",
        "SOLVER_JOBS_GLOBAL": "3",
        "SOLVER_QUEUE_SECONDS": "30",
        "HTTP_REQUESTS_PER_CLIENT": "12",
        "HTTP_SOLVER_REQUESTS_PER_CLIENT": "4",
    }
    with uvicorn_server(tmp_path, env) as running:
        yield f"http://127.0.0.1:{running.port}", running.log


def lost_practice_games(challenge: Any, player: Any, count: int) -> list[Game]:
    """Practice games played at random until lost: each a different, long move log."""
    rng = random.Random(7)
    games: list[Game] = []
    while len(games) < count:
        game = game_practice_start(challenge_id=challenge.pk, player=player).game
        state = EngineGame.start(challenge.deal)
        while state.outcome is Outcome.IN_PROGRESS:
            moves = [str(move) for move in state.legal_moves()]
            move = rng.choice(moves)
            game_move_make(game_id=game.pk, player=player, move=move, seen=len(state.moves))
            state = state.apply(parse_move(move))
        if state.outcome is Outcome.LOST:
            games.append(game)
    return games


def signed_in(base: str, user: Any) -> requests.Session:
    session = requests.Session()
    session.mount("http://", requests.adapters.HTTPAdapter(pool_maxsize=3 * ATTACKS))
    session.cookies.set(settings.SESSION_COOKIE_NAME, session_cookie(user))
    token = session.get(f"{base}/api/auth/csrf/").json()["csrf_token"]
    session.headers.update({"X-CSRFToken": token, "Referer": base, "Origin": base})
    return session


def refusal_is_clear(response: requests.Response) -> None:
    body = response.json()
    assert set(body) >= {"error", "message"}, body
    assert int(response.headers["Retry-After"]) > 0, response.headers


def test_one_account_firing_solver_work_gets_refusals_and_leaves_the_site_healthy(
    server: tuple[str, Path], today: Any
) -> None:
    base, log = server
    challenge = make_challenge(preset="classic", seed=BIG_WINNABLE, date=today)
    end_the_day(challenge)
    attacker = make_player("mallory")
    games = lost_practice_games(challenge, attacker, 8)
    hinted = [game_practice_start(challenge_id=challenge.pk, player=attacker).game for _ in range(4)]
    for seed in (11, 12, 13):
        PooledDeal.objects.create(preset="classic", seed=BIG_WINNABLE + seed, line_length=30)
    session = signed_in(base, attacker)

    answered: list[int] = []
    stop = threading.Event()

    def bystander() -> None:
        with requests.Session() as anonymous:
            while not stop.is_set():
                answered.append(anonymous.get(f"{base}/api/challenges/today/", timeout=60).status_code)

    watcher = threading.Thread(target=bystander)
    watcher.start()
    requests_ = (
        [("GET", f"/api/games/{games[i % len(games)].pk}/review/") for i in range(ATTACKS)]
        + [("GET", f"/api/games/{hinted[i % len(hinted)].pk}/hint/") for i in range(ATTACKS)]
        + [("POST", "/api/races/") for _ in range(ATTACKS)]
    )
    random.Random(3).shuffle(requests_)
    try:
        with ThreadPoolExecutor(max_workers=len(requests_)) as pool:
            responses = list(
                pool.map(
                    lambda item: session.request(
                        item[0], base + item[1], json={"preset": "classic"} if item[0] == "POST" else None, timeout=120
                    ),
                    requests_,
                )
            )
    finally:
        stop.set()
        watcher.join(timeout=120)

    by_kind: dict[str, list[int]] = {"review": [], "hint": [], "races": []}
    for (method, path), response in zip(requests_, responses):
        kind = "races" if method == "POST" else path.rstrip("/").rsplit("/", 1)[1]
        by_kind[kind].append(response.status_code)
        assert response.status_code in {200, 201, 429, 503}, (path, response.status_code, response.text[:300])
        if response.status_code in {429, 503}:
            refusal_is_clear(response)
    # some of it was served, the rest refused by the caps (requests in flight, searches per player)
    # before any work; every race dealt a pooled deal, none searched for one
    codes = [code for kind in by_kind.values() for code in kind]
    assert {200, 201} & set(codes) and 429 in codes, by_kind
    assert PooledDeal.objects.count() == 3 - by_kind["races"].count(201)
    # once the flood is answered, the same account is served again, one request at a time
    assert session.get(f"{base}/api/games/{games[-1].pk}/review/", timeout=60).status_code == 200
    assert session.get(f"{base}/api/games/{hinted[0].pk}/hint/", timeout=60).status_code == 200
    left = PooledDeal.objects.count()
    race = session.post(f"{base}/api/races/", json={"preset": "classic"}, timeout=60)
    assert race.status_code == (201 if left else 503), race.text
    # the unrelated request was answered all along, and the site is healthy after
    assert answered and set(answered) == {200}, answered
    assert requests.get(f"{base}/healthz/", timeout=10).status_code == 200
    assert requests.get(f"{base}/api/challenges/today/", timeout=10).status_code == 200
    text = log.read_text()
    # the pool's 503s are refusals Django logs as errors: anything else logged as one is a fault
    errors = [line for line in text.splitlines() if "ERROR" in line and "Service Unavailable: /api/races/" not in line]
    assert "Traceback" not in text and not errors, text[-3000:]
