"""Security headers Django's SecurityMiddleware does not set: a Content-Security-Policy and a
Permissions-Policy.  Every page loads its scripts from files, so the policy allows no inline
script; the ReDoc page alone needs one (its template starts ReDoc inline)."""

from __future__ import annotations

from collections.abc import Callable

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
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if "Content-Security-Policy" not in response:
            inline = request.path.startswith(INLINE_SCRIPT_PATHS)
            response["Content-Security-Policy"] = getattr(settings, "CONTENT_SECURITY_POLICY", None) or (INLINE if inline else STRICT)
        response.setdefault("Permissions-Policy", PERMISSIONS)
        return response
