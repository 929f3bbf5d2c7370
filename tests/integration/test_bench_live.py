"""A short run of bench/live.py on Postgres and Redis: it starts its server, plays all six rounds,
prints each round and the summary of the targets, and finds no error and no lost or duplicated
move.  The full run (200 players, 200 spectators) prints the figures docs/live.md quotes.
"""

from __future__ import annotations

import fcntl
import json
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.needs_redis, pytest.mark.needs_postgres]

ROOT = Path(__file__).resolve().parents[2]


def postgres_server() -> str:
    """The tests' Postgres server, for the bench to make its own database on."""
    from django.db import connection

    db = connection.settings_dict
    return f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}"


@pytest.fixture
def bench_alone() -> Iterator[None]:
    """One bench/live.py run at a time on this machine: each drops and recreates its database
    (``piramide_bench``) and clears its Redis keys, which a run on another pytest-xdist worker
    would be using."""
    with open(Path(tempfile.gettempdir()) / "piramide-bench-live.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def test_a_short_run_plays_every_round_and_prints_its_figures_with_no_error_and_no_move_lost(
    postgres: Any, redis_url: str, tmp_path: Path, bench_alone: None
) -> None:
    server = postgres_server()
    figures = tmp_path / "live.json"
    run = subprocess.run(
        [
            sys.executable,
            "bench/live.py",
            "--players",
            "6",
            "--spectators",
            "6",
            "--duration",
            "3",
            "--saturation-duration",
            "2",
            "--database-url",
            server,
            # a database of its own on the tests' Redis: the bench clears its keys there
            "--redis-url",
            f"{redis_url.rsplit('/', 1)[0]}/3",
            "--json",
            str(figures),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    rows = {row["round"]: row for row in json.loads(figures.read_text())}
    assert list(rows) == [
        "echo, think 0.5s",
        "live, think 0.5s",
        "durable write, think 0.5s",
        "echo, saturated",
        "live, saturated",
        "durable write, saturated",
        "logs",
    ]
    assert all(row.get("errors", 0) == 0 for row in rows.values()), run.stdout
    assert rows["logs"]["games"] > 0 and (rows["logs"]["lost"], rows["logs"]["duplicated"]) == (0, 0)
    for name, row in rows.items():
        if name != "logs":
            assert row["per_second"] > 0 and row["rtt_p50_ms"] > 0, name
    live, saturated = rows["live, think 0.5s"], rows["live, saturated"]
    assert live["fanout_events"] > 0 and saturated["fanout_events"] > 0
    # players finish games in the saturated round and open their next ones on the clock
    assert (
        saturated["ending_moves"] > 0
        and saturated["opens"] > 0
        and saturated["open_p99_ms"] >= saturated["open_p50_ms"] > 0
    )
    for line in (
        "move RTT p50 at human pace:",
        "its floor, the echo's p50 + the durable write's",
        "fan-out p99 to 6 spectators:",
        "saturated:",
        "errors: 0; moves lost: 0; duplicated: 0",
    ):
        assert line in run.stdout, line


def test_a_short_run_on_a_channels_layer_with_the_textbook_round_delivers_every_round_s_events(
    postgres: Any, redis_url: str, tmp_path: Path, bench_alone: None
) -> None:
    """``--events pubsub-layer --textbook``: the events travel on channels_redis's layer, and one
    more saturated round runs on the textbook consumer; both reach the spectators, and every move
    either stores is in the logs."""
    server = postgres_server()
    figures = tmp_path / "live.json"
    run = subprocess.run(
        [
            sys.executable,
            "bench/live.py",
            *("--players", "4", "--spectators", "4", "--duration", "2", "--saturation-duration", "2"),
            *("--events", "pubsub-layer", "--textbook", "--database-url", server, "--json", str(figures)),
            *("--redis-url", f"{redis_url.rsplit('/', 1)[0]}/3"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert "events on pubsub-layer" in run.stdout
    rows = {row["round"]: row for row in json.loads(figures.read_text())}
    assert "textbook consumer, saturated" in rows
    assert all(row.get("errors", 0) == 0 for row in rows.values()), run.stdout
    for name in ("live, think 0.5s", "live, saturated", "textbook consumer, saturated"):
        assert rows[name]["per_second"] > 0 and rows[name]["fanout_events"] > 0, name
    assert rows["logs"]["games"] > 0 and (rows["logs"]["lost"], rows["logs"]["duplicated"]) == (0, 0)
    assert "the textbook consumer saturated:" in run.stdout
