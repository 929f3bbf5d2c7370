"""Django's ASGI handler, with each request's sync work done in one hop to a kept thread.

The middleware chain is built sync, as under WSGI, and a request's signal, request object, chain,
view and response close run in one call on a thread of a pool the process keeps
(``HTTP_THREADS``).  A body is read only up to ``HTTP_MAX_BODY_BYTES``, refused with 413 before
any middleware or session exists.  Why, and what Django's own handler cost: docs/operations.md,
*The ASGI handler*.
"""

from __future__ import annotations

import logging
import tempfile
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import django
from asgiref.sync import sync_to_async
from django.conf import settings
from django.core import signals
from django.core.exceptions import RequestAborted
from django.core.handlers.asgi import ASGIHandler
from django.db import close_old_connections
from django.http import FileResponse, HttpResponseBase, StreamingHttpResponse
from django.urls import set_script_prefix

from . import errors, headers
from .internals import asgi_script_prefix, handled_by

log = logging.getLogger(__name__)


async def _replay(chunks: list[bytes]) -> AsyncIterator[bytes]:
    for chunk in chunks:
        yield chunk


class SyncChainASGIHandler(ASGIHandler):
    def __init__(self) -> None:
        super().__init__()
        self.executor = ThreadPoolExecutor(max_workers=settings.HTTP_THREADS, thread_name_prefix="http")

    def load_middleware(self, is_async: bool = False) -> None:
        super().load_middleware(is_async=False)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        await self.handle(scope, receive, send)

    async def handle(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        limit = settings.HTTP_MAX_BODY_BYTES
        try:
            if declared_length(scope) > limit:
                raise BodyTooLarge
            body_file = await self.read_body_within(receive, limit)
        except RequestAborted:
            return
        except BodyTooLarge:
            await self.refuse_body(scope, send, limit)
            return
        set_script_prefix(asgi_script_prefix(scope))
        try:
            response = await sync_to_async(self.respond, thread_sensitive=False, executor=self.executor)(
                scope, body_file
            )
            try:
                await self.send_response(response, send)
            finally:
                if not response.closed:
                    await sync_to_async(self._close, thread_sensitive=False, executor=self.executor)(response)
        finally:
            body_file.close()

    @staticmethod
    async def read_body_within(receive: Any, limit: int) -> Any:
        """Django's ``read_body``, counting: more than ``limit`` bytes raise ``BodyTooLarge``, so a
        body never reaches its temporary file's disk (FILE_UPLOAD_MAX_MEMORY_SIZE is larger)."""
        body_file = tempfile.SpooledTemporaryFile(max_size=settings.FILE_UPLOAD_MAX_MEMORY_SIZE, mode="w+b")
        size = 0
        try:
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    raise RequestAborted()
                chunk = message.get("body", b"")
                size += len(chunk)
                if size > limit:
                    raise BodyTooLarge
                body_file.write(chunk)
                if not message.get("more_body", False):
                    break
        except BaseException:
            body_file.close()
            raise
        body_file.seek(0)
        return body_file

    async def refuse_body(self, scope: dict[str, Any], send: Any, limit: int) -> None:
        """The 413, on the event loop, and the connection closed after it: whatever the client
        still sends is never read (uvicorn closes a connection whose response says ``close``)."""
        response = errors.body_too_large(scope.get("path", ""), limit)
        response["Content-Length"] = str(len(response.content))
        response["Connection"] = "close"
        response["X-Content-Type-Options"] = "nosniff"
        response["Content-Security-Policy"] = headers.STRICT
        await self.send_response(response, send)

    def respond(self, scope: dict[str, Any], body_file: Any) -> HttpResponseBase:
        """Everything sync about one request, on one pool thread: its response, closed unless it streams."""
        signals.request_started.send(sender=self.__class__, scope=scope)
        request, response = self.create_request(scope, body_file)
        if request is not None:
            response = self.get_response(request)
            handled_by(response, self.__class__)
            if isinstance(response, FileResponse):
                response.block_size = self.chunk_size
        assert response is not None, "Django's create_request answers with a request or a response"
        if isinstance(response, StreamingHttpResponse) and not response.is_async:
            # read here, on this pool thread, and sent from memory (as Django would have, but on its one thread)
            chunks = list(response.streaming_content)  # type: ignore[arg-type]  # not is_async: an iterator
            self._close(response)
            response.streaming_content = _replay(chunks)
        elif isinstance(response, StreamingHttpResponse):
            # closed once sent, maybe on another pool thread: this thread's connection goes back now
            close_old_connections()
        else:
            self._close(response)
        return response

    @staticmethod
    def _close(response: HttpResponseBase) -> None:
        """Closes the response (``request_finished``); a receiver's error is logged, the response still goes out."""
        try:
            response.close()
        except Exception:
            log.exception("closing the response of a request failed")


class BodyTooLarge(Exception):
    """A request body over ``HTTP_MAX_BODY_BYTES``."""


def declared_length(scope: dict[str, Any]) -> int:
    """The Content-Length the request declares, 0 without one (the server has checked its form)."""
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return 0
    return 0


def get_asgi_application() -> SyncChainASGIHandler:
    """``django.core.asgi.get_asgi_application`` with the handler above."""
    django.setup(set_prefix=False)
    return SyncChainASGIHandler()
