"""What a game socket's opening reads (games/live.py, ``game_sync``): the spoiler line and the log,
with no query more than the opening needs."""

from __future__ import annotations

import pytest

from games import live, positions
from games.live import FULL, SUMMARY, game_sync
from games.services import game_move_make, game_ranked_start, game_resign
from tests.factories import make_challenge, make_player

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fresh_memories():
    for forget in (positions.forget_all, live._past_the_line.clear, live._names.clear):
        forget()
    yield
    for forget in (positions.forget_all, live._past_the_line.clear, live._names.clear):
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


def test_a_spectator_past_the_line_is_asked_about_once_and_one_before_it_every_time(challenge, django_assert_num_queries):
    watched = ranked_game(challenge, "alice")
    bob = ranked_game(challenge, "bob")
    with django_assert_num_queries(3):  # the row, bob's own game still in progress, alice's name (no moves: no log)
        assert game_sync(game_id=watched.pk, viewer=bob.player, since=None).view == SUMMARY
    with django_assert_num_queries(2):  # not past the line is asked again: it may change any moment
        assert game_sync(game_id=watched.pk, viewer=bob.player, since=None).view == SUMMARY
    game_resign(game_id=bob.pk, player=bob.player)
    with django_assert_num_queries(2):
        assert game_sync(game_id=watched.pk, viewer=bob.player, since=None).view == FULL
    with django_assert_num_queries(1):  # past it for good: only the row
        assert game_sync(game_id=watched.pk, viewer=bob.player, since=None).view == FULL
