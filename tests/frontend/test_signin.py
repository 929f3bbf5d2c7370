"""The site's sign-in page says when sign-in is refused, why and for how long, in the reader's language."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client

from accounts import signin
from tests.factories import make_player
from tests.hardening.conftest import forget_limits

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-pass-phrase-42"


@pytest.fixture(autouse=True)
def _fresh_limits(settings: Any) -> Iterator[None]:
    settings.SIGNIN_FAILURES_PER_USER_IP = "3/15min"
    settings.SIGNIN_FAILURES_PER_IP = "50/15min"
    settings.SIGNIN_FAILURES_PER_USER = "5/15min"
    forget_limits()
    yield
    forget_limits()


def sign_in(client: Client, username: str, password: str) -> str:
    response = client.post("/signin/", {"username": username, "password": password})
    assert response.status_code == 200 and "_auth_user_id" not in client.session
    return response.content.decode()


def test_the_page_says_the_name_is_refused_from_here_and_for_how_long() -> None:
    make_player("alice", password=PASSWORD)
    client = Client(HTTP_ACCEPT_LANGUAGE="en", REMOTE_ADDR="10.0.0.1")
    for _ in range(2):
        page = sign_in(client, "alice", "nope")
        assert "Please enter a correct username and password" in page and "Too many" not in page
    # The failure that reaches the limit already says so; then even the right password is refused.
    assert "Too many failed sign-ins: try again in 15 minutes." in sign_in(client, "alice", "nope")
    assert "Too many failed sign-ins: try again in 15 minutes." in sign_in(client, "alice", PASSWORD)
    # In the reader's language, from the same address.
    italian = Client(HTTP_ACCEPT_LANGUAGE="it", REMOTE_ADDR="10.0.0.1")
    assert "Troppi accessi non riusciti: riprova tra 15 minuti." in sign_in(italian, "alice", PASSWORD)
    spanish = Client(HTTP_ACCEPT_LANGUAGE="es", REMOTE_ADDR="10.0.0.1")
    assert "Demasiados intentos de acceso fallidos: vuelve a intentarlo en 15 minutos." in sign_in(
        spanish, "alice", PASSWORD
    )
    # From elsewhere the owner signs in: the limit is this name from that address.
    elsewhere = Client(HTTP_ACCEPT_LANGUAGE="en", REMOTE_ADDR="10.0.0.2")
    assert elsewhere.post("/signin/", {"username": "alice", "password": PASSWORD}).status_code == 302


@pytest.mark.parametrize(
    ("language", "before", "after"),
    [
        (
            "en",
            "Many failed sign-ins for this username: try again in ",
            " seconds (the wait is never longer than 30 seconds).",
        ),
        (
            "it",
            "Molti accessi non riusciti per questo nome utente: riprova tra ",
            " secondi (l'attesa non supera mai 30 secondi).",
        ),
        (
            "es",
            "Muchos intentos de acceso fallidos para este nombre de usuario: vuelve a intentarlo en ",
            " segundos (la espera nunca pasa de 30 segundos).",
        ),
    ],
)
def test_the_page_says_the_name_delay_and_its_bound(
    settings: Any, monkeypatch: Any, language: str, before: str, after: str
) -> None:
    settings.SIGNIN_FAILURES_PER_USER = "2/15min"
    monkeypatch.setattr(signin, "FIRST_DELAY", 20.0)  # still waiting when the page is asked, however slow the machine
    make_player("alice", password=PASSWORD)
    for i in range(3):  # from three addresses: the third failure starts the name's delay
        sign_in(Client(HTTP_ACCEPT_LANGUAGE="en", REMOTE_ADDR=f"10.0.1.{i}"), "alice", "nope")
    page = html.unescape(sign_in(Client(HTTP_ACCEPT_LANGUAGE=language, REMOTE_ADDR="10.0.1.9"), "alice", PASSWORD))
    said = re.findall(re.escape(before) + r"(\d+)" + re.escape(after), page)
    assert len(said) == 1 and 0 < int(said[0]) <= 20, page


def test_an_unknown_name_locks_with_the_same_words(settings: Any) -> None:
    client = Client(HTTP_ACCEPT_LANGUAGE="en", REMOTE_ADDR="10.0.0.4")
    for _ in range(3):
        page = sign_in(client, "nobody", "nope")
    assert "Too many failed sign-ins: try again in 15 minutes." in page


def test_a_short_lock_counts_whole_minutes(settings: Any) -> None:
    settings.SIGNIN_FAILURES_PER_USER_IP = "1/30s"
    make_player("bea", password=PASSWORD)
    client = Client(HTTP_ACCEPT_LANGUAGE="en", REMOTE_ADDR="10.0.0.5")
    assert "try again in 1 minute." in sign_in(client, "bea", "nope")


def test_an_address_lock_is_said_for_every_name(settings: Any) -> None:
    settings.SIGNIN_FAILURES_PER_IP = "4/15min"
    for name in ("a1", "a2", "a3", "a4"):
        page = sign_in(Client(HTTP_ACCEPT_LANGUAGE="en", REMOTE_ADDR="10.0.0.6"), name, "nope")
    assert "Too many failed sign-ins" in page
    make_player("carla", password=PASSWORD)
    assert "Too many failed sign-ins" in sign_in(
        Client(HTTP_ACCEPT_LANGUAGE="en", REMOTE_ADDR="10.0.0.6"), "carla", PASSWORD
    )
    other = Client(HTTP_ACCEPT_LANGUAGE="en", REMOTE_ADDR="10.0.0.7")
    assert other.post("/signin/", {"username": "carla", "password": PASSWORD}).status_code == 302


def test_the_admin_sign_in_page_says_the_lock_too() -> None:
    make_player("dora", password=PASSWORD, is_staff=True)
    client = Client(HTTP_ACCEPT_LANGUAGE="en", REMOTE_ADDR="10.0.0.8")

    def admin_sign_in(password: str) -> str:
        response = client.post("/admin/login/", {"username": "dora", "password": password})
        assert response.status_code == 200 and "_auth_user_id" not in client.session
        return response.content.decode()

    for _ in range(2):
        assert "Too many" not in admin_sign_in("nope")
    assert "Too many failed sign-ins: try again in 15 minutes." in admin_sign_in("nope")
    page = admin_sign_in(PASSWORD)
    assert "Too many failed sign-ins: try again in 15 minutes." in page
    assert "Please enter the correct username and password" not in page
