"""A score's standing when it is written (leaderboard/services.py ``standing_at_write``), and the
boards ranking only scores in good standing."""

from __future__ import annotations

import datetime as dt
import itertools
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone, translation

from accounts.verification import email_verify, verification_token
from games.selectors import challenge_day_start
from games.services import game_move_make, game_ranked_start, game_resign
from leaderboard.boards import Board
from leaderboard.models import Score
from leaderboard.selectors import leaderboard_page, standing_text
from leaderboard.services import STANDING_AT_WRITE_SQL, STANDING_REASON_AT_WRITE_SQL, standing_at_write
from tests.factories import end_the_day, make_challenge, make_player

pytestmark = pytest.mark.django_db(transaction=True)

DAY = dt.date(2026, 6, 1)


@pytest.mark.parametrize(
    ("marked", "joined_hours", "verified", "expected"),
    [
        (False, -48, True, ("good", "")),
        (False, -0.01, True, ("good", "")),  # a minute before the day began
        (False, 0, True, ("provisional", "new_account")),  # made as the day began
        (False, 5, True, ("provisional", "new_account")),
        (False, -48, False, ("provisional", "email_unverified")),
        (False, 5, False, ("provisional", "new_account")),  # the day's newcomer: that reason first
        (True, -48, True, ("excluded", "account_marked")),
        (True, 5, True, ("excluded", "account_marked")),
        (True, -48, False, ("excluded", "account_marked")),
    ],
)
def test_the_standing_a_score_is_written_with(
    marked: bool, joined_hours: float, verified: bool, expected: tuple[str, str]
) -> None:
    start = challenge_day_start(DAY)
    joined = start + dt.timedelta(hours=joined_hours)
    assert standing_at_write(marked=marked, joined=joined, verified=verified, day_start=start) == expected


def test_the_sql_twin_writes_the_same_standing_as_python_for_every_kind_of_account(postgres: Any) -> None:
    """``STANDING_AT_WRITE_SQL`` (the loop's ending move, Postgres only) and ``standing_at_write``
    (the locked path) agree on every combination the rule reads."""
    start = challenge_day_start(DAY)
    cases = []
    for i, (marked, hours, email, verified_at) in enumerate(
        itertools.product(
            (False, True), (-48, -0.01, 0, 5), ("", "p@example.org"), (None, start - dt.timedelta(days=9))
        )
    ):
        player = make_player(
            f"sql{i}",
            marked=marked,
            date_joined=start + dt.timedelta(hours=hours),
            email=email,
            email_verified_at=verified_at,
        )
        cases.append(player)
    with connection.cursor() as cursor:
        for player in cases:
            cursor.execute(
                f"SELECT {STANDING_AT_WRITE_SQL}, {STANDING_REASON_AT_WRITE_SQL} FROM {player._meta.db_table} u WHERE u.id = %s",
                [start, start, player.pk],
            )
            in_sql = tuple(cursor.fetchone())
            in_python = standing_at_write(
                marked=player.marked, joined=player.date_joined, verified=player.email_verified, day_start=start
            )
            assert in_sql == tuple(str(v) for v in in_python), (player.username, player.email, player.email_verified_at)


def finish(challenge: Any, player: Any) -> Score:
    game = game_ranked_start(challenge_id=challenge.pk, player=player)[0].game
    if challenge.preset == "classic":
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
    for board in (
        Board.for_challenge(challenge.pk),
        Board.for_week("classic", challenge.date),
        Board.all_time("classic"),
    ):
        assert [e["display_name"] for e in leaderboard_page(board=board)["entries"]] == ["Old"], board.key


def test_an_account_made_yesterday_ranks_today(store: Any) -> None:
    challenge = make_challenge()
    player = make_player("yday", date_joined=challenge_day_start(challenge.date) - dt.timedelta(minutes=1))
    assert finish(challenge, player).standing == "good"


def names_on(board: Board) -> list[str]:
    return [e["display_name"] for e in leaderboard_page(board=board)["entries"]]


def test_an_unverified_account_scores_provisionally_and_verifying_ranks_the_days_not_yet_over(store: Any) -> None:
    yesterday = make_challenge(preset="forty")
    today = make_challenge()
    old = make_player("old", display_name="Old")
    player = make_player("unver", display_name="Unver", email_verified_at=None)
    finish(today, old)
    past, present = finish(yesterday, player), finish(today, player)
    end_the_day(yesterday)
    for score in (past, present):
        assert (score.standing, score.standing_reason) == ("provisional", "email_unverified")
    with translation.override("en"):
        assert "not verified" in standing_text("provisional", "email_unverified")
    boards = (Board.for_challenge(today.pk), Board.for_week("classic", today.date), Board.all_time("classic"))
    for board in boards:
        assert names_on(board) == ["Old"], board.key  # read now: a Redis board is built without the score
    email_verify(token=verification_token(player))
    present.refresh_from_db()
    past.refresh_from_db()
    assert (present.standing, present.standing_reason) == ("good", "")
    assert (past.standing, past.standing_reason) == ("provisional", "email_unverified"), (
        "a day already over stays as it was"
    )
    for board in boards:
        assert sorted(names_on(board)) == ["Old", "Unver"], board.key
    assert names_on(Board.for_challenge(yesterday.pk)) == []
    later = make_challenge(preset="forty")
    assert finish(later, player).standing == "good", "a verified account's scores rank from then on"


def test_verifying_leaves_scores_provisional_for_a_new_account_or_sent_to_review_as_they_are(store: Any) -> None:
    challenge = make_challenge()
    fresh = make_player("fresh", date_joined=timezone.now(), email_verified_at=None)
    score = finish(challenge, fresh)
    assert score.standing_reason == "new_account"
    email_verify(token=verification_token(fresh))
    score.refresh_from_db()
    assert (score.standing, score.standing_reason) == ("provisional", "new_account")
