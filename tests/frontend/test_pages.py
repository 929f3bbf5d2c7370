"""The server-rendered pages: what each shows, to whom, in which language."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from games.models import Game
from games.services import game_move_make, game_ranked_start, game_resign
from leaderboard.models import Score
from tests.factories import make_challenge, make_player

# The db fixture by name, so the suite-wide fixture wipes Redis leaderboard keys other tests left (tests/conftest.py).
pytestmark = pytest.mark.usefixtures("db")


def signed_in(user: Any, language: str = "it") -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user)
    return client


def test_home_lists_todays_challenges_with_my_score_once_played() -> None:
    classic = make_challenge(preset="classic", par=570)
    make_challenge(preset="forty")
    player = make_player()
    play, _ = game_ranked_start(challenge_id=classic.pk, player=player)
    game_move_make(game_id=play.game.pk, player=player, move="D", seen=0)
    game_resign(game_id=play.game.pk, player=player)
    page = signed_in(player).get("/").content.decode()
    assert "Le sfide di oggi" in page and "Classica" in page and "Quaranta carte" in page
    assert 'class="my-score">0<' in page
    assert "Non ancora giocata" in page  # the forty challenge
    # no practice of today's deal, even after the ranked game: it opens when the day is over
    assert f"/challenges/{classic.pk}/practice/" not in page
    assert "si aprono quando la giornata è finita" in page


@pytest.mark.parametrize("side", ["before", "after"])
def test_the_practice_button_of_a_page_opens_a_game_only_once_the_day_is_over(side: str) -> None:
    from tests.factories import end_the_day

    challenge = make_challenge()
    player = make_player()
    play, _ = game_ranked_start(challenge_id=challenge.pk, player=player)
    game_resign(game_id=play.game.pk, player=player)
    if side == "after":
        end_the_day(challenge)
    response = signed_in(player, "en").post(f"/challenges/{challenge.pk}/practice/")
    if side == "before":
        assert response.status_code == 403 and "practice opens when" in response.content.decode()
    else:
        assert re.fullmatch(r"/games/\d+/", response["Location"])


def test_home_in_english_and_spanish_follows_accept_language() -> None:
    make_challenge()
    assert "Today's challenges" in Client(HTTP_ACCEPT_LANGUAGE="en").get("/").content.decode()
    assert "Los desafíos de hoy" in Client(HTTP_ACCEPT_LANGUAGE="es").get("/").content.decode()


def test_play_page_embeds_only_the_visible_state_and_no_seed() -> None:
    challenge = make_challenge(seed=4611686018427400249)
    player = make_player()
    play, _ = game_ranked_start(challenge_id=challenge.pk, player=player)
    response = signed_in(player).get(f"/games/{play.game.pk}/")
    body = response.content.decode()
    config = json.loads(
        re.search(r'<script id="play-config" type="application/json">(.*?)</script>', body, re.S).group(1)
    )
    assert config["game"]["state"]["rows"][0][0]["free"] is False
    assert "4611686018427400249" not in body
    stock = challenge.deal.stock
    assert all(str(card) not in json.dumps(config) for card in stock[1:])


def test_someone_elses_game_page_leads_to_the_watch_page() -> None:
    challenge = make_challenge()
    owner, other = make_player(), make_player()
    play, _ = game_ranked_start(challenge_id=challenge.pk, player=owner)
    response = signed_in(other).get(f"/games/{play.game.pk}/")
    assert response.status_code == 302 and response["Location"] == f"/games/{play.game.pk}/watch/"
    assert signed_in(other).get(f"/games/{play.game.pk}/replay.json").status_code == 404


def test_replay_lists_every_position_of_my_own_game() -> None:
    challenge = make_challenge()
    player = make_player()
    play, _ = game_ranked_start(challenge_id=challenge.pk, player=player)
    game_move_make(game_id=play.game.pk, player=player, move="D", seen=0)
    replay = signed_in(player).get(f"/games/{play.game.pk}/replay.json").json()
    assert [step["move"] for step in replay["steps"]] == ["D"]
    assert replay["start"]["moves"] == 0 and replay["steps"][0]["state"]["moves"] == 1


def test_starting_a_ranked_game_from_the_home_page_opens_it() -> None:
    challenge = make_challenge()
    player = make_player()
    response = signed_in(player).post(f"/challenges/{challenge.pk}/play/")
    assert re.fullmatch(r"/games/\d+/", response["Location"])


def test_leaderboard_highlights_my_row_and_draws_the_histogram_with_par() -> None:
    challenge = make_challenge(par=100)
    players = [make_player() for _ in range(3)]
    for player in players:
        play, _ = game_ranked_start(challenge_id=challenge.pk, player=player)
        game_resign(game_id=play.game.pk, player=player)
    page = signed_in(players[1], "en").get("/leaderboards/?board=today&preset=classic").content.decode()
    assert page.count('class="me"') == 1
    assert '<line class="par"' in page and "par 100" in page
    assert "3 players" in page


def test_profile_shows_streaks_history_and_the_calendar() -> None:
    challenge = make_challenge()
    player = make_player()
    play, _ = game_ranked_start(challenge_id=challenge.pk, player=player)
    game_resign(game_id=play.game.pk, player=player)
    page = signed_in(player, "en").get("/profile/").content.decode()
    assert "days played in a row" in page
    assert re.search(r'<td class="\s*played today" aria-label="[^"]+: played">\d+✓</td>', page)
    assert "not cleared" in page


def test_pages_that_need_an_account_send_visitors_to_sign_in() -> None:
    for url in ("/profile/", "/races/"):
        response = Client().get(url)
        assert response.status_code == 302 and response["Location"].startswith("/signin/")


def test_the_calendar_covers_this_month_and_the_two_before_across_new_year() -> None:
    import datetime as dt
    from unittest import mock

    from frontend import selectors

    player = make_player()
    with mock.patch.object(selectors, "local_today", return_value=dt.date(2027, 1, 15)):
        months = selectors.played_calendar(player_id=player.pk)
    assert [m["first"] for m in months] == [dt.date(2026, 11, 1), dt.date(2026, 12, 1), dt.date(2027, 1, 1)]


def test_today_and_its_result_are_marked_in_their_own_month_only_not_in_the_padding_of_the_one_before() -> None:
    import datetime as dt
    from unittest import mock

    from frontend import selectors

    player = make_player()
    challenge = make_challenge(date=dt.date(2026, 12, 1))
    game = Game.objects.create(
        challenge=challenge,
        player=player,
        ranked=True,
        outcome="won",
        score=500,
        move_count=40,
        finished_at=timezone.now(),
    )
    Score.objects.create(
        player=player,
        challenge=challenge,
        game=game,
        date=challenge.date,
        preset="classic",
        points=500,
        moves=40,
        won=True,
        finished_at=game.finished_at,
    )
    # 1 December 2026 is a Tuesday: November's last week is drawn with it
    with mock.patch.object(selectors, "local_today", return_value=dt.date(2026, 12, 1)):
        months = selectors.played_calendar(player_id=player.pk)
    marked = [
        (m["first"].month, d["date"])
        for m in months
        for week in m["weeks"]
        for d in week
        if d["today"] or d["won"] or d["played"]
    ]
    assert marked == [(12, dt.date(2026, 12, 1))]


@pytest.mark.parametrize("board", ["week", "all"])
def test_week_and_all_time_boards_mark_my_row_and_leave_the_histogram_to_today(board: str) -> None:
    challenge = make_challenge()
    player, other = make_player(), make_player()
    for who in (player, other):
        play, _ = game_ranked_start(challenge_id=challenge.pk, player=who)
        game_resign(game_id=play.game.pk, player=who)
    page = signed_in(player, "en").get(f"/leaderboards/?board={board}&preset=classic").content.decode()
    assert page.count('class="me"') == 1 and page.count("<tr") == 3
    assert "<svg" not in page


def test_the_site_has_an_icon_where_browsers_look_for_one() -> None:
    response = Client().get("/favicon.ico")
    assert response.status_code == 301 and response["Location"].endswith(".svg")
    assert f'<link rel="icon" href="{response["Location"]}"' in Client().get("/").content.decode()


def test_the_sign_up_form_tells_password_managers_what_each_field_is() -> None:
    page = Client().get("/signup/").content.decode()
    for name, kind in (
        ("username", "username"),
        ("display_name", "nickname"),
        ("email", "email"),
        ("password", "new-password"),
    ):
        field = re.search(rf'<input[^>]*name="{name}"[^>]*>', page)
        assert field is not None and f'autocomplete="{kind}"' in field.group(0), name


@pytest.mark.parametrize(
    "language, says",
    [
        ("it", "La piramide non si può più sgombrare"),
        ("en", "The pyramid can no longer be cleared"),
        ("es", "La pirámide ya no se puede despejar"),
    ],
)
def test_play_page_carries_the_notice_for_a_pyramid_that_can_no_longer_be_cleared(language: str, says: str) -> None:
    """docs/rules.md, "When a game ends": hidden until the view's pyramid_clearable is false."""
    import random

    from games.engine import Game as EngineGame
    from games.engine import Outcome, deal_from_seed, get_rules

    challenge = make_challenge(seed=13)
    player = make_player()
    play, _ = game_ranked_start(challenge_id=challenge.pk, player=player)
    # issue 41's classic seed 13: under version 1 this log froze the pyramid and ended the game
    old = EngineGame.start(deal_from_seed(get_rules("classic", 1), 13))
    chooser = random.Random(13)
    while old.outcome is Outcome.IN_PROGRESS:
        old = old.apply(chooser.choice(old.legal_moves()))
    for seen, move in enumerate(old.moves):
        game_move_make(game_id=play.game.pk, player=player, move=str(move), seen=seen)
    body = signed_in(player, language).get(f"/games/{play.game.pk}/").content.decode()
    notice = re.search(
        r'<div class="unclearable" role="status" data-notice="unclearable" hidden>(.*?)</div>', body, re.S
    )
    assert notice and says in notice.group(1) and 'data-action="end-here"' in notice.group(1)
    config = json.loads(
        re.search(r'<script id="play-config" type="application/json">(.*?)</script>', body, re.S).group(1)
    )
    assert config["game"]["outcome"] == "in_progress" and config["game"]["state"]["pyramid_clearable"] is False
