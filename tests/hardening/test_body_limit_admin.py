"""The body limit leaves room for the admin: its largest form, a game's page with every move of the
longest game the rules allow as inline rows, posts a small fraction of ``HTTP_MAX_BODY_BYTES``."""

from __future__ import annotations

from html.parser import HTMLParser
from urllib.parse import urlencode

import pytest
from django.conf import settings

from games.engine.moves import Kind
from games.services import game_move_make, game_ranked_start
from tests.factories import make_challenge, make_player

pytestmark = pytest.mark.django_db


class FormFields(HTMLParser):
    """The (name, value) pairs a browser would post from the page's main form."""

    def __init__(self) -> None:
        super().__init__()
        self.fields: list[tuple[str, str]] = []
        self.in_form = False
        self.textarea: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = {key: value or "" for key, value in attrs}
        if tag == "form" and attributes.get("id", "").endswith("_form"):
            self.in_form = True
        elif self.in_form and tag == "input" and attributes.get("name"):
            if attributes.get("type") in {"checkbox", "radio"} and "checked" not in attributes:
                return
            self.fields.append((attributes["name"], attributes.get("value", "")))
        elif self.in_form and tag == "textarea":
            self.textarea = attributes.get("name")

    def handle_data(self, data: str) -> None:
        if self.textarea:
            self.fields.append((self.textarea, data))
            self.textarea = None

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self.in_form = False


def longest_game(player):
    """Every draw, redeal and put-back the rules allow before any removal: the most moves one game keeps."""
    challenge = make_challenge()
    play = game_ranked_start(challenge_id=challenge.pk, player=player)[0]
    seen = 0
    while legal := play.state.legal_moves():
        first = sorted(legal, key=lambda move: move.kind is Kind.REMOVE)[0]
        play = game_move_make(game_id=play.game.pk, player=player, move=str(first), seen=seen)
        seen += 1
        assert seen < 5000, "a game of unbounded length"
    return play.game, seen


def test_the_admin_s_largest_form_fits_well_under_the_body_limit(client):
    staff = make_player("staff", is_staff=True, is_superuser=True)
    game, moves = longest_game(make_player("alice"))
    client.force_login(staff)
    page = client.get(f"/admin/games/game/{game.pk}/change/")
    assert page.status_code == 200
    parser = FormFields()
    parser.feed(page.content.decode())
    body = urlencode(parser.fields)
    assert f"move_set-{moves - 1}-id" in body or f"moves-{moves - 1}-id" in body, "every move is a row of the form"
    print(f"{moves} moves: the game's admin form posts {len(body):,} bytes")
    assert len(body) < settings.HTTP_MAX_BODY_BYTES / 4
    saved = client.post(f"/admin/games/game/{game.pk}/change/", body, content_type="application/x-www-form-urlencoded")
    assert saved.status_code == 302
