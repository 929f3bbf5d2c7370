"""The API's throttle: every rate of a request counted in one atomic step (``piramide_site.limits``).

Each request counts against, in one Lua call:

- the general rate of its client: ``user`` per signed-in user, ``anon`` per address otherwise
  (``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]``, set by ``THROTTLE_USER`` and ``THROTTLE_ANON``);
- for a view with a ``throttle_scope`` that has a rate there (``moves``, ``auth``), that rate per
  user, or per address when nobody is signed in;
- the scope's ``LIMITS_HTTP`` rates, per user and per address, e.g.
  ``{"moves": {"user": "240/min", "ip": "1200/min"}}``.

DRF's own throttles keep a history per client in the cache and change it with a read and then a
write: two requests (two threads, two processes) can both take the last place, and each throttle
costs two cache round trips.  These counters are fixed windows changed by one script, so no
request slips past a limit, and a request costs one round trip whatever its number of rates.
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
        rates: dict[str, str | None] = api_settings.DEFAULT_THROTTLE_RATES
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
