"""Account recovery: a reset link by e-mail, in the player's language, limited before any mail is sent."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.core import mail
from django.test import Client

from tests.factories import make_player
from tests.hardening.conftest import forget_limits

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_limits() -> Iterator[None]:
    forget_limits()
    yield
    forget_limits()


def ask(client: Client, email: str) -> Any:
    return client.post("/password/reset/", {"email": email}, follow=True)


def test_a_player_gets_a_link_in_their_language_and_chooses_a_new_password_that_signs_out_the_old_sessions() -> None:
    player = make_player("ann", email="ann@example.org", password="the-old-pass-phrase-1")
    elsewhere = Client()
    elsewhere.force_login(player)
    response = ask(Client(HTTP_ACCEPT_LANGUAGE="it"), "ANN@example.org")
    assert "Controlla la tua e-mail" in response.content.decode()
    [sent] = mail.outbox
    assert sent.to == ["ann@example.org"] and sent.subject == "Piramide: scegli una nuova password"
    assert "Il tuo nome utente è ann." in sent.body
    link = re.search(r"http://testserver(/password/reset/\S+/)", sent.body).group(1)
    visitor = Client(HTTP_ACCEPT_LANGUAGE="it")
    form = visitor.get(link, follow=True)
    assert "Nuova password" in form.content.decode()
    done = visitor.post(
        form.redirect_chain[-1][0],
        {"new_password1": "a-brand-new-phrase-7", "new_password2": "a-brand-new-phrase-7"},
        follow=True,
    )
    assert "La tua password è cambiata" in done.content.decode()
    assert Client().login(username="ann", password="a-brand-new-phrase-7")
    assert elsewhere.get("/profile/").status_code == 302, "the old password's session is over"
    assert "già stato usato" in visitor.get(link, follow=True).content.decode(), "a link works once"


def test_an_address_no_account_has_gets_the_same_page_and_no_mail() -> None:
    make_player("bob", email="")  # no e-mail
    response = ask(Client(HTTP_ACCEPT_LANGUAGE="en"), "nobody@example.org")
    assert "Check your e-mail" in response.content.decode() and not mail.outbox


def test_nobody_can_fill_a_players_inbox(settings: Any) -> None:
    settings.PASSWORD_RESETS_PER_EMAIL = "3/hour"
    make_player("cat", email="cat@example.org")
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    for _ in range(3):
        assert "Check your e-mail" in ask(client, "cat@example.org").content.decode()
    refused = ask(client, "Cat@Example.org").content.decode()
    assert "Too many reset requests: try again in 60 minutes." in refused
    assert len(mail.outbox) == 3


def test_one_address_cannot_ask_for_many_inboxes(settings: Any) -> None:
    settings.PASSWORD_RESETS_PER_IP = "2/hour"
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    ask(client, "a@example.org")
    ask(client, "b@example.org")
    assert "Too many reset requests" in ask(client, "c@example.org").content.decode()


def test_a_player_sets_the_address_recovery_goes_to_on_their_profile() -> None:
    player = make_player("dan", email="", email_verified_at=None)  # no address yet
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(player)
    assert "a forgotten password cannot be recovered" in client.get("/profile/").content.decode()
    response = client.post("/profile/email/", {"email": "dan@example.org"}, follow=True)
    assert "dan@example.org" in response.content.decode()
    player.refresh_from_db()
    assert player.email == "dan@example.org"
    assert "Enter a valid email address." in client.post("/profile/email/", {"email": "dan@"}).content.decode()
