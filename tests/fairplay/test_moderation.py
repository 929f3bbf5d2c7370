"""Staff actions on scores and accounts (fairplay/services.py): each changes the standing, writes the
audit log with who and when, and the boards follow at once, on both rank stores."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from fairplay.models import ModerationAction
from fairplay.services import account_mark, score_clear, score_exclude
from games.services import game_ranked_start, game_resign
from leaderboard.boards import Board
from leaderboard.models import Score
from leaderboard.selectors import leaderboard_page
from leaderboard.services import scores_standing_set
from plumbing.errors import BadRequest
from tests.factories import make_challenge, make_player
from tests.leaderboard.conftest import add_score, store  # noqa: F401  (the fixture)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def staff(db: Any) -> Any:
    return make_player("staffer", display_name="Staffer", is_staff=True)


def names(board: Board) -> list[str]:
    return [entry["display_name"] for entry in leaderboard_page(board=board)["entries"]]


def boards_of_classic(challenge: Any) -> list[Board]:
    return [Board.for_challenge(challenge.pk), Board.for_week("classic", challenge.date), Board.all_time("classic")]


def test_a_score_sent_to_review_leaves_every_board_and_clearing_brings_it_back(store: Any, staff: Any) -> None:
    challenge = make_challenge(date=dt.date(2026, 6, 1))
    ann, ben = make_player("ann", display_name="Ann"), make_player("ben", display_name="Ben")
    add_score(challenge, ann, 500, 40)
    suspect = add_score(challenge, ben, 900, 30)
    for board in boards_of_classic(challenge):
        assert names(board) == ["Ben", "Ann"]
    scores_standing_set(score_ids=[suspect.pk], standing="review", reason="signals")
    for board in boards_of_classic(challenge):
        assert names(board) == ["Ann"], board.key
    action = score_clear(score_id=suspect.pk, actor=staff, note="a strong player, checked")
    assert (action.kind, action.actor, action.before) == ("clear", staff, {str(suspect.pk): "review"})
    assert action.created_at is not None
    assert Score.objects.get(pk=suspect.pk).standing_reason == "cleared"
    for board in boards_of_classic(challenge):
        assert names(board) == ["Ben", "Ann"], board.key


def test_excluding_a_score_takes_only_it_off_and_a_sum_shrinks(store: Any, staff: Any) -> None:
    monday, tuesday = make_challenge(date=dt.date(2026, 6, 1)), make_challenge(date=dt.date(2026, 6, 2))
    ann, ben = make_player("ann", display_name="Ann"), make_player("ben", display_name="Ben")
    add_score(monday, ann, 500, 40)
    add_score(tuesday, ann, 500, 40)
    add_score(monday, ben, 700, 30)
    bad = add_score(tuesday, ben, 700, 30)
    week = Board.for_week("classic", monday.date)
    assert names(week) == ["Ben", "Ann"]
    score_exclude(score_id=bad.pk, actor=staff)
    assert names(Board.for_challenge(tuesday.pk)) == ["Ann"]
    assert names(Board.for_challenge(monday.pk)) == ["Ben", "Ann"]
    page = leaderboard_page(board=week)["entries"]
    assert [(e["display_name"], e["points"]) for e in page] == [("Ann", 1000), ("Ben", 700)]


def test_marking_an_account_takes_every_score_off_every_board_and_its_next_score_too(store: Any, staff: Any) -> None:
    monday, tuesday = make_challenge(date=dt.date(2026, 6, 1)), make_challenge(date=dt.date(2026, 6, 2), preset="forty")
    ann, ben = make_player("ann", display_name="Ann"), make_player("ben", display_name="Ben")
    add_score(monday, ann, 100, 40)
    add_score(monday, ben, 900, 30)
    add_score(tuesday, ben, 900, 30)
    action = account_mark(account_id=ben.pk, actor=staff, note="second account of a banned player")
    assert action.kind == "mark" and len(action.before) == 2
    assert set(Score.objects.filter(player=ben).values_list("standing", "standing_reason")) == {
        ("excluded", "account_marked")
    }
    for board in (*boards_of_classic(monday), Board.for_challenge(tuesday.pk), Board.all_time("forty")):
        assert "Ben" not in names(board), board.key
    with pytest.raises(BadRequest, match="marked"):
        score_clear(score_id=Score.objects.filter(player=ben).first().pk, actor=staff)
    assert ModerationAction.objects.count() == 1, "a refused action leaves no log row"
    today = make_challenge(preset="classic")
    game = game_ranked_start(challenge_id=today.pk, player=ben)[0].game
    game_resign(game_id=game.pk, player=ben)
    assert Score.objects.get(game=game).standing == "excluded", "written excluded, never ranked for a moment"


def test_staff_accounts_are_not_marked(staff: Any) -> None:
    other = make_player("admin2", is_staff=True)
    with pytest.raises(BadRequest, match="staff"):
        account_mark(account_id=other.pk, actor=staff)
    other.refresh_from_db()
    assert not other.marked


@pytest.mark.parametrize(("language", "words"), [("en", "Excluded by staff"), ("it", "Esclus"), ("es", "Excluid")])
def test_a_player_sees_their_excluded_score_and_why_on_their_profile_and_the_board(
    staff: Any, language: str, words: str
) -> None:
    from django.test import Client

    challenge = make_challenge()
    ann = make_player("ann", display_name="Ann")
    game = game_ranked_start(challenge_id=challenge.pk, player=ann)[0].game
    game_resign(game_id=game.pk, player=ann)
    score_exclude(score_id=Score.objects.get(game=game).pk, actor=staff)
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(ann)
    profile = client.get("/profile/").content.decode()
    assert 'data-standing="excluded"' in profile and words in profile
    board = client.get(f"/leaderboards/?board=today&preset={challenge.preset}").content.decode()
    assert 'data-standing="excluded"' in board and words in board
    other = Client(HTTP_ACCEPT_LANGUAGE=language)
    other.force_login(make_player("bea"))
    assert "data-standing" not in other.get(f"/leaderboards/?board=today&preset={challenge.preset}").content.decode()
