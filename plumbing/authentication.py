from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework.authentication import SessionAuthentication
from rest_framework.request import Request

from .internals import django_request


class CsrfSessionAuthentication(SessionAuthentication):
    """Session authentication that checks CSRF on every unsafe request, signed in or not.

    DRF's own class checks it only for signed-in users, which would leave sign-up and sign-in
    open to login CSRF.
    """

    def authenticate(self, request: Request) -> tuple[Any, None] | None:
        self.enforce_csrf(request)
        user = getattr(django_request(request), "user", None)
        if not user or not user.is_active:
            return None
        return (user, None)


class CsrfSessionAuthenticationScheme(OpenApiAuthenticationExtension):
    """Documents the session cookie in the OpenAPI schema, as drf-spectacular does for DRF's own class."""

    target_class = "plumbing.authentication.CsrfSessionAuthentication"
    name = "cookieAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {"type": "apiKey", "in": "cookie", "name": "sessionid"}
