"""Deleting one's own account (accounts.services.user_delete): its scores leave every board at once,
Redis sorted sets included; its games stay, linked to nobody; its follows and session end."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import Follow, User
from games.models import Game
from leaderboard.boards import Board
from leaderboard.models import Score
from leaderboard.selectors import leaderboard_page
from tests.factories import make_challenge, make_player

from .conftest import add_score

pytestmark = pytest.mark.django_db(transaction=True)
PASSWORD = "a-long-pass-phrase-42"


def names_on(board: Board) -> list[str]:
    return [e["display_name"] for e in leaderboard_page(board=board)["entries"]]


@pytest.fixture
def day(store: Any) -> dict[str, Any]:
    challenge = make_challenge()
    leaving = make_player("leaving", display_name="Leaving")
    staying = make_player("staying", display_name="Staying")
    add_score(challenge, leaving, 900, 40)
    add_score(challenge, staying, 500, 40)
    Game.objects.filter(player=leaving).update(start_address="203.0.113.9", start_device="dev-leaving")
    Follow.objects.create(follower=leaving, followed=staying)
    Follow.objects.create(follower=staying, followed=leaving)
    boards = [Board.for_challenge(challenge.pk), Board.for_week("classic", challenge.date), Board.all_time("classic")]
    for board in boards:
        assert names_on(board) == ["Leaving", "Staying"]  # built now, so the deletion must take the entry off
    return {"challenge": challenge, "leaving": leaving, "staying": staying, "boards": boards}


def test_deleting_over_the_api_takes_the_scores_off_every_board_anonymises_the_games_and_ends_the_session(
    day: dict[str, Any],
) -> None:
    leaving = day["leaving"]
    api = APIClient()
    api.login(username="leaving", password=PASSWORD)
    game_ids = list(Game.objects.filter(player=leaving).values_list("pk", flat=True))
    assert api.post("/api/auth/delete/", {"password": PASSWORD}, format="json").status_code == 204
    for board in day["boards"]:
        assert names_on(board) == ["Staying"], board.key
        assert leaderboard_page(board=board)["total"] == 1
    assert not User.objects.filter(pk=leaving.pk).exists() and not Score.objects.filter(player_id=leaving.pk).exists()
    kept = list(Game.objects.filter(pk__in=game_ids).values("player_id", "start_address", "start_device", "score"))
    assert kept == [{"player_id": None, "start_address": None, "start_device": "", "score": 900}], (
        "kept, linked to nobody"
    )
    assert not Follow.objects.exists()
    assert api.get("/api/follows/").status_code in (401, 403), "the session is over"


def test_a_wrong_password_deletes_nothing(day: dict[str, Any]) -> None:
    api = APIClient()
    api.force_authenticate(day["leaving"])
    refused = api.post("/api/auth/delete/", {"password": "not-it"}, format="json")
    assert refused.status_code == 400 and "password is wrong" in refused.json()["message"]
    assert api.post("/api/auth/delete/", {}, format="json").status_code == 400
    assert User.objects.filter(pk=day["leaving"].pk).exists()
    assert names_on(day["boards"][0]) == ["Leaving", "Staying"]


def test_staff_cannot_delete_themselves(store: Any) -> None:
    staff = make_player("boss", is_staff=True)
    api = APIClient()
    api.force_authenticate(staff)
    refused = api.post("/api/auth/delete/", {"password": PASSWORD}, format="json")
    assert refused.status_code == 403 and refused.json()["error"] == "not_allowed"
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(staff)
    assert client.get("/profile/delete/").status_code == 403
    assert "Delete your account" not in client.get("/profile/").content.decode()
    assert User.objects.filter(pk=staff.pk).exists()


def test_the_profile_page_deletes_the_account_with_the_password_and_signs_out(day: dict[str, Any]) -> None:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(day["leaving"])
    assert "/profile/delete/" in client.get("/profile/").content.decode()
    wrong = client.post("/profile/delete/", {"password": "not-it"})
    assert wrong.status_code == 200 and "The password is wrong" in wrong.content.decode()
    done = client.post("/profile/delete/", {"password": PASSWORD}, follow=True)
    assert "Your account is deleted" in done.content.decode()
    assert client.get("/profile/").status_code == 302
    for board in day["boards"]:
        assert names_on(board) == ["Staying"], board.key


def test_an_account_deleted_mid_game_ends_its_game_and_leaves_the_challenge_room_readable(
    day: dict[str, Any],
) -> None:
    """Its ranked game in progress ends, resigned with no score, linked to nobody: the room no
    longer lists it as played (found in Chromium: the room showed it "playing now", named "?",
    until the day's end).  A game in progress with nobody is named "?" (the snapshot raised on
    the missing player, for everyone opening the room)."""
    from accounts.services import user_delete
    from games.live import challenge_room_snapshot
    from games.services import game_move_make

    challenge, staying = day["challenge"], day["staying"]
    going = make_player("going", display_name="Going")
    game = Game.objects.create(challenge=challenge, player=going, ranked=True)
    game_move_make(game_id=game.pk, player=going, move="D", seen=0)
    user_delete(user=going, password=PASSWORD)
    game.refresh_from_db()
    assert game.outcome == Game.Outcome.RESIGNED and game.move_count == 1 and game.score is not None
    assert not Score.objects.filter(game=game).exists()
    snapshot = challenge_room_snapshot(challenge_id=challenge.pk)
    assert snapshot["games"] == [] and snapshot["stats"]["playing"] == 0
    assert staying.display_name in [entry["player"]["display_name"] for entry in snapshot["top"]]
    # a game left in progress with nobody (deleted before deletions ended games) is named "?"
    Game.objects.create(challenge=challenge, player=None, ranked=True)
    snapshot = challenge_room_snapshot(challenge_id=challenge.pk)
    assert [game["player"] for game in snapshot["games"]] == [{"id": None, "display_name": "?"}]


def test_the_day_end_closes_an_open_game_of_nobody_and_every_game_after_it(store: Any) -> None:
    """A ranked game of yesterday left open with no player (as an account deleted mid-game left it
    before its deletion ended the game): the hourly close resigns it with no score, and the other
    open games with theirs (it raised on the missing player, leaving every game after it open, run
    after run)."""
    import datetime as dt

    from games.selectors import local_today
    from games.services import games_close_expired

    challenge = make_challenge(date=local_today() - dt.timedelta(days=1))
    staying = make_player("staying")
    orphan = Game.objects.create(challenge=challenge, player=None, ranked=True)
    other = Game.objects.create(challenge=challenge, player=staying, ranked=True)
    assert games_close_expired() == 2
    orphan.refresh_from_db()
    other.refresh_from_db()
    assert orphan.outcome == other.outcome == Game.Outcome.RESIGNED
    assert list(Score.objects.values_list("player_id", flat=True)) == [staying.pk]


def test_staff_deleting_a_player_in_the_admin_takes_their_scores_off_every_board(day: dict[str, Any]) -> None:
    """The admin's delete took the account with its scores by cascade, and left the rank store's
    sorted sets naming a player who no longer exists; it now takes the player's own path."""
    staff = make_player("boss", is_staff=True, is_superuser=True)
    admin = Client()
    admin.force_login(staff)
    leaving = day["leaving"]
    answer = admin.post(f"/admin/accounts/user/{leaving.pk}/delete/", {"post": "yes"})
    assert answer.status_code == 302
    assert not User.objects.filter(pk=leaving.pk).exists()
    for board in day["boards"]:
        assert names_on(board) == ["Staying"], board.key
        assert leaderboard_page(board=board)["total"] == 1
    assert Game.objects.filter(player=None, score=900).exists(), "the game stays, linked to nobody"
