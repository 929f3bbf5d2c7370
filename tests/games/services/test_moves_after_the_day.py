"""A ranked move after the day ends is refused on every path that writes one: the locked service
(cold: this process remembers nothing of the game) and the hint path (warm: the position of the
last committed move is remembered, the normal case), over REST as well.  Nothing is stored.
(The socket's paths: tests/games/consumers/test_moves_after_the_day.py.)"""

from __future__ import annotations

import datetime as dt
from unittest import mock

import pytest
from rest_framework.test import APIClient

from games import positions
from games.models import Game, Move
from games.selectors import challenge_day_start
from games.services import game_move_make, game_ranked_start
from plumbing.errors import NotAllowed
from tests.factories import make_challenge

pytestmark = pytest.mark.django_db


@pytest.fixture
def ranked(player):
    challenge = make_challenge(preset="classic")
    return game_ranked_start(challenge_id=challenge.pk, player=player)[0].game


def just_after_midnight(game: Game):
    """The first second of the next day in the challenges' zone: this game's day is over."""
    midnight = challenge_day_start(game.challenge.date + dt.timedelta(days=1))
    return mock.patch("django.utils.timezone.now", return_value=midnight + dt.timedelta(seconds=1))


@pytest.mark.parametrize("warm", [True, False], ids=["warm", "cold"])
def test_a_ranked_move_after_midnight_is_refused_by_the_service(
    player, ranked, warm, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):  # what a commit would leave remembered
        game_move_make(game_id=ranked.pk, player=player, move="D", seen=0)
    assert positions.hint("game", ranked.pk) is not None, "a committed move leaves its position remembered"
    if not warm:
        positions.forget_all()
    with just_after_midnight(ranked), pytest.raises(NotAllowed, match="day is over"):
        game_move_make(game_id=ranked.pk, player=player, move="D", seen=1)
    assert list(Move.objects.filter(game=ranked).values_list("number", flat=True)) == [1]
    ranked.refresh_from_db()
    assert (ranked.move_count, ranked.version, ranked.outcome) == (1, 1, Game.Outcome.IN_PROGRESS)


@pytest.mark.parametrize("warm", [True, False], ids=["warm", "cold"])
def test_a_ranked_move_after_midnight_is_refused_over_rest(player, ranked, warm, django_capture_on_commit_callbacks):
    client = APIClient()
    client.force_login(player)
    with django_capture_on_commit_callbacks(execute=True):
        assert client.post(f"/api/games/{ranked.pk}/moves/", {"move": "D", "seen": 0}, format="json").status_code == 200
    assert positions.hint("game", ranked.pk) is not None
    if not warm:
        positions.forget_all()
    with just_after_midnight(ranked):
        refused = client.post(f"/api/games/{ranked.pk}/moves/", {"move": "D", "seen": 1}, format="json")
    assert refused.status_code == 403 and refused.json()["error"] == "not_allowed", refused.json()
    assert Move.objects.filter(game=ranked).count() == 1
