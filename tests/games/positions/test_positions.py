"""The per-process memory of positions: only whole, unchangeable logs, and the move path uses it."""

from __future__ import annotations

from unittest import mock

import pytest

from games import positions
from games.engine import Game as EngineGame
from games.services import game_move_make, game_ranked_start
from tests.factories import make_challenge


@pytest.fixture(autouse=True)
def empty_memory():
    positions.forget_all()
    yield
    positions.forget_all()


def test_a_position_is_kept_only_under_its_own_move_count():
    state = EngineGame.from_seed("classic", 1).apply(EngineGame.from_seed("classic", 1).legal_moves()[0])
    positions.remember(positions.key_of("game", 1, "t", 2), state)
    assert positions.recall(positions.key_of("game", 1, "t", 2)) is None
    positions.remember(positions.key_of("game", 1, "t", 1), state)
    assert positions.recall(positions.key_of("game", 1, "t", 1)) is state
    assert positions.recall(positions.key_of("game", 1, "other creation", 1)) is None


def test_the_oldest_positions_leave_first(monkeypatch):
    monkeypatch.setattr(positions, "CAPACITY", 2)
    state = EngineGame.from_seed("classic", 1)
    for pk in (1, 2, 3):
        positions.remember(positions.key_of("game", pk, "t", 0), state)
    assert positions.recall(positions.key_of("game", 1, "t", 0)) is None
    assert positions.recall(positions.key_of("game", 3, "t", 0)) is state


@pytest.mark.django_db
def test_a_ranked_move_after_a_committed_move_does_not_replay_the_log(player, django_capture_on_commit_callbacks):
    challenge = make_challenge(preset="classic")
    game = game_ranked_start(challenge_id=challenge.pk, player=player)[0].game
    with django_capture_on_commit_callbacks(execute=True):
        first = game_move_make(game_id=game.pk, player=player, move="D", seen=0)
    with mock.patch.object(EngineGame, "replay", side_effect=AssertionError("replayed")):
        second = game_move_make(game_id=game.pk, player=player, move=str(first.state.legal_moves()[0]), seen=1)
    assert second.game.move_count == 2
