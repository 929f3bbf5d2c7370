"""Sign-in limits nobody can turn against someone else (accounts/signin.py): an attacker failing
for "alice" from many addresses slows guessing down, and alice still signs in from her address and
on her device; the per-(name, address) and per-address limits answer 429 with Retry-After; the
name's own delay grows, is bounded, and says so."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client, RequestFactory
from rest_framework.test import APIClient

from accounts import signin
from plumbing.device import SIGNED_IN_COOKIE
from tests.factories import make_player
from tests.hardening.conftest import forget_limits

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-pass-phrase-42"


@pytest.fixture(autouse=True)
def _limits(settings: Any) -> Iterator[None]:
    settings.SIGNIN_FAILURES_PER_USER_IP = "5/15min"
    settings.SIGNIN_FAILURES_PER_IP = "50/15min"
    settings.SIGNIN_FAILURES_PER_USER = "5/15min"
    settings.SIGNIN_USER_DELAY_MAX = 30.0
    forget_limits()
    yield
    forget_limits()


def api(address: str, cookies: Any = None) -> APIClient:
    client = APIClient(enforce_csrf_checks=True, HTTP_ACCEPT_LANGUAGE="en", REMOTE_ADDR=address)
    if cookies is not None:
        for name in ("piramide_device", SIGNED_IN_COOKIE):
            client.cookies[name] = cookies[name].value
    client.credentials(HTTP_X_CSRFTOKEN=client.get("/api/auth/csrf/").json()["csrf_token"])
    return client


def sign_in(client: APIClient, username: str, password: str) -> Any:
    response = client.post("/api/auth/signin/", {"username": username, "password": password}, format="json")
    if response.status_code == 200:  # signing in rotates the CSRF token
        client.credentials(HTTP_X_CSRFTOKEN=client.get("/api/auth/csrf/").json()["csrf_token"])
    return response


def attack(username: str, addresses: int = 30, tries: int = 8) -> list[int]:
    codes = []
    for i in range(addresses):
        client = api(f"10.66.{i // 250}.{i % 250}")
        codes += [sign_in(client, username, f"guess-{i}-{n}").status_code for n in range(tries)]
    return codes


def test_an_attacker_elsewhere_cannot_keep_alice_out_from_her_address_or_her_device(monkeypatch):
    monkeypatch.setattr(
        signin, "FIRST_DELAY", 20.0
    )  # so the name is still waiting at the end, however slow the machine
    make_player("alice")
    laptop = api("10.1.1.1")
    assert sign_in(laptop, "alice", PASSWORD).status_code == 200
    codes = attack("alice")
    assert 400 in codes and 429 in codes, "the attack was slowed down"
    assert codes.count(400) <= 6, "the name's delay let only a few of 240 guesses through"
    # From her address, in a new browser: the address signed in as her before.
    assert sign_in(api("10.1.1.1"), "alice", PASSWORD).status_code == 200
    # Her laptop, from an address it never used (a café): the device signed in as her before.
    assert sign_in(api("10.2.2.2", cookies=laptop.cookies), "alice", PASSWORD).status_code == 200
    # And even from an attacker's address, at its per-name and per-address limits (one NAT).
    assert sign_in(api("10.66.0.0"), "alice", PASSWORD).status_code == 429
    assert sign_in(api("10.66.0.0", cookies=laptop.cookies), "alice", PASSWORD).status_code == 200
    # A stranger's first try (new browser, new address) only waits the name's bounded delay.
    delayed = sign_in(api("10.3.3.3"), "alice", PASSWORD)
    assert delayed.status_code == 429
    body = delayed.json()
    assert body["limit"] == "delay" and body["max_delay"] == 30.0
    assert 0 < body["retry_after"] <= 30 and 0 < int(delayed["Retry-After"]) <= 30
    assert "at most 30 s" in body["message"]


def test_the_device_cookie_is_for_its_own_account_only():
    make_player("alice")
    make_player("mallory")
    own = api("10.66.9.9")
    assert sign_in(own, "mallory", PASSWORD).status_code == 200
    for _ in range(5):
        assert sign_in(own, "alice", "guess").status_code == 400
    refused = sign_in(own, "alice", "guess")
    assert refused.status_code == 429 and refused.json()["limit"] == "user_address"
    forged = api("10.66.9.9", cookies=own.cookies)
    forged.cookies[SIGNED_IN_COOKIE] = own.cookies[SIGNED_IN_COOKIE].value.replace(":", ":x", 1)
    assert sign_in(forged, "alice", PASSWORD).status_code == 429


def test_the_signed_in_cookie_vouches_only_beside_its_own_device_cookie():
    make_player("alice")
    laptop = api("10.1.1.1")
    assert sign_in(laptop, "alice", PASSWORD).status_code == 200
    copied = api("10.66.9.8")  # a device cookie of its own, the laptop's signed-in cookie copied
    copied.cookies[SIGNED_IN_COOKIE] = laptop.cookies[SIGNED_IN_COOKIE].value
    for _ in range(5):
        assert sign_in(copied, "alice", "guess").status_code == 400
    refused = sign_in(copied, "alice", "guess")
    assert refused.status_code == 429 and refused.json()["limit"] == "user_address"


def test_a_known_device_counts_only_its_own_failures():
    make_player("alice")
    phone = api("10.1.1.1")
    assert sign_in(phone, "alice", PASSWORD).status_code == 200
    for _ in range(5):
        assert sign_in(phone, "alice", "typo").status_code == 400
    refused = sign_in(phone, "alice", PASSWORD)
    assert refused.status_code == 429 and refused.json()["limit"] == "device"


def test_the_name_and_address_limit_trips_with_429_and_retry_after():
    make_player("alice")
    guesser = api("10.9.9.9")
    for _ in range(5):
        assert sign_in(guesser, "alice", "guess").status_code == 400
    refused = sign_in(guesser, "alice", PASSWORD)
    assert refused.status_code == 429
    assert refused.json()["limit"] == "user_address" and 800 < refused.json()["retry_after"] <= 900
    assert 800 < int(refused["Retry-After"]) <= 900
    assert "sessionid" not in refused.cookies


def test_the_address_limit_trips_with_429_and_retry_after(settings):
    settings.SIGNIN_FAILURES_PER_IP = "4/15min"
    settings.SIGNIN_FAILURES_PER_USER = "100/15min"
    guesser = api("10.9.9.8")
    for name in ("ann", "ben", "cat", "dan"):
        assert sign_in(guesser, name, "guess").status_code == 400
    make_player("erin")
    refused = sign_in(guesser, "erin", PASSWORD)
    assert refused.status_code == 429 and refused.json()["limit"] == "address"
    assert 800 < int(refused["Retry-After"]) <= 900
    assert sign_in(api("10.9.9.7"), "erin", PASSWORD).status_code == 200


def test_the_name_delay_grows_and_is_bounded(settings, monkeypatch):
    """Read in fractions of a second from the limits themselves (the API rounds Retry-After up)."""
    settings.SIGNIN_FAILURES_PER_USER = "2/15min"
    settings.SIGNIN_USER_DELAY_MAX = 0.4
    monkeypatch.setattr(signin, "FIRST_DELAY", 0.05)
    factory = RequestFactory()
    waits: list[float] = []
    for i in range(8):
        request = factory.post("/api/auth/signin/", REMOTE_ADDR=f"10.7.0.{i}")
        while (refusal := signin.signin_attempt("alice", request)) is not None:  # each guess as soon as it may
            assert refusal.kind == "delay"
            time.sleep(refusal.seconds)
        pending = signin.signin_refused_next("alice", factory.post("/", REMOTE_ADDR="10.7.1.1"))
        waits.append(pending.seconds if pending else 0.0)
    assert waits[:2] == [0.0, 0.0], "the first failures of a name are not delayed"
    assert 0 < waits[2] <= 0.05 and 0.05 < waits[3] <= 0.1 and 0.1 < waits[4] <= 0.2, waits
    assert all(wait <= 0.4 for wait in waits) and waits[-1] > 0.2, waits


def test_the_admin_sign_in_is_spared_the_same_way(monkeypatch):
    monkeypatch.setattr(
        signin, "FIRST_DELAY", 20.0
    )  # the stranger below still meets the delay, however slow the machine
    make_player("dora", is_staff=True)
    desk = Client(HTTP_ACCEPT_LANGUAGE="en", REMOTE_ADDR="10.1.1.5")
    assert desk.post("/admin/login/", {"username": "dora", "password": PASSWORD, "next": "/admin/"}).status_code == 302
    desk.logout()
    for i in range(20):
        attacker = Client(HTTP_ACCEPT_LANGUAGE="en", REMOTE_ADDR=f"10.66.5.{i}")
        for _ in range(6):
            attacker.post("/admin/login/", {"username": "dora", "password": "guess"})
    page = desk.post("/admin/login/", {"username": "dora", "password": PASSWORD, "next": "/admin/"})
    assert page.status_code == 302 and "_auth_user_id" in desk.session
    stranger = Client(HTTP_ACCEPT_LANGUAGE="en", REMOTE_ADDR="10.4.4.4")
    page = stranger.post("/admin/login/", {"username": "dora", "password": PASSWORD, "next": "/admin/"})
    assert page.status_code == 200
    assert "try again in" in page.content.decode() and "never longer than 30 seconds" in page.content.decode()


def test_the_site_sign_in_page_is_spared_on_a_known_device():
    make_player("alice")
    laptop = Client(HTTP_ACCEPT_LANGUAGE="en", REMOTE_ADDR="10.1.1.6")
    assert laptop.post("/signin/", {"username": "alice", "password": PASSWORD}).status_code == 302
    kept = laptop.cookies
    laptop.logout()  # forgets every cookie, the device's too: the browser keeps them
    for name in ("piramide_device", SIGNED_IN_COOKIE):
        laptop.cookies[name] = kept[name].value
    attack("alice", addresses=10, tries=6)
    laptop.defaults["REMOTE_ADDR"] = "10.5.5.5"
    assert laptop.post("/signin/", {"username": "alice", "password": PASSWORD}).status_code == 302
