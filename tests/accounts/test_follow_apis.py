"""The follow API: JSON in and out, signed in only, errors a client can show."""

import pytest
from rest_framework.test import APIClient

from accounts.models import Follow
from tests.factories import make_player

pytestmark = pytest.mark.django_db


def test_follow_by_name_then_again_then_list(player_api, player, other_player):
    first = player_api.post("/api/follows/by-name/", {"display_name": "bob"}, format="json")
    assert first.status_code == 201
    assert first.json()["player_id"] == other_player.pk and first.json()["display_name"] == "Bob"
    again = player_api.post("/api/follows/by-name/", {"display_name": "Bob"}, format="json")
    assert again.status_code == 200
    listed = player_api.get("/api/follows/").json()
    assert listed["count"] == 1 and listed["limit"] == 500
    assert [f["display_name"] for f in listed["following"]] == ["Bob"]
    assert listed["share_url"] == f"http://testserver/follow/{player.follow_token}/"


def test_follow_by_a_pasted_link_or_its_token(player_api, other_player):
    carol = make_player("carol")
    link = f"https://piramide.example/follow/{other_player.follow_token}/"
    assert player_api.post("/api/follows/by-link/", {"link": link}, format="json").status_code == 201
    assert player_api.post("/api/follows/by-link/", {"link": carol.follow_token}, format="json").status_code == 201
    assert Follow.objects.count() == 2


def test_errors_are_readable_json(player_api, player, settings):
    unknown = player_api.post("/api/follows/by-name/", {"display_name": "Nobody"}, format="json")
    assert unknown.status_code == 404
    assert unknown.json() == {"error": "not_found", "message": "no player is called 'Nobody'"}
    bad_link = player_api.post("/api/follows/by-link/", {"link": "https://x/follow/nope/"}, format="json")
    assert bad_link.status_code == 404 and "follow link" in bad_link.json()["message"]
    me = player_api.post("/api/follows/by-name/", {"display_name": "Alice"}, format="json")
    assert me.status_code == 400 and me.json()["error"] == "invalid" and "yourself" in me.json()["message"]
    extra = player_api.post("/api/follows/by-name/", {"display_name": "Bob", "player_id": 1}, format="json")
    assert extra.status_code == 400 and "player_id" in extra.json()["message"]
    settings.FOLLOWS_PER_USER = 0
    make_player("bob", display_name="Bob")
    capped = player_api.post("/api/follows/by-name/", {"display_name": "Bob"}, format="json")
    assert capped.status_code == 403
    assert capped.json()["error"] == "not_allowed" and capped.json()["limit"] == 0
    assert not Follow.objects.exists()


def test_unfollow(player_api, player, other_player):
    player_api.post("/api/follows/by-name/", {"display_name": "Bob"}, format="json")
    assert player_api.delete(f"/api/follows/{other_player.pk}/").status_code == 204
    assert player_api.delete(f"/api/follows/{other_player.pk}/").status_code == 204
    assert player_api.get("/api/follows/").json()["following"] == []
    assert player_api.delete("/api/follows/999999/").status_code == 404


def test_a_new_share_link_replaces_the_old(player_api, player):
    old = player_api.get("/api/follows/").json()["share_url"]
    new = player_api.post("/api/follows/link/reset/").json()["share_url"]
    assert new != old and player_api.get("/api/follows/").json()["share_url"] == new
    other = APIClient()
    other.force_login(make_player("dan"))
    assert other.post("/api/follows/by-link/", {"link": old}, format="json").status_code == 404
    assert other.post("/api/follows/by-link/", {"link": new}, format="json").status_code == 201


def test_signed_out_everything_is_refused(api, other_player):
    for response in (
        api.get("/api/follows/"),
        api.post("/api/follows/by-name/", {"display_name": "Bob"}, format="json"),
        api.post("/api/follows/by-link/", {"link": other_player.follow_token}, format="json"),
        api.delete(f"/api/follows/{other_player.pk}/"),
        api.post("/api/follows/link/reset/"),
    ):
        assert response.status_code == 403 and response.json()["error"] == "not_authenticated"
    assert not Follow.objects.exists()
