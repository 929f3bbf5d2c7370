"""The whole story through the API: sign up, play today's classic challenge by the solver's
winning line, and find the engine's score as one's own entry of every board (provisional: the
account is as young as the challenge, docs/fairplay.md)."""

import pytest
from rest_framework.test import APIClient

from games.engine import Game as EngineGame
from games.engine import score_moves
from games.engine.solver import solve
from games.models import DailyChallenge
from games.services import challenges_fill


@pytest.mark.django_db(transaction=True)
def test_sign_up_play_todays_classic_challenge_and_see_the_score_on_the_leaderboard(today, settings):
    settings.PIRAMIDE_DAILY_PRESETS = ["classic", "forty"]
    settings.PIRAMIDE_ROTATION_PRESETS = ["egyptian"]  # a variant whose deals the test's solver decides at once
    challenges_fill(today=today, days=1)  # what the beat job does each hour

    client = APIClient(enforce_csrf_checks=True, HTTP_ACCEPT_LANGUAGE="en")
    token = client.get("/api/auth/csrf/").json()["csrf_token"]
    client.credentials(HTTP_X_CSRFTOKEN=token)
    signed_up = client.post(
        "/api/auth/signup/", {"username": "newcomer", "password": "pyramid-of-cards-9", "display_name": "Newcomer"}
    )
    assert signed_up.status_code == 201, signed_up.json()
    client.credentials(HTTP_X_CSRFTOKEN=client.cookies["csrftoken"].value)  # rotated at sign-in

    challenges = client.get("/api/challenges/today/").json()
    assert [(c["preset"], c["variant_of_the_day"]) for c in challenges] == [
        ("classic", False),
        ("forty", False),
        ("egyptian", True),
    ]
    classic = challenges[0]
    assert classic["verdict"] == "winnable" and classic["seed"] is None

    game = client.post(f"/api/challenges/{classic['id']}/ranked/").json()
    assert game["ranked"] and game["moves"] == 0

    # The test knows the deal (the server's row); the client only ever sent moves.
    deal = DailyChallenge.objects.get(pk=classic["id"]).deal
    line = solve(EngineGame.start(deal), time_limit=30).line
    assert line, "a challenge made by the fill job is winnable"
    for move in line:
        game = client.post(f"/api/games/{game['id']}/moves/", {"move": str(move), "seen": game["moves"]}, format="json")
        assert game.status_code == 200, game.json()
        game = game.json()
    assert game["outcome"] == "won" and game["state"]["pyramid_left"] == 0

    expected = EngineGame.replay(deal, line).score
    assert game["score"] == expected == score_moves(line)

    # an account made on the challenge's day scores provisionally: on no board, but always its own
    for url in (
        f"/api/leaderboards/challenges/{classic['id']}/",
        "/api/leaderboards/weeks/classic/",
        "/api/leaderboards/all-time/classic/",
    ):
        board = client.get(url).json()
        assert board["total"] == 0 and board["entries"] == [] and board["my_rank"] is None, url
        me = board["me"]
        assert (me["display_name"], me["points"], me["moves"], me["standing"]) == (
            "Newcomer",
            expected,
            len(line),
            "provisional",
        )
        assert me["standing_text"].startswith("Provisional: your account was made on the day of this challenge")
    assert APIClient().get(f"/api/leaderboards/challenges/{classic['id']}/").json()["entries"] == []

    me = client.get("/api/me/").json()
    assert me["streaks"]["played_current"] == 1 and me["streaks"]["won_current"] == 1
    assert me["history"][0]["points"] == expected and me["history"][0]["standing"] == "provisional"

    # a second start resumes the finished game rather than opening another ranked attempt
    again = client.post(f"/api/challenges/{classic['id']}/ranked/")
    assert again.status_code == 200 and again.json()["id"] == game["id"]
    # practice (with hints) waits for the end of the day, whoever asks
    refused = client.post(f"/api/challenges/{classic['id']}/practice/")
    assert refused.status_code == 403 and refused.json()["error"] == "deal_secret"
