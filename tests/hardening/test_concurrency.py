"""20 requests at once on one game, on real Postgres: exactly one is accepted per version.

Each request runs in its own thread, so on its own database connection, through the whole HTTP
stack (session, CSRF-exempt test client, DRF, the service's row lock).  Afterwards the move log
has no gap and no duplicate, and every stored score equals the replay of its log.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from rest_framework.test import APIClient

from games.engine import Game as EngineGame
from games.engine import parse_move, score_moves
from games.engine.solver import solve
from games.models import Game, Move
from games.services import game_move_make, game_ranked_start
from leaderboard.models import Score
from tests.concurrency import at_once as released_together
from tests.factories import BIG_WINNABLE, make_challenge, make_player

pytestmark = pytest.mark.django_db(transaction=True)

THREADS = 20


def at_once(requests: list[Any]) -> list[Any]:
    """Each request in its own thread, released together; their responses in order."""
    answers = released_together(requests)
    assert not [answer for answer in answers if isinstance(answer, Exception)], answers
    return answers


@pytest.fixture
def setup(postgres, today):
    challenge = make_challenge(preset="classic", seed=BIG_WINNABLE, date=today)
    alice = make_player("alice")
    game = game_ranked_start(challenge_id=challenge.pk, player=alice)[0].game
    line = [str(move) for move in solve(EngineGame.start(challenge.deal), time_limit=10).line]
    clients = []
    for _ in range(THREADS):
        client = APIClient()
        client.force_login(alice)
        clients.append(client)
    return challenge, alice, game, line, clients


def check_log(game: Game) -> list[str]:
    game.refresh_from_db()
    numbers = list(Move.objects.filter(game=game).order_by("number").values_list("number", flat=True))
    assert numbers == list(range(1, game.move_count + 1)), "the log has a gap or a duplicate"
    notation = list(Move.objects.filter(game=game).order_by("number").values_list("notation", flat=True))
    state = EngineGame.replay(game.challenge.deal, [parse_move(text) for text in notation])
    if game.is_finished:
        assert game.score == score_moves(list(state.moves))
    return notation


def test_twenty_moves_at_one_version_store_exactly_one(setup):
    challenge, alice, game, line, clients = setup
    for seen, move in enumerate(line[:5]):
        game_move_make(game_id=game.pk, player=alice, move=move, seen=seen)
    for version in (5, 6, 7):
        answers = at_once(
            [
                (
                    lambda c=c: c.post(
                        f"/api/games/{game.pk}/moves/", {"move": line[version], "seen": version}, format="json"
                    )
                )
                for c in clients
            ]
        )
        codes = Counter(answer.status_code for answer in answers)
        assert codes == {200: 1, 409: THREADS - 1}, codes
        assert all(a.json()["error"] == "stale" for a in answers if a.status_code == 409)
        assert check_log(game) == line[: version + 1]


def test_twenty_finishing_moves_record_exactly_one_score(setup):
    challenge, alice, game, line, clients = setup
    for seen, move in enumerate(line[:-1]):
        game_move_make(game_id=game.pk, player=alice, move=move, seen=seen)
    last = len(line) - 1
    answers = at_once(
        [
            (lambda c=c: c.post(f"/api/games/{game.pk}/moves/", {"move": line[last], "seen": last}, format="json"))
            for c in clients
        ]
    )
    codes = Counter(answer.status_code for answer in answers)
    assert codes == {200: 1, 409: THREADS - 1}, codes
    winner = next(a.json() for a in answers if a.status_code == 200)
    assert winner["outcome"] == "won"
    assert check_log(game) == line
    score = Score.objects.get(challenge=challenge, player=alice)
    assert Score.objects.filter(player=alice).count() == 1
    assert score.points == game.score == winner["score"] == score_moves([parse_move(text) for text in line])


def test_twenty_resigns_and_moves_at_once_leave_one_consistent_end(setup):
    challenge, alice, game, line, clients = setup
    for seen, move in enumerate(line[:4]):
        game_move_make(game_id=game.pk, player=alice, move=move, seen=seen)
    requests = []
    for i, client in enumerate(clients):
        if i % 2:
            requests.append(lambda c=client: c.post(f"/api/games/{game.pk}/resign/"))
        else:
            requests.append(
                lambda c=client: c.post(f"/api/games/{game.pk}/moves/", {"move": line[4], "seen": 4}, format="json")
            )
    answers = at_once(requests)
    resigned = [a for i, a in enumerate(answers) if i % 2 and a.status_code == 200]
    moved = [a for i, a in enumerate(answers) if not i % 2 and a.status_code == 200]
    assert len(resigned) == 1, [a.status_code for a in answers]
    assert len(moved) <= 1
    assert all(a.status_code in (200, 409) for a in answers)
    notation = check_log(game)
    assert notation == line[: 4 + len(moved)]
    assert game.outcome == "resigned"
    assert resigned[0].json()["moves"] == game.move_count
    assert Score.objects.get(challenge=challenge, player=alice).points == game.score
