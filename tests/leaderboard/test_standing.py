"""A score's standing when it is written (leaderboard/services.py ``standing_at_write``), and the
boards ranking only scores in good standing."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.utils import timezone

from games.selectors import challenge_day_start
from games.services import game_move_make, game_ranked_start, game_resign
from leaderboard.boards import Board
from leaderboard.models import Score
from leaderboard.selectors import leaderboard_page
from leaderboard.services import standing_at_write
from tests.factories import make_challenge, make_player

pytestmark = pytest.mark.django_db(transaction=True)

DAY = dt.date(2026, 6, 1)


@pytest.mark.parametrize(
    ("marked", "joined_hours", "expected"),
    [
        (False, -48, ("good", "")),
        (False, -0.01, ("good", "")),  # a minute before the day began
        (False, 0, ("provisional", "new_account")),  # made as the day began
        (False, 5, ("provisional", "new_account")),
        (True, -48, ("excluded", "account_marked")),
        (True, 5, ("excluded", "account_marked")),
    ],
)
def test_the_standing_a_score_is_written_with(marked: bool, joined_hours: float, expected: tuple[str, str]) -> None:
    start = challenge_day_start(DAY)
    joined = start + dt.timedelta(hours=joined_hours)
    assert standing_at_write(marked=marked, joined=joined, day_start=start) == expected


def finish(challenge: Any, player: Any) -> Score:
    game = game_ranked_start(challenge_id=challenge.pk, player=player)[0].game
    game_move_make(game_id=game.pk, player=player, move="D", seen=0)
    game_resign(game_id=game.pk, player=player)
    return Score.objects.get(game=game)


def test_an_account_made_today_scores_provisionally_and_ranks_nowhere(store: Any) -> None:
    challenge = make_challenge()
    old = make_player("old", display_name="Old")
    new = make_player("new", display_name="New", date_joined=timezone.now())
    assert finish(challenge, old).standing == "good"
    fresh = finish(challenge, new)
    assert (fresh.standing, fresh.standing_reason) == ("provisional", "new_account")
    for board in (Board.for_challenge(challenge.pk), Board.for_week("classic", challenge.date), Board.all_time("classic")):
        assert [e["display_name"] for e in leaderboard_page(board=board)["entries"]] == ["Old"], board.key


def test_an_account_made_yesterday_ranks_today(store: Any) -> None:
    challenge = make_challenge()
    player = make_player("yday", date_joined=challenge_day_start(challenge.date) - dt.timedelta(minutes=1))
    assert finish(challenge, player).standing == "good"
