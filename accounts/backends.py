"""Sign-in with a lockout: after repeated failures for a username or from an address, refuse for a while.

Every way in goes through ``authenticate()`` (the API, the site's sign-in page, the admin), so
the count is kept here.  The counters are the shared ones of ``piramide_site.limits`` (Redis,
atomic).  Each attempt is counted *before* the password is checked, in one atomic step, and
taken back if it was right: so twenty guesses sent at once get exactly as many checks as the
limit allows, not twenty.  While locked, even the right password is refused: a guesser cannot
tell a hit from a miss.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.backends import ModelBackend
from django.core.exceptions import PermissionDenied

from piramide_site import limits
from piramide_site.throttles import client_address


def _keys(username: str, request: Any) -> list[tuple[str, limits.Rate]]:
    return [
        (limits.key("signin", "user", username.strip().lower()), limits.Rate.parse(settings.SIGNIN_FAILURES_PER_USER)),
        (limits.key("signin", "ip", client_address(request)), limits.Rate.parse(settings.SIGNIN_FAILURES_PER_IP)),
    ]


def signin_locked_for(username: str, request: Any) -> float:
    """Seconds until sign-in may be tried again for this username from this address (0: now)."""
    wait = 0.0
    for name, rate in _keys(username, request):
        count, left = limits.peek(name)
        if count >= rate.count:
            wait = max(wait, left)
    return wait


class LockoutModelBackend(ModelBackend):
    def authenticate(self, request: Any, username: str | None = None, password: str | None = None, **kwargs: Any) -> Any:
        if username is None:
            username = kwargs.get("username")
        if username is None or password is None:
            return None
        keys = _keys(username, request)
        verdict = limits.hits([name for name, _ in keys], [rate for _, rate in keys])
        if not verdict.allowed:
            if request is not None:
                request.signin_lock_seconds = verdict.retry_after
            raise PermissionDenied("too many failed sign-ins")
        user = super().authenticate(request, username=username, password=password, **kwargs)
        if user is not None:
            limits.reset(keys[0][0])
            limits.undo(keys[1][0])
        return user
