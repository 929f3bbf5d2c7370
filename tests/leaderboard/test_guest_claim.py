"""A guest's games and scores kept by the player who signs up or in (games/services.py
``guest_games_claim``, leaderboard/services.py ``scores_claim``): whose they become, the standing
they take, the boards that follow — and what is never claimed."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from accounts.models import User
from accounts.services import guest_create, guest_sign_up
from accounts.verification import email_verify, verification_token
from games import positions
from games.models import Game
from games.selectors import challenge_day_start
from games.services import game_move_make, game_ranked_start, game_resign, guest_games_claim
from leaderboard.boards import Board
from leaderboard.models import Score
from leaderboard.selectors import leaderboard_page
from leaderboard.services import STANDING_AT_WRITE_SQL, STANDING_REASON_AT_WRITE_SQL, standing_at_write
from plumbing.errors import NotAllowed, NotYours
from tests.factories import end_the_day, make_challenge, make_player
from tests.hardening.conftest import forget_limits

pytestmark = pytest.mark.django_db(transaction=True)


def finish(challenge: Any, player: Any, moves: int = 1) -> Game:
    game = game_ranked_start(challenge_id=challenge.pk, player=player)[0].game
    for seen in range(moves):
        game_move_make(game_id=game.pk, player=player, move="D", seen=seen)
    game_resign(game_id=game.pk, player=player)
    game.refresh_from_db()
    return game


def names_on(board: Board) -> list[str]:
    return [e["display_name"] for e in leaderboard_page(board=board)["entries"]]


def test_a_guest_score_is_provisional_for_being_a_guest_and_ranks_nowhere(store: Any) -> None:
    challenge = make_challenge()
    guest = guest_create(address="203.0.113.5")
    score = Score.objects.get(game=finish(challenge, guest))
    assert (score.standing, score.standing_reason) == ("provisional", "guest")
    assert names_on(Board.for_challenge(challenge.pk)) == []


@pytest.mark.parametrize(
    ("marked", "guest", "joined_hours"),
    [(False, False, -48), (False, False, 2), (False, True, -48), (False, True, 2), (True, True, -48), (True, False, 2)],
)
def test_the_sql_standing_of_the_loop_path_agrees_with_the_python_one(
    marked: bool, guest: bool, joined_hours: int
) -> None:
    """The socket's ending statement writes the standing in SQL (``leaderboard.services._SCORE_AT_END_SQL``): for every
    kind of account it must write what ``score_record`` writes."""
    day_start = challenge_day_start(dt.date(2026, 6, 1))
    player = make_player(marked=marked, guest=guest, date_joined=day_start + dt.timedelta(hours=joined_hours))
    table = User._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {STANDING_AT_WRITE_SQL}, {STANDING_REASON_AT_WRITE_SQL} FROM {table} u WHERE u.id = %s",
            [day_start, day_start, player.pk],
        )
        in_sql = tuple(cursor.fetchone())
    expected = standing_at_write(
        marked=marked, joined=player.date_joined, verified=player.email_verified, day_start=day_start, guest=guest
    )
    assert in_sql == expected


def test_signing_in_moves_the_guest_game_to_an_established_account_where_it_ranks(store: Any) -> None:
    challenge = make_challenge()
    guest = guest_create(address="203.0.113.5")
    game = finish(challenge, guest, moves=2)
    alice = make_player("alice", display_name="Alice")
    claim = guest_games_claim(guest=guest, player=alice)
    assert [g.pk for g in claim.kept] == [game.pk] and claim.left == []
    game.refresh_from_db()
    score = Score.objects.get(game=game)
    assert game.player_id == alice.pk and score.player_id == alice.pk
    assert (score.standing, score.standing_reason) == ("good", "")
    for board in (
        Board.for_challenge(challenge.pk),
        Board.for_week("classic", challenge.date),
        Board.all_time("classic"),
    ):
        assert names_on(board) == ["Alice"], board.key


def test_signing_up_keeps_the_guest_row_and_its_game_provisional_as_a_new_account(store: Any) -> None:
    challenge = make_challenge()
    guest = guest_create(address="203.0.113.5")
    game = finish(challenge, guest)
    user = guest_sign_up(guest=guest, username="newcomer", password="a-long-pass-phrase-42", display_name="Newcomer")
    guest_games_claim(guest=user, player=user)
    user.refresh_from_db()
    assert (user.pk, user.guest, user.display_name) == (guest.pk, False, "Newcomer") and user.check_password(
        "a-long-pass-phrase-42"
    )
    score = Score.objects.get(game=game)
    assert (score.player_id, score.standing, score.standing_reason) == (user.pk, "provisional", "new_account")
    assert names_on(Board.for_challenge(challenge.pk)) == []


def test_a_guest_made_before_the_day_that_signs_up_ranks_like_any_account_of_that_age(store: Any) -> None:
    challenge = make_challenge()
    guest = guest_create(address="203.0.113.5")
    User.objects.filter(pk=guest.pk).update(date_joined=challenge_day_start(challenge.date) - dt.timedelta(minutes=5))
    guest.refresh_from_db()
    game = finish(challenge, guest)
    user = guest_sign_up(guest=guest, username="owl", password="a-long-pass-phrase-42", email="owl@example.org")
    guest_games_claim(guest=user, player=user)
    assert Score.objects.get(game=game).standing_reason == "email_unverified"  # an account of that age, unverified
    email_verify(token=verification_token(user))
    assert Score.objects.get(game=game).standing == "good"
    assert names_on(Board.for_challenge(challenge.pk)) == ["owl"]  # the username, no display name given


def test_a_challenge_the_account_played_already_keeps_the_accounts_game_and_leaves_the_guests(store: Any) -> None:
    classic, forty = make_challenge(), make_challenge(preset="forty")
    alice = make_player("alice", display_name="Alice")
    mine = finish(classic, alice, moves=3)
    guest = guest_create(address="203.0.113.5")
    guest_classic, guest_forty = finish(classic, guest), finish(forty, guest, moves=0)
    claim = guest_games_claim(guest=guest, player=alice)
    assert [g.pk for g in claim.kept] == [guest_forty.pk] and [g.pk for g in claim.left] == [guest_classic.pk]
    assert Game.objects.get(pk=guest_classic.pk).player_id == guest.pk
    assert Score.objects.get(game=guest_classic).standing_reason == "guest"
    assert Score.objects.get(game=mine).player_id == alice.pk
    assert Score.objects.get(game=guest_forty).player_id == alice.pk


def test_a_game_of_a_day_that_is_over_stays_the_guests() -> None:
    challenge = make_challenge()
    guest = guest_create(address="203.0.113.5")
    game = finish(challenge, guest)
    end_the_day(challenge)
    alice = make_player("alice", display_name="Alice")
    claim = guest_games_claim(guest=guest, player=alice)
    assert claim.kept == [] and claim.left == []
    assert Game.objects.get(pk=game.pk).player_id == guest.pk


def test_a_game_in_progress_goes_on_for_its_new_owner_and_no_longer_for_the_guest() -> None:
    challenge = make_challenge()
    guest = guest_create(address="203.0.113.5")
    game = game_ranked_start(challenge_id=challenge.pk, player=guest)[0].game
    game_move_make(game_id=game.pk, player=guest, move="D", seen=0)  # remembered as the guest's (positions)
    assert positions.hint("game", game.pk) is not None
    alice = make_player("alice", display_name="Alice")
    guest_games_claim(guest=guest, player=alice)
    assert positions.hint("game", game.pk) is None
    with pytest.raises(NotYours):
        game_move_make(game_id=game.pk, player=guest, move="D", seen=1)
    play = game_move_make(game_id=game.pk, player=alice, move="D", seen=1)
    assert play.game.move_count == 2 and play.game.player_id == alice.pk


def test_a_claimed_score_fair_play_sent_to_review_stays_in_review(store: Any) -> None:
    challenge = make_challenge()
    guest = guest_create(address="203.0.113.5")
    game = finish(challenge, guest)
    Score.objects.filter(game=game).update(standing="review", standing_reason="signals")
    alice = make_player("alice", display_name="Alice")
    guest_games_claim(guest=guest, player=alice)
    score = Score.objects.get(game=game)
    assert (score.player_id, score.standing, score.standing_reason) == (alice.pk, "review", "signals")
    assert names_on(Board.for_challenge(challenge.pk)) == []


def test_a_guest_may_not_follow_or_race() -> None:
    from accounts.services import follow_create
    from races.services import race_create

    guest = guest_create(address="203.0.113.5")
    make_player("alice", display_name="Alice")
    with pytest.raises(NotAllowed, match="sign up to follow"):
        follow_create(follower=guest, display_name="Alice")
    with pytest.raises(NotAllowed, match="sign up to race"):
        race_create(host=guest, preset="classic", seed=1)


def test_guests_are_limited_per_address_before_any_row_is_written(settings: Any) -> None:
    from plumbing.errors import Throttled

    settings.GUESTS_PER_IP = "2/hour"
    forget_limits()
    guest_create(address="198.51.100.7")
    guest_create(address="198.51.100.7")
    before = User.objects.count()
    with pytest.raises(Throttled) as refused:
        guest_create(address="198.51.100.7")
    assert refused.value.extra["retry_after"] > 0 and User.objects.count() == before
    guest_create(address="198.51.100.8")  # another address is not held back


def test_a_guest_has_no_password_and_cannot_sign_in() -> None:
    from django.contrib.auth import authenticate

    guest = guest_create(address="203.0.113.5")
    assert not guest.has_usable_password()
    assert authenticate(username=guest.username, password="") is None
    assert guest.date_joined <= timezone.now()
