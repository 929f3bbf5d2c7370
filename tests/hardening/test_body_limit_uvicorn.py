"""Request bodies over ``HTTP_MAX_BODY_BYTES`` are refused before they are read (plumbing/http.py),
against a real uvicorn: a 1.5 GB POST to /healthz/ used to be spooled whole to a temporary file
before CSRF, authentication or any size check ran."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from typing import Any

import pytest
from django.conf import settings

from plumbing.http import BodyTooLarge, SyncChainASGIHandler
from tests.uvicorn_server import Server, uvicorn_server

LIMIT = 64 * 1024


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    with uvicorn_server(tmp_path_factory.mktemp("bodies"), env={"DJANGO_HTTP_MAX_BODY_BYTES": str(LIMIT)}) as running:
        yield running


class Upload:
    """One POST on a raw socket: headers, then as much body as the server takes, sent from a thread
    while the response is read, as an attacker's client would."""

    def __init__(self, server: Server, path: str, headers: str, body: bytes, repeat: int) -> None:
        self.conn = socket.create_connection(("127.0.0.1", server.port), timeout=20)
        self.conn.sendall(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{headers}\r\n".encode())
        self.sent = 0
        self.send_error: Exception | None = None
        self.body, self.repeat = body, repeat
        self.sender = threading.Thread(target=self._send, daemon=True)
        self.sender.start()

    def _send(self) -> None:
        try:
            for _ in range(self.repeat):
                self.conn.sendall(self.body)
                self.sent += len(self.body)
        except OSError as error:
            self.send_error = error

    def response(self) -> tuple[int, dict[str, str], bytes, bool]:
        """Status, headers, body, and whether the server closed the connection after it."""
        data = b""
        closed = False
        try:
            while b"\r\n\r\n" not in data or not self._complete(data):
                chunk = self.conn.recv(65536)
                if not chunk:
                    closed = True
                    break
                data += chunk
            if not closed:
                closed = self.conn.recv(65536) == b""
        except ConnectionResetError:
            closed = True
        head, _, rest = data.partition(b"\r\n\r\n")
        lines = head.decode("latin1").split("\r\n")
        headers = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in lines[1:])}
        length = int(headers.get("content-length", len(rest)))
        return int(lines[0].split()[1]), headers, rest[:length], closed

    @staticmethod
    def _complete(data: bytes) -> bool:
        head, _, rest = data.partition(b"\r\n\r\n")
        for line in head.decode("latin1").split("\r\n")[1:]:
            name, _, value = line.partition(":")
            if name.lower() == "content-length":
                return len(rest) >= int(value)
        return False

    def finish(self) -> None:
        self.sender.join(timeout=20)
        self.conn.close()


def test_a_huge_declared_body_is_refused_with_the_json_413_before_it_is_read(server):
    rss_before, read_before = server.rss_kib(), server.bytes_read()
    # Says 1.5 GB, then sends up to 64 MiB of it as fast as the server takes it.
    upload = Upload(
        server,
        "/api/auth/signin/",
        "Content-Type: application/json\r\nContent-Length: 1500000000\r\n",
        b"x" * 65536,
        repeat=1024,
    )
    status, headers, body, closed = upload.response()
    spooled = server.temporary_bytes()
    upload.finish()
    assert status == 413 and headers["content-type"] == "application/json"
    assert json.loads(body) == {
        "error": "too_large",
        "message": f"the request body is over the limit of {LIMIT:,} bytes",
        "limit": LIMIT,
    }
    assert closed, "the connection is closed, so the rest of the body is never read"
    assert upload.send_error is not None and upload.sent < 16 * 2**20, (upload.sent, upload.send_error)
    assert server.bytes_read() - read_before < 2 * 2**20, "the server read next to nothing of it"
    assert spooled == 0
    assert server.rss_kib() - rss_before < 8 * 1024, "the server's memory did not grow by the body"


def test_the_issue_s_post_to_healthz_gets_a_413_page_at_once(server):
    upload = Upload(server, "/healthz/", "Content-Length: 1500000000\r\n", b"\0" * 1000, repeat=1)
    status, headers, body, closed = upload.response()
    upload.finish()
    assert status == 413 and headers["content-type"].startswith("text/html")
    assert f"{LIMIT:,} bytes".encode() in body and closed


def chunked(size: int, piece: int = 8192) -> bytes:
    out = b""
    while size > 0:
        part = min(piece, size)
        out += b"%x\r\n" % part + b"a" * part + b"\r\n"
        size -= part
    return out + b"0\r\n\r\n"


def post_chunked(server: Server, body_size: int) -> tuple[int, dict[str, Any]]:
    with socket.create_connection(("127.0.0.1", server.port), timeout=20) as conn:
        conn.sendall(
            b"POST /api/auth/signin/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n" + chunked(body_size)
        )
        data = b""
        try:
            while chunk := conn.recv(65536):
                data += chunk
        except ConnectionResetError:
            pass
    head, _, rest = data.partition(b"\r\n\r\n")
    status = int(head.split()[1])
    return status, json.loads(rest[rest.index(b"{") : rest.rindex(b"}") + 1])


def test_a_chunked_body_is_read_up_to_the_limit_and_refused_one_byte_past_it(server):
    # At the limit it reaches Django, which refuses it for its missing CSRF token, not its size.
    status, body = post_chunked(server, LIMIT)
    assert status == 403 and body["error"] != "too_large"
    status, body = post_chunked(server, LIMIT + 1)
    assert status == 413 and body["limit"] == LIMIT


def test_an_endless_chunked_body_is_cut_off_at_the_limit(server):
    rss_before, read_before = server.rss_kib(), server.bytes_read()
    piece = 8192
    upload = Upload(
        server,
        "/api/auth/signin/",
        "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n",
        b"%x\r\n" % piece + b"a" * piece + b"\r\n",
        repeat=8192,
    )  # 64 MiB, never ended
    status, _, body, closed = upload.response()
    spooled = server.temporary_bytes()
    upload.finish()
    assert status == 413 and json.loads(body)["limit"] == LIMIT and closed
    assert upload.send_error is not None and upload.sent < 16 * 2**20, (upload.sent, upload.send_error)
    assert server.bytes_read() - read_before < 2 * 2**20
    assert spooled == 0
    assert server.rss_kib() - rss_before < 8 * 1024


def test_small_bodies_go_through_on_the_same_server(server):
    status, body = post_chunked(server, 100)
    assert status == 403 and body["error"] != "too_large"


# ------------------------------------------------------------- the handler alone, message by message


def test_the_handler_asks_for_no_message_past_the_one_that_crosses_the_limit():
    asked = 0

    async def receive() -> dict[str, Any]:
        nonlocal asked
        asked += 1
        return {"type": "http.request", "body": b"a" * 16384, "more_body": True}

    with pytest.raises(BodyTooLarge):
        asyncio.run(SyncChainASGIHandler.read_body_within(receive, 65536))
    assert asked == 5  # 4 x 16 KiB is the limit exactly; the 5th crosses it


def test_the_default_limit_is_64_kib_and_django_s_own_check_agrees():
    assert settings.HTTP_MAX_BODY_BYTES == 64 * 1024
    assert settings.DATA_UPLOAD_MAX_MEMORY_SIZE == settings.HTTP_MAX_BODY_BYTES
    # a body within the limit never rolls over to a file on disk
    assert settings.FILE_UPLOAD_MAX_MEMORY_SIZE >= settings.HTTP_MAX_BODY_BYTES


def test_a_declared_length_over_the_limit_is_answered_without_reading_the_body():
    """In process: the ASGI handler answers 413 without one call to receive()."""
    from piramide_site.asgi import application  # noqa: F401  (sets Django up)
    from plumbing.http import SyncChainASGIHandler as Handler

    handler = Handler()
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        raise AssertionError("the body was read")

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "method": "POST",
        "path": "/api/auth/signin/",
        "root_path": "",
        "query_string": b"",
        "headers": [(b"content-length", str(settings.HTTP_MAX_BODY_BYTES + 1).encode())],
    }
    asyncio.run(handler(scope, receive, send))
    assert sent[0]["status"] == 413
    assert (b"connection", b"close") in [(name.lower(), value) for name, value in sent[0]["headers"]]
    assert json.loads(b"".join(message.get("body", b"") for message in sent[1:]))["error"] == "too_large"


def test_the_413_for_a_declared_length_comes_before_any_body_is_sent(server):
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as conn:
        started = time.monotonic()
        conn.sendall(b"POST /api/auth/signin/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\n\r\n")
        assert b" 413 " in conn.recv(65536).split(b"\r\n", 1)[0]
        assert time.monotonic() - started < 5
