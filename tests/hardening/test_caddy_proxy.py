"""ops/Caddyfile itself, run by a real Caddy in front of the gate (ops/nginx/gate.conf.template) and a
real uvicorn set up as compose sets up web (``--proxy-headers``, FORWARDED_ALLOW_IPS naming the
gate alone): the chain of docker-compose.yml.

Debian's caddy (2.6) stands in for the caddy:2 image: the same Caddyfile, with only what a test must
change (the upstream's address, free ports for 80 and 443, no system trust store to install into),
and Debian's nginx for the nginx image (tests/hardening/test_nginx_gate.py).  The site is served
over HTTPS from Caddy's own CA, as with the default SITE_ADDRESS (localhost).  Without caddy or
nginx the tests skip with the reason, except in CI (CI=true), where they fail; .ci/run installs
them from apt.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import shutil
import ssl
import subprocess
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

from tests.conftest import ROOT, missing
from tests.hardening.test_nginx_gate import (
    SOLVER_BURST,
    SOLVER_RATE,
    echo_server,
    gate_in_front_of,
    passed_at_most,
)
from tests.uvicorn_server import free_port, uvicorn_server

CADDY = shutil.which("caddy")


def tls_context() -> ssl.SSLContext:
    """Takes Caddy's local CA on trust: it is the test's own."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


def https(port: int, source: str = "127.0.0.1") -> http.client.HTTPSConnection:
    return http.client.HTTPSConnection("127.0.0.1", port, timeout=20, context=tls_context(), source_address=(source, 0))


@contextmanager
def caddy_in_front_of(upstream_port: int, tmp_path: Path) -> Iterator[int]:
    """ops/Caddyfile proxying to 127.0.0.1:<upstream_port>; yields its HTTPS port."""
    if CADDY is None:
        missing("needs caddy (Debian: apt-get install caddy) to run ops/Caddyfile")
    http_port, https_port = free_port(), free_port()
    config = (ROOT / "ops" / "Caddyfile").read_text()
    for old, new in {
        "reverse_proxy gate:8080\n": f"reverse_proxy 127.0.0.1:{upstream_port}\n",
        "\tadmin off\n": f"\tadmin off\n\tskip_install_trust\n\thttp_port {http_port}\n\thttps_port {https_port}\n",
    }.items():
        assert old in config, old
        config = config.replace(old, new)
    caddyfile = tmp_path / f"Caddyfile-{https_port}"
    caddyfile.write_text(config)
    env = {
        **os.environ,
        "SITE_ADDRESS": f"127.0.0.1:{https_port}",
        "HOME": str(tmp_path),
        "XDG_DATA_HOME": str(tmp_path / "caddy-data"),
        "XDG_CONFIG_HOME": str(tmp_path / "caddy-config"),
    }
    env.pop("DJANGO_HTTP_MAX_BODY_BYTES", None)  # the Caddyfile's default, as compose's
    log_path = tmp_path / f"caddy-{https_port}.log"
    with log_path.open("wb") as log:
        caddy = subprocess.Popen(
            [CADDY, "run", "--config", str(caddyfile), "--adapter", "caddyfile"],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with closing(https(https_port)) as conn:
                    conn.request("GET", "/healthz/")
                    response = conn.getresponse()
                    response.read()
                if response.status != 502:  # Caddy answers, and so does its upstream
                    break
            except (OSError, ssl.SSLError):
                pass
            if caddy.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"caddy did not serve: {log_path.read_text()[-3000:]}")
            time.sleep(0.2)
        yield https_port
    finally:
        caddy.terminate()
        caddy.wait(timeout=10)


@pytest.fixture
def site(tmp_path: Path) -> Iterator[int]:
    """The site behind the gate and Caddy; Caddy's HTTPS port."""
    with uvicorn_server(tmp_path, env={"FORWARDED_ALLOW_IPS": "127.0.0.1"}, args=("--proxy-headers",)) as server:
        with gate_in_front_of(server.port, tmp_path) as gate_port, caddy_in_front_of(gate_port, tmp_path) as port:
            yield port


@pytest.fixture
def echo(tmp_path: Path) -> Iterator[int]:
    """tests/site/echo_asgi.py (it answers with the client address, or the scheme) behind the gate
    and Caddy."""
    with echo_server() as port:
        with gate_in_front_of(port, tmp_path) as gate_port, caddy_in_front_of(gate_port, tmp_path) as proxy_port:
            yield proxy_port


def ask(port: int, path: str, source: str = "127.0.0.1", **headers: str) -> str:
    with closing(https(port, source)) as conn:
        conn.request("GET", path, headers=headers)
        return conn.getresponse().read().decode()


def test_the_application_sees_the_peer_s_address_whatever_x_forwarded_for_the_client_wrote(echo):
    assert ask(echo, "/", source="127.0.0.2") == "127.0.0.2"
    assert ask(echo, "/", source="127.0.0.2", **{"X-Forwarded-For": "198.51.100.1"}) == "127.0.0.2"
    assert ask(echo, "/", source="127.0.0.4", **{"X-Forwarded-For": "198.51.100.1, 127.0.0.1"}) == "127.0.0.4"


def test_the_gate_counts_the_address_caddy_saw(echo):
    """Every request reaches the gate from Caddy's address; its limits go by the clients' own."""

    def hint(source: str) -> int:
        with closing(https(echo, source)) as conn:
            conn.request("GET", "/api/games/7/hint/")
            response = conn.getresponse()
            response.read()
            return response.status

    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=30) as pool:  # at once, as a flood comes
        first = list(pool.map(lambda _: hint("127.0.0.2"), range(30)))
    assert first.count(429) > 0, first
    assert first.count(200) <= passed_at_most(SOLVER_BURST, SOLVER_RATE, time.monotonic() - started), first
    assert hint("127.0.0.3") == 200, "another client keeps its own budget"


def test_the_application_sees_https(echo):
    assert ask(echo, "/scheme", **{"X-Forwarded-Proto": "http"}) == "https"


def caddy_version() -> tuple[int, ...]:
    out = subprocess.run([str(CADDY), "version"], capture_output=True, text=True, check=True).stdout
    return tuple(int(part) for part in out.split()[0].lstrip("v").split(".")[:2])


def test_bodies_over_the_limit_are_refused_through_the_proxy(site):
    """Whichever refuses first: the application (its JSON 413, as soon as it sees the length) or
    Caddy's own cap, which says 413 with no body (caddy:2), or 502 before Caddy 2.7 (Debian's
    2.6: caddyserver/caddy#5652).  When Caddy's cap trips while it passes the application's 413
    on, Caddy cuts that answer short: the client still has the status."""
    for _ in range(5):
        with closing(https(site)) as conn:
            conn.request(
                "POST",
                "/api/auth/signin/",
                b"x" * (settings.HTTP_MAX_BODY_BYTES + 1),
                headers={"Content-Type": "application/json"},
            )
            response = conn.getresponse()
            try:
                body: bytes | None = response.read()
            except http.client.IncompleteRead:
                body = None
        if response.getheader("Content-Type") == "application/json" and body is not None:
            assert response.status == 413 and json.loads(body)["limit"] == settings.HTTP_MAX_BODY_BYTES
        else:
            assert response.status == 413 or (response.status == 502 and caddy_version() < (2, 7)), response.status
    # a body at the limit passes the proxy, and meets the CSRF check
    with closing(https(site)) as conn:
        conn.request(
            "POST",
            "/api/auth/signin/",
            b"x" * settings.HTTP_MAX_BODY_BYTES,
            headers={"Content-Type": "application/json"},
        )
        response = conn.getresponse()
        response.read()
    assert response.status == 403


def test_sockets_upgrade_through_the_proxy(site):
    async def scenario() -> Any:
        from websockets.asyncio.client import connect

        # a path no consumer serves: the socket is accepted, then closed with 4404
        from websockets.exceptions import ConnectionClosed

        async with connect(
            f"wss://127.0.0.1:{site}/ws/nowhere/", origin=f"https://127.0.0.1:{site}", ssl=tls_context(), proxy=None
        ) as ws:
            with pytest.raises(ConnectionClosed):
                while True:
                    await asyncio.wait_for(ws.recv(), 10)
            return ws.close_code

    assert asyncio.run(scenario()) == 4404
