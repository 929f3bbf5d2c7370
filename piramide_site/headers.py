"""Security headers Django's SecurityMiddleware does not set: a Content-Security-Policy and a
Permissions-Policy.  Every page loads its scripts from files, so the policy allows no inline
script; the ReDoc page alone needs one (its template starts ReDoc inline)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.conf import settings
from django.http import HttpRequest, HttpResponse

POLICY = (
    "default-src 'self'; script-src 'self'{extra_script}; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self'; connect-src 'self' ws: wss:; worker-src 'self' blob:; "
    "object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
)
STRICT = POLICY.format(extra_script="")
INLINE_SCRIPT_PATHS = ("/api/redoc/",)
INLINE = POLICY.format(extra_script=" 'unsafe-inline' blob:")
PERMISSIONS = "camera=(), microphone=(), geolocation=(), payment=(), usb=(), interest-cohort=()"


class SecurityHeadersMiddleware:
    """Sync and async: under ASGI a sync-only middleware would cost every request two more hops
    between the event loop and a thread (Django adapts the chain around it)."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Callable[[HttpRequest], Any]) -> None:
        self.get_response = get_response
        if iscoroutinefunction(get_response):
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> Any:
        if iscoroutinefunction(self):
            return self._acall(request)
        return _add_headers(request, self.get_response(request))

    async def _acall(self, request: HttpRequest) -> HttpResponse:
        get_response: Callable[[HttpRequest], Awaitable[HttpResponse]] = self.get_response
        return _add_headers(request, await get_response(request))


def _add_headers(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    if "Content-Security-Policy" not in response:
        inline = request.path.startswith(INLINE_SCRIPT_PATHS)
        response["Content-Security-Policy"] = getattr(settings, "CONTENT_SECURITY_POLICY", None) or (INLINE if inline else STRICT)
    response.setdefault("Permissions-Policy", PERMISSIONS)
    return response
