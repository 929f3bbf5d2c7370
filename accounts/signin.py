"""Sign-in limits that nobody can turn against someone else (docs/operations.md, *Signing in*).

Per username and address, per address, and per username only a growing delay, never a lock; the
owner is spared the delay from a known address and counts only their own failures on a known
device.  Each attempt counts before the password is checked, in one atomic step
(``plumbing.limits``), and a right one is taken back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings

from plumbing import device, limits
from plumbing.throttles import client_address

#: An address the owner signed in from is spared the name's delay for this long after the last time.
KNOWN_ADDRESS_DAYS = 30
#: The name's first delay, in seconds; each attempt after it doubles it up to SIGNIN_USER_DELAY_MAX.
FIRST_DELAY = 1.0


@dataclass(frozen=True)
class Refusal:
    """Why an attempt was not checked, and for how many seconds it would not be.

    ``kind``: ``delay`` (the name's growing delay), ``user_address`` (this name from this address),
    ``device`` (this name on this device), ``address`` (every name from this address)."""

    kind: str
    seconds: float


def _name(username: str) -> str:
    return username.strip().lower()


def _rate(text: str) -> limits.Rate:
    return limits.Rate.parse(text)


@dataclass(frozen=True)
class _Attempt:
    name: str
    address: str
    known_device: str  # the device id when this device signed in as this name before, else ""

    @classmethod
    def of(cls, username: str, request: Any) -> _Attempt:
        name = _name(username)
        known = device.device_of(request) if device.signed_in_before(request, name) else ""
        return cls(name, client_address(request), known)

    def counters(self) -> list[tuple[str, limits.Rate, str]]:
        per_pair = _rate(settings.SIGNIN_FAILURES_PER_USER_IP)
        if self.known_device:
            return [(limits.key("signin", "device", self.known_device, self.name), per_pair, "device")]
        return [
            (limits.key("signin", "user-ip", self.name, self.address), per_pair, "user_address"),
            (limits.key("signin", "ip", self.address), _rate(settings.SIGNIN_FAILURES_PER_IP), "address"),
        ]

    def delayed(self) -> bool:
        """Whether the name's delay applies: not on a known device, nor from a known address."""
        return not self.known_device and not limits.peek(_known_address_key(self.name, self.address))[0]

    def delay_keys(self) -> tuple[str, str]:
        return limits.key("signin", "user", self.name), limits.key("signin", "user-wait", self.name)


def _known_address_key(name: str, address: str) -> str:
    return limits.key("signin", "known", name, address)


def signin_attempt(username: str, request: Any) -> Refusal | None:
    """Count one attempt to sign in as ``username``; a Refusal if it must not be checked."""
    attempt = _Attempt.of(username, request)
    counters = attempt.counters()
    verdict = limits.hits([name for name, _, _ in counters], [rate for _, rate, _ in counters])
    if not verdict.allowed:
        return Refusal(counters[verdict.count - 1][2], verdict.retry_after)
    if attempt.delayed():
        counter, gate = attempt.delay_keys()
        rate = _rate(settings.SIGNIN_FAILURES_PER_USER)
        wait = limits.delay(
            counter,
            gate,
            window=rate.seconds,
            free=rate.count,
            first=FIRST_DELAY,
            longest=settings.SIGNIN_USER_DELAY_MAX,
        )
        if wait:
            for name, _, _ in counters:  # not checked, so not counted
                limits.undo(name)
            return Refusal("delay", wait)
    return None


def signin_succeeded(username: str, request: Any) -> None:
    """The password was right: this attempt is no failure, and this name's count from here starts over."""
    attempt = _Attempt.of(username, request)
    for name, _, kind in attempt.counters():
        if kind == "address":
            limits.undo(name)
        else:
            limits.reset(name)


def signin_remember(username: str, request: Any) -> None:
    """Someone signed in as ``username``: their address is known for a while, and their device
    for good (the cookie is written by ``DeviceCookieMiddleware``)."""
    name = _name(username)
    limits.mark(_known_address_key(name, client_address(request)), KNOWN_ADDRESS_DAYS * 86400)
    device.remember_signin(request, name)


def signin_refused_next(username: str, request: Any) -> Refusal | None:
    """Whether the next attempt for ``username`` from here would be refused, counting nothing."""
    attempt = _Attempt.of(username, request)
    for name, rate, kind in attempt.counters():
        count, left = limits.peek(name)
        if count >= rate.count and left:
            return Refusal(kind, left)
    if attempt.delayed():
        left = limits.peek(attempt.delay_keys()[1])[1]
        if left:
            return Refusal("delay", left)
    return None
