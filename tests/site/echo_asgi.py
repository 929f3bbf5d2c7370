"""An ASGI app that answers with the client address its server reports, or at /scheme the scheme
(tests/site/test_compose.py, tests/hardening/test_caddy_proxy.py)."""

from __future__ import annotations

from typing import Any


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    assert scope["type"] == "http"
    if scope["path"] == "/scheme":
        body = scope["scheme"].encode()
    else:
        body = str((scope.get("client") or ("", 0))[0]).encode()
    headers = [(b"content-type", b"text/plain"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})
