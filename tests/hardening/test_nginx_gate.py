"""ops/nginx/gate.conf.template, run by a real nginx in front of a real uvicorn (behind ops/Caddyfile,
as docker-compose.yml chains them: tests/hardening/test_caddy_proxy.py).

Debian's nginx stands in for the nginx image, with the template filled in as the image fills it in
(bench/proxies.py).  The applications behind it are tests/site/echo_asgi.py, which answers with the
client address it was handed (so a 200 is a request that reached the application), and the site.
Without nginx the tests skip with the reason, except in CI (CI=true), where they fail; .ci/run
installs it from apt.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import math
import shutil
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

from tests.conftest import ROOT, missing
from tests.uvicorn_server import free_port, uvicorn_server

NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
#: GATE_SOLVER_BURST and GATE_RACE_BURST, and the rates per second, as compose sets them by default
#: (bench/proxies.py)
SOLVER_BURST, RACE_BURST = 10, 5
SOLVER_RATE, RACE_RATE = 2, 1


def passed_at_most(burst: int, rate: int, seconds: float) -> int:
    """What a flood of ``seconds`` may get through: the burst, the request the rate allows at once,
    and what the rate gave back meanwhile."""
    return burst + 1 + math.ceil(rate * seconds)


@contextmanager
def gate_in_front_of(upstream_port: int, tmp_path: Path) -> Iterator[int]:
    """The gate proxying to 127.0.0.1:<upstream_port>, believing X-Forwarded-For from 127.0.0.1
    alone (where a Caddy of these tests runs); yields its port."""
    if NGINX is None:
        missing("needs nginx (Debian: apt-get install nginx) to run ops/nginx/gate.conf.template")
    from bench.proxies import gate_start

    gate, port = gate_start(f"127.0.0.1:{upstream_port}", tmp_path, GATE_TRUSTED_PROXY="127.0.0.1")
    try:
        yield port
    finally:
        gate.terminate()
        gate.wait(timeout=10)


@contextmanager
def echo_server() -> Iterator[int]:
    """tests/site/echo_asgi.py under uvicorn as web runs, believing forwarded addresses from the gate."""
    port = free_port()
    server = subprocess.Popen(
        [
            str(Path(sys.executable).with_name("uvicorn")),
            "tests.site.echo_asgi:app",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--proxy-headers",
            "--forwarded-allow-ips",
            "127.0.0.1",
            "--lifespan",
            "off",
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        yield port
    finally:
        server.terminate()
        server.wait(timeout=10)


@pytest.fixture
def gate(tmp_path: Path) -> Iterator[int]:
    """The echo application behind the gate; the gate's port."""
    with echo_server() as port, gate_in_front_of(port, tmp_path) as gate_port:
        yield gate_port


def ask(port: int, method: str, path: str, source: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    with closing(http.client.HTTPConnection("127.0.0.1", port, timeout=20, source_address=(source, 0))) as conn:
        conn.request(method, path, body=b"{}" if method == "POST" else None, headers=headers)
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), response.read()


def flood(port: int, method: str, path: str, source: str, count: int = 40) -> list[tuple[int, dict[str, str], bytes]]:
    """``count`` requests at once, each on a connection of its own, as bench/abuse.py's attacker sends."""
    with ThreadPoolExecutor(max_workers=count) as pool:
        return list(pool.map(lambda _: ask(port, method, path, source), range(count)))


def statuses(answers: list[tuple[int, dict[str, str], bytes]]) -> Counter[int]:
    return Counter(status for status, _, _ in answers)


def test_a_flood_of_hints_and_reviews_from_one_address_is_refused_before_the_application(gate: int) -> None:
    started = time.monotonic()
    answers = flood(gate, "GET", "/api/games/7/hint/", "127.0.0.2")
    seen = statuses(answers)
    assert set(seen) == {200, 429}, seen
    assert seen[200] <= passed_at_most(SOLVER_BURST, SOLVER_RATE, time.monotonic() - started), seen
    status, headers, body = next(answer for answer in answers if answer[0] == 429)
    assert headers["Retry-After"] == "1" and headers["Content-Type"] == "application/json"
    assert json.loads(body) == {
        "error": "throttled",
        "message": "too many requests for the solver from this address: wait a moment",
        "retry_after": 1,
    }
    # reviews share the address's budget: the two floods together get no more than one would
    reviews = statuses(flood(gate, "GET", "/api/games/8/review/", "127.0.0.2"))
    assert seen[200] + reviews[200] <= passed_at_most(SOLVER_BURST, SOLVER_RATE, time.monotonic() - started)


def test_another_address_keeps_its_own_budget_and_other_requests_are_not_counted(gate: int) -> None:
    assert statuses(flood(gate, "GET", "/api/games/7/hint/", "127.0.0.2"))[429] > 0
    # the same moment, another client: its hints reach the application
    assert ask(gate, "GET", "/api/games/7/hint/", "127.0.0.3")[0] == 200
    # the flooding client's other requests are not the solver's, and pass
    assert statuses(flood(gate, "GET", "/api/challenges/today/", "127.0.0.2")) == {200: 40}
    assert statuses(flood(gate, "GET", "/api/games/7/", "127.0.0.2")) == {200: 40}


def test_race_creations_and_rematches_are_limited_but_reading_races_is_not(gate: int) -> None:
    started = time.monotonic()
    seen = statuses(flood(gate, "POST", "/api/races/", "127.0.0.2", count=20))
    assert set(seen) == {200, 429}, seen
    assert seen[200] <= passed_at_most(RACE_BURST, RACE_RATE, time.monotonic() - started), seen
    assert statuses(flood(gate, "GET", "/api/races/", "127.0.0.2", count=20)) == {200: 20}
    assert statuses(flood(gate, "GET", "/api/races/AbC123/", "127.0.0.2", count=20)) == {200: 20}
    # a rematch deals from the pool as a new race does, and shares its budget
    started = time.monotonic()
    seen = statuses(flood(gate, "POST", "/api/races/AbC123/rematch/", "127.0.0.5", count=20))
    assert set(seen) == {200, 429}, seen
    assert seen[200] <= passed_at_most(RACE_BURST, RACE_RATE, time.monotonic() - started), seen


def test_the_application_sees_the_client_s_address_and_never_one_it_wrote(gate: int) -> None:
    assert ask(gate, "GET", "/", "127.0.0.2")[2] == b"127.0.0.2"
    assert ask(gate, "GET", "/", "127.0.0.2", **{"X-Forwarded-For": "198.51.100.1"})[2] == b"127.0.0.2"
    # a forged header does not let a flooding client count under another address either
    answers = [
        ask(gate, "GET", "/api/games/7/hint/", "127.0.0.4", **{"X-Forwarded-For": f"198.51.100.{n}"})
        for n in range(SOLVER_BURST + 10)
    ]
    assert statuses(answers)[429] > 0


def too_large(port: int, path: str) -> tuple[int, str, bytes]:
    with closing(http.client.HTTPConnection("127.0.0.1", port, timeout=20, source_address=("127.0.0.2", 0))) as conn:
        conn.request("POST", path, b"x" * (settings.HTTP_MAX_BODY_BYTES + 1), headers={"Content-Type": "text/plain"})
        response = conn.getresponse()
        return response.status, response.getheader("Content-Type", ""), response.read()


def test_a_body_over_the_limit_is_refused_in_the_application_s_shapes(gate: int) -> None:
    status, kind, body = too_large(gate, "/api/auth/signin/")
    assert status == 413 and kind == "application/json"
    assert json.loads(body)["error"] == "too_large" and json.loads(body)["limit"] == settings.HTTP_MAX_BODY_BYTES
    status, kind, body = too_large(gate, "/api/games/7/hint/")
    assert status == 413 and json.loads(body)["error"] == "too_large", "under the solver's limits too"
    # outside the API, a page, as the application answers there
    status, kind, body = too_large(gate, "/admin/login/")
    assert status == 413 and kind.startswith("text/html") and b"Content Too Large (413)" in body


def test_sockets_upgrade_through_the_gate(tmp_path: Path) -> None:
    with uvicorn_server(tmp_path, env={"FORWARDED_ALLOW_IPS": "127.0.0.1"}, args=("--proxy-headers",)) as server:
        with gate_in_front_of(server.port, tmp_path) as port:

            async def scenario() -> Any:
                from websockets.asyncio.client import connect
                from websockets.exceptions import ConnectionClosed

                # a path no consumer serves: the socket is accepted, then closed with 4404
                async with connect(
                    f"ws://127.0.0.1:{port}/ws/nowhere/", origin=f"http://127.0.0.1:{port}", proxy=None
                ) as ws:
                    with pytest.raises(ConnectionClosed):
                        while True:
                            await asyncio.wait_for(ws.recv(), 10)
                    return ws.close_code

            assert asyncio.run(scenario()) == 4404
