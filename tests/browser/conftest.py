"""Browser tests: a real uvicorn server on a throwaway SQLite database, driven by Playwright in
Debian's Chromium (/usr/bin/chromium; Playwright's own browser download cannot work here).

Without Chromium the tests skip with the reason, except in CI (CI=true), where they fail.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.ci import missing

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
CHROMIUM = os.environ.get("PIRAMIDE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
#: Today's challenges of the test site: seeds the solver wins quickly.
CLASSIC_SEED = 1
#: Solver searches a player of the browser site may start in ten minutes (SOLVER_SEARCHES_PER_USER):
#: a window longer than any test, so that the one that meets it does whatever the machine's pace.
SEARCHES_PER_PLAYER = 4
FORTY_SEED = 3

SETUP = f"""
from games.models import DailyChallenge
from games.selectors import local_today
from games.services import challenge_schedule
for preset, seed in (("classic", {CLASSIC_SEED}), ("forty", {FORTY_SEED})):
    c = DailyChallenge.objects.filter(date=local_today(), preset=preset).first()
    c = c or challenge_schedule(date=local_today(), preset=preset, seed=seed)
    c.refresh_from_db()
    print("CHALLENGE", preset, c.pk, c.status, c.par)
"""


def _need_chromium() -> None:
    if Path(CHROMIUM).exists():
        return
    missing(f"Chromium is not installed at {CHROMIUM} (apt-get install chromium)")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Site:
    def __init__(self, url: str, env: dict[str, str]) -> None:
        self.url = url
        self.env = env
        self.challenges: dict[str, int] = {}
        #: The server's output: the console e-mail back end (the embedded default) prints mail here.
        self.log: Path | None = None

    def manage(self, *args: str, code: str | None = None) -> str:
        command = [sys.executable, "manage.py", *args]
        if code is not None:
            command += ["-c", code]
        done = subprocess.run(command, cwd=ROOT, env=self.env, capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
        return done.stdout


@contextlib.contextmanager
def running_site(work: Path) -> Iterator[Site]:
    """Migrate a fresh SQLite database, schedule today's challenges, serve it with uvicorn."""
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(
        DJANGO_SETTINGS_MODULE="piramide_site.settings.test",
        DATABASE_URL=f"sqlite:///{work / 'db.sqlite3'}",
        PIRAMIDE_SOLVE_TIME_LIMIT="5",
        PYTHONUNBUFFERED="1",
        # every test signs up players of its own, none asks more than a few; test_play meets it
        SOLVER_SEARCHES_PER_USER=f"{SEARCHES_PER_PLAYER}/10min",
    )
    site = Site(f"http://127.0.0.1:{port}", env)
    site.manage("migrate", "--noinput", "-v", "0")
    # races deal from a pool (races/pool.py): the presets the race tests open, a few deals each
    site.manage("races_pool_fill", "--size", "3", "--preset", "classic", "--preset", "forty-house")
    for line in site.manage("shell", code=SETUP).splitlines():
        if line.startswith("CHALLENGE "):
            _, preset, pk, *_rest = line.split()
            site.challenges[preset] = int(pk)
    log = open(work / "server.log", "w")
    site.log = work / "server.log"
    server = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "piramide_site.asgi:application", "--host", "127.0.0.1", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("the test server did not start: " + (work / "server.log").read_text()) from None
                time.sleep(0.2)
        yield site
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()
        shutil.copy(work / "server.log", ARTIFACTS / "server.log") if ARTIFACTS.exists() else None


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    _need_chromium()
    with running_site(tmp_path_factory.mktemp("site")) as site:
        yield site


# Package-scoped: Playwright's sync API keeps an event loop running on the main thread while it
# is open, and tests after the browser ones call asyncio.run() there.
@pytest.fixture(scope="package")
def browser(site: Site) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def new_context(browser: Any, site: Site) -> Iterator[Any]:
    contexts: list[Any] = []

    def make(**options: Any) -> Any:
        options.setdefault("base_url", site.url)
        options.setdefault("locale", "it-IT")
        context = browser.new_context(**options)
        context.set_default_timeout(10_000)
        contexts.append(context)
        return context

    yield make
    for context in contexts:
        context.close()


@pytest.fixture
def page(new_context: Any) -> Any:
    return new_context().new_page()
