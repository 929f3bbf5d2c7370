"""What a game socket's opening reads (games/live.py, ``game_sync``): the spoiler line and the log,
with no query more than the opening needs."""

from __future__ import annotations

import pytest

from games import live, positions
from games.live import FULL, SUMMARY, game_sync
from games.services import game_move_make, game_ranked_start, game_resign
from tests.factories import end_the_day, make_challenge, make_player

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fresh_memories():
    for forget in (positions.forget_all, live._names.clear):
        forget()
    yield
    for forget in (positions.forget_all, live._names.clear):
        forget()


@pytest.fixture
def challenge():
    return make_challenge(preset="classic")


def ranked_game(challenge, name):
    return game_ranked_start(challenge_id=challenge.pk, player=make_player(name))[0].game


def test_a_new_game_opens_without_reading_its_empty_log(challenge, django_assert_num_queries):
    game = ranked_game(challenge, "alice")
    game_sync(game_id=game.pk, viewer=None, since=None)  # the player's name is remembered a minute
    positions.forget_all()  # as on a process that did not start the game
    with django_assert_num_queries(1):  # the row and its challenge
        opening = game_sync(game_id=game.pk, viewer=None, since=None)
    assert opening.view == SUMMARY and opening.messages[0]["summary"]["moves"] == 0


def test_a_game_with_moves_reads_its_log(challenge, django_assert_num_queries):
    game = ranked_game(challenge, "alice")
    game_move_make(game_id=game.pk, player=game.player, move="D", seen=0)
    game_sync(game_id=game.pk, viewer=None, since=None)
    positions.forget_all()
    with django_assert_num_queries(2):  # the row, the moves
        opening = game_sync(game_id=game.pk, viewer=None, since=None)
    assert opening.messages[0]["summary"]["moves"] == 1


def test_a_spectator_sees_cards_only_once_the_day_is_over_and_the_line_asks_no_query(
    challenge, django_assert_num_queries
):
    watched = ranked_game(challenge, "alice")
    bob = ranked_game(challenge, "bob")
    game_sync(game_id=watched.pk, viewer=bob.player, since=None)  # alice's name is remembered a minute
    game_resign(game_id=bob.pk, player=bob.player)
    with django_assert_num_queries(1):  # the row and its challenge decide the line
        assert game_sync(game_id=watched.pk, viewer=bob.player, since=None).view == SUMMARY
    assert game_sync(game_id=watched.pk, viewer=watched.player, since=None).view == FULL
    end_the_day(challenge)
    for viewer in (bob.player, None):
        assert game_sync(game_id=watched.pk, viewer=viewer, since=None).view == FULL
