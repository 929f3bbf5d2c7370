"""A short form of bench/load.py: players sign in and play whole ranked games over sockets and HTTP
against two ASGI processes and a Celery worker on Postgres and Redis; then no error, no lost or
duplicated move, and every score equals the replay of its move log.  The full run (1,000 players
over 5 minutes) prints its figures from ``bench/load.py``.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

import pytest

from bench import load

pytestmark = [pytest.mark.needs_redis, pytest.mark.needs_postgres]

PLAYERS = int(os.environ.get("LOAD_TEST_PLAYERS", "30"))
SECONDS = float(os.environ.get("LOAD_TEST_SECONDS", "30"))


def test_players_play_whole_games_on_two_servers_and_every_move_and_score_holds(
    postgres: Any, redis_url: str, transactional_db: Any, tmp_path: Any
) -> None:
    from django.db import connection

    db = connection.settings_dict
    prefix = f"piramide-loadtest-{os.getpid()}"
    env = load.server_env(
        f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}", redis_url, prefix
    )
    world = load.build_world(PLAYERS)
    shape = load.start_shape(env, 2, tmp_path)
    try:
        results = asyncio.run(load.run_players(shape.ports, world, PLAYERS, SECONDS))
        alive = all(process.poll() is None for process, _ in shape.servers) and shape.worker.poll() is None
    finally:
        shape.stop()
        load.forget_keys(redis_url, prefix)
    check = load.verify(world, results)
    assert alive, "a server or the worker died during the run"
    assert results.errors == []
    assert results.finished_players == PLAYERS
    assert check.games == PLAYERS and check.unfinished == 0
    assert (check.lost, check.duplicated, check.count_mismatches, check.score_mismatches) == (0, 0, 0, 0), (
        check.problems
    )
    assert check.moves == sum(len(moves) for moves in results.accepted.values()) > 0
    assert results.http_moves and results.ws_moves, "moves went over both HTTP and the sockets"
