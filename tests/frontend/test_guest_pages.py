"""Playing as a guest from the pages: Play on the home page without an account, then signing up or
in keeps the game (frontend/views.py ``ranked_start``, ``signup``, ``SignIn``)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from accounts.models import User
from games.models import Game
from games.services import game_move_make, game_ranked_start, game_resign
from leaderboard.models import Score
from tests.factories import make_challenge, make_player
from tests.hardening.conftest import forget_limits

pytestmark = pytest.mark.usefixtures("db")

PASSWORD = "a-long-pass-phrase-42"


def visitor(language: str = "en") -> Client:
    return Client(HTTP_ACCEPT_LANGUAGE=language)


def play_as_guest(client: Client, challenge: Any) -> Game:
    response = client.post(f"/challenges/{challenge.pk}/play/")
    assert response.status_code == 302, response.content
    game_id = int(re.fullmatch(r"/games/(\d+)/", response["Location"])[1])
    return Game.objects.select_related("player").get(pk=game_id)


@pytest.mark.parametrize(("language", "play"), [("it", "Gioca"), ("en", "Play"), ("es", "Jugar")])
def test_a_visitor_sees_a_play_button_on_every_challenge_of_today(language: str, play: str) -> None:
    classic, forty = make_challenge(), make_challenge(preset="forty")
    page = visitor(language).get("/").content.decode()
    for challenge in (classic, forty):
        assert f'action="/challenges/{challenge.pk}/play/"' in page
    assert f">{play}</button>" in page


def test_play_without_an_account_starts_todays_ranked_game_as_a_guest_and_opens_it() -> None:
    challenge = make_challenge()
    client = visitor()
    game = play_as_guest(client, challenge)
    assert game.ranked and game.player.guest and not game.player.has_usable_password()
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert "play-config" in page and "Guest" in page
    home = client.get("/").content.decode()
    assert "Resume" in home and "sign up to keep your games" in home


def test_a_guest_who_signs_up_keeps_the_game_in_the_same_account() -> None:
    challenge = make_challenge()
    client = visitor()
    game = play_as_guest(client, challenge)
    game_move_make(game_id=game.pk, player=game.player, move="D", seen=0)
    game_resign(game_id=game.pk, player=game.player)
    page = client.get("/signup/").content.decode()
    assert "come with you" in page
    response = client.post(
        "/signup/", {"username": "newcomer", "display_name": "Newcomer", "password": PASSWORD}, follow=True
    )
    assert response.status_code == 200
    user = User.objects.get(username="newcomer")
    assert user.pk == game.player_id and not user.guest
    assert "Your game as a guest is yours now." in response.content.decode()
    score = Score.objects.get(game=game)
    assert (score.player_id, score.standing_reason) == (user.pk, "new_account")
    assert client.get("/profile/").status_code == 200  # a player now, not a guest


def test_a_guest_who_signs_in_hands_the_game_to_the_account() -> None:
    challenge = make_challenge()
    alice = make_player("alice", display_name="Alice")
    client = visitor()
    game = play_as_guest(client, challenge)
    guest_id = game.player_id
    response = client.post("/signin/", {"username": "alice", "password": PASSWORD}, follow=True)
    assert "Your game as a guest is yours now." in response.content.decode()
    game.refresh_from_db()
    assert game.player_id == alice.pk
    assert User.objects.get(pk=guest_id).guest  # the emptied guest row stays, with nothing of today
    assert client.get(f"/games/{game.pk}/").status_code == 200


def test_a_guest_who_signs_in_to_an_account_that_played_is_told_the_accounts_game_counts() -> None:
    challenge = make_challenge()
    alice = make_player("alice", display_name="Alice")
    mine = game_ranked_start(challenge_id=challenge.pk, player=alice)[0].game
    client = visitor()
    guest_game = play_as_guest(client, challenge)
    response = client.post("/signin/", {"username": "alice", "password": PASSWORD}, follow=True)
    assert "that game counts, not the one you played as a guest" in response.content.decode()
    assert Game.objects.get(pk=guest_game.pk).player_id == guest_game.player_id
    assert Game.objects.get(pk=mine.pk).player_id == alice.pk


@pytest.mark.parametrize("path", ["/profile/", "/races/", "/profile/email/"])
def test_a_guest_is_asked_to_sign_up_for_what_needs_an_account(path: str) -> None:
    challenge = make_challenge()
    client = visitor()
    play_as_guest(client, challenge)
    response = client.get(path)
    assert response.status_code == 302 and response["Location"].startswith("/signup/?next=")


def test_too_many_guests_from_one_address_get_a_page_that_says_so(settings: Any) -> None:
    settings.GUESTS_PER_IP = "1/hour"
    forget_limits()
    challenge = make_challenge()
    play_as_guest(visitor(), challenge)
    before = User.objects.count()
    response = visitor().post(f"/challenges/{challenge.pk}/play/")
    assert response.status_code == 429 and "Too many guest games from your address" in response.content.decode()
    assert User.objects.count() == before


def test_a_signed_in_player_plays_as_themselves_not_as_a_guest() -> None:
    challenge = make_challenge()
    alice = make_player("alice", display_name="Alice")
    client = visitor()
    client.force_login(alice)
    response = client.post(f"/challenges/{challenge.pk}/play/")
    game = Game.objects.get(pk=int(response["Location"].split("/")[2]))
    assert game.player_id == alice.pk and not User.objects.filter(guest=True).exists()
