"""A real uvicorn process serving the site as production starts it (``python -m piramide_site.serve``
with uvloop and httptools), for the limits that only a real server can show: what it reads off
the socket before the application refuses, and which client address it hands the application."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import ROOT


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    port: int
    log: Path
    tmp: Path

    def rss_kib(self) -> int:
        """The server process's resident memory, in KiB (Linux)."""
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise AssertionError("no VmRSS")

    def bytes_read(self) -> int:
        """Bytes the server process has read so far, from sockets and files alike (Linux's rchar)."""
        for line in Path(f"/proc/{self.process.pid}/io").read_text().splitlines():
            if line.startswith("rchar:"):
                return int(line.split()[1])
        raise AssertionError("no rchar")

    def temporary_bytes(self) -> int:
        """Bytes in the files the server holds open in its temporary directory: a spooled body
        is one there, unnamed (O_TMPFILE), so only the process's open files show it."""
        total = 0
        for fd in Path(f"/proc/{self.process.pid}/fd").iterdir():
            try:
                if os.readlink(fd).startswith(str(self.tmp)):
                    total += fd.stat().st_size
            except OSError:
                pass
        return total

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")


def database_env() -> dict[str, str]:
    """The test database and Redis, for a server that must share them with the test."""
    from django.conf import settings
    from django.db import connection

    db = connection.settings_dict
    env = {
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}",
        "LEADERBOARD_KEY_PREFIX": settings.LEADERBOARD_KEY_PREFIX,
        "LIMITS_KEY_PREFIX": settings.LIMITS_KEY_PREFIX,
    }
    if settings.REDIS_URL:
        env["REDIS_URL"] = settings.REDIS_URL
    return env


@contextmanager
def uvicorn_server(
    tmp_path: Path, env: dict[str, str] | None = None, args: tuple[str, ...] = (), lifespan: str = "off"
) -> Iterator[Server]:
    """The site on 127.0.0.1 with the test settings and ``env``; without a DATABASE_URL in ``env``,
    on a SQLite file no request of these tests reaches.  ``lifespan="on"`` runs the application's
    start and stop (games/program.py)."""
    port = free_port()
    tmp = tmp_path / f"server-{port}-tmp"
    tmp.mkdir()
    log = tmp_path / f"server-{port}.log"
    full_env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DATABASE_URL", "REDIS_URL", "FORWARDED_ALLOW_IPS"}
    }
    full_env.update(
        {
            "DJANGO_SETTINGS_MODULE": "piramide_site.settings.test",
            "DJANGO_DEBUG": "false",
            "DATABASE_URL": f"sqlite:///{tmp_path / 'unused.sqlite3'}",
            "PYTHONPATH": str(ROOT),
            "TMPDIR": str(tmp),
            **(env or {}),
        }
    )
    with log.open("wb") as out:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "piramide_site.serve",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--loop",
                "uvloop",
                "--http",
                "httptools",
                "--lifespan",
                lifespan,
                "--no-access-log",
                *args,
            ],
            cwd=ROOT,
            env=full_env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    server = Server(process, port, log, tmp)
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                pytest.fail(f"uvicorn exited with {process.returncode}: {server.log_text()[-3000:]}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"uvicorn did not listen within 60 s: {server.log_text()[-3000:]}")
                time.sleep(0.1)
        yield server
    finally:
        process.terminate()  # SIGTERM: uvicorn shuts down gracefully, the lifespan's end included
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
