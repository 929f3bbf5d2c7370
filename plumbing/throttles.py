"""The API's throttle: every rate of a request counted in one atomic step (``plumbing.limits``).

A request counts against its client's general rate (``user`` or ``anon``), its view's
``throttle_scope`` rate and the scope's ``LIMITS_HTTP`` rates, per user and per address, in one
script; why DRF's own throttles were not enough: docs/operations.md, *Throttles*.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from django.conf import settings
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle

from . import limits


def client_address(request: Any) -> str:
    """The peer's address as the server saw it.  Behind a proxy, the ASGI server must be told to
    trust its forwarding headers (uvicorn ``--proxy-headers --forwarded-allow-ips``)."""
    meta = getattr(request, "META", {})
    return str(meta.get("REMOTE_ADDR") or "unknown")


@lru_cache(maxsize=64)
def _rate(text: str) -> limits.Rate:
    return limits.Rate.parse(text)


class SharedThrottle(BaseThrottle):
    def __init__(self) -> None:
        self.retry_after: float | None = None

    def allow_request(self, request: Request, view: Any) -> bool:
        rates: dict[str, str | None] = api_settings.DEFAULT_THROTTLE_RATES  # type: ignore[assignment]
        user = request.user
        signed_in = user is not None and user.is_authenticated
        address = client_address(request)
        names: list[str] = []
        parsed: list[limits.Rate] = []

        def count(rate: str | None, *name: Any) -> None:
            if rate:
                names.append(limits.key("http", *name))
                parsed.append(_rate(rate))

        if signed_in:
            count(rates.get("user"), "all", "user", user.pk)
        else:
            count(rates.get("anon"), "all", "ip", address)
        scope = getattr(view, "throttle_scope", None)
        if scope:
            client = ("user", user.pk) if signed_in else ("ip", address)
            count(rates.get(scope), scope, "client", *client)
            scoped = settings.LIMITS_HTTP.get(scope) or {}
            if signed_in:
                count(scoped.get("user"), scope, "user", user.pk)
            count(scoped.get("ip"), scope, "ip", address)
        if not names:
            return True
        verdict = limits.hits(names, parsed)
        self.retry_after = verdict.retry_after
        return verdict.allowed

    def wait(self) -> float | None:
        return self.retry_after
