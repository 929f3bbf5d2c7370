"""Every server error is seen: a request id on every request, socket and task, one structured log
line per unhandled error, JSON logs with ``LOG_FORMAT=json``, and Sentry when ``SENTRY_DSN`` is set.

Design: docs/operations.md, *Errors, request ids and Sentry*.
"""

from __future__ import annotations

import json
import logging
import re
import traceback
import uuid
import weakref
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from django.core.signals import got_request_exception
from django.http import HttpRequest, HttpResponse
from pythonjsonlogger.core import RESERVED_ATTRS
from pythonjsonlogger.json import JsonFormatter

REQUEST_ID_HEADER = "X-Request-ID"
_SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,63}")
#: Longest traceback kept in a line, in characters (its end: where the error was raised).
TRACEBACK_CHARS = 8000

#: The id of the request, socket or task this code runs for ("-" outside any).
current_request_id: ContextVar[str] = ContextVar("request_id", default="-")

errors_log = logging.getLogger("piramide.errors")


def request_id_from(value: str | None) -> str:
    """The id a client sent, if it is a sane one; else a new one."""
    if value and _SAFE_ID.fullmatch(value):
        return value
    return uuid.uuid4().hex


class RequestIdFilter(logging.Filter):
    """Gives each record the id of the request, socket or task it was logged for."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            request_id = current_request_id.get()
            if request_id == "-":
                # django.request logs a 4xx or 5xx response after the middleware has returned, and
                # passes the request along
                request_id = getattr(getattr(record, "request", None), "request_id", "-")
            record.request_id = request_id
        return True


#: The record attribute that holds a structured line's fields (``report``), for ``JsonLines``.
STRUCTURED = "piramide_fields"


class JsonLines(JsonFormatter):
    """One JSON object a line: ``time``, ``level``, ``logger``, ``request_id``, ``message``,
    ``exc_info`` when there is one, and any ``extra`` given.  A structured line's fields
    (``report``) are the object's own fields instead of a JSON text in ``message``."""

    def __init__(self) -> None:
        super().__init__(
            "%(levelname)s %(name)s %(request_id)s %(message)s",
            rename_fields={"levelname": "level", "name": "logger"},
            timestamp="time",
            json_ensure_ascii=False,
            # uvicorn's copy of each message with terminal colours; Django's request object (the
            # request id and the message already say which request)
            reserved_attrs=[*RESERVED_ATTRS, "color_message", "request"],
        )

    def add_fields(self, log_data: dict[str, Any], record: logging.LogRecord, message_dict: dict[str, Any]) -> None:
        super().add_fields(log_data, record, message_dict)
        fields = log_data.pop(STRUCTURED, None)
        if fields:
            log_data.pop("message", None)
            log_data.update(fields)


class ReportedOnce(logging.Filter):
    """Drops a record of an exception that already has its structured line (Django's own
    "Internal Server Error" with the traceback, after ``report`` wrote it)."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        return not getattr(error, "_piramide_reported", False)


def report(kind: str, error: BaseException, **fields: Any) -> None:
    """Log the one structured line of an unhandled error (``kind``: http, socket, task)."""
    line = {
        "event": "unhandled_error",
        "kind": kind,
        "request_id": current_request_id.get(),
        **fields,
        "exception": f"{type(error).__module__}.{type(error).__qualname__}",
        "error": str(error)[:1000],
        "traceback": "".join(traceback.format_exception(error))[-TRACEBACK_CHARS:],
    }
    errors_log.error(json.dumps(line, default=str, ensure_ascii=False), extra={STRUCTURED: line})
    try:
        error._piramide_reported = True  # type: ignore[attr-defined]
    except AttributeError:  # pragma: no cover - exceptions with __slots__
        pass


def _sentry_tag(request_id: str) -> None:
    import sentry_sdk

    if sentry_sdk.get_client().is_active():
        sentry_sdk.set_tag("request_id", request_id)


# ----------------------------------------------------------------- HTTP


class RequestIdMiddleware:
    """First in the chain: the request's id, in the context while it runs and on its response."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request_id = request_id_from(request.headers.get(REQUEST_ID_HEADER))
        request.request_id = request_id  # type: ignore[attr-defined]
        token = current_request_id.set(request_id)
        try:
            _sentry_tag(request_id)
            response = self.get_response(request)
        finally:
            current_request_id.reset(token)
        response[REQUEST_ID_HEADER] = request_id
        return response


def _report_request_error(sender: Any, request: HttpRequest | None = None, **kwargs: Any) -> None:
    import sys

    error = sys.exc_info()[1]
    if error is None:  # pragma: no cover - Django sends it from an except block
        return
    fields = {}
    if request is not None:
        fields = {"method": request.method, "path": request.path}
    report("http", error, **fields)


got_request_exception.connect(_report_request_error, dispatch_uid="plumbing.observability")


# ----------------------------------------------------------------- ASGI (sockets) and Celery


class ObservedApplication:
    """Around the whole ASGI application: turns on Sentry's asyncio integration in the server's
    event loop (it patches the running loop, so it cannot be done at start-up), and gives every
    socket an id, and its unhandled error one structured line and a 1011 close."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self._loops: weakref.WeakSet[Any] = weakref.WeakSet()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        self._observe_loop()
        if scope["type"] != "websocket":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        sent = headers.get(REQUEST_ID_HEADER.lower().encode(), b"").decode("latin-1")
        request_id = request_id_from(sent)
        scope = {**scope, "request_id": request_id}
        token = current_request_id.set(request_id)
        try:
            _sentry_tag(request_id)
            await self.app(scope, receive, send)
        except Exception as error:
            report("socket", error, path=scope.get("path"))
            _sentry_capture(error)
            try:
                await send({"type": "websocket.close", "code": 1011})
            except Exception:  # the socket is gone already
                pass
        finally:
            current_request_id.reset(token)

    def _observe_loop(self) -> None:
        import asyncio

        loop = asyncio.get_running_loop()
        if loop in self._loops:
            return
        self._loops.add(loop)
        import sentry_sdk

        if sentry_sdk.get_client().is_active():
            from sentry_sdk.integrations.asyncio import enable_asyncio_integration

            enable_asyncio_integration()


def _sentry_capture(error: BaseException) -> None:
    import sentry_sdk

    if sentry_sdk.get_client().is_active():
        sentry_sdk.capture_exception(error)


def task_started(task_id: str | None = None, **kwargs: Any) -> None:
    """Celery's ``task_prerun``: the task's lines carry ``task:<id>``."""
    current_request_id.set(f"task:{task_id}")


def task_ended(**kwargs: Any) -> None:
    """Celery's ``task_postrun``."""
    current_request_id.set("-")


def task_failed(
    sender: Any = None, task_id: str | None = None, exception: BaseException | None = None, **kwargs: Any
) -> None:
    """Celery's ``task_failure``: the structured line (Celery logs its own traceback as well)."""
    if exception is not None:
        report("task", exception, task=getattr(sender, "name", None), task_id=task_id)


def add_request_ids(logger: logging.Logger | None = None, **kwargs: Any) -> None:
    """Celery's ``after_setup_logger`` and ``after_setup_task_logger``: its handlers show each
    line's id as ours do, and write JSON lines with ``LOG_FORMAT=json``."""
    from django.conf import settings

    for handler in (logger or logging.getLogger()).handlers:
        handler.addFilter(RequestIdFilter())
        handler.addFilter(ReportedOnce())
        if settings.LOG_FORMAT == "json":
            handler.setFormatter(JsonLines())


# ----------------------------------------------------------------- Sentry


def sentry_init(dsn: str, *, environment: str = "", release: str = "") -> None:
    """Report unhandled errors to Sentry (settings call it when SENTRY_DSN is set)."""
    import sentry_sdk
    from sentry_sdk.integrations.celery import CeleryIntegration
    from sentry_sdk.integrations.django import DjangoIntegration
    from sentry_sdk.integrations.logging import ignore_logger

    ignore_logger(errors_log.name)  # the same error, already an event of its own
    sentry_sdk.init(
        dsn=dsn,
        environment=environment or None,
        release=release or None,
        integrations=[DjangoIntegration(), CeleryIntegration()],
        send_default_pii=False,  # no cookies, user names or addresses leave the site
        traces_sample_rate=None,  # errors only
    )
