"""Race REST endpoints: create, read, join, start, play and resign, documented in the schema."""

from __future__ import annotations

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from races.models import Race
from tests.factories import BIG_WINNABLE

from .conftest import SEED

pytestmark = pytest.mark.django_db


@pytest.fixture
def friend_api(other_player):
    client = APIClient()
    client.force_login(other_player)
    return client


def test_the_whole_race_flow_over_rest(player_api, friend_api, race_line):
    from races.models import PooledDeal

    PooledDeal.objects.create(preset="classic", seed=SEED, line_length=len(race_line))
    created = player_api.post("/api/races/", {"preset": "classic"}, format="json")
    assert created.status_code == 201, created.json()
    code = created.json()["code"]
    assert created.json()["status"] == "lobby" and created.json()["seed"] is None
    joined = friend_api.post(f"/api/races/{code}/join/")
    assert [row["player"]["display_name"] for row in joined.json()["players"]] == ["Alice", "Bob"]
    assert friend_api.get(f"/api/races/{code}/game/").status_code == 404
    refused = friend_api.post(f"/api/races/{code}/start/", {}, format="json")
    assert refused.status_code == 403 and refused.json()["error"] == "not_host"
    assert player_api.post(f"/api/races/{code}/start/", {"countdown": 0}, format="json").json()["status"] == "running"
    game = player_api.get(f"/api/races/{code}/game/").json()
    assert game["moves"] == 0 and game["state"]["legal_moves"]
    for seen, move in enumerate(race_line):
        response = player_api.post(f"/api/races/{code}/moves/", {"move": move, "seen": seen}, format="json")
        assert response.status_code == 200, response.json()
    assert response.json()["outcome"] == "won"
    final = friend_api.get(f"/api/races/{code}/").json()
    assert final["status"] == "finished" and final["results"][0]["player"]["display_name"] == "Alice"
    assert final["seed"] == str(SEED) and final["rematch"] is None

    # the same two again: the first to ask hosts the rematch, the other joins it
    PooledDeal.objects.create(preset="classic", seed=BIG_WINNABLE, line_length=1)
    rematch = friend_api.post(f"/api/races/{code}/rematch/")
    assert rematch.status_code == 200, rematch.json()
    assert rematch.json()["status"] == "lobby" and rematch.json()["host"]["display_name"] == "Bob"
    assert player_api.get(f"/api/races/{code}/").json()["rematch"] == rematch.json()["code"]
    joined = player_api.post(f"/api/races/{code}/rematch/").json()
    assert joined["code"] == rematch.json()["code"]
    assert [row["player"]["display_name"] for row in joined["players"]] == ["Bob", "Alice"]


def test_race_errors_keep_the_api_shape(player_api, friend_api, player):
    from races.services import race_create

    race = race_create(host=player, preset="classic", seed=SEED)
    assert (
        friend_api.post(f"/api/races/{race.code}/moves/", {"move": "D", "seen": 0}, format="json").json()["error"]
        == "not_member"
    )
    early = player_api.post(f"/api/races/{race.code}/moves/", {"move": "D", "seen": 0}, format="json")
    assert early.status_code == 409 and early.json()["error"] == "not_started"
    Race.objects.filter(pk=race.pk).update(status=Race.Status.STARTED, starts_at=timezone.now())
    stale = player_api.post(f"/api/races/{race.code}/moves/", {"move": "D", "seen": 4}, format="json")
    assert stale.status_code == 409 and stale.json() == {**stale.json(), "error": "stale", "moves": 0}
    assert player_api.get("/api/races/nosuchrace/").status_code == 404
    assert APIClient().post("/api/races/", {"preset": "classic"}, format="json").status_code == 403


def test_the_race_endpoints_are_in_the_schema(api):
    schema = api.get("/api/schema/", HTTP_ACCEPT="application/json").content.decode()
    for path in (
        "/api/races/",
        "/api/races/{code}/join/",
        "/api/races/{code}/leave/",
        "/api/races/{code}/start/",
        "/api/races/{code}/moves/",
        "/api/races/{code}/rematch/",
    ):
        assert path in schema


def test_every_race_body_refuses_fields_it_does_not_take(player_api, friend_api, player):
    from races.services import race_create

    created = player_api.post("/api/races/", {"preset": "classic", "seed": 1}, format="json")
    assert created.status_code == 400 and "does not take" in created.json()["message"], created.json()
    assert not Race.objects.exists()
    race = race_create(host=player, preset="classic", seed=SEED)
    assert friend_api.post(f"/api/races/{race.code}/join/", {"host": True}, format="json").status_code == 400
    assert friend_api.post(f"/api/races/{race.code}/join/", "[1]", content_type="application/json").status_code == 400
    assert [entry.player.username for entry in race.entries.all()] == [player.username]
    assert friend_api.post(f"/api/races/{race.code}/join/").status_code == 200
    started = player_api.post(f"/api/races/{race.code}/start/", {"countdown": 0, "seed": 7}, format="json")
    assert started.status_code == 400 and "does not take" in started.json()["message"]
    assert player_api.post(f"/api/races/{race.code}/start/", [0], format="json").status_code == 400
    race.refresh_from_db()
    assert race.status == Race.Status.LOBBY
    assert player_api.post(f"/api/races/{race.code}/start/", {"countdown": 0}, format="json").status_code == 200
    forged = player_api.post(f"/api/races/{race.code}/moves/", {"move": "D", "seen": 0, "score": 999}, format="json")
    assert forged.status_code == 400 and "does not take" in forged.json()["message"]
    assert player_api.post(f"/api/races/{race.code}/resign/", {"outcome": "won"}, format="json").status_code == 400
    game = player_api.get(f"/api/races/{race.code}/game/").json()
    assert game["moves"] == 0 and game["outcome"] == "in_progress" and game["score"] == 0
    assert player_api.post(f"/api/races/{race.code}/resign/").json()["outcome"] == "resigned"


def test_each_race_body_has_its_own_strict_component_in_the_schema(api):
    import yaml

    schema = yaml.safe_load(api.get("/api/schema/").content)
    components = schema["components"]["schemas"]
    for path, name in (
        ("/api/races/", "RaceCreateInputRequest"),
        ("/api/races/{code}/start/", "RaceStartInputRequest"),
        ("/api/races/{code}/moves/", "RaceMoveMakeInputRequest"),
    ):
        body = schema["paths"][path]["post"]["requestBody"]["content"]["application/json"]["schema"]
        assert body == {"$ref": f"#/components/schemas/{name}"}
        assert components[name]["additionalProperties"] is False, name
    for path in ("/api/races/{code}/join/", "/api/races/{code}/resign/", "/api/races/{code}/rematch/"):
        assert "requestBody" not in schema["paths"][path]["post"], path


def test_leaving_over_rest_hands_the_room_on_and_the_last_one_out_closes_it(player_api, friend_api, player):
    from races.services import race_create

    race = race_create(host=player, preset="classic", seed=SEED)
    assert friend_api.post(f"/api/races/{race.code}/leave/").json()["error"] == "not_member"
    friend_api.post(f"/api/races/{race.code}/join/")
    assert player_api.post(f"/api/races/{race.code}/leave/", {"host": 1}, format="json").status_code == 400
    left = player_api.post(f"/api/races/{race.code}/leave/")
    assert left.status_code == 200, left.json()
    assert [row["player"]["display_name"] for row in left.json()["players"]] == ["Bob"]
    assert left.json()["host"]["display_name"] == "Bob" and left.json()["status"] == "lobby"
    closed = friend_api.post(f"/api/races/{race.code}/leave/")
    assert closed.json()["status"] == "finished" and closed.json()["players"] == []


def test_leaving_a_running_race_over_rest_gives_up_my_game(player_api, friend_api, player):
    from races.services import race_create

    race = race_create(host=player, preset="classic", seed=SEED)
    friend_api.post(f"/api/races/{race.code}/join/")
    assert player_api.post(f"/api/races/{race.code}/start/", {"countdown": 0}, format="json").status_code == 200
    assert friend_api.post(f"/api/races/{race.code}/leave/").status_code == 200
    assert friend_api.get(f"/api/races/{race.code}/game/").json()["outcome"] == "resigned"
    assert player_api.get(f"/api/races/{race.code}/game/").json()["outcome"] == "in_progress"
