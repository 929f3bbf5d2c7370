import datetime as dt

import pytest

from games.engine import Game as EngineGame
from games.engine.solver import solve
from tests.factories import UNWINNABLE, make_challenge, make_player

pytestmark = pytest.mark.django_db


@pytest.fixture
def challenge():
    return make_challenge(preset="classic")


def start(client, challenge):
    return client.post(f"/api/challenges/{challenge.pk}/ranked/")


def test_todays_challenges_are_listed_without_their_seed_or_salt(api, challenge, today):
    make_challenge(date=today - dt.timedelta(days=1), seed=5)
    body = api.get("/api/challenges/today/").json()
    assert [c["id"] for c in body] == [challenge.pk]
    assert body[0]["seed"] is None and body[0]["salt"] is None and body[0]["deal"] is None
    assert body[0]["is_over"] is False
    assert body[0]["seed_commitment"] == challenge.seed_commitment
    assert body[0]["commitment_scheme"] == "piramide-seed-v2"
    assert challenge.salt not in api.get("/api/challenges/today/").content.decode()


def test_a_past_challenge_reveals_its_seed_salt_and_deal_matching_the_commitment(api, today):
    import hashlib

    past = make_challenge(date=today - dt.timedelta(days=1), seed=UNWINNABLE["classic"])
    body = api.get(f"/api/challenges/{past.pk}/").json()
    assert body["is_over"] is True and body["seed"] == str(past.seed) and body["salt"] == past.salt
    assert body["deal"] == str(past.deal)
    assert body["commitment_scheme"] == "piramide-seed-v2"
    digest = hashlib.sha256(f"piramide-seed-v2:classic:{body['seed']}:{body['salt']}".encode()).hexdigest()
    assert digest == body["seed_commitment"]


def test_a_past_v1_challenge_reveals_its_seed_and_no_salt(api, today):
    import hashlib

    past = make_challenge(date=today - dt.timedelta(days=1), seed=UNWINNABLE["classic"], commitment_version=1)
    body = api.get(f"/api/challenges/{past.pk}/").json()
    assert body["commitment_scheme"] == "piramide-seed-v1" and body["salt"] is None
    digest = hashlib.sha256(f"piramide-seed-v1:classic:{body['seed']}".encode()).hexdigest()
    assert digest == body["seed_commitment"]


def test_start_then_resume_the_ranked_game(player_api, challenge):
    first = start(player_api, challenge)
    assert first.status_code == 201
    second = start(player_api, challenge)
    assert second.status_code == 200 and second.json()["id"] == first.json()["id"]
    state = first.json()["state"]
    assert state["moves"] == 0 and state["outcome"] == "in_progress" and "legal_moves" in state


def test_starting_needs_a_signed_in_player(api, challenge):
    response = start(api, challenge)
    assert response.status_code == 403
    assert response.json()["error"] == "not_authenticated"


def test_a_move_answers_with_the_new_visible_state(player_api, challenge):
    game = start(player_api, challenge).json()
    response = player_api.post(f"/api/games/{game['id']}/moves/", {"move": "D", "seen": 0}, format="json")
    assert response.status_code == 200
    assert response.json()["moves"] == 1 and response.json()["state"]["moves"] == 1


def test_a_bad_move_is_400_with_a_readable_message(player_api, challenge):
    game = start(player_api, challenge).json()
    response = player_api.post(f"/api/games/{game['id']}/moves/", {"move": "1.1", "seen": 0}, format="json")
    assert response.status_code == 400
    assert response.json()["error"] == "illegal_move" and response.json()["message"]


def test_a_malformed_request_is_400_naming_the_field(player_api, challenge):
    game = start(player_api, challenge).json()
    response = player_api.post(f"/api/games/{game['id']}/moves/", {"move": "D"}, format="json")
    assert response.status_code == 400 and "seen" in response.json()["message"]


def test_a_stale_move_is_409_and_says_how_many_moves_there_are(player_api, challenge):
    game = start(player_api, challenge).json()
    url = f"/api/games/{game['id']}/moves/"
    player_api.post(url, {"move": "D", "seen": 0}, format="json")
    response = player_api.post(url, {"move": "D", "seen": 0}, format="json")
    assert response.status_code == 409
    assert response.json()["error"] == "stale" and response.json()["moves"] == 1
    assert player_api.get(f"/api/games/{game['id']}/").json()["moves"] == 1


def test_another_players_game_is_403(player_api, challenge):
    game = start(player_api, challenge).json()
    from rest_framework.test import APIClient

    other = APIClient()
    other.force_login(make_player("mallory"))
    for response in (
        other.get(f"/api/games/{game['id']}/"),
        other.post(f"/api/games/{game['id']}/moves/", {"move": "D", "seen": 0}, format="json"),
        other.post(f"/api/games/{game['id']}/resign/"),
    ):
        assert response.status_code == 403 and response.json()["error"] == "not_yours"


def test_unknown_ids_are_404(player_api):
    for response in (
        player_api.get("/api/games/987654/"),
        player_api.get("/api/challenges/987654/"),
        player_api.post("/api/challenges/987654/ranked/"),
    ):
        assert response.status_code == 404 and response.json()["message"]


def test_a_challenge_not_open_yet_is_refused(player_api, today):
    future = make_challenge(date=today + dt.timedelta(days=2))
    response = player_api.post(f"/api/challenges/{future.pk}/ranked/")
    assert response.status_code == 403 and "not open yet" in response.json()["message"]
    assert player_api.get(f"/api/challenges/{future.pk}/").json()["seed"] is None


def test_resign_then_moves_are_refused_and_review_opens(player_api, challenge):
    game = start(player_api, challenge).json()
    assert player_api.get(f"/api/games/{game['id']}/review/").status_code == 403
    resigned = player_api.post(f"/api/games/{game['id']}/resign/").json()
    assert resigned["outcome"] == "resigned" and resigned["state"]["legal_moves"] == []
    response = player_api.post(f"/api/games/{game['id']}/moves/", {"move": "D", "seen": 0}, format="json")
    assert response.status_code == 409 and response.json()["error"] == "finished"
    review = player_api.get(f"/api/games/{game['id']}/review/").json()
    assert review["start_verdict"] == "winnable"
    assert review["point_of_no_return"] is None or review["point_of_no_return"] >= 0
    assert review["line"] == [] and review["line_opens_at"].endswith("Z"), "the line waits for the day's end"


def test_ranked_games_have_no_hints_or_undo(player_api, challenge):
    game = start(player_api, challenge).json()
    hint = player_api.get(f"/api/games/{game['id']}/hint/")
    assert hint.status_code == 403 and "no hints" in hint.json()["message"]
    undo = player_api.post(f"/api/games/{game['id']}/undo/", {"seen": 0}, format="json")
    assert undo.status_code == 403 and "no undo" in undo.json()["message"]


def test_practice_games_have_hints_and_undo(player_api, today):
    past = make_challenge(date=today - dt.timedelta(days=1))
    game = player_api.post(f"/api/challenges/{past.pk}/practice/").json()
    hint = player_api.get(f"/api/games/{game['id']}/hint/").json()
    assert hint["verdict"] == "winnable"
    expected = solve(EngineGame.start(past.deal), time_limit=10).line[0]
    assert hint["move"] is not None
    moved = player_api.post(f"/api/games/{game['id']}/moves/", {"move": hint["move"], "seen": 0}, format="json")
    assert moved.status_code == 200, moved.json()
    undone = player_api.post(f"/api/games/{game['id']}/undo/", {"seen": 1}, format="json")
    assert undone.status_code == 200 and undone.json()["moves"] == 0
    assert expected is not None


def test_moves_are_throttled_with_429(player_api, challenge, settings, throttle_rates):
    from plumbing import limits

    settings.LIMITS_KEY_PREFIX = f"{settings.LIMITS_KEY_PREFIX}:{challenge.pk}:moves-429"
    throttle_rates(moves="2/min")
    limits.memory.clear()
    game = start(player_api, challenge).json()
    url = f"/api/games/{game['id']}/moves/"
    codes = [player_api.post(url, {"move": "D", "seen": n}, format="json").status_code for n in range(3)]
    assert codes == [200, 200, 429]
    refused = player_api.post(url, {"move": "D", "seen": 2}, format="json")
    body = refused.json()
    assert body["error"] == "throttled" and "try again" in body["message"]
    assert 0 < int(refused["Retry-After"]) <= 60
