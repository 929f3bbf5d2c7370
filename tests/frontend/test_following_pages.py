"""Following on the site: the boards' Everyone / Following switch, Follow buttons, the profile's
share link and list, and the page a share link opens."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from accounts.models import Follow
from tests.factories import make_challenge, make_player
from tests.leaderboard.conftest import add_score

pytestmark = pytest.mark.usefixtures("db")


def signed_in(user: Any, language: str = "en") -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user)
    return client


def board_rows(page: str) -> list[tuple[str, str]]:
    """(rank, name) of each row of the ranking table."""
    rows = re.findall(r'<tr[^>]*>\s*<td class="num">(\d+)</td>\s*<td>([^<\s]+)', page)
    return [(rank, name) for rank, name in rows]


@pytest.fixture
def today_board() -> dict[str, Any]:
    challenge = make_challenge()
    me, friend, stranger = (
        make_player("me", display_name="Me"),
        make_player("fri", display_name="Fri"),
        make_player("str", display_name="Str"),
    )
    add_score(challenge, stranger, 900, 40)
    add_score(challenge, friend, 500, 40)
    add_score(challenge, me, 300, 40)
    Follow.objects.create(follower=me, followed=friend)
    return {"challenge": challenge, "me": me, "friend": friend, "stranger": stranger}


@pytest.mark.parametrize("board", ["today", "week", "all"])
def test_every_board_has_the_switch_and_its_following_view(today_board: dict[str, Any], board: str) -> None:
    client = signed_in(today_board["me"])
    everyone = client.get(f"/leaderboards/?board={board}&preset=classic").content.decode()
    assert re.search(
        rf'<a href="\?board={board}&amp;preset=classic&amp;view=everyone" aria-current="page">Everyone</a>', everyone
    )
    assert f'href="?board={board}&amp;preset=classic&amp;view=following">Following</a>' in everyone
    assert board_rows(everyone) == [("1", "Str"), ("2", "Fri"), ("3", "Me")]
    following = client.get(f"/leaderboards/?board={board}&preset=classic&view=following").content.decode()
    assert 'view=following" aria-current="page">Following</a>' in following
    assert board_rows(following) == [("1", "Fri"), ("2", "Me")]
    assert "You are number 2 of 2." in following and following.count('class="me"') == 1
    assert "<svg" not in following  # the histogram is everyone's


def test_rows_offer_to_follow_those_i_do_not_follow_yet(today_board: dict[str, Any]) -> None:
    page = signed_in(today_board["me"]).get("/leaderboards/?board=today&preset=classic").content.decode()
    assert page.count('action="/follows/"') == 1
    assert '<input type="hidden" name="display_name" value="Str">' in page
    assert "✓ followed" in page
    assert 'action="/follows/"' not in Client().get("/leaderboards/?board=today&preset=classic").content.decode()


def test_following_from_a_row_comes_back_to_the_board(today_board: dict[str, Any]) -> None:
    client = signed_in(today_board["me"])
    back = "/leaderboards/?board=today&preset=classic&view=following"
    response = client.post("/follows/", {"display_name": "Str", "next": back})
    assert response.status_code == 302 and response["Location"] == back
    page = client.get(back).content.decode()
    assert "You now follow Str." in page
    assert board_rows(page) == [("1", "Str"), ("2", "Fri"), ("3", "Me")]


def test_my_row_is_shown_under_a_page_that_does_not_reach_it(today_board: dict[str, Any], monkeypatch) -> None:
    from leaderboard import selectors

    real = selectors.leaderboard_page
    monkeypatch.setattr(selectors, "leaderboard_page", lambda **kw: real(**{**kw, "limit": 1}))
    page = signed_in(today_board["me"]).get("/leaderboards/?board=today&preset=classic").content.decode()
    assert board_rows(page) == [("1", "Str"), ("3", "Me")]
    assert '<tbody class="me-below">' in page


def test_signed_out_the_following_view_asks_to_sign_in(today_board: dict[str, Any]) -> None:
    page = Client(HTTP_ACCEPT_LANGUAGE="en").get("/leaderboards/?view=following").content.decode()
    assert "Sign in to see the boards of the players you follow." in page
    assert board_rows(page) == []


def test_with_no_one_followed_the_view_says_how_to_follow() -> None:
    make_challenge()
    page = signed_in(make_player()).get("/leaderboards/?view=following").content.decode()
    assert "You follow no one yet." in page


def test_the_profile_shows_my_share_link_and_whom_i_follow(today_board: dict[str, Any]) -> None:
    me = today_board["me"]
    page = signed_in(me).get("/profile/").content.decode()
    assert f'value="http://testserver/follow/{me.follow_token}/"' in page
    assert "You follow 1 player (at most 500)." in page
    assert f'action="/follows/{today_board["friend"].pk}/stop/"' in page and "Stop following Fri" in page


def test_stopping_from_the_profile(today_board: dict[str, Any]) -> None:
    client = signed_in(today_board["me"])
    response = client.post(f"/follows/{today_board['friend'].pk}/stop/", {"next": "/profile/#following"})
    assert response["Location"] == "/profile/#following"
    assert not Follow.objects.exists()
    assert "You no longer follow this player." in client.get("/profile/").content.decode()


def test_following_by_name_from_the_profile_reports_errors_in_the_page_language() -> None:
    me = make_player("me", display_name="Me")
    client = signed_in(me, "it")
    client.post("/follows/", {"display_name": "Nessuno"})
    assert "Nessun giocatore si chiama Nessuno." in client.get("/profile/").content.decode()
    client.post("/follows/", {"display_name": "me"})
    assert "Non puoi seguire te stesso" in client.get("/profile/").content.decode()
    assert not Follow.objects.exists()


def test_the_follow_cap_is_said_on_the_page(settings) -> None:
    settings.FOLLOWS_PER_USER = 1
    me, _, _ = make_player("me"), make_player("ann", display_name="Ann"), make_player("ben", display_name="Ben")
    client = signed_in(me, "es")
    client.post("/follows/", {"display_name": "Ann"})
    client.post("/follows/", {"display_name": "Ben"})
    assert "Ya sigues a 1 jugador, el máximo para una cuenta" in client.get("/profile/").content.decode()
    assert Follow.objects.count() == 1


def test_a_share_link_opens_a_page_whose_button_follows(today_board: dict[str, Any]) -> None:
    stranger, me = today_board["stranger"], today_board["me"]
    link = f"/follow/{stranger.follow_token}/"
    visitor = Client(HTTP_ACCEPT_LANGUAGE="en").get(link).content.decode()
    assert "Sign in to follow" in visitor and f'href="/signin/?next={link}"' in visitor
    client = signed_in(me)
    page = client.get(link).content.decode()
    assert "Follow Str" in page and not Follow.objects.filter(followed=stranger).exists()  # a GET changes nothing
    response = client.post(link)
    assert response["Location"] == "/leaderboards/?view=following"
    assert Follow.objects.filter(follower=me, followed=stranger).exists()
    assert "You already follow Str." in client.get(link).content.decode()
    assert "your own share link" in client.get(f"/follow/{me.follow_token}/").content.decode()
    assert client.get("/follow/not-a-token/").status_code == 404


def test_a_new_share_link_retires_the_old_one(today_board: dict[str, Any]) -> None:
    me = today_board["me"]
    old = me.follow_token
    client = signed_in(me)
    assert client.post("/profile/link/reset/")["Location"] == "/profile/"
    me.refresh_from_db()
    assert me.follow_token != old
    assert Client().get(f"/follow/{old}/").status_code == 404


def test_the_switch_and_the_profile_are_translated() -> None:
    make_challenge()
    player = make_player()
    italian = signed_in(player, "it")
    assert ">Tutti</a>" in italian.get("/leaderboards/").content.decode()
    assert "Il tuo link da condividere" in italian.get("/profile/").content.decode()
    spanish = signed_in(player, "es")
    assert ">Seguidos</a>" in spanish.get("/leaderboards/").content.decode()
    assert "Tu enlace para compartir" in spanish.get("/profile/").content.decode()
