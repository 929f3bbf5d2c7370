"""E-mail verification (accounts/verification.py): a link for one account and one address, limited
resends, the profile's state, and the API."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.core import mail
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import User
from accounts.verification import email_verify, verification_token
from plumbing.errors import BadRequest
from tests.factories import make_player
from tests.hardening.conftest import forget_limits

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_limits() -> Iterator[None]:
    forget_limits()
    yield
    forget_limits()


def link_in(message: Any) -> str:
    return re.search(r"http://testserver(/email/verify/\S+/)", message.body).group(1)


def signed_in(player: User, language: str = "en") -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(player)
    return client


def test_setting_an_address_on_the_profile_mails_a_link_that_verifies_it_and_the_profile_says_so() -> None:
    player = make_player("eva", email="", email_verified_at=None)
    client = signed_in(player, "it")
    page = client.post("/profile/email/", {"email": "eva@example.org"}, follow=True).content.decode()
    assert "eva@example.org" in page and 'data-verified="0"' in page and 'id="verify-resend"' in page
    [sent] = mail.outbox
    assert sent.to == ["eva@example.org"] and sent.subject == "Piramide: verifica il tuo indirizzo e-mail"
    link = link_in(sent)
    assert 'id="verify-email"' in client.get(link).content.decode(), "a GET only shows the button"
    player.refresh_from_db()
    assert player.email_verified_at is None
    page = client.post(link, follow=True).content.decode()
    player.refresh_from_db()
    assert player.email_verified and 'data-verified="1"' in page and 'id="verify-resend"' not in page
    assert client.post(link).status_code == 302, "following it again changes nothing and refuses nothing"


def test_a_link_for_an_old_address_does_not_verify_the_new_one_and_changing_the_address_unverifies() -> None:
    player = make_player("fox", email="fox@example.org", email_verified_at=None)
    old_token = verification_token(player)
    client = signed_in(player)
    client.post("/profile/email/", {"email": "fox@elsewhere.org"})
    response = client.post(f"/email/verify/{old_token}/")
    assert response.status_code == 400 and "no longer has" in response.content.decode()
    player.refresh_from_db()
    assert player.email_verified_at is None
    email_verify(token=verification_token(player))
    player.refresh_from_db()
    assert player.email_verified
    client.post("/profile/email/", {"email": "FOX@elsewhere.org"})  # the same address, other case
    player.refresh_from_db()
    assert player.email_verified, "the same address stays verified"
    client.post("/profile/email/", {"email": "fox@third.org"})
    player.refresh_from_db()
    assert not player.email_verified and player.email_verified_at is None


def test_an_expired_or_forged_link_is_refused_with_a_clear_page(settings: Any) -> None:
    player = make_player("gil", email_verified_at=None)
    token = verification_token(player)
    settings.EMAIL_VERIFICATION_MAX_AGE = -1
    response = Client(HTTP_ACCEPT_LANGUAGE="en").post(f"/email/verify/{token}/")
    assert response.status_code == 400 and "has expired" in response.content.decode()
    with pytest.raises(BadRequest) as error:
        email_verify(token=token)
    assert error.value.extra["reason"] == "expired"
    settings.EMAIL_VERIFICATION_MAX_AGE = 3600
    forged = Client(HTTP_ACCEPT_LANGUAGE="en").post(f"/email/verify/{token[:-2]}xx/")
    assert forged.status_code == 400 and "not valid" in forged.content.decode()


def test_resending_is_limited_per_account_with_a_clear_message(settings: Any) -> None:
    settings.EMAIL_VERIFICATIONS_PER_ACCOUNT = "2/hour"
    player = make_player("hal", email_verified_at=None)
    client = signed_in(player)
    for _ in range(2):
        assert "We sent a verification link" in client.post("/profile/email/verify/", follow=True).content.decode()
    refused = client.post("/profile/email/verify/", follow=True).content.decode()
    assert "Too many verification e-mails asked for: try again in" in refused
    assert len(mail.outbox) == 2


def test_resending_is_limited_per_address_whichever_account_asks(settings: Any) -> None:
    settings.EMAIL_VERIFICATIONS_PER_EMAIL = "1/hour"
    first = make_player("ian", email="shared@example.org", email_verified_at=None)
    second = make_player("joe", email="Shared@Example.org", email_verified_at=None)
    api = APIClient()
    api.force_authenticate(first)
    assert api.post("/api/auth/email/verification/").status_code == 202
    api.force_authenticate(second)
    refused = api.post("/api/auth/email/verification/")
    assert refused.status_code == 429 and refused.json()["error"] == "throttled" and refused.json()["retry_after"] > 0
    assert len(mail.outbox) == 1


def test_the_api_sets_the_address_and_verifies_it_by_token() -> None:
    player = make_player("kim", email="", email_verified_at=None)
    api = APIClient()
    api.force_authenticate(player)
    assert api.post("/api/auth/email/verification/").json()["error"] == "invalid"  # no address yet
    body = api.post("/api/auth/email/", {"email": "kim@example.org"}, format="json").json()
    assert body["email"] == "kim@example.org" and body["email_verified"] is False and body["verification_sent"] is True
    token = link_in(mail.outbox[0]).split("/")[-2]
    assert APIClient().post("/api/auth/email/verify/", {"token": token}, format="json").json() == {
        "email_verified": True
    }
    assert api.post("/api/auth/email/verification/").status_code == 400  # already verified
    same = api.post("/api/auth/email/", {"email": "kim@example.org"}, format="json").json()
    assert same["verification_sent"] is False and same["email_verified"] is True
    bad = APIClient().post("/api/auth/email/verify/", {"token": "nonsense"}, format="json")
    assert bad.status_code == 400 and bad.json()["reason"] == "invalid"
    assert api.post("/api/auth/email/", {"email": "nope"}, format="json").status_code == 400


def test_signing_up_with_an_address_mails_the_link() -> None:
    response = APIClient().post(
        "/api/auth/signup/",
        {"username": "lea", "password": "a-long-pass-phrase-42", "email": "lea@example.org"},
        format="json",
    )
    assert response.status_code == 201 and response.json()["email_verified"] is False
    [sent] = mail.outbox
    assert sent.to == ["lea@example.org"] and "/email/verify/" in sent.body


def test_staff_changing_an_address_in_the_admin_unverifies_it() -> None:
    staff = make_player("root", is_staff=True, is_superuser=True)
    player = make_player("mia")
    assert player.email_verified
    client = Client()
    client.force_login(staff)
    form = client.get(f"/admin/accounts/user/{player.pk}/change/")
    assert form.status_code == 200
    data = {
        "username": "mia",
        "display_name": "Mia",
        "email": "mia@new.example.org",
        "is_active": "on",
        "date_joined_0": player.date_joined.strftime("%Y-%m-%d"),
        "date_joined_1": player.date_joined.strftime("%H:%M:%S"),
    }
    response = client.post(f"/admin/accounts/user/{player.pk}/change/", data)
    assert response.status_code == 302, response.content.decode()[:3000]
    player.refresh_from_db()
    assert player.email == "mia@new.example.org" and player.email_verified_at is None
