"""A device cookie: a random id each browser keeps for two years, signed so it cannot be forged.

Fair play links accounts that play the same deal from one browser (docs/fairplay.md,
*Detection*); the cookie says nothing else and is never shown on a page.

A second signed cookie, ``piramide_signedin``, says which accounts signed in successfully in this
browser before (a keyed hash of each username with the device id, the last few): on such a device the sign-in limits
count only that device's own failures, so nobody elsewhere can keep its owner out
(accounts/signin.py).
"""

from __future__ import annotations

import ipaddress
import secrets
from collections.abc import Callable
from typing import Any, NamedTuple

from django.conf import settings
from django.core.signing import BadSignature
from django.http import HttpRequest, HttpResponse
from django.utils.crypto import salted_hmac

COOKIE = "piramide_device"
SALT = "piramide.device"
MAX_AGE = 2 * 365 * 24 * 3600

SIGNED_IN_COOKIE = "piramide_signedin"
SIGNED_IN_SALT = "piramide.signedin"
#: Accounts a browser is remembered for, the most recent first.
SIGNED_IN_KEEP = 5


class Origin(NamedTuple):
    """Where a request came from, as fair play records it on a new ranked game."""

    address: str | None
    device: str


def origin_of(request: Any) -> Origin:
    """The request's address (as the throttles see it) and device cookie."""
    from .throttles import client_address

    return Origin(address_of(client_address(request)), device_of(request))


def device_of(request: Any) -> str:
    """The request's device id (set by ``DeviceCookieMiddleware``), or "" when it has none."""
    return str(getattr(request, "device", "") or "")


def address_of(text: str | None) -> str | None:
    """An address as the database keeps it, or None for anything that is not one ("unknown")."""
    try:
        return str(ipaddress.ip_address((text or "").strip()))
    except ValueError:
        return None


def _read(request: HttpRequest) -> str:
    try:
        value = request.get_signed_cookie(COOKIE, salt=SALT, max_age=MAX_AGE) or ""
    except (KeyError, BadSignature):
        return ""
    return value if len(value) == 32 and all(c in "0123456789abcdef" for c in value) else ""


def _account_tag(name: str, device: str) -> str:
    # Bound to the device id too: the cookie copied beside another device cookie (or none, which
    # would mint a fresh device and a fresh count) vouches for nothing.
    return salted_hmac(SIGNED_IN_SALT, f"{device}:{name}").hexdigest()[:20]


def _signed_in_tags(request: Any) -> list[str]:
    cached = getattr(request, "_signed_in_tags", None)
    if cached is not None:
        return list(cached)
    try:
        value = request.get_signed_cookie(SIGNED_IN_COOKIE, salt=SIGNED_IN_SALT, max_age=MAX_AGE)
    except (KeyError, BadSignature, AttributeError):
        value = ""
    tags = [tag for tag in value.split(".") if len(tag) == 20][:SIGNED_IN_KEEP]
    if request is not None:
        request._signed_in_tags = tags
    return tags


def signed_in_before(request: Any, name: str) -> bool:
    """Whether this browser signed in as ``name`` (a lower-case username) before."""
    device = device_of(request) if request is not None else ""
    return bool(device) and _account_tag(name, device) in _signed_in_tags(request)


def remember_signin(request: Any, name: str) -> None:
    """Remember in this browser that it signed in as ``name``; the middleware writes the cookie."""
    device = device_of(request) if request is not None else ""
    if not device:
        return
    tag = _account_tag(name, device)
    request._signed_in_tags = [tag, *(t for t in _signed_in_tags(request) if t != tag)][:SIGNED_IN_KEEP]
    request._signed_in_changed = True


class DeviceCookieMiddleware:
    """Reads the device cookie into ``request.device``, and gives a browser without one a new one."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        device = _read(request)
        fresh = not device
        request.device = device or secrets.token_hex(16)  # type: ignore[attr-defined]
        response = self.get_response(request)
        if fresh:
            response.set_signed_cookie(
                COOKIE,
                request.device,  # type: ignore[attr-defined]
                salt=SALT,
                max_age=MAX_AGE,
                secure=settings.SESSION_COOKIE_SECURE,
                httponly=True,
                samesite="Lax",
            )
        if getattr(request, "_signed_in_changed", False):
            response.set_signed_cookie(
                SIGNED_IN_COOKIE,
                ".".join(request._signed_in_tags),  # type: ignore[attr-defined]
                salt=SIGNED_IN_SALT,
                max_age=MAX_AGE,
                secure=settings.SESSION_COOKIE_SECURE,
                httponly=True,
                samesite="Lax",
            )
        return response
