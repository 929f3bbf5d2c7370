"""The cheater's path of a second account, driven over the API as a cheater would drive it: a fresh
throwaway learns today's classic deal by drawing through the stock (the knowledge rule cannot hide
an open pyramid and a stock anyone may draw), then the main account, from the same address, plays
the solver's line of that deal.  It must not end at the top of any board in good standing.
"""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from fairplay.models import Assessment
from games.engine import Game as EngineGame
from games.engine import get_rules, parse_deal
from games.engine.solver import solve
from leaderboard.models import Score
from tests.factories import BIG_WINNABLE, make_challenge, make_player

pytestmark = pytest.mark.django_db(transaction=True)

ADDRESS = "198.51.100.7"


def client_at(address: str) -> APIClient:
    return APIClient(REMOTE_ADDR=address, HTTP_ACCEPT_LANGUAGE="en")


def learn_the_deal_by_drawing(client: APIClient, challenge_id: int) -> str:
    """What a throwaway sees of classic: the whole pyramid at once, and each stock card as it is drawn."""
    game = client.post(f"/api/challenges/{challenge_id}/ranked/").json()
    pyramid = [slot["card"] for row in game["state"]["rows"] for slot in row]
    stock: list[str] = []
    seen = 0
    while "D" in game["state"]["legal_moves"] and len(stock) < 24:
        game = client.post(f"/api/games/{game['id']}/moves/", {"move": "D", "seen": seen}, format="json").json()
        seen += 1
        stock.append(game["state"]["waste"][-1])
    client.post(f"/api/games/{game['id']}/resign/")
    return " ".join(pyramid + stock)


def board(client: APIClient, url: str) -> dict[str, Any]:
    response = client.get(url)
    assert response.status_code == 200, response.json()
    return response.json()


def test_throwaway_then_main_from_one_address_never_tops_a_board_in_good_standing() -> None:
    challenge = make_challenge(preset="classic", seed=BIG_WINNABLE)
    honest = client_at("203.0.113.9")
    honest.force_login(make_player("honest"))
    honest_game = honest.post(f"/api/challenges/{challenge.pk}/ranked/").json()
    honest.post(f"/api/games/{honest_game['id']}/moves/", {"move": "D", "seen": 0}, format="json")
    honest.post(f"/api/games/{honest_game['id']}/resign/")

    throwaway = client_at(ADDRESS)
    signup = {"username": "throwaway1", "password": "a-long-pass-phrase-42"}
    assert throwaway.post("/api/auth/signup/", signup, format="json").status_code == 201
    deal_text = learn_the_deal_by_drawing(throwaway, challenge.pk)
    deal = parse_deal(get_rules("classic"), deal_text)
    assert str(deal) == str(challenge.deal), "the throwaway learnt the whole deal, as a cheater would"
    line = [str(move) for move in solve(EngineGame.start(deal), time_limit=5).line]

    main_player = make_player("main")  # an established account, from the same address
    main = client_at(ADDRESS)
    main.force_login(main_player)
    game = main.post(f"/api/challenges/{challenge.pk}/ranked/").json()
    for seen, move in enumerate(line):
        game = main.post(f"/api/games/{game['id']}/moves/", {"move": move, "seen": seen}, format="json").json()
    assert game["outcome"] == "won"

    score = Score.objects.get(player=main_player, challenge=challenge)
    assessment = Assessment.objects.get(score=score)
    assert assessment.flagged and assessment.signals["solver_line"] == 1.0 and assessment.signals["address_link"] == 1.0
    assert score.standing == "review" and score.standing_reason == "signals"
    throwaway_score = Score.objects.get(player__username="throwaway1")
    # a new account: provisional, or in review when its own play looks scripted (these draws are instant)
    assert throwaway_score.standing in ("provisional", "review")

    for url in (
        f"/api/leaderboards/challenges/{challenge.pk}/",
        "/api/leaderboards/weeks/classic/",
        "/api/leaderboards/all-time/classic/",
    ):
        seen_by_anyone = board(APIClient(), url)
        assert [e["display_name"] for e in seen_by_anyone["entries"]] == ["Honest"], url
        assert all(e["standing"] == "good" for e in seen_by_anyone["entries"])
        mine = board(main, url + "?around=me")
        assert mine["my_rank"] is None, "a score in review has no rank"
        assert mine["me"]["standing"] == "review" and mine["me"]["points"] == score.points
        assert "review" in mine["me"]["standing_text"]
