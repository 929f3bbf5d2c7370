"""One sign-in backend: every way in counts failures once, and sessions that name the backend by
Django's path (made before it was the only one) still sign their player in."""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.auth import get_user as socket_user
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore
from django.test import Client

from accounts.models import User
from tests.factories import make_player

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-pass-phrase-42"
LOCKOUT = "accounts.backends.LockoutModelBackend"


def test_the_site_sign_up_page_signs_in_with_the_lockout_backend():
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    response = client.post("/signup/", {"username": "carla", "password": PASSWORD})
    assert response.status_code == 302, response.content.decode()[:2000]
    assert client.session[BACKEND_SESSION_KEY] == LOCKOUT
    assert client.get("/profile/").status_code == 200


def test_the_lockout_backend_is_the_only_one(monkeypatch):
    assert settings.AUTHENTICATION_BACKENDS == [LOCKOUT]
    make_player("erin", password=PASSWORD)
    checks: list[str] = []
    original = User.check_password

    def counted(self: User, raw: str) -> bool:
        checks.append(raw)
        return original(self, raw)

    monkeypatch.setattr(User, "check_password", counted)
    for page in ("/signin/", "/admin/login/"):
        checks.clear()
        response = Client(HTTP_ACCEPT_LANGUAGE="en").post(page, {"username": "erin", "password": "wrong"})
        assert response.status_code == 200
        assert checks == ["wrong"], f"{page}: a wrong password is checked once, not by two backends"


def old_session(user: Any, backend: str) -> str:
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = backend
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    return str(session.session_key)


@pytest.mark.django_db(transaction=True)  # the socket reads the session from another thread's connection
@pytest.mark.parametrize("backend", ["django.contrib.auth.backends.ModelBackend", LOCKOUT])
def test_sessions_made_with_either_backend_name_stay_signed_in(backend):
    user = make_player("fede", password=PASSWORD)
    key = old_session(user, backend)
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.cookies[settings.SESSION_COOKIE_NAME] = key
    assert client.get("/profile/").status_code == 200
    assert client.get("/api/me/").json()["user"]["id"] == user.pk
    on_socket = async_to_sync(socket_user)({"session": SessionStore(session_key=key)})
    assert on_socket.pk == user.pk


def test_an_unknown_backend_name_is_still_signed_out():
    user = make_player("gino", password=PASSWORD)
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.cookies[settings.SESSION_COOKIE_NAME] = old_session(user, "somewhere.else.Backend")
    assert client.get("/profile/").status_code == 302
