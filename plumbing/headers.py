"""Security headers Django's SecurityMiddleware does not set: a Content-Security-Policy and a
Permissions-Policy.  Every page loads its scripts from files, so the policy allows no inline
script anywhere; the ReDoc page alone may show one image from elsewhere, the logo its bundle
links to (it has no setting to leave it out)."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse

POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:{extra_image}; font-src 'self'; connect-src 'self' ws: wss:; worker-src 'self' blob:; "
    "object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
)
STRICT = POLICY.format(extra_image="")
REDOC_PATH = "/api/redoc/"
REDOC = POLICY.format(extra_image=" https://cdn.redoc.ly/redoc/logo-mini.svg")
PERMISSIONS = "camera=(), microphone=(), geolocation=(), payment=(), usb=(), interest-cohort=()"


class SecurityHeadersMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if "Content-Security-Policy" not in response:
            policy = REDOC if request.path.startswith(REDOC_PATH) else STRICT
            response["Content-Security-Policy"] = getattr(settings, "CONTENT_SECURITY_POLICY", None) or policy
        response.setdefault("Permissions-Policy", PERMISSIONS)
        return response
