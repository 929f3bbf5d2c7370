"""A client cannot choose the address its requests count under, on a real uvicorn set up as
docker-compose.yml sets up web: ``--proxy-headers`` with FORWARDED_ALLOW_IPS naming the proxy alone
(here 127.0.0.3 stands for the proxy's compose address).  With the old ``*``, 70 of 70 sign-in
attempts went through, each with a new leftmost X-Forwarded-For, against 20 and then 429."""

from __future__ import annotations

import http.client
import json
from typing import Any

import pytest

from tests.uvicorn_server import Server, database_env, uvicorn_server

PROXY = "127.0.0.3"
CLIENT = "127.0.0.2"
AUTH_LIMIT = 5


@pytest.fixture
def server(postgres: Any, transactional_db: Any, tmp_path: Any) -> Any:
    # The developer's settings, whose limits come from the environment as production's do (the test
    # settings fix them high), with the address limit of sign-ins low.
    env = {
        **database_env(),
        "DJANGO_SETTINGS_MODULE": "piramide_site.settings.local",
        "FORWARDED_ALLOW_IPS": PROXY,
        "LIMIT_AUTH_PER_IP": f"{AUTH_LIMIT}/min",
    }
    with uvicorn_server(tmp_path, env=env, args=("--proxy-headers",)) as running:
        yield running


def signin_statuses(server: Server, source: str, forwarded: list[str]) -> list[int]:
    """One failed sign-in per entry of ``forwarded``, each sent from ``source`` with that X-Forwarded-For."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=20, source_address=(source, 0))
    conn.request("GET", "/api/auth/csrf/")
    response = conn.getresponse()
    token = json.loads(response.read())["csrf_token"]
    cookie = "; ".join(header.split(";", 1)[0] for header in response.headers.get_all("Set-Cookie"))
    statuses = []
    for number, address in enumerate(forwarded):
        body = json.dumps({"username": f"nobody{number}", "password": "not-the-password"})
        conn.request(
            "POST",
            "/api/auth/signin/",
            body,
            headers={
                "Content-Type": "application/json",
                "Cookie": cookie,
                "X-CSRFToken": token,
                "X-Forwarded-For": address,
            },
        )
        response = conn.getresponse()
        response.read()
        statuses.append(response.status)
    conn.close()
    return statuses


def test_a_forged_x_forwarded_for_from_a_client_does_not_change_the_address_the_limits_see(server):
    forged = [f"198.51.100.{number}" for number in range(1, AUTH_LIMIT + 3)]
    statuses = signin_statuses(server, CLIENT, forged)
    assert 429 not in statuses[:AUTH_LIMIT] and statuses[AUTH_LIMIT:] == [429, 429], statuses


def test_the_proxy_s_x_forwarded_for_is_believed(server):
    # Each address the proxy names is a client of its own: none reaches the limit...
    statuses = signin_statuses(server, PROXY, [f"203.0.113.{number}" for number in range(1, AUTH_LIMIT + 3)])
    assert 429 not in statuses, statuses
    # ...and one address behind it counts as one, whatever the client wrote before the proxy's entry.
    statuses = signin_statuses(
        server, PROXY, [f"198.51.100.{number}, 203.0.113.99" for number in range(AUTH_LIMIT + 1)]
    )
    assert 429 not in statuses[:AUTH_LIMIT] and statuses[AUTH_LIMIT] == 429, statuses
