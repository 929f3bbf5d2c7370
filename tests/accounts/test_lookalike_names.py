"""Display names that would pose as someone else's: refused or normalised, on every way in."""

import pytest
from django.contrib.admin.sites import site
from django.test import Client, RequestFactory
from rest_framework.test import APIClient

from accounts.admin import PlayerAdmin
from accounts.models import User
from accounts.names import display_name_skeleton
from tests.factories import make_player

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-pass-phrase-42"

# The examples, each next to an existing "Demo Player".
INVISIBLE = {
    "zero-width space": "Demo\u200bPlayer",
    "right-to-left override": "\u202eDemo Player",
    "zero-width joiner": "Demo\u200d Player",
    "control character": "Demo\tPlayer",
}
LOOK_ALIKE = {
    "no-break space": "Demo\u00a0Player",
    "Cyrillic e": "D\u0435mo Player",
    "full-width letters": "\uff24emo Player",
    "case": "DEMO PLAYER",
    "two spaces": "Demo  Player",
}


def csrf_client():
    client = APIClient(enforce_csrf_checks=True, HTTP_ACCEPT_LANGUAGE="en")
    token = client.get("/api/auth/csrf/").json()["csrf_token"]
    client.credentials(HTTP_X_CSRFTOKEN=token)
    return client


def sign_up(display_name, username="newcomer"):
    return csrf_client().post(
        "/api/auth/signup/", {"username": username, "password": PASSWORD, "display_name": display_name}, format="json"
    )


@pytest.fixture
def demo_player():
    return make_player("demo", display_name="Demo Player")


@pytest.mark.parametrize("name", INVISIBLE.values(), ids=INVISIBLE.keys())
def test_invisible_control_and_bidi_characters_are_refused_by_the_api(demo_player, name):
    response = sign_up(name)
    assert response.status_code == 400, response.json()
    message = response.json()["message"]
    assert "invisible, control or text-direction" in message and "U+" in message
    assert not User.objects.filter(username="newcomer").exists()


@pytest.mark.parametrize("name", LOOK_ALIKE.values(), ids=LOOK_ALIKE.keys())
def test_names_that_look_like_a_taken_one_are_refused_by_the_api(demo_player, name):
    response = sign_up(name)
    assert response.status_code == 409, response.json()
    assert "looks the same as" in response.json()["message"]
    assert not User.objects.filter(username="newcomer").exists()


def test_a_no_break_space_alone_is_normalised_to_a_space():
    response = sign_up("Ada\u00a0Lovelace")
    assert response.status_code == 201, response.json()
    assert response.json()["display_name"] == "Ada Lovelace"


def test_a_username_that_looks_like_a_taken_display_name_is_refused_as_the_default_name(demo_player):
    make_player("paola", display_name="Paola")
    response = csrf_client().post("/api/auth/signup/", {"username": "pa0la", "password": PASSWORD}, format="json")
    assert response.status_code == 409 and "looks the same as" in response.json()["message"]


def test_a_name_with_no_letter_or_digit_is_refused():
    response = sign_up("\u2800 . \u2800")
    assert response.status_code == 400 and "letter or digit" in response.json()["message"]


@pytest.mark.parametrize("first,second", [("José", "Jose"), ("Niccolò", "Nicolò"), ("Peña", "Pena"), ("Anna", "Hanna")])
def test_different_people_with_different_names_are_both_accepted(first, second):
    assert sign_up(first, username="first").status_code == 201
    assert sign_up(second, username="second").status_code == 201
    assert set(User.objects.values_list("display_name", flat=True)) == {first, second}


def test_the_skeleton_is_stored_and_unique_in_the_database(demo_player):
    from django.db import IntegrityError, transaction

    assert demo_player.display_name_skeleton == display_name_skeleton("Demo Player")
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.create(
            username="sneaky", display_name="D\u0435mo Player", display_name_skeleton=demo_player.display_name_skeleton
        )


# ----------------------------------------------------------------- the sign-up page


def page_sign_up(display_name):
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    data = {"username": "newcomer", "password": PASSWORD, "display_name": display_name, "email": ""}
    return client.post("/signup/", data)


@pytest.mark.parametrize("name", INVISIBLE.values(), ids=INVISIBLE.keys())
def test_the_sign_up_page_refuses_invisible_characters(demo_player, name):
    response = page_sign_up(name)
    assert response.status_code == 200
    assert "invisible, control or text-direction" in response.content.decode()
    assert not User.objects.filter(username="newcomer").exists()


@pytest.mark.parametrize("name", LOOK_ALIKE.values(), ids=LOOK_ALIKE.keys())
def test_the_sign_up_page_refuses_look_alike_names(demo_player, name):
    response = page_sign_up(name)
    assert response.status_code == 200
    assert "looks the same as" in response.content.decode()
    assert not User.objects.filter(username="newcomer").exists()


def test_the_sign_up_page_says_it_in_italian(demo_player):
    client = Client(HTTP_ACCEPT_LANGUAGE="it")
    data = {"username": "newcomer", "password": PASSWORD, "display_name": "D\u0435mo Player", "email": ""}
    assert "sembra uguale a" in client.post("/signup/", data).content.decode()


def test_the_sign_up_page_accepts_accented_names():
    response = page_sign_up("Niccolò")
    assert response.status_code == 302
    assert User.objects.get(username="newcomer").display_name == "Niccolò"


# ----------------------------------------------------------------- the admin


def admin_form(instance, display_name, *, add=False):
    admin = PlayerAdmin(User, site)
    request = RequestFactory().post("/")
    request.user = make_player("staff", is_staff=True, is_superuser=True)
    form_class = admin.get_form(request, None if add else instance, change=not add)
    data = {"username": "newcomer", "display_name": display_name, "password1": PASSWORD, "password2": PASSWORD}
    if not add:
        data = {
            "username": instance.username,
            "display_name": display_name,
            "date_joined_0": "2026-01-01",
            "date_joined_1": "00:00:00",
            "is_active": "on",
        }
    return form_class(data, instance=None if add else instance)


def test_the_admin_refuses_a_look_alike_display_name(demo_player):
    other = make_player("other", display_name="Other")
    form = admin_form(other, "D\u0435mo Player")
    assert not form.is_valid()
    assert "looks the same as" in str(form.errors["display_name"])


def test_the_admin_refuses_invisible_characters_when_adding(demo_player):
    form = admin_form(None, "Demo\u200bPlayer", add=True)
    assert not form.is_valid()
    assert "invisible, control or text-direction" in str(form.errors["display_name"])


def test_the_admin_renames_and_keeps_the_skeleton_in_step(demo_player):
    form = admin_form(demo_player, "Demo\u00a0Player 2")
    assert form.is_valid(), form.errors
    form.save()
    demo_player.refresh_from_db()
    assert demo_player.display_name == "Demo Player 2"
    assert demo_player.display_name_skeleton == display_name_skeleton("Demo Player 2")
