"""The knowledge rule over the API: until a challenge's day is over, nobody learns more of its deal
than their own ranked game has shown them (games/selectors.py ``require_deal_public``); once the
day is over, the review line, practice and hints open to everyone.  Each path on both sides of
the day boundary.
"""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from games.engine import Game as EngineGame
from games.engine import parse_move
from games.models import Game
from tests.factories import BIG_WINNABLE, end_the_day, make_challenge

pytestmark = pytest.mark.django_db


def signed_up(name: str) -> APIClient:
    """A fresh account, made as a throwaway would make it: through the sign-up API."""
    client = APIClient()
    response = client.post("/api/auth/signup/", {"username": name, "password": "a-long-pass-phrase-42"}, format="json")
    assert response.status_code == 201, response.json()
    return client


def refused_as_secret(response: Any) -> dict[str, Any]:
    body = response.json()
    assert response.status_code == 403 and body["error"] == "deal_secret", body
    assert body["opens_at"].endswith("Z") and "opens when" in body["message"]
    return body


@pytest.mark.parametrize("preset", ["classic", "forty"])
def test_a_throwaway_that_resigns_at_once_learns_nothing_of_todays_deal(preset: str) -> None:
    """The cheater's path of a second account: start today's ranked game, resign at 0 moves, then
    ask for the review line and a practice game with hints.  None of it tells a card."""
    challenge = make_challenge(preset=preset, seed=BIG_WINNABLE)
    throwaway = signed_up("throwaway")
    game = throwaway.post(f"/api/challenges/{challenge.pk}/ranked/").json()
    assert throwaway.post(f"/api/games/{game['id']}/resign/").json()["outcome"] == "resigned"

    review = throwaway.get(f"/api/games/{game['id']}/review/").json()
    assert review["line"] == [] and review["line_opens_at"].endswith("Z")
    assert review["start_verdict"] == "winnable"
    refused_as_secret(throwaway.post(f"/api/challenges/{challenge.pk}/practice/"))
    assert not Game.objects.filter(challenge=challenge, ranked=False).exists()


def test_once_the_day_is_over_the_review_line_practice_and_hints_open() -> None:
    challenge = make_challenge(preset="classic", seed=BIG_WINNABLE)
    player = signed_up("player")
    game = player.post(f"/api/challenges/{challenge.pk}/ranked/").json()
    player.post(f"/api/games/{game['id']}/resign/")
    end_the_day(challenge)

    review = player.get(f"/api/games/{game['id']}/review/").json()
    assert review["line_opens_at"] is None
    assert review["line"], "a winning line from where the game stood"
    replayed = EngineGame.start(challenge.deal)
    for move in review["line"]:
        replayed = replayed.apply(parse_move(move))
    assert replayed.outcome.value == "won", "the line is the deal's, and it wins"

    practice = player.post(f"/api/challenges/{challenge.pk}/practice/")
    assert practice.status_code == 201
    hint = player.get(f"/api/games/{practice.json()['id']}/hint/").json()
    assert hint["verdict"] == "winnable" and hint["move"]


def test_a_practice_game_of_a_day_not_over_gets_no_hint() -> None:
    """Practice games of a running day cannot be started; one that exists all the same (made
    before this rule, or by staff) still gets no hint until the day is over."""
    challenge = make_challenge(preset="classic", seed=BIG_WINNABLE)
    player = signed_up("player")
    from accounts.models import User

    practice = Game.objects.create(challenge=challenge, player=User.objects.get(username="player"), ranked=False)
    refused_as_secret(player.get(f"/api/games/{practice.pk}/hint/"))
    end_the_day(challenge)
    assert player.get(f"/api/games/{practice.pk}/hint/").json()["move"]


def test_a_review_is_refused_to_anyone_but_the_player() -> None:
    challenge = make_challenge(preset="classic", seed=BIG_WINNABLE)
    alice, bob = signed_up("alice"), signed_up("bob")
    game = alice.post(f"/api/challenges/{challenge.pk}/ranked/").json()
    alice.post(f"/api/games/{game['id']}/resign/")
    for side in ("before", "after"):
        if side == "after":
            end_the_day(challenge)
        response = bob.get(f"/api/games/{game['id']}/review/")
        assert response.status_code == 403 and response.json()["error"] == "not_yours", side


@pytest.mark.parametrize("side", ["before", "after"])
def test_a_guest_made_by_tapping_play_learns_no_more_than_an_account_on_either_side_of_the_day(side: str) -> None:
    """A guest is the cheapest throwaway there is (no form at all): the same rule holds for it."""
    challenge = make_challenge(preset="classic", seed=BIG_WINNABLE)
    guest = APIClient()
    started = guest.post(f"/challenges/{challenge.pk}/play/")
    game_id = int(started["Location"].split("/")[2])
    assert guest.post(f"/api/games/{game_id}/resign/").json()["outcome"] == "resigned"
    if side == "before":
        review = guest.get(f"/api/games/{game_id}/review/").json()
        assert review["line"] == [] and review["line_opens_at"].endswith("Z")
        refused_as_secret(guest.post(f"/api/challenges/{challenge.pk}/practice/"))
    else:
        end_the_day(challenge)
        assert guest.get(f"/api/games/{game_id}/review/").json()["line"]
        assert guest.post(f"/api/challenges/{challenge.pk}/practice/").status_code == 201
