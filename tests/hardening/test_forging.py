"""Scores cannot be forged: every way a client could try to write one is refused and changes nothing.

Each refusal is checked against the database itself: every game, move and score row is the same
after the refused request as before it.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from rest_framework.test import APIClient

from games.engine import Game as EngineGame
from games.engine import parse_move, score_moves
from games.engine.solver import solve
from games.models import Game, Move
from leaderboard.models import Score
from tests.factories import BIG_WINNABLE, end_the_day, make_challenge, make_player

pytestmark = pytest.mark.django_db


def rows() -> tuple[list[Any], list[Any], list[Any]]:
    return (
        list(Game.objects.order_by("pk").values()),
        list(Move.objects.order_by("pk").values()),
        list(Score.objects.order_by("pk").values()),
    )


class Unchanged:
    """``with Unchanged():`` asserts the block left every game, move and score row as it was."""

    def __enter__(self) -> Unchanged:
        self.before = rows()
        return self

    def __exit__(self, *exc: Any) -> None:
        if exc[0] is None:
            assert rows() == self.before, "a refused request changed the database"


@pytest.fixture
def challenge(today):
    return make_challenge(preset="classic", seed=BIG_WINNABLE, date=today)


@pytest.fixture
def line(challenge) -> list[str]:
    return [str(move) for move in solve(EngineGame.start(challenge.deal), time_limit=10).line]


def client_for(player: Any) -> APIClient:
    client = APIClient()
    client.force_login(player)
    return client


@pytest.fixture
def alice():
    return make_player("alice")


@pytest.fixture
def alice_api(alice):
    return client_for(alice)


@pytest.fixture
def game(alice_api, challenge) -> dict[str, Any]:
    return alice_api.post(f"/api/challenges/{challenge.pk}/ranked/").json()


def move(client: APIClient, game_id: int, notation: str, seen: int, **extra: Any) -> Any:
    return client.post(f"/api/games/{game_id}/moves/", {"move": notation, "seen": seen, **extra}, format="json")


def test_a_forged_score_or_outcome_is_refused_everywhere(alice_api, game, line):
    url = f"/api/games/{game['id']}/"
    for extra in ({"score": 9999}, {"outcome": "won"}, {"moves": 0}, {"state": {}}):
        with Unchanged():
            response = move(alice_api, game["id"], line[0], 0, **extra)
            assert response.status_code == 400 and "does not take" in response.json()["message"]
    for method in ("put", "patch", "delete"):
        with Unchanged():
            assert getattr(alice_api, method)(url, {"score": 9999}, format="json").status_code == 405
    with Unchanged():
        assert alice_api.post(f"{url}resign/", {"score": 9999}, format="json").status_code == 400
    with Unchanged():
        assert alice_api.post(f"{url}undo/", {"seen": 0, "score": 1}, format="json").status_code == 400


def test_a_move_for_another_players_game_is_refused(game, challenge, line):
    bob_api = client_for(make_player("bob"))
    with Unchanged():
        response = move(bob_api, game["id"], line[0], 0)
        assert response.status_code == 403 and response.json()["error"] == "not_yours"
    with Unchanged():
        assert bob_api.post(f"/api/games/{game['id']}/resign/").status_code == 403
    with Unchanged():
        assert bob_api.get(f"/api/games/{game['id']}/").status_code == 403
    with Unchanged():
        assert (
            APIClient().post(f"/api/games/{game['id']}/moves/", {"move": line[0], "seen": 0}, format="json").status_code
            == 403
        )


def test_a_replayed_or_reordered_move_is_refused(alice_api, game, line):
    assert move(alice_api, game["id"], line[0], 0).status_code == 200
    assert move(alice_api, game["id"], line[1], 1).status_code == 200
    with Unchanged():
        replayed = move(alice_api, game["id"], line[1], 1)  # the same request again
        assert replayed.status_code == 409 and replayed.json() == {**replayed.json(), "error": "stale", "moves": 2}
    with Unchanged():
        assert move(alice_api, game["id"], line[0], 0).status_code == 409  # an old one
    with Unchanged():
        assert move(alice_api, game["id"], line[3], 3).status_code == 409  # one from the future
    notation = list(Move.objects.filter(game_id=game["id"]).order_by("number").values_list("notation", flat=True))
    assert notation[:2] == line[:2]


def test_a_reordered_move_that_is_illegal_where_it_lands_changes_nothing(alice_api, game, line, challenge):
    """The next move, sent before the one it needs: the engine refuses it at this position."""
    state = EngineGame.start(challenge.deal)
    later = next(text for text in line[1:] if parse_move(text) not in state.legal_moves())
    with Unchanged():
        response = move(alice_api, game["id"], later, 0)
        assert response.status_code == 400 and response.json()["error"] == "illegal_move"


def test_a_second_ranked_attempt_is_refused(alice, alice_api, game, challenge, line):
    for seen, notation in enumerate(line[:3]):
        assert move(alice_api, game["id"], notation, seen).status_code == 200
    with Unchanged():
        again = alice_api.post(f"/api/challenges/{challenge.pk}/ranked/")
        assert again.status_code == 200 and again.json()["id"] == game["id"] and again.json()["moves"] == 3
    assert alice_api.post(f"/api/games/{game['id']}/resign/").status_code == 200
    with Unchanged():
        again = alice_api.post(f"/api/challenges/{challenge.pk}/ranked/")
        assert again.status_code == 200 and again.json()["id"] == game["id"] and again.json()["outcome"] == "resigned"
    # A practice game of the deal (once its day is over) never reaches the leaderboard, however it ends.
    end_the_day(challenge)
    practice = alice_api.post(f"/api/challenges/{challenge.pk}/practice/").json()
    for seen, notation in enumerate(line):
        assert move(alice_api, practice["id"], notation, seen).status_code == 200
    assert list(Score.objects.values_list("game_id", flat=True)) == [game["id"]]
    # Nor can a second ranked row exist at all.
    from django.db import IntegrityError, transaction

    with Unchanged(), pytest.raises(IntegrityError), transaction.atomic():
        Game.objects.create(challenge=challenge, player=alice, ranked=True)


def test_a_move_after_the_game_ended_is_refused(alice_api, game, line):
    for seen, notation in enumerate(line):
        response = move(alice_api, game["id"], notation, seen)
        assert response.status_code == 200
    assert response.json()["outcome"] == "won"
    finished = Game.objects.get(pk=game["id"])
    assert finished.score == score_moves([parse_move(text) for text in line])
    assert Score.objects.get(game=finished).points == finished.score
    for attempt in (
        lambda: move(alice_api, game["id"], "D", len(line)),
        lambda: alice_api.post(f"/api/games/{game['id']}/resign/"),
        lambda: alice_api.post(f"/api/games/{game['id']}/undo/", {"seen": len(line)}, format="json"),
    ):
        with Unchanged():
            response = attempt()
            assert response.status_code == 409 and response.json()["error"] == "finished"


def test_a_ranked_game_of_a_past_day_takes_no_move(alice, alice_api, today):
    yesterday = make_challenge(preset="classic", date=today - dt.timedelta(days=1))
    game = Game.objects.create(challenge=yesterday, player=alice, ranked=True)
    with Unchanged():
        response = move(alice_api, game.pk, "D", 0)
        assert response.status_code == 403 and response.json()["error"] == "not_allowed"
    with Unchanged():
        assert alice_api.post(f"/api/challenges/{yesterday.pk}/ranked/").status_code == 200  # resumes, no new row
