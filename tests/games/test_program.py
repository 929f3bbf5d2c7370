"""The daily program kept by the web process where no beat runs (games/program.py)."""

from __future__ import annotations

import datetime as dt
import fcntl
import io
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from games.management.commands.program_fill import lock_path
from games.models import DailyChallenge
from games.program import seconds_to_next_round
from games.selectors import challenge_time_zone, local_today
from tests.uvicorn_server import uvicorn_server

ROOT = Path(__file__).resolve().parents[2]


def local(hour: int, minute: int, second: int = 0) -> dt.datetime:
    return dt.datetime(2026, 12, 6, hour, minute, second, tzinfo=challenge_time_zone())


def test_a_round_runs_every_hour_and_just_after_midnight() -> None:
    assert seconds_to_next_round(local(10, 0)) == 3600
    assert seconds_to_next_round(local(23, 59)) == 65
    assert seconds_to_next_round(local(23, 59, 59)) == 6


@pytest.mark.django_db
def test_the_fill_makes_the_missing_days_unless_another_process_is_filling(settings: Any) -> None:
    settings.PIRAMIDE_DAILY_PRESETS = ["classic"]
    settings.PIRAMIDE_VARIANT_OF_THE_DAY = False
    with lock_path().open("a") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        out = io.StringIO()
        call_command("program_fill", "--days", "2", stdout=out)
        assert "another process is filling" in out.getvalue()
        assert not DailyChallenge.objects.exists()
    out = io.StringIO()
    call_command("program_fill", "--days", "2", stdout=out)
    today = local_today()
    assert set(DailyChallenge.objects.values_list("date", "preset")) == {
        (today, "classic"),
        (today + dt.timedelta(days=1), "classic"),
    }
    assert "2 challenge(s) created" in out.getvalue()


@pytest.mark.django_db
def test_the_fill_makes_each_days_whole_program_variant_of_the_day_included(settings: Any) -> None:
    today = local_today()
    settings.PIRAMIDE_DAILY_PRESETS = ["classic"]
    settings.PIRAMIDE_ROTATION_PRESETS = ["egyptian", "forty-open"]
    settings.PIRAMIDE_ROTATION_START = today
    call_command("program_fill", "--days", "2", stdout=io.StringIO())
    tomorrow = today + dt.timedelta(days=1)
    assert set(DailyChallenge.objects.values_list("date", "preset")) == {
        (today, "classic"),
        (today, "egyptian"),
        (tomorrow, "classic"),
        (tomorrow, "forty-open"),
    }


def test_a_server_started_on_an_empty_program_fills_today_and_tomorrow_and_stops_cleanly(tmp_path: Path) -> None:
    """Real uvicorn on the embedded default: no beat, no worker, nobody scheduling anything."""
    database = tmp_path / "db.sqlite3"
    env = {
        "DATABASE_URL": f"sqlite:///{database}",
        "PIRAMIDE_PROGRAM_KEEPER": "true",
        "PIRAMIDE_DAILY_PRESETS": "classic",
        "PIRAMIDE_VARIANT_OF_THE_DAY": "false",
    }
    migrate = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    migrate.update(env, DJANGO_SETTINGS_MODULE="piramide_site.settings.test")
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=migrate, check=True, timeout=300
    )
    with uvicorn_server(tmp_path, env, lifespan="on") as server:
        deadline = time.monotonic() + 120
        rows: list[tuple[str, str]] = []
        while time.monotonic() < deadline and len(rows) < 2:
            time.sleep(0.5)
            with sqlite3.connect(database) as db:
                rows = db.execute("select date, preset from games_dailychallenge order by date").fetchall()
        assert [date for date, _ in rows] == [str(local_today()), str(local_today() + dt.timedelta(days=1))], (
            server.log_text()
        )
    text = server.log_text()
    assert "Application startup complete" in text and "Application shutdown complete" in text, text
    assert "Traceback" not in text and "unsupported" not in text, text
