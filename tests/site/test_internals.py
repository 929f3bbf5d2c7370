"""The private parts of Django, asgiref, Channels and DRF the service relies on (plumbing/internals.py),
one test each: an upgrade that changes what one means fails here, the message naming it."""

from __future__ import annotations

import asyncio
import hashlib
import inspect
import io
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

import pytest
from asgiref.sync import sync_to_async
from channels.auth import get_user
from channels.consumer import AsyncConsumer
from channels.exceptions import StopConsumer
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.core import signals
from django.core.handlers.asgi import ASGIHandler, ASGIRequest
from django.db import close_old_connections, connection, connections, transaction
from django.http import HttpRequest, HttpResponse
from django.test import Client
from rest_framework.request import Request

from games.models import Game
from plumbing import internals
from plumbing.http import SyncChainASGIHandler

T = TypeVar("T")


def on_a_thread(work: Callable[[], T]) -> T:
    """``work`` on a thread of its own, with its own database connection, closed after."""
    result: list[T] = []
    failure: list[Exception] = []

    def run() -> None:
        try:
            result.append(work())
        except Exception as error:
            failure.append(error)
        finally:
            connections.close_all()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(30)
    if failure:
        raise failure[0]
    return result[0]


@pytest.mark.django_db(transaction=True)
def test_close_at_is_the_deadline_close_if_unusable_or_obsolete_reads() -> None:
    def kept_then_closed() -> tuple[bool, bool, bool]:
        conn = connections["default"]
        conn.ensure_connection()
        internals.keep_connection_until(conn, time.monotonic() + 300)
        conn.close_if_unusable_or_obsolete()
        kept = conn.connection is not None
        internals.keep_connection_until(conn, time.monotonic() - 1)
        conn.close_if_unusable_or_obsolete()
        closed = conn.connection is None
        conn.ensure_connection()  # a new connection takes CONN_MAX_AGE's deadline again
        renewed = conn.close_at is None or conn.close_at > time.monotonic() - 1
        return kept, closed, renewed

    kept, closed, renewed = on_a_thread(kept_then_closed)
    assert kept, "BaseDatabaseWrapper.close_at: a deadline ahead no longer keeps the connection open"
    assert closed, "BaseDatabaseWrapper.close_at: close_if_unusable_or_obsolete no longer closes past it"
    assert renewed, "BaseDatabaseWrapper.close_at: connecting no longer sets it from CONN_MAX_AGE"


@pytest.mark.asyncio
async def test_a_thread_sync_to_async_runs_knows_the_loop_that_called_it() -> None:
    loop = asyncio.get_running_loop()
    message = "SyncToAsync.threadlocal.main_event_loop: no longer the loop that called the thread"
    assert await sync_to_async(internals.calling_loop, thread_sensitive=False)() is loop, message
    assert await sync_to_async(internals.calling_loop)() is loop, message
    assert on_a_thread(internals.calling_loop) is None, "a thread no loop called knows no loop"


def test_after_its_loop_closed_a_thread_knows_no_loop() -> None:
    async def pool_thread_knows() -> tuple[int, bool]:
        return await sync_to_async(
            lambda: (threading.get_ident(), internals.calling_loop() is not None), thread_sensitive=False
        )()

    loop = asyncio.new_event_loop()
    try:
        _, known = loop.run_until_complete(pool_thread_knows())
    finally:
        loop.close()
    assert known
    assert internals.calling_loop() is None


@pytest.mark.django_db(transaction=True)
def test_channels_get_user_runs_a_sync_function_that_reads_the_session_user() -> None:
    user = get_user_model().objects.create_user("reader", password="a long password 1")
    client = Client()
    client.force_login(user)
    read = internals.sync_function_of(get_user)
    assert not inspect.iscoroutinefunction(read), "SyncToAsync.func: no longer the sync function"
    assert read({"session": client.session}) == user, (
        "SyncToAsync.func of channels.auth.get_user: not the session's user"
    )
    assert asyncio.run(get_user({"session": client.session})) == user
    session = client.session
    session["_auth_user_hash"] = "not the hash"
    assert isinstance(read({"session": session}), AnonymousUser), (
        "channels.auth.get_user no longer checks the session's hash"
    )


@pytest.mark.django_db(transaction=True)
def test_in_atomic_block_says_whether_a_transaction_is_open_without_connecting() -> None:
    assert not internals.in_atomic_block(connection)
    with transaction.atomic():
        assert internals.in_atomic_block(connection), "BaseDatabaseWrapper.in_atomic_block: not set inside atomic"
        with transaction.atomic():
            assert internals.in_atomic_block(connection)
    assert not internals.in_atomic_block(connection), "BaseDatabaseWrapper.in_atomic_block: still set after atomic"
    connection.close()
    assert not internals.in_atomic_block(connection)
    assert connection.connection is None


@pytest.mark.django_db
def test_a_cached_related_object_is_read_without_a_query(django_assert_num_queries: Any) -> None:
    user = get_user_model().objects.create_user("owner", password="a long password 1")
    game = Game(player_id=user.pk)
    assert not internals.related_is_cached(game, "player")
    internals.cache_related(game, "player", user)
    assert internals.related_is_cached(game, "player"), "Model._state.fields_cache: cache_related no longer caches"
    with django_assert_num_queries(0):
        assert game.player is user, "Model._state.fields_cache: no longer where a foreign key's object is read from"
    read = Game(player_id=user.pk)
    with django_assert_num_queries(1):
        read.player  # noqa: B018
    assert internals.related_is_cached(read, "player"), (
        "Model._state.fields_cache: no longer where a read object is kept"
    )


def test_a_drf_request_wraps_the_django_request() -> None:
    http = HttpRequest()
    assert internals.django_request(Request(http)) is http, "rest_framework Request._request: not the HttpRequest"


def test_the_script_prefix_is_force_script_name_else_the_root_path(settings: Any) -> None:
    settings.FORCE_SCRIPT_NAME = None
    assert internals.asgi_script_prefix({"root_path": "/play"}) == "/play"
    assert internals.asgi_script_prefix({}) == ""
    settings.FORCE_SCRIPT_NAME = "/forced"
    assert internals.asgi_script_prefix({"root_path": "/play"}) == "/forced", (
        "django.core.handlers.asgi.get_script_prefix changed"
    )


def test_closing_a_response_sends_request_finished_from_the_handler_it_names() -> None:
    senders: list[Any] = []

    def heard(sender: Any, **kwargs: Any) -> None:
        senders.append(sender)

    # as Django's test client does: the signal's other receiver would check this thread's database
    # connection, which an earlier test on the same process may have left open
    signals.request_finished.disconnect(close_old_connections)
    signals.request_finished.connect(heard)
    try:
        response = HttpResponse("x")
        internals.handled_by(response, SyncChainASGIHandler)
        response.close()
    finally:
        signals.request_finished.disconnect(heard)
        signals.request_finished.connect(close_old_connections)
    assert SyncChainASGIHandler in senders, "HttpResponseBase._handler_class: no longer request_finished's sender"


def test_the_asgi_handler_builds_its_chain_through_load_middleware_and_makes_requests() -> None:
    calls: list[bool] = []

    class Probe(ASGIHandler):
        def load_middleware(self, is_async: bool = False) -> None:
            calls.append(is_async)
            super().load_middleware(is_async=False)

    handler = Probe()
    assert calls == [True], "ASGIHandler.__init__ no longer builds its chain through load_middleware"
    scope = {"type": "http", "method": "GET", "path": "/healthz/", "query_string": b"", "headers": []}
    request, refusal = handler.create_request(scope, io.BytesIO())
    assert isinstance(request, ASGIRequest) and refusal is None, "ASGIHandler.create_request: not (request, None)"
    bad = dict(scope, query_string=b"\xff")  # not UTF-8
    request, refusal = handler.create_request(bad, io.BytesIO())
    assert request is None and refusal is not None and refusal.status_code == 400, (
        "ASGIHandler.create_request: a bad request is not (None, 400)"
    )
    assert inspect.iscoroutinefunction(handler._middleware_chain) is False, (
        "load_middleware(is_async=False): not a sync chain"
    )


def test_send_response_sends_the_start_then_the_body_in_chunk_size_pieces() -> None:
    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    handler = SyncChainASGIHandler()
    response = HttpResponse(b"x" * (handler.chunk_size + 1), headers={"X-Probe": "1"})
    asyncio.run(handler.send_response(response, send))
    assert sent[0]["type"] == "http.response.start" and sent[0]["status"] == 200
    assert (b"X-Probe", b"1") in sent[0]["headers"]
    assert [len(m["body"]) for m in sent[1:]] == [handler.chunk_size, 1], (
        "ASGIHandler.chunk_size / send_response changed"
    )
    assert [m.get("more_body") for m in sent[1:]] == [True, False]


#: ``ASGIHandler.handle`` of Django 5.2.19, which ``SyncChainASGIHandler.handle`` replaces whole.
HANDLE_SHA256 = "98faeb5bef800331e6a8002fbc96b30e4122a23438ae45a047190a531ea11323"


def test_django_s_handle_is_the_one_the_custom_handler_replaces() -> None:
    digest = hashlib.sha256(inspect.getsource(ASGIHandler.handle).encode()).hexdigest()
    assert digest == HANDLE_SHA256, (
        "Django changed ASGIHandler.handle, which plumbing.http.SyncChainASGIHandler.handle replaces: "
        "carry the change over (or not), then update HANDLE_SHA256"
    )


def test_a_consumer_hands_every_message_to_its_dispatch_under_its_handler_name() -> None:
    seen: list[str] = []

    class Probe(AsyncConsumer):
        channel_layer_alias = None

        async def dispatch(self, message: dict[str, Any]) -> None:
            seen.append(internals.handler_name(message))
            if len(seen) == 2:
                raise StopConsumer()

    messages = iter([{"type": "websocket.connect"}, {"type": "websocket.receive", "text": "{}"}])

    async def receive() -> dict[str, Any]:
        return next(messages)

    async def send(message: dict[str, Any]) -> None:
        pass

    asyncio.run(asyncio.wait_for(Probe()({"type": "websocket"}, receive, send), 5))
    assert seen == ["websocket_connect", "websocket_receive"], (
        "AsyncConsumer no longer routes messages through dispatch, or get_handler_name changed"
    )
    with pytest.raises(ValueError):
        internals.handler_name({"type": "_private.call"})
