import pytest
from rest_framework.test import APIClient

from accounts.models import User
from tests.factories import make_player

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-pass-phrase-42"


def csrf_client():
    client = APIClient(enforce_csrf_checks=True, HTTP_ACCEPT_LANGUAGE="en")
    token = client.get("/api/auth/csrf/").json()["csrf_token"]
    client.credentials(HTTP_X_CSRFTOKEN=token)
    return client


def test_sign_up_signs_in_and_returns_the_player():
    client = csrf_client()
    response = client.post("/api/auth/signup/", {"username": "carla", "password": PASSWORD, "display_name": "Carla R."})
    assert response.status_code == 201, response.json()
    assert response.json()["display_name"] == "Carla R."
    assert client.get("/api/me/").status_code == 200


def test_sign_up_without_csrf_is_refused():
    client = APIClient(enforce_csrf_checks=True, HTTP_ACCEPT_LANGUAGE="en")
    response = client.post("/api/auth/signup/", {"username": "carla", "password": PASSWORD})
    assert response.status_code == 403
    assert "CSRF" in response.json()["message"]
    assert not User.objects.exists()


def test_a_weak_password_is_refused_with_the_validators_words():
    response = csrf_client().post("/api/auth/signup/", {"username": "carla", "password": "123"})
    assert response.status_code == 400
    body = response.json()
    assert body["error"] == "invalid" and "too short" in body["message"]


def test_display_names_are_unique():
    make_player("dora", display_name="Dora")
    response = csrf_client().post(
        "/api/auth/signup/", {"username": "dora2", "password": PASSWORD, "display_name": "dora"}
    )
    assert response.status_code == 409 and "display name" in response.json()["message"]


def test_sign_in_and_sign_out():
    make_player("erin", password=PASSWORD)
    client = csrf_client()
    wrong = client.post("/api/auth/signin/", {"username": "erin", "password": "nope"})
    assert wrong.status_code == 400 and wrong.json()["message"] == "wrong username or password"
    assert client.post("/api/auth/signin/", {"username": "erin", "password": PASSWORD}).status_code == 200
    # signing in rotates the CSRF token
    client.credentials(HTTP_X_CSRFTOKEN=client.cookies["csrftoken"].value)
    assert client.get("/api/me/").status_code == 200
    assert client.post("/api/auth/signout/").status_code == 204
    assert client.get("/api/me/").status_code == 403


def test_change_password():
    user = make_player("fred", password=PASSWORD)
    client = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(user)
    bad = client.post("/api/auth/password/", {"old_password": "wrong", "new_password": "another-long-phrase-7"})
    assert bad.status_code == 400
    ok = client.post("/api/auth/password/", {"old_password": PASSWORD, "new_password": "another-long-phrase-7"})
    assert ok.status_code == 204
    user.refresh_from_db()
    assert user.check_password("another-long-phrase-7")
    assert client.get("/api/me/").status_code == 200, "the session survives the change"


def test_signed_in_unsafe_requests_need_csrf():
    user = make_player("gina")
    client = APIClient(enforce_csrf_checks=True, HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(user)
    assert client.post("/api/auth/password/", {"old_password": "x", "new_password": "y"}).status_code == 403
