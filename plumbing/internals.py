"""Every private part of Django, asgiref, Channels and DRF the service relies on, each behind one function.

No public API does what these do; tests/site/test_internals.py checks each one's meaning on the pinned
versions, so an upgrade that changes one fails there by name.  Which internal each function reads, and
why: docs/operations.md, *Private internals*.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from typing import Any

from asgiref.sync import SyncToAsync
from channels.consumer import get_handler_name
from django.core.handlers.asgi import get_script_prefix
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Model
from django.http import HttpRequest, HttpResponseBase


def keep_connection_until(conn: BaseDatabaseWrapper, deadline: float) -> None:
    """``close_if_unusable_or_obsolete`` closes ``conn`` from ``deadline`` (``time.monotonic``) on,
    whatever ``CONN_MAX_AGE`` set when it connected."""
    conn.close_at = deadline


def calling_loop() -> asyncio.AbstractEventLoop | None:
    """The running event loop that called this thread through ``sync_to_async``, if any."""
    local = SyncToAsync.threadlocal
    if getattr(local, "main_event_loop_pid", None) != os.getpid():
        return None  # set in the process this one was forked from
    loop: asyncio.AbstractEventLoop | None = getattr(local, "main_event_loop", None)
    if loop is None or loop.is_closed() or not loop.is_running():
        return None
    return loop


def sync_function_of(call: Any) -> Callable[..., Any]:
    """The sync function a ``sync_to_async`` (Channels' ``database_sync_to_async`` too) runs."""
    func: Callable[..., Any] = call.func
    return func


def in_atomic_block(conn: BaseDatabaseWrapper) -> bool:
    """Whether ``conn`` is inside ``transaction.atomic`` (without connecting, as ``get_autocommit`` would)."""
    return bool(conn.in_atomic_block)


def cache_related(instance: Model, name: str, value: Model) -> None:
    """``instance.<name>`` (a foreign key) reads ``value`` without a query; its ``<name>_id`` is left as it is."""
    instance._state.fields_cache[name] = value


def related_is_cached(instance: Model, name: str) -> bool:
    """Whether reading ``instance.<name>`` (a foreign key) needs no query."""
    return name in instance._state.fields_cache


def django_request(request: Any) -> HttpRequest:
    """The ``HttpRequest`` a DRF ``Request`` wraps (Django's ``login``, ``logout``, ``get_token`` take it)."""
    wrapped: HttpRequest = request._request
    return wrapped


def handler_name(message: dict[str, Any]) -> str:
    """The consumer method for a message: its ``type`` with dots as underscores (ValueError if it starts with one)."""
    name: str = get_handler_name(message)
    return name


def asgi_script_prefix(scope: dict[str, Any]) -> str:
    """The script prefix of an ASGI request: ``FORCE_SCRIPT_NAME``, else the scope's ``root_path``."""
    prefix: str = get_script_prefix(scope)
    return prefix


def handled_by(response: HttpResponseBase, handler_class: type) -> None:
    """Closing ``response`` sends ``request_finished`` with ``handler_class`` as its sender."""
    response._handler_class = handler_class  # type: ignore[attr-defined]
