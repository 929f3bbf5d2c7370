"""Every form field of every page says what it holds (``autocomplete``), so password managers and
phones fill in the right thing and offer a strong new password, and nothing else gets filled.

Every page of frontend/urls.py is listed here (or said not to be a page), so a new page is checked
as soon as it exists."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from django.contrib.auth.tokens import default_token_generator
from django.test import Client
from django.urls import URLPattern
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from accounts.verification import verification_token
from frontend.urls import urlpatterns
from games.services import game_ranked_start
from tests.factories import make_challenge, make_player

pytestmark = pytest.mark.django_db

#: Named routes that are no page: POST-only actions, JSON, the catalogue, redirects.
NOT_PAGES = {
    "signout",
    "ranked-start",
    "practice-start",
    "game-replay",
    "follow-add",
    "follow-stop",
    "follow-link-reset",
    "email-verify-resend",
    "set-language",
    "jsi18n",
    "password-reset-sent",
    "password-reset-done",
    "manifest",
    "service-worker",
}
FIELDS = {"input", "select", "textarea"}
NOT_FIELDS = {"hidden", "submit", "button", "reset", "image"}


class Fields(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        seen = dict(attrs)
        if tag in FIELDS and (tag != "input" or (seen.get("type") or "text") not in NOT_FIELDS):
            self.found.append({"tag": tag, **seen})


def fields_of(html: str) -> list[dict[str, str | None]]:
    parser = Fields()
    parser.feed(html)
    return parser.found


@pytest.fixture
def pages() -> dict[str, tuple[str, bool]]:
    """Each page's URL and whether it is seen signed in."""
    challenge = make_challenge()
    player = make_player("filler", email_verified_at=None)
    game = game_ranked_start(challenge_id=challenge.pk, player=player)[0].game
    uid, token = urlsafe_base64_encode(force_bytes(player.pk)), default_token_generator.make_token(player)
    return {
        "home": ("/", False),
        "signup": ("/signup/", False),
        "signin": ("/signin/", False),
        "password": ("/password/", True),
        "password-reset": ("/password/reset/", False),
        "password-reset-confirm": (f"/password/reset/{uid}/{token}/", False),
        "email": ("/profile/email/", True),
        "email-verify": (f"/email/verify/{verification_token(player)}/", True),
        "account-delete": ("/profile/delete/", True),
        "room": (f"/challenges/{challenge.pk}/room/", True),
        "game": (f"/games/{game.pk}/", True),
        "watch": (f"/games/{game.pk}/watch/", False),
        "leaderboards": ("/leaderboards/?view=following", True),
        "profile": ("/profile/", True),
        "follow-link": (f"/follow/{player.follow_token}/", False),
        "race-new": ("/races/", True),
        "race": ("/races/ABCDEF/", True),
        "offline": ("/offline/", False),
        "rules": ("/rules/classic/", False),
        "calendar": ("/calendar/", False),
    }


def test_every_page_is_checked(pages: dict[str, tuple[str, bool]]) -> None:
    names = {p.name for p in urlpatterns if isinstance(p, URLPattern) and p.name}
    assert names - NOT_PAGES == set(pages), "list a new page here, so its fields are checked"


def test_every_form_field_on_every_page_has_autocomplete(pages: dict[str, tuple[str, bool]]) -> None:
    player = make_player("looker")
    missing: list[str] = []
    checked = 0
    for name, (url, signed_in) in pages.items():
        client = Client(HTTP_ACCEPT_LANGUAGE="en")
        if signed_in:
            client.force_login(player)
        response = client.get(url, follow=True)
        assert response.status_code == 200, (name, url, response.status_code)
        for field in fields_of(response.content.decode()):
            checked += 1
            if not field.get("autocomplete"):
                missing.append(f"{name}: <{field['tag']} id={field.get('id')} name={field.get('name')}>")
    assert checked > 15, "the pages' fields were found"
    assert not missing, "fields without autocomplete:\n" + "\n".join(missing)


def test_the_admin_sign_in_fields_have_autocomplete() -> None:
    fields = fields_of(Client().get("/admin/login/").content.decode())
    assert {f.get("name") for f in fields} == {"username", "password"}
    assert all(f.get("autocomplete") for f in fields)


def test_the_parser_finds_a_field_without_it() -> None:
    html = '<form><input name="a" autocomplete="email"><input type="hidden" name="b"><select name="c"></select></form>'
    assert [f["name"] for f in fields_of(html) if not f.get("autocomplete")] == ["c"]
