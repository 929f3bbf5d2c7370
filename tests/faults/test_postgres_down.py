"""Postgres stops for a few seconds under a running service, then comes back.

While it is down every request gets a clear 503 (JSON under /api/, a page that retries by itself
elsewhere, with Retry-After), never a 500 or a traceback, and nothing changes; a verification
task that meets the outage retries.  When Postgres is back the same processes answer again, with
no restart, and the game goes on from where it was.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from celery import Celery

from tests.faults.conftest import PASSWORD, Client, Stack, setup_players, winning_line
from tests.faults.stack import LoopThread, wait_for
from tests.faults.test_asgi_killed import connect, until

pytestmark = pytest.mark.servers


@pytest.mark.parametrize("connections", ["persistent", "pooled"])
def test_requests_get_a_clear_503_while_postgres_is_down_and_work_again_when_it_returns(
    stack: Stack, connections: str
) -> None:
    ids = setup_players(stack, "alice")
    pending = stack.django(
        "from tests.factories import make_challenge\nimport datetime as dt\n"
        "from games.selectors import local_today\n"
        "result = make_challenge(date=local_today() + dt.timedelta(days=1), seed=5, status='pending', verdict='').pk"
    )
    # Both ways of keeping connections: persistent ones (DJANGO_CONN_MAX_AGE=60), which Django
    # reuses without a look unless CONN_HEALTH_CHECKS is on (the settings turn it on; the first
    # socket handshake after the outage would otherwise fail with a 500), and the pool (the
    # production default), whose connections all break with the outage and must be replaced.
    # A pooled request waits up to DJANGO_DB_POOL_TIMEOUT for a connection before its 503: short
    # here, so the outage's requests answer within the socket's keepalive.
    age = "60" if connections == "persistent" else "0"
    kept = {
        "DJANGO_CONN_MAX_AGE": age,
        "DJANGO_DB_POOL_TIMEOUT": "2",
        "DATABASE_URL": stack.postgres.url(stack.database),
    }
    web = stack.web(**kept)
    worker = stack.worker("outage", **kept)
    line = winning_line("classic", ids["seed"])
    alice = Client(web.base).sign_in("alice", PASSWORD)
    game = alice.post(f"/api/challenges/{ids['challenge']}/ranked/").json()
    for seen, move in enumerate(line[:2]):
        assert alice.post(f"/api/games/{game['id']}/moves/", {"move": move, "seen": seen}).status_code == 200
    assert alice.get("/").status_code == 200
    loop = LoopThread()
    socket = loop.run(connect(web.port, f"/ws/games/{game['id']}/", alice.session))
    assert loop.run(until(socket, "synced"))["version"] == 2

    stack.postgres.stop("fast")
    down_at = time.monotonic()
    answers = {
        "challenges": alice.get("/api/challenges/today/"),
        "game": alice.get(f"/api/games/{game['id']}/"),
        "move": alice.post(f"/api/games/{game['id']}/moves/", {"move": line[2], "seen": 2}),
        "leaderboard": alice.get(f"/api/leaderboards/challenges/{ids['challenge']}/"),
        "anonymous": Client(web.base).get("/api/challenges/today/"),
    }
    for name, response in answers.items():
        assert response.status_code == 503, (name, response.status_code, response.text[:500])
        assert response.headers["Content-Type"] == "application/json", name
        assert response.headers["Retry-After"] == "5", name
        body = response.json()
        assert body["error"] == "unavailable" and "try again" in body["message"], (name, body)
        assert "Traceback" not in response.text and "psycopg" not in response.text, name
    page = alice.get("/")
    assert page.status_code == 503 and page.headers["Content-Type"].startswith("text/html")
    assert "back in a moment" in page.text and "Traceback" not in page.text
    assert page.headers["Retry-After"] == "5"
    assert Client(web.base).get("/healthz/").status_code == 503

    async def socket_move() -> Any:
        await socket.send(json.dumps({"type": "move", "move": line[2], "seen": 2}))
        try:
            return await until(socket, "move.ok", "error", timeout=10)
        except Exception as error:  # the socket closed: say how
            return f"{type(error).__name__}: {error}"

    # A socket move that meets the outage is answered with a typed error; the socket stays open.
    socket_answer = loop.run(socket_move())
    assert isinstance(socket_answer, dict) and socket_answer["type"] == "error", socket_answer
    assert socket_answer["code"] == "unavailable" and socket_answer["retry_after"] == 5, socket_answer

    # A verification that meets the outage is retried, not lost.
    broker = Celery(broker=stack.redis.url(), set_as_current=False)
    broker.send_task("games.tasks.challenge_verify_task", args=[pending])
    broker.close()
    wait_for(lambda: "Retry in" in worker.output(), 30, "the worker to retry the verification")
    time.sleep(max(0.0, 3 - (time.monotonic() - down_at)))

    stack.postgres.start()
    assert web.alive() and worker.alive(), "nothing restarts the service's processes"
    if connections == "pooled":
        # The pool reconnects in the background, with a growing pause between attempts: the site
        # answers 503 until its first new connection is made, seconds after Postgres is back.
        returned = time.monotonic()
        wait_for(
            lambda: Client(web.base).get("/healthz/").status_code == 200, 60, "the pool to reconnect", interval=0.5
        )
        print(f"pool back {time.monotonic() - returned:.1f} s after Postgres")
    # Then every request succeeds, on the same processes.
    first = [alice.get(f"/api/games/{game['id']}/") for _ in range(4)]
    assert [response.status_code for response in first] == [200] * 4, [r.text[:300] for r in first]
    assert first[0].json()["moves"] == 2, "the moves refused during the outage were not stored"
    socket = loop.run(connect(web.port, f"/ws/games/{game['id']}/?since=2", alice.session))
    assert loop.run(until(socket, "synced"))["version"] == 2
    loop.run(socket.close())
    loop.close()
    assert alice.get("/").status_code == 200
    assert Client(web.base).get("/healthz/").json() == {"ok": True}
    for seen, move in enumerate(line[2:], start=2):
        response = alice.post(f"/api/games/{game['id']}/moves/", {"move": move, "seen": seen})
        assert response.status_code == 200, response.text
    assert response.json()["outcome"] == "won"
    stored = stack.query("SELECT number, notation FROM games_move WHERE game_id = %s ORDER BY number", game["id"])
    assert stored == [(number, move) for number, move in enumerate(line, start=1)]

    def verified() -> bool:
        return stack.query("SELECT status FROM games_dailychallenge WHERE id = %s", pending) == [("done",)]

    wait_for(verified, 90, "the retried verification to finish once Postgres is back", interval=0.5)
