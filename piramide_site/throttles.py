"""A DRF throttle on the shared, atomic counters of ``piramide_site.limits``: per user and per address.

A view opts in by its ``throttle_scope``; ``LIMITS_HTTP`` names the rates of each scope, e.g.
``{"moves": {"user": "240/min", "ip": "1200/min"}}``.  DRF's own throttles stay in front of it
(they cap everything, by the cache); this one cannot be raced past by two processes.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle

from . import limits


def client_address(request: Any) -> str:
    """The peer's address as the server saw it.  Behind a proxy, the ASGI server must be told to
    trust its forwarding headers (uvicorn ``--proxy-headers --forwarded-allow-ips``)."""
    meta = getattr(request, "META", {})
    return str(meta.get("REMOTE_ADDR") or "unknown")


class SharedScopedThrottle(BaseThrottle):
    def __init__(self) -> None:
        self.retry_after: float | None = None

    def allow_request(self, request: Request, view: Any) -> bool:
        scope = getattr(view, "throttle_scope", None)
        rates = settings.LIMITS_HTTP.get(scope) if scope else None
        if not rates:
            return True
        names, parsed = [], []
        if request.user is not None and request.user.is_authenticated and "user" in rates:
            names.append(limits.key("http", scope, "user", request.user.pk))
            parsed.append(limits.Rate.parse(rates["user"]))
        if "ip" in rates:
            names.append(limits.key("http", scope, "ip", client_address(request)))
            parsed.append(limits.Rate.parse(rates["ip"]))
        if not names:
            return True
        verdict = limits.hits(names, parsed)
        self.retry_after = verdict.retry_after
        return verdict.allowed

    def wait(self) -> float | None:
        return self.retry_after
