"""Requests of one client in flight at once (plumbing/inflight.py): over the cap, 429 from the
event loop before the request reaches Django; static files and other clients are not held back."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from plumbing.inflight import ClientConcurrencyLimit


def scope(
    path: str = "/api/games/1/", cookie: str | None = "abc", address: str = "10.0.0.1", method: str = "GET"
) -> dict[str, Any]:
    headers = [(b"cookie", f"csrftoken=x; sessionid={cookie}".encode())] if cookie else []
    return {"type": "http", "method": method, "path": path, "headers": headers, "client": (address, 5000)}


async def call(app: Any, request: dict[str, Any]) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b""}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await app(request, receive, send)
    return sent


@pytest.fixture
def held() -> Any:
    release = asyncio.Event()
    reached: list[str] = []

    async def app(request: dict[str, Any], receive: Any, send: Any) -> None:
        reached.append(request["path"])
        await release.wait()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    return app, release, reached


def test_a_client_over_its_cap_is_refused_at_once_and_served_again_after(held, settings):
    settings.HTTP_REQUESTS_PER_CLIENT = 2
    app, release, reached = held
    limited = ClientConcurrencyLimit(app)

    async def scenario() -> None:
        first = [asyncio.ensure_future(call(limited, scope())) for _ in range(2)]
        await asyncio.sleep(0)
        refused = await call(limited, scope())
        assert refused[0]["status"] == 429 and (b"retry-after", b"1") in refused[0]["headers"]
        body = json.loads(refused[1]["body"])
        assert body["error"] == "throttled" and body["retry_after"] == 1 and body["message"]
        other = asyncio.ensure_future(call(limited, scope(cookie="someone-else")))
        static = asyncio.ensure_future(call(limited, scope(path="/static/frontend/app.js")))
        await asyncio.sleep(0)
        release.set()
        for answer in await asyncio.gather(*first, other, static):
            assert answer[0]["status"] == 200
        assert (await call(limited, scope()))[0]["status"] == 200
        assert limited.inflight == {}

    asyncio.run(scenario())
    assert len(reached) == 5, "the refused request never reached the application"


def test_without_a_session_the_address_is_the_client(held, settings):
    settings.HTTP_REQUESTS_PER_ADDRESS = 1
    app, release, _ = held
    limited = ClientConcurrencyLimit(app)

    async def scenario() -> None:
        first = asyncio.ensure_future(call(limited, scope(cookie=None)))
        await asyncio.sleep(0)
        assert (await call(limited, scope(cookie=None)))[0]["status"] == 429
        elsewhere = asyncio.ensure_future(call(limited, scope(cookie=None, address="10.0.0.2")))
        await asyncio.sleep(0)
        release.set()
        assert [answer[0]["status"] for answer in await asyncio.gather(first, elsewhere)] == [200, 200]

    asyncio.run(scenario())


def test_requests_for_solver_work_have_a_tighter_cap(held, settings):
    settings.HTTP_REQUESTS_PER_CLIENT = 8
    settings.HTTP_SOLVER_REQUESTS_PER_CLIENT = 2
    app, release, reached = held
    limited = ClientConcurrencyLimit(app)
    solver = [
        scope("/api/games/1/review/"),
        scope("/api/games/2/hint/"),
        scope("/api/races/", method="POST"),
        scope("/api/games/3/review/"),
    ]

    async def scenario() -> None:
        first = [asyncio.ensure_future(call(limited, request)) for request in solver[:2]]
        await asyncio.sleep(0)
        for request in solver[2:]:
            assert (await call(limited, request))[0]["status"] == 429
        others = [asyncio.ensure_future(call(limited, scope(path))) for path in ("/api/games/1/", "/api/races/")]
        await asyncio.sleep(0)
        release.set()
        assert [answer[0]["status"] for answer in await asyncio.gather(*first, *others)] == [200] * 4
        assert limited.inflight == {}

    asyncio.run(scenario())
    assert reached == ["/api/games/1/review/", "/api/games/2/hint/", "/api/games/1/", "/api/races/"]


def test_a_made_up_cookie_for_each_request_still_counts_against_the_address(held, settings):
    settings.HTTP_REQUESTS_PER_ADDRESS = 3
    app, release, reached = held
    limited = ClientConcurrencyLimit(app)

    async def scenario() -> None:
        first = [asyncio.ensure_future(call(limited, scope(cookie=f"forged{i}"))) for i in range(3)]
        await asyncio.sleep(0)
        assert (await asyncio.wait_for(call(limited, scope(cookie="forged-again")), 5))[0]["status"] == 429
        elsewhere = asyncio.ensure_future(call(limited, scope(cookie="another", address="10.0.0.2")))
        await asyncio.sleep(0)
        release.set()
        for answer in await asyncio.gather(*first, elsewhere):
            assert answer[0]["status"] == 200
        assert limited.inflight == {}

    asyncio.run(scenario())
    assert len(reached) == 4, "only the address's fourth request was refused"
