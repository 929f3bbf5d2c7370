"""One error shape for the whole API: ``{"error": code, "message": text a person can read, ...}``.

Services raise ``ServiceError`` subclasses, which know their HTTP status; DRF's own errors
(validation, authentication, throttling, 404) are reshaped here too, so no client ever has to
guess how an error looks.
"""

from __future__ import annotations

import logging
import math
import sys
from html import escape
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied, RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.db import DEFAULT_DB_ALIAS, DatabaseError, InterfaceError, OperationalError, connections
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views import defaults
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

log = logging.getLogger(__name__)

#: While the database does not answer: what clients are told, and how long to wait (Retry-After).
UNAVAILABLE_RETRY_AFTER = 5
UNAVAILABLE_MESSAGE = "the database is not answering: nothing was changed; try again in a few seconds"


class ServiceError(Exception):
    """A refusal from a service: the message is for the player, the code for the client."""

    status_code: int = status.HTTP_400_BAD_REQUEST
    code: str = "invalid"

    def __init__(self, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.message = message
        self.extra = extra


class BadRequest(ServiceError):
    status_code, code = status.HTTP_400_BAD_REQUEST, "invalid"


class IllegalMove(ServiceError):
    status_code, code = status.HTTP_400_BAD_REQUEST, "illegal_move"


class NotYours(ServiceError):
    status_code, code = status.HTTP_403_FORBIDDEN, "not_yours"


class NotAllowed(ServiceError):
    status_code, code = status.HTTP_403_FORBIDDEN, "not_allowed"


class DealSecret(NotAllowed):
    """Asked for what would tell more of a challenge's deal than the asker's own ranked game has
    shown them, before its day is over (docs/fairplay.md); ``opens_at`` says when it opens."""

    code = "deal_secret"


class NotFound(ServiceError):
    status_code, code = status.HTTP_404_NOT_FOUND, "not_found"


class Conflict(ServiceError):
    status_code, code = status.HTTP_409_CONFLICT, "conflict"


class StaleMove(ServiceError):
    status_code, code = status.HTTP_409_CONFLICT, "stale"


class GameFinished(ServiceError):
    status_code, code = status.HTTP_409_CONFLICT, "finished"


class Throttled(ServiceError):
    """Too much at once from one client: try again after ``retry_after`` seconds (a header too)."""

    status_code, code = status.HTTP_429_TOO_MANY_REQUESTS, "throttled"


class Unavailable(ServiceError):
    """The site cannot take this work now (every place for it is taken, nothing is ready):
    try again after ``retry_after`` seconds (a header too)."""

    status_code, code = status.HTTP_503_SERVICE_UNAVAILABLE, "unavailable"


def _flatten(detail: Any, prefix: str = "") -> list[str]:
    if isinstance(detail, dict):
        out: list[str] = []
        for key, value in detail.items():
            label = "" if key == "non_field_errors" else f"{prefix}{key}: "
            out.extend(_flatten(value, label))
        return out
    if isinstance(detail, list):
        return [text for item in detail for text in _flatten(item, prefix)]
    return [f"{prefix}{detail}"]


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, ServiceError):
        wait = exc.extra.get("retry_after")
        headers = {"Retry-After": str(math.ceil(wait))} if wait is not None else None
        return Response(
            {"error": exc.code, "message": exc.message, **exc.extra}, status=exc.status_code, headers=headers
        )
    if isinstance(exc, (OperationalError, InterfaceError)):
        log.warning("database unavailable: %s", exc)
        unavailable = {"error": "unavailable", "message": UNAVAILABLE_MESSAGE, "retry_after": UNAVAILABLE_RETRY_AFTER}
        return Response(unavailable, status=503, headers={"Retry-After": str(UNAVAILABLE_RETRY_AFTER)})
    if isinstance(exc, Http404):
        exc = exceptions.NotFound("not found")
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        body: dict[str, Any] = {"error": "invalid", "message": "; ".join(_flatten(exc.detail)), "fields": exc.detail}
    elif isinstance(exc, exceptions.Throttled):
        wait = exc.wait  # type: ignore[attr-defined]  # set by Throttled.__init__, missing from the stubs
        extra = getattr(exc, "extra", None) or {}
        said = getattr(exc, "said", None) or "too many requests"  # a refusal may say which limit
        text = said + (f": try again in {int(wait) + 1} s" if wait is not None else "")
        body = {"error": "throttled", "message": text, "retry_after": wait, **extra}
    elif isinstance(exc, exceptions.APIException):
        body = {"error": exc.default_code, "message": " ".join(_flatten(exc.detail))}
    else:  # pragma: no cover - DRF only handles APIException, Http404 and PermissionDenied
        body = {"error": "error", "message": str(exc)}
    response.data = body
    return response


def body_too_large(path: str, limit: int) -> HttpResponse:
    """413 for a request body over ``limit`` bytes: JSON under /api/, a short page elsewhere.
    Built without a request, since the ASGI handler refuses such a body before making one
    (plumbing/http.py); no template, no translation, nothing that could fail or wait."""
    message = f"the request body is over the limit of {limit:,} bytes"
    if path.startswith("/api/"):
        return JsonResponse({"error": "too_large", "message": message, "limit": limit}, status=413)
    page = (
        f"<!doctype html><title>Content Too Large (413)</title><h1>Content Too Large (413)</h1><p>{escape(message)}</p>"
    )
    return HttpResponse(page, status=413)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """Django's 400, for what it refuses before any view runs: JSON under /api/. A body over
    ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (or a form over ``DATA_UPLOAD_MAX_NUMBER_FIELDS``) is a 413,
    Content Too Large, which is what that refusal means."""
    too_large = isinstance(exception, (RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent))
    status_code = 413 if too_large else 400
    if request.path.startswith("/api/"):
        if isinstance(exception, RequestDataTooBig):
            return body_too_large(request.path, settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
        if too_large:
            body = {"error": "too_large", "message": "the request has too many fields or files"}
        else:
            body = {"error": "bad_request", "message": "the request could not be read"}
        return JsonResponse(body, status=status_code)
    response = defaults.bad_request(request, exception)
    response.status_code = status_code
    return response


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """Django's 404 for URLs no view matched: JSON under /api/, the usual page elsewhere."""
    if request.path.startswith("/api/"):
        return JsonResponse({"error": "not_found", "message": f"there is no {request.path} in the API"}, status=404)
    return defaults.page_not_found(request, exception)


def _database_down() -> bool:
    """Whether the error being answered is the database's: the exception when Django still has it
    (it does not under ASGI, which answers from another thread), else a probe of the database."""
    error = sys.exc_info()[1]
    if error is not None:
        return isinstance(error, (OperationalError, InterfaceError))
    connection = connections[DEFAULT_DB_ALIAS]
    was_open = connection.connection is not None
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except DatabaseError:
        return True
    finally:
        if not was_open:
            connection.close()
    return False


def unavailable(request: HttpRequest) -> HttpResponse:
    """503 while the database is down: JSON under /api/, a page that retries by itself elsewhere."""
    headers = {"Retry-After": str(UNAVAILABLE_RETRY_AFTER)}
    if request.path.startswith("/api/"):
        body = {"error": "unavailable", "message": UNAVAILABLE_MESSAGE, "retry_after": UNAVAILABLE_RETRY_AFTER}
        return JsonResponse(body, status=503, headers=headers)
    title = escape(_("Piramide will be back in a moment"))
    text = escape(_("The database is not answering. Your games and scores are safe; this page tries again by itself."))
    page = (
        f'<!doctype html><html lang="{escape(get_language() or "it")}"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta http-equiv="refresh" content="{UNAVAILABLE_RETRY_AFTER * 2}"><title>{title}</title></head>'
        f"<body><h1>{title}</h1><p>{text}</p></body></html>"
    )
    return HttpResponse(page, status=503, headers=headers)


def server_error(request: HttpRequest) -> HttpResponse:
    if _database_down():
        return unavailable(request)
    if request.path.startswith("/api/"):
        body = {
            "error": "server_error",
            "message": "something went wrong on our side; it has been logged",
            "request_id": getattr(request, "request_id", None),  # what to quote to us
        }
        return JsonResponse(body, status=500)
    return defaults.server_error(request)
