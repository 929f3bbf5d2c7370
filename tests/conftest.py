"""Fixtures shared by the service tests.

Nothing here touches the database or a server unless a test asks for it, so the engine tests
still run with plain pytest.  Tests that need Postgres, Redis or a Celery worker use the
fixtures below: without the server they are skipped with the reason, or fail when CI=true.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.ci import missing
from tests.games.engine.builders import sweep_is_slow

ROOT = Path(__file__).resolve().parent.parent


SERVER_FIXTURES = {"postgres", "redis_url", "redis_ranks", "_worker_process", "celery_worker"}

#: Folders of tests/ whose every test is slow (a browser, real servers started and killed, whole
#: uvicorn processes under load): out of `make test`, in `make test-slow` and .ci/run.  A single
#: slow test elsewhere carries @pytest.mark.slow itself.
SLOW_FOLDERS = {"browser", "faults", "integration"}
TESTS = Path(__file__).resolve().parent
#: The engine's brute-force sweeps over small variants keep their larger boards for the slow lane
#: (``sweep_is_slow``).
ENGINE_TESTS = TESTS / "games" / "engine"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test that needs a server, so `-m "not servers"` runs the embedded suite alone,
    and every test of a slow folder and the engine sweeps' larger boards, so `-m "not slow"`
    (`make test`) is the fast lane.

    .ci/run runs the server-less tests, slow ones included, then everything against Postgres,
    Redis and a worker.
    """
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if SERVER_FIXTURES & set(getattr(item, "fixturenames", ())) or params.get("store") == "redis":
            item.add_marker(pytest.mark.servers)
        path = Path(item.path)
        if path.is_relative_to(TESTS) and path.relative_to(TESTS).parts[0] in SLOW_FOLDERS:
            item.add_marker(pytest.mark.slow)
        elif path.is_relative_to(ENGINE_TESTS) and sweep_is_slow(str(params.get("name", ""))):
            item.add_marker(pytest.mark.slow)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Remove what the SQLite test database leaves beside it: Django deletes the database file,
    but the socket threads' connections still hold its WAL files then (piramide_site/settings/test.py)."""
    from django.conf import settings

    if not settings.configured or settings.DATABASES["default"]["ENGINE"] != "django.db.backends.sqlite3":
        return
    name = settings.DATABASES["default"].get("TEST", {}).get("NAME")
    if name:
        for leftover in (f"{name}-wal", f"{name}-shm"):
            Path(leftover).unlink(missing_ok=True)


@pytest.fixture
def player(db: Any) -> Any:
    from tests.factories import make_player

    return make_player("alice", display_name="Alice")


@pytest.fixture
def other_player(db: Any) -> Any:
    from tests.factories import make_player

    return make_player("bob", display_name="Bob")


@pytest.fixture
def api() -> Any:
    from rest_framework.test import APIClient

    return APIClient(HTTP_ACCEPT_LANGUAGE="en")


@pytest.fixture
def player_api(api: Any, player: Any) -> Any:
    api.force_login(player)
    return api


@pytest.fixture
def throttle_rates(settings: Any) -> Any:
    """Sets some of the API's throttle rates (``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]``) for one test."""

    def set_rates(**rates: str) -> None:
        settings.REST_FRAMEWORK = {
            **settings.REST_FRAMEWORK,
            "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], **rates},
        }

    return set_rates


@pytest.fixture
def today() -> Any:
    from games.selectors import local_today

    return local_today()


# ----------------------------------------------------------------- servers


@pytest.fixture
def postgres(db: Any) -> None:
    from django.db import connection

    if connection.vendor != "postgresql":
        missing("needs Postgres: set DATABASE_URL=postgres://postgres@127.0.0.1:5432/test")


@pytest.fixture
def redis_url() -> str:
    from django.conf import settings

    if not settings.REDIS_URL:
        missing("needs Redis: set REDIS_URL=redis://127.0.0.1:6379/0")
    import redis

    try:
        redis.Redis.from_url(settings.REDIS_URL).ping()
    except redis.RedisError as error:
        missing(f"Redis at {settings.REDIS_URL} does not answer: {error}")
    return str(settings.REDIS_URL)


def _forget_test_keys() -> None:
    from django.conf import settings

    from leaderboard.ranks import redis_client

    client = redis_client(settings.REDIS_URL)
    keys = list(client.scan_iter(match=f"{settings.LEADERBOARD_KEY_PREFIX}:*", count=1000))
    if keys:
        client.delete(*keys)


@pytest.fixture
def redis_ranks(redis_url: str, settings: Any) -> Iterator[Any]:
    """Leaderboards on Redis sorted sets, with this run's keys wiped before and after."""
    from leaderboard.ranks import RedisRanks, redis_client

    settings.LEADERBOARD_BACKEND = "redis"
    _forget_test_keys()
    yield RedisRanks(redis_client(settings.REDIS_URL), settings.LEADERBOARD_KEY_PREFIX)
    _forget_test_keys()


@pytest.fixture(autouse=True)
def _fresh_rank_keys(request: pytest.FixtureRequest) -> Iterator[None]:
    """When the suite runs on Redis, no test sees another's sorted sets (ids repeat after rollbacks)."""
    if "db" not in request.fixturenames and "transactional_db" not in request.fixturenames:
        yield
        return
    from django.conf import settings

    uses_redis = settings.LEADERBOARD_BACKEND == "redis" and bool(settings.REDIS_URL)
    if uses_redis:
        _forget_test_keys()
    yield
    if uses_redis:
        _forget_test_keys()


@pytest.fixture(autouse=True)
def _close_loop_move_connections() -> Iterator[None]:
    """Each async test runs on a loop of its own: the connections its sockets' moves opened from
    that loop (games/live_moves.py) close with it, before the test database is flushed or dropped.

    So does the connection of asgiref's one thread-sensitive thread, where Channels reads a
    socket's user: Channels closes it after each read (``DatabaseSyncToAsync``), but its test
    communicator patches that close away, and the test database could not be dropped at the end."""
    yield
    module = sys.modules.get("games.live_moves")
    if module is not None:
        module.close_all()
    if "asgiref.sync" in sys.modules:
        from asgiref.sync import SyncToAsync
        from django.db import connections

        SyncToAsync.single_thread_executor.submit(connections.close_all).result(timeout=10)


@pytest.fixture(scope="session")
def _worker_process(django_db_setup: Any, django_db_blocker: Any) -> Iterator[subprocess.Popen[bytes]]:
    """A real Celery worker on the test database and the Redis broker, for the whole session."""
    from django.conf import settings
    from django.db import connection

    if not settings.REDIS_URL:
        missing("needs Redis and a Celery worker: set REDIS_URL=redis://127.0.0.1:6379/0")
    if connection.vendor != "postgresql":
        missing("a worker process shares the test database only on Postgres: set DATABASE_URL")
    db = connection.settings_dict
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "piramide_site.settings.test",
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}",
        "REDIS_URL": settings.REDIS_URL,
        "CELERY_TASK_ALWAYS_EAGER": "false",
        "LEADERBOARD_KEY_PREFIX": settings.LEADERBOARD_KEY_PREFIX,
        # what the worker-side fill job does, kept small so the suite stays quick
        "PIRAMIDE_DAILY_PRESETS": "classic",
        "PIRAMIDE_VARIANT_OF_THE_DAY": "false",
        "PIRAMIDE_FILL_DAYS": "3",
        "PYTHONPATH": str(ROOT),
    }
    log = (
        open(ROOT / ".pytest_cache" / f"celery-worker{os.environ.get('PYTEST_XDIST_WORKER', '')}.log", "wb")
        if (ROOT / ".pytest_cache").is_dir()
        else subprocess.DEVNULL
    )
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "piramide_site",
            "worker",
            "--pool=solo",
            "--loglevel=INFO",
            "--hostname=piramide-test@%h",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    from piramide_site.celery import app

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"the Celery worker exited with {process.returncode} (see .pytest_cache/celery-worker*.log)")
        if app.control.ping(timeout=1.0):
            break
    else:
        process.kill()
        pytest.fail("the Celery worker did not answer a ping within 60 s")
    yield process
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@pytest.fixture
def celery_worker(_worker_process: Any, transactional_db: Any, settings: Any) -> Iterator[Any]:
    """Tasks go to the real worker for this test (its writes must be committed to be seen)."""
    from piramide_site.celery import app

    app.conf.task_always_eager = False
    settings.CELERY_TASK_ALWAYS_EAGER = False
    try:
        yield _worker_process
    finally:
        app.conf.task_always_eager = True


@pytest.fixture
def migrate_to(transactional_db: Any) -> Iterator[Callable[[list[tuple[str, str]]], Any]]:
    """Migrate the test database to some migrations and get their historical models; afterwards
    every migration again, as the tests after need."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    def migrate(targets: list[tuple[str, str]]) -> Any:
        executor = MigrationExecutor(connection)
        executor.migrate(targets)
        return executor.loader.project_state(targets).apps

    yield migrate
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
