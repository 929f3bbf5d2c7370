"""The body limit of the ASGI handler (plumbing/http.py) under bodies of every size, cut into
chunks of every size, with and without a Content-Length: 413 exactly when the body is over the
limit, never a 500, and never more read than the limit and the one chunk that crossed it."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from django.conf import settings
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

LIMIT = settings.HTTP_MAX_BODY_BYTES


def handler() -> Any:
    from piramide_site.asgi import django_asgi_app

    return django_asgi_app


sizes = st.one_of(st.sampled_from([0, 1, LIMIT - 1, LIMIT, LIMIT + 1]), st.integers(0, 3 * LIMIT))


@hsettings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    size=sizes,
    chunk=st.integers(1, 40_000),
    declared=st.booleans(),
    path=st.sampled_from(["/api/auth/signin/", "/signin/"]),
)
def test_a_body_is_refused_exactly_when_it_is_over_the_limit(size, chunk, declared, path):
    pieces = [b"a" * min(chunk, size - start) for start in range(0, size, chunk)] or [b""]
    given_out = 0
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        nonlocal given_out
        if given_out >= len(pieces):
            await asyncio.sleep(3600)  # a client that sends nothing more: never asked for
        piece = pieces[given_out]
        given_out += 1
        return {"type": "http.request", "body": piece, "more_body": given_out < len(pieces)}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    headers = [(b"host", b"127.0.0.1"), (b"content-type", b"application/json")]
    if declared:
        headers.append((b"content-length", str(size).encode()))
    scope = {
        "type": "http",
        "method": "POST",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": headers,
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
        "scheme": "http",
        "http_version": "1.1",
        "asgi": {"version": "3.0"},
    }
    asyncio.run(asyncio.wait_for(handler()(scope, receive, send), 30))

    status = sent[0]["status"]
    body = b"".join(message.get("body", b"") for message in sent[1:])
    read = sum(len(piece) for piece in pieces[:given_out])
    if size > LIMIT:
        assert status == 413
        if path.startswith("/api/"):
            assert json.loads(body)["limit"] == LIMIT
        assert read <= LIMIT + chunk
        assert given_out == 0 if declared else read > LIMIT
    else:
        assert status == 403, body  # through the whole chain, to the CSRF check
        assert read == size
