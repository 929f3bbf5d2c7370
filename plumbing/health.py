"""Health endpoints (docs/operations.md, *Health and metrics*).

``/healthz/`` is the cheap liveness check the container and the proxy ask: 200 while the process
answers and the database does.  ``/readyz/`` reports each component (database, Redis, a live Celery
worker) with a short reason, 503 when one the settings require is down; its answer is kept a few
seconds per process, so no client can make it ping the servers more often than that.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db import connection
from django.http import HttpRequest, JsonResponse

OK, ERROR, NOT_USED = "ok", "error", "not used"
#: The longest a worker (or Redis) is waited for, in seconds.
PING_TIMEOUT = 1.0

Check = dict[str, Any]


def healthz(request: HttpRequest) -> JsonResponse:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception as error:  # any failure means unhealthy; say which
        return JsonResponse({"ok": False, "database": type(error).__name__}, status=503)
    return JsonResponse({"ok": True})


def _failed(error: BaseException, what: str) -> Check:
    # The exception's name, not its message: that names internal hosts and ports.
    return {"status": ERROR, "reason": f"{what} ({type(error).__name__})"}


def check_database() -> Check:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception as error:
        return _failed(error, "the database does not answer")
    return {"status": OK}


def check_redis() -> Check:
    if not settings.REDIS_URL:
        return {"status": NOT_USED, "reason": "no REDIS_URL: live events within the process, in-memory cache"}
    import redis

    client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=PING_TIMEOUT, socket_connect_timeout=PING_TIMEOUT)
    try:
        client.ping()
    except Exception as error:
        return _failed(error, "Redis does not answer")
    finally:
        client.close()
    return {"status": OK}


def check_worker(redis_check: Check) -> Check:
    """A ping through the broker that some worker answers within PING_TIMEOUT."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return {"status": NOT_USED, "reason": "tasks run eagerly in the web process"}
    if redis_check["status"] != OK:
        return {"status": ERROR, "reason": "no broker to reach a worker through"}
    # the project's Celery app, current since the project package loaded it
    from celery import current_app

    try:
        replies = current_app.control.ping(timeout=PING_TIMEOUT)
    except Exception as error:
        return _failed(error, "the ping could not be sent")
    if not replies:
        return {"status": ERROR, "reason": f"no worker answered within {PING_TIMEOUT:g} s"}
    return {"status": OK, "workers": len(replies)}


def readiness() -> tuple[bool, dict[str, Check]]:
    """Every component's check, and whether all those required (HEALTH_REQUIRED) are up."""
    redis_check = check_redis()
    checks = {"database": check_database(), "redis": redis_check, "worker": check_worker(redis_check)}
    ok = all(checks[name]["status"] != ERROR for name in settings.HEALTH_REQUIRED if name in checks)
    return ok, checks


class _Kept:
    """One answer per process for ``seconds``; callers arriving while it is made wait for it."""

    def __init__(self, make: Callable[[], tuple[bool, dict[str, Check]]]) -> None:
        self.make = make
        self.lock = threading.Lock()
        self.answer: tuple[bool, dict[str, Check]] | None = None
        self.made_at = 0.0

    def get(self, seconds: float) -> tuple[tuple[bool, dict[str, Check]], float]:
        with self.lock:
            age = time.monotonic() - self.made_at
            if self.answer is None or age >= seconds:
                self.answer, self.made_at, age = self.make(), time.monotonic(), 0.0
            return self.answer, age

    def forget(self) -> None:
        with self.lock:
            self.answer = None


kept_readiness = _Kept(lambda: readiness())


def read_only(request: HttpRequest) -> JsonResponse | None:
    """The 405 of a method other than GET or HEAD, or None."""
    if request.method in ("GET", "HEAD"):
        return None
    response = JsonResponse(
        {"error": "method_not_allowed", "message": "only GET and HEAD are answered here"}, status=405
    )
    response["Allow"] = "GET, HEAD"
    return response


def readyz(request: HttpRequest) -> JsonResponse:
    refused = read_only(request)
    if refused is not None:
        return refused
    (ok, checks), age = kept_readiness.get(settings.HEALTH_CACHE_SECONDS)
    body = {"ok": ok, "checks": checks, "age": round(age, 1)}
    response = JsonResponse(body, status=200 if ok else 503)
    response["Cache-Control"] = "no-store"
    return response
