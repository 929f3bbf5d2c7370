"""Fixtures of the fault tests: a private Postgres and Redis for the session, a fresh database per test.

The shared servers of the suite (DATABASE_URL, REDIS_URL) are never touched here: these tests
kill, stop and flush servers, so they bring their own (tests/faults/stack.py).  The database is
migrated once into a template; each test gets a copy of it (a second or so).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.ci import missing
from tests.faults.stack import (
    PrivatePostgres,
    PrivateRedis,
    Process,
    StackError,
    WebServer,
    Worker,
    django_json,
    manage,
    service_env,
)

TEMPLATE = "piramide_template"
_databases = itertools.count(1)


class Servers:
    def __init__(self, postgres: PrivatePostgres, redis: PrivateRedis) -> None:
        self.postgres, self.redis = postgres, redis


@pytest.fixture(scope="session")
def private_servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Servers]:
    postgres, redis = None, None
    try:
        postgres = PrivatePostgres()
        postgres.init()
        postgres.start()
        redis = PrivateRedis()
        redis.start()
        postgres.create_database(TEMPLATE)
        manage(service_env(postgres.url(TEMPLATE), redis.url()), "migrate", "--noinput")
    except StackError as error:
        for server in (postgres, redis):
            if server is not None:
                server.destroy()
        missing(f"the fault tests start a private Postgres and Redis: {error}")
    assert postgres is not None and redis is not None
    try:
        yield Servers(postgres, redis)
    finally:
        redis.destroy()
        postgres.destroy()


class Stack:
    """One test's view of the private servers: its own database, and the processes it starts."""

    def __init__(self, servers: Servers, database: str, logs: Path) -> None:
        self.postgres, self.redis = servers.postgres, servers.redis
        self.database, self.logs = database, logs
        self.processes: list[Process] = []

    def env(self, **extra: str) -> dict[str, str]:
        return service_env(self.postgres.url(self.database), self.redis.url(), **extra)

    def web(self, port: int | None = None, **extra: str) -> WebServer:
        server = WebServer(self.env(**extra), self.logs / f"web-{len(self.processes)}.log", port)
        self.processes.append(server)
        return server.start().wait_up()

    def worker(self, name: str, pool: str = "solo", **extra: str) -> Worker:
        worker = Worker(self.env(**extra), self.logs / f"worker-{name}.log", name, pool)
        self.processes.append(worker)
        return worker.start().wait_ready()

    def django(self, code: str, **extra: str) -> Any:
        return django_json(self.env(**extra), code)

    def query(self, sql: str, *params: Any) -> list[tuple[Any, ...]]:
        return self.postgres.query(self.database, sql, *params)

    def close(self) -> None:
        for process in reversed(self.processes):
            process.stop()


@pytest.fixture
def stack(private_servers: Servers, tmp_path: Path) -> Iterator[Stack]:
    database = f"faults_{next(_databases)}"
    if not private_servers.postgres.running():
        private_servers.postgres.start()
    private_servers.postgres.create_database(database, template=TEMPLATE)
    private_servers.redis.client().flushall()
    current = Stack(private_servers, database, tmp_path)
    try:
        yield current
    finally:
        current.close()
        if not private_servers.postgres.running():
            private_servers.postgres.start()
        with private_servers.postgres.connect() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')


class Client:
    """A player's HTTP client: session cookie and CSRF token, as the browser client sends them."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.http = requests.Session()
        self.http.trust_env = False  # loopback only, never through a proxy
        self.http.headers["Accept-Language"] = "en"

    def get(self, path: str, **kwargs: Any) -> requests.Response:
        return self.http.get(self.base + path, timeout=30, **kwargs)

    def post(self, path: str, body: dict[str, Any] | None = None) -> requests.Response:
        if "csrftoken" not in self.http.cookies:
            self.get("/api/auth/csrf/")
        headers = {"X-CSRFToken": self.http.cookies["csrftoken"]}
        return self.http.post(self.base + path, json=body or {}, headers=headers, timeout=30)

    def sign_in(self, username: str, password: str) -> Client:
        response = self.post("/api/auth/signin/", {"username": username, "password": password})
        assert response.status_code == 200, response.text
        return self

    @property
    def session(self) -> str:
        return str(self.http.cookies["sessionid"])


PASSWORD = "a-long-pass-phrase-42"


def winning_line(preset: str, seed: int) -> list[str]:
    """The solver's winning line for a deal, in the notation the API takes."""
    from games.engine import Game as EngineGame
    from games.engine import deal_from_seed, get_rules
    from games.engine.solver import solve

    solution = solve(EngineGame.start(deal_from_seed(get_rules(preset), seed)), time_limit=20)
    assert solution.line, f"{preset} {seed} should be winnable"
    return [str(move) for move in solution.line]


#: A player and today's challenge on a deal the solver wins in milliseconds (tests/factories.py).
SETUP_PLAYERS = """
from tests.factories import make_challenge, make_player, WINNABLE
challenge = make_challenge(preset="classic", seed=WINNABLE["classic"])
players = [make_player(name, display_name=name.title()).pk for name in NAMES]
result = {"challenge": challenge.pk, "seed": challenge.seed, "players": players}
"""


def setup_players(stack: Stack, *names: str) -> dict[str, Any]:
    return stack.django(f"NAMES = {list(names)!r}\n" + SETUP_PLAYERS)  # type: ignore[no-any-return]
