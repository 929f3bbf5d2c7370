"""Every server error is seen: one structured log line with the request id, the id in the 500's
JSON and header, an id on sockets and tasks, and an event to Sentry when SENTRY_DSN is set
(a real HTTP endpoint standing in for Sentry's ingestion), none without it."""

from __future__ import annotations

import gzip
import io
import json
import logging
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from channels.testing import WebsocketCommunicator
from django.test import Client

from plumbing.observability import ObservedApplication

ROOT = Path(__file__).resolve().parents[2]
FAULT = "/api/test-only/fault/"


@pytest.fixture
def console() -> Iterator[io.StringIO]:
    """What the site's own log handler (settings.LOGGING's console) writes, as it writes it."""
    handler = next(h for h in logging.getLogger().handlers if getattr(h, "name", "") == "console")
    out = io.StringIO()
    # swapped, not setStream(): that flushes the old stream, which an earlier test's capture may have closed
    previous, handler.stream = handler.stream, out  # type: ignore[attr-defined]
    yield out
    handler.stream = previous  # type: ignore[attr-defined]


@pytest.mark.urls("tests.site.failing_urls")
def test_an_unhandled_error_is_one_structured_line_and_a_json_500_with_its_request_id(console):
    response = Client(raise_request_exception=False).get(FAULT, HTTP_X_REQUEST_ID="req-7f3a.check:1")
    assert response.status_code == 500
    assert response["X-Request-ID"] == "req-7f3a.check:1"
    assert response.json() == {
        "error": "server_error",
        "message": "something went wrong on our side; it has been logged",
        "request_id": "req-7f3a.check:1",
    }
    lines = [line for line in console.getvalue().splitlines() if "req-7f3a.check:1" in line]
    assert len(lines) == 1, console.getvalue()
    assert "Internal Server Error" not in console.getvalue(), "Django's multi-line copy is dropped"
    record = json.loads(lines[0].split(" ", 3)[3])
    assert record["event"] == "unhandled_error" and record["kind"] == "http"
    assert record["request_id"] == "req-7f3a.check:1" and record["method"] == "GET" and record["path"] == FAULT
    assert record["exception"] == "builtins.ZeroDivisionError" and "100 // shares" in record["traceback"]


@pytest.mark.urls("tests.site.failing_urls")
@pytest.mark.parametrize("sent", ["x" * 65, "has space", "new\nline", "-leading-dash", "semi;colon", ""])
def test_an_insane_request_id_is_replaced_by_a_new_one(sent):
    response = Client(raise_request_exception=False).get(FAULT, HTTP_X_REQUEST_ID=sent)
    given = response["X-Request-ID"]
    assert given != sent and len(given) == 32 and all(c in "0123456789abcdef" for c in given)
    assert response.json()["request_id"] == given


@pytest.mark.django_db
def test_every_response_carries_its_request_id():
    first, second = Client().get("/healthz/"), Client().get("/healthz/")
    assert len(first["X-Request-ID"]) == 32 and first["X-Request-ID"] != second["X-Request-ID"]
    assert Client().get("/healthz/", HTTP_X_REQUEST_ID="from-the-proxy-1")["X-Request-ID"] == "from-the-proxy-1"


@pytest.mark.django_db
def test_djangos_line_for_a_missing_page_shows_the_request_id(console):
    """django.request logs a 404 after the middleware has returned, outside the request's context."""
    assert Client().get("/no-such-page/", HTTP_X_REQUEST_ID="lost-404").status_code == 404
    assert "WARNING django.request [lost-404] Not Found: /no-such-page/" in console.getvalue()


@pytest.mark.asyncio
async def test_a_socket_error_is_one_line_with_the_socket_id_and_a_1011_close(caplog):
    async def faulty(scope: dict[str, Any], receive: Any, send: Any) -> None:
        await receive()
        {}["missing"]  # a real KeyError

    app = ObservedApplication(faulty)
    communicator = WebsocketCommunicator(app, "/ws/games/1/", headers=[(b"x-request-id", b"sock-42")])
    with caplog.at_level(logging.ERROR, logger="piramide.errors"):
        connected, code = await communicator.connect()
    assert (connected, code) == (False, 1011)
    lines = [json.loads(r.getMessage()) for r in caplog.records if r.name == "piramide.errors"]
    assert len(lines) == 1
    assert lines[0]["kind"] == "socket" and lines[0]["request_id"] == "sock-42" and lines[0]["path"] == "/ws/games/1/"
    assert lines[0]["exception"] == "builtins.KeyError"


def test_a_failing_task_logs_one_line_with_its_task_id(caplog):
    from piramide_site.celery import app

    @app.task(name="tests.site.failing_task")
    def failing_task() -> None:
        logging.getLogger("tests.task").warning("about to fail")
        raise LookupError("no such challenge")

    with caplog.at_level(logging.WARNING):
        result = failing_task.apply(throw=False)
    assert result.failed()
    said = [r for r in caplog.records if r.name == "tests.task"]
    assert said and said[0].request_id == f"task:{result.id}"
    lines = [json.loads(r.getMessage()) for r in caplog.records if r.name == "piramide.errors"]
    assert len(lines) == 1
    assert (
        lines[0]["kind"] == "task"
        and lines[0]["request_id"] == f"task:{result.id}"
        and lines[0]["task_id"] == result.id
    )
    assert lines[0]["exception"] == "builtins.LookupError"


# ----------------------------------------------------------------- Sentry


class FakeSentry(ThreadingHTTPServer):
    """Sentry's ingestion as far as the SDK can tell: takes envelopes, keeps them."""

    def __init__(self) -> None:
        self.envelopes: list[bytes] = []
        super().__init__(("127.0.0.1", 0), self.Handler)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            encoding = self.headers.get("Content-Encoding", "")
            if encoding == "gzip":
                body = gzip.decompress(body)
            elif encoding == "br":
                import brotli  # type: ignore[import-not-found]

                body = brotli.decompress(body)
            self.server.envelopes.append(body)  # type: ignore[attr-defined]
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, *args: Any) -> None:
            pass


@pytest.fixture
def fake_sentry() -> Iterator[FakeSentry]:
    server = FakeSentry()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


SCRIPT = f"""
import django, sentry_sdk
django.setup()
from django.test import Client, override_settings
from django.test.utils import setup_test_environment
setup_test_environment()
with override_settings(ROOT_URLCONF="tests.site.failing_urls"):
    response = Client(raise_request_exception=False).get("{FAULT}", HTTP_X_REQUEST_ID="sentry-check-1")
assert response.status_code == 500, response.status_code
print("active" if sentry_sdk.get_client().is_active() else "inactive")
sentry_sdk.flush(timeout=10)
"""


def run_site(dsn: str | None) -> str:
    env = {k: v for k, v in os.environ.items() if k != "SENTRY_DSN"}
    env.update(DJANGO_SETTINGS_MODULE="piramide_site.settings.test", PYTHONPATH=str(ROOT))
    if dsn:
        env["SENTRY_DSN"] = dsn
    out = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout.strip().splitlines()[-1]


def test_with_sentry_dsn_an_unhandled_error_reaches_sentry(fake_sentry):
    port = fake_sentry.server_address[1]
    assert run_site(f"http://publickey@127.0.0.1:{port}/42") == "active"
    events = [envelope for envelope in fake_sentry.envelopes if b'"type":"event"' in envelope.replace(b" ", b"")]
    assert len(events) == 1, fake_sentry.envelopes
    assert b"ZeroDivisionError" in events[0] and b"sentry-check-1" in events[0]


def test_without_sentry_dsn_nothing_is_sent(fake_sentry):
    assert run_site(None) == "inactive"
    assert fake_sentry.envelopes == []


# ----------------------------------------------------------------- JSON logs (LOG_FORMAT=json)


@pytest.fixture
def json_console(console: io.StringIO) -> Iterator[io.StringIO]:
    """The console handler as ``LOG_FORMAT=json`` configures it."""
    from plumbing.observability import JsonLines

    handler = next(h for h in logging.getLogger().handlers if getattr(h, "name", "") == "console")
    previous = handler.formatter
    handler.setFormatter(JsonLines())
    yield console
    handler.setFormatter(previous)


@pytest.mark.urls("tests.site.failing_urls")
def test_with_json_logs_an_unhandled_error_is_one_object_whose_fields_are_its_own(json_console):
    Client(raise_request_exception=False).get(FAULT, HTTP_X_REQUEST_ID="json-err-1")
    lines = [json.loads(line) for line in json_console.getvalue().splitlines()]
    mine = [line for line in lines if line.get("request_id") == "json-err-1"]
    assert len(mine) == 1, lines
    (record,) = mine
    assert record["level"] == "ERROR" and record["logger"] == "piramide.errors" and "time" in record
    assert record["event"] == "unhandled_error" and record["kind"] == "http" and record["path"] == FAULT
    assert record["exception"] == "builtins.ZeroDivisionError" and "100 // shares" in record["traceback"]
    assert "message" not in record, "the fields are the object's own, not a JSON text inside it"


def test_with_json_logs_an_ordinary_line_keeps_its_message_and_extras(json_console):
    logging.getLogger("piramide.check").warning("deal %s refused", 7, extra={"preset": "forty"})
    (record,) = [json.loads(line) for line in json_console.getvalue().splitlines()]
    assert record["message"] == "deal 7 refused" and record["preset"] == "forty"
    assert record["level"] == "WARNING" and record["logger"] == "piramide.check" and record["request_id"] == "-"


def test_the_worker_writes_json_lines_when_told_to(settings):
    from plumbing.observability import JsonLines, add_request_ids

    settings.LOG_FORMAT = "json"
    logger = logging.getLogger("tests.site.celery_like")
    handler = logging.StreamHandler(io.StringIO())
    logger.addHandler(handler)
    try:
        add_request_ids(logger=logger)
        assert isinstance(handler.formatter, JsonLines)
        logger.error("worker line")
        record = json.loads(handler.stream.getvalue())
        assert record["message"] == "worker line" and record["request_id"] == "-"
    finally:
        logger.removeHandler(handler)


def test_an_unknown_log_format_stops_the_settings_from_loading():
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "piramide_site.settings.test", "LOG_FORMAT": "xml"}
    result = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert result.returncode != 0 and "LOG_FORMAT must be line or json" in result.stderr


@pytest.mark.slow
def test_a_real_server_with_json_logs_writes_nothing_but_json_lines_uvicorns_own_included(tmp_path):
    import urllib.error
    import urllib.request

    from tests.uvicorn_server import uvicorn_server

    with uvicorn_server(tmp_path, env={"LOG_FORMAT": "json"}, args=("--access-log",)) as server:
        with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/offline/", timeout=10) as response:
            assert response.status == 200
        with pytest.raises(urllib.error.HTTPError) as missing:
            urllib.request.urlopen(f"http://127.0.0.1:{server.port}/no-such-page/", timeout=10)
        request_id = missing.value.headers["X-Request-ID"]
    text = server.log_text()
    records = [json.loads(line) for line in text.splitlines() if line.strip()]  # every line is JSON
    loggers = {record["logger"] for record in records}
    assert {"uvicorn.error", "uvicorn.access"} <= loggers, text
    assert any(r["logger"] == "uvicorn.access" and "GET /offline/" in r["message"] for r in records)
    assert any(r["logger"] == "django.request" and r["request_id"] == request_id for r in records), text
