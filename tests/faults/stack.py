"""A private copy of the production shape, for tests that break it on purpose.

A Postgres cluster of its own (initdb into a temporary directory, its own port), a Redis server of
its own, and the service's processes (uvicorn, Celery workers) pointed at them through
DATABASE_URL / REDIS_URL, exactly as in production.  The fault tests stop, kill and flush these,
never the servers the rest of the suite shares.
"""

from __future__ import annotations

import asyncio
import glob
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import psycopg

ROOT = Path(__file__).resolve().parent.parent.parent
PYTHON = sys.executable


class LoopThread:
    """An event loop of the test's own, on a thread of its own, running the whole time.

    The clients' coroutines run here rather than on the test's thread, where another suite's
    fixture may have left a loop running (Playwright's sync API does); and because the loop keeps
    running between steps, a socket answers its server's keepalive pings while the test waits.
    """

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="fault-test-loop", daemon=True)
        self.thread.start()

    def run(self, coroutine: Any, timeout: float = 300) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def close(self) -> None:
        async def cancel_the_rest() -> None:  # e.g. the keepalive of a socket the server dropped
            rest = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
            for task in rest:
                task.cancel()
            await asyncio.gather(*rest, return_exceptions=True)

        self.run(cancel_the_rest(), timeout=10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


def run_async(coroutine: Any, timeout: float = 300) -> Any:
    """``asyncio.run`` on a loop thread of its own (see LoopThread)."""
    runner = LoopThread()
    try:
        return runner.run(coroutine, timeout)
    finally:
        runner.close()


class StackError(RuntimeError):
    """A server of the private stack would not start (the message says which, with its log)."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for(check: Any, timeout: float, what: str, interval: float = 0.1) -> Any:
    """Call ``check`` until it returns something true; that value, or AssertionError after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(interval)


def tail(path: Path, chars: int = 3000) -> str:
    try:
        return path.read_text(errors="replace")[-chars:]
    except OSError:
        return ""


# ----------------------------------------------------------------- Postgres


def postgres_bin() -> Path | None:
    """The newest installed server binaries (Debian keeps them under /usr/lib/postgresql/<major>/bin)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    return Path(found[-1]).parent if found else None


class PrivatePostgres:
    """A throw-away cluster owned by the ``postgres`` OS user (initdb refuses to run as root)."""

    def __init__(self) -> None:
        bindir = postgres_bin()
        if bindir is None:
            raise StackError("no Postgres server binaries under /usr/lib/postgresql/*/bin")
        self.bin = bindir
        self.dir = Path(tempfile.mkdtemp(prefix="piramide-pg-"))
        self.data = self.dir / "data"
        self.log = self.dir / "postgres.log"
        self.port = free_port()
        self._as_postgres = os.geteuid() == 0
        if self._as_postgres:
            owner = pwd.getpwnam("postgres")
            os.chown(self.dir, owner.pw_uid, owner.pw_gid)

    def _run(self, *args: str) -> subprocess.CompletedProcess[str]:
        command = [str(self.bin / args[0]), *args[1:]]
        if self._as_postgres:
            command = ["runuser", "-u", "postgres", "--", *command]
        result = subprocess.run(command, cwd=self.dir, capture_output=True, text=True, timeout=120)
        if result.returncode != 0:
            raise StackError(f"{' '.join(args[:2])} failed: {result.stdout}{result.stderr}{tail(self.log)}")
        return result

    def init(self) -> None:
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")

    def start(self) -> None:
        options = (
            f"-p {self.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={self.dir} "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        )
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-o", options, "-w", "-t", "60", "start")

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop")

    def running(self) -> bool:
        return (self.data / "postmaster.pid").exists()

    def url(self, database: str) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{database}"

    def connect(self, database: str = "postgres") -> psycopg.Connection[Any]:
        return psycopg.connect(host="127.0.0.1", port=self.port, user="postgres", dbname=database, autocommit=True)

    def create_database(self, name: str, template: str | None = None) -> None:
        with self.connect() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else ""))

    def query(self, database: str, sql: str, *params: Any) -> list[tuple[Any, ...]]:
        with self.connect(database) as conn:
            return list(conn.execute(sql, params).fetchall())

    def destroy(self) -> None:
        if self.running():
            try:
                self.stop("immediate")
            except StackError:
                pass
        shutil.rmtree(self.dir, ignore_errors=True)


# ----------------------------------------------------------------- Redis


class PrivateRedis:
    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="piramide-redis-"))
        self.port = free_port()
        self.log = self.dir / "redis.log"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        redis_server = shutil.which("redis-server")
        if redis_server is None:
            raise StackError("redis-server is not installed")
        self.process = subprocess.Popen(
            [
                redis_server,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.dir),
                "--logfile",
                str(self.log),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
        )
        try:
            wait_for(self.ping, 20, f"redis-server on port {self.port}")
        except AssertionError as error:
            raise StackError(f"{error}: {tail(self.log)}") from None

    def url(self, index: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{index}"

    def client(self) -> Any:
        import redis

        return redis.Redis(host="127.0.0.1", port=self.port, decode_responses=True)

    def ping(self) -> bool:
        import redis

        try:
            return bool(self.client().ping())
        except redis.RedisError:
            return False

    def destroy(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


# ----------------------------------------------------------------- the service's processes


def service_env(database_url: str, redis_url: str, **extra: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PYTEST_", "DJANGO_"))}
    env.update(
        DJANGO_SETTINGS_MODULE="piramide_site.settings.test",
        DATABASE_URL=database_url,
        REDIS_URL=redis_url,
        CELERY_TASK_ALWAYS_EAGER="false",
        # one key space for every process of the stack (the test settings default to one per process)
        LEADERBOARD_KEY_PREFIX="piramide:lb",
        LIVE_RATE_BURST="1000",
        LIVE_ROOM_INTERVAL="0.2",
        PYTHONPATH=str(ROOT),
        PYTHONUNBUFFERED="1",
    )
    env.update(extra)
    return env


def manage(env: dict[str, str], *args: str, timeout: float = 180) -> str:
    result = subprocess.run(
        [PYTHON, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout
    )
    if result.returncode != 0:
        raise AssertionError(f"manage.py {' '.join(args)[:200]} failed:\n{result.stdout}\n{result.stderr[-4000:]}")
    return result.stdout


def django_json(env: dict[str, str], code: str) -> Any:
    """Run ``code`` in a Django shell on the stack's database; it sets ``result``, returned decoded."""
    marker = "@@result@@"
    script = f"import json\nresult = None\n{code}\nprint({marker!r} + json.dumps(result, default=str))\n"
    out = manage(env, "shell", "--no-startup", "-c", script)
    line = [text for text in out.splitlines() if text.startswith(marker)][-1]
    return json.loads(line[len(marker) :])


class Process:
    """A service process (uvicorn or a Celery worker) with its log in a file."""

    def __init__(self, name: str, command: list[str], env: dict[str, str], log: Path) -> None:
        self.name, self.command, self.env, self.log = name, command, env, log
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> Process:
        with open(self.log, "ab") as out:
            self.process = subprocess.Popen(
                self.command, cwd=ROOT, env=self.env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )
        return self

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        """SIGKILL the process and every child it started (its own session): nothing gets to clean up."""
        assert self.process is not None
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if not self.alive():
            return
        assert self.process is not None
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.kill()

    def children(self) -> list[int]:
        """The process ids whose parent is this process (from /proc: Linux only)."""
        found = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue  # gone meanwhile
            if int(fields[1]) == self.pid:
                found.append(int(stat.parent.name))
        return found

    def output(self) -> str:
        return tail(self.log, 20000)


class WebServer(Process):
    def __init__(self, env: dict[str, str], log: Path, port: int | None = None) -> None:
        self.port = port or free_port()
        command = [
            PYTHON,
            "-m",
            "uvicorn",
            "piramide_site.asgi:application",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--no-access-log",
            "--log-level",
            "warning",
        ]
        super().__init__(f"uvicorn:{self.port}", command, env, log)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def wait_up(self, timeout: float = 60) -> WebServer:
        def answers() -> bool:
            if not self.alive():
                raise AssertionError(f"{self.name} exited: {self.output()}")
            try:
                with urllib.request.urlopen(f"{self.base}/healthz/", timeout=2) as response:
                    return bool(response.status == 200)
            except urllib.error.HTTPError:
                return True  # it answers (the database may be down on purpose)
            except OSError:
                return False

        wait_for(answers, timeout, f"{self.name} to answer", interval=0.2)
        return self


class Worker(Process):
    def __init__(self, env: dict[str, str], log: Path, name: str, pool: str = "solo") -> None:
        command = [
            PYTHON,
            "-m",
            "celery",
            "-A",
            "piramide_site",
            "worker",
            f"--pool={pool}",
            "--concurrency=1",
            "--loglevel=INFO",
            f"--hostname={name}@%h",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
        ]
        super().__init__(f"worker:{name}", command, env, log)

    def wait_ready(self, timeout: float = 60) -> Worker:
        def ready() -> bool:
            if not self.alive():
                raise AssertionError(f"{self.name} exited: {self.output()}")
            return " ready." in self.output()

        wait_for(ready, timeout, f"{self.name} to be ready", interval=0.2)
        return self
