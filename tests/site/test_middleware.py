"""HTTP under ASGI: the middleware chain runs sync, on the request's thread, entered once
(plumbing/http.py); static files and the security headers still come through it."""

from __future__ import annotations

import threading

from asgiref.testing import ApplicationCommunicator
from django.urls import path

from plumbing.http import SyncChainASGIHandler
from tests.faults.stack import run_async

THREADS: list[tuple[str, int]] = []


class Recorder:
    """A test middleware: notes the thread it runs on."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        THREADS.append((request.path, threading.get_ident()))
        return self.get_response(request)


async def get(application, path):
    scope = {
        "type": "http",
        "http_version": "1.1",
        "method": "GET",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "scheme": "http",
        "headers": [(b"host", b"127.0.0.1")],
        "client": ("127.0.0.1", 5000),
        "server": ("127.0.0.1", 80),
    }
    communicator = ApplicationCommunicator(application, scope)
    await communicator.send_input({"type": "http.request", "body": b"", "more_body": False})
    start = await communicator.receive_output(10)
    body = b""
    while True:
        chunk = await communicator.receive_output(10)
        body += chunk.get("body", b"")
        if not chunk.get("more_body"):
            break
    await communicator.wait(10)
    return start["status"], {k.decode().lower(): v.decode() for k, v in start["headers"]}, body


# The requests run on a loop thread of their own (tests/faults/stack.py): the browser tests leave
# Playwright's loop running on the main thread.


def test_every_middleware_runs_on_the_one_thread_of_its_request(settings):
    recorder = f"{__name__}.Recorder"
    settings.MIDDLEWARE = [recorder, *settings.MIDDLEWARE, recorder]

    async def two_requests() -> int:
        THREADS.clear()
        status, _, _ = await get(SyncChainASGIHandler(), "/static/frontend/site.css")
        assert status == 200
        assert len(THREADS) == 1, "the static file is served above the innermost middleware"
        THREADS.clear()
        status, _, _ = await get(SyncChainASGIHandler(), "/healthz/")
        return threading.get_ident()

    loop_thread = run_async(two_requests(), timeout=30)
    assert [path for path, _ in THREADS] == ["/healthz/", "/healthz/"]
    (thread,) = {ident for _, ident in THREADS}
    assert thread != loop_thread, "not on the event loop's thread"


def test_the_site_serves_a_static_file_with_the_security_headers():
    from piramide_site.asgi import application

    status, headers, body = run_async(get(application, "/static/frontend/site.css"), timeout=30)
    assert status == 200 and b"{" in body
    assert headers["content-security-policy"].startswith("default-src 'self'")
    assert "camera=()" in headers["permissions-policy"]
    assert headers["x-content-type-options"] == "nosniff"


def test_requests_share_the_kept_threads_and_each_is_started_and_finished_once(settings):
    """No thread is started per request: with one HTTP thread, every request runs on it, and the
    request_started and request_finished signals fire once each (a streamed static file's after it was sent)."""
    from django.core import signals

    recorder = f"{__name__}.Recorder"
    settings.MIDDLEWARE = [recorder, *settings.MIDDLEWARE]
    settings.HTTP_THREADS = 1
    fired: list[tuple[str, int]] = []

    def started(**kwargs):
        fired.append(("started", threading.get_ident()))

    def finished(**kwargs):
        fired.append(("finished", threading.get_ident()))

    signals.request_started.connect(started)
    signals.request_finished.connect(finished)

    async def three_requests() -> list[int]:
        THREADS.clear()
        handler = SyncChainASGIHandler()
        statuses = [
            (await get(handler, path))[0] for path in ("/no-such-page/", "/static/frontend/site.css", "/no-such-page/")
        ]
        return statuses

    try:
        statuses = run_async(three_requests(), timeout=30)
    finally:
        signals.request_started.disconnect(started)
        signals.request_finished.disconnect(finished)
    assert statuses == [404, 200, 404]
    assert [kind for kind, _ in fired] == ["started", "finished"] * 3
    threads = {ident for _, ident in THREADS} | {ident for _, ident in fired}
    assert len(threads) == 1, "every request and its signals on the one kept thread"


READS: list[str] = []


def streamed(request):
    from django.http import StreamingHttpResponse

    def chunks():
        for part in (b"one ", b"two"):
            READS.append(threading.current_thread().name)
            yield part

    return StreamingHttpResponse(chunks())


urlpatterns = [path("streamed/", streamed)]


def test_a_sync_streaming_response_is_read_on_the_requests_pool_thread(settings):
    """Not on asgiref's one thread-sensitive thread, where Django would read it (behind every
    socket's sign-in); and closed once, so request_finished fires once."""
    from django.core import signals

    settings.ROOT_URLCONF = __name__
    READS.clear()
    finished: list[str] = []

    def on_finished(**kwargs):
        finished.append(threading.current_thread().name)

    signals.request_finished.connect(on_finished)
    try:
        status, _, body = run_async(get(SyncChainASGIHandler(), "/streamed/"), timeout=30)
    finally:
        signals.request_finished.disconnect(on_finished)
    assert (status, body) == (200, b"one two")
    assert len(READS) == 2 and all(name.startswith("http") for name in READS), READS
    assert finished == READS[:1], "closed once, on the thread that read it"
