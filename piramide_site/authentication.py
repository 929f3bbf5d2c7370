from typing import Any

from rest_framework.authentication import SessionAuthentication
from rest_framework.request import Request


class CsrfSessionAuthentication(SessionAuthentication):
    """Session authentication that checks CSRF on every unsafe request, signed in or not.

    DRF's own class checks it only for signed-in users, which would leave sign-up and sign-in
    open to login CSRF.
    """

    def authenticate(self, request: Request) -> tuple[Any, None] | None:
        self.enforce_csrf(request)
        user = getattr(request._request, "user", None)
        if not user or not user.is_active:
            return None
        return (user, None)
