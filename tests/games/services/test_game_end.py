"""Giving up, the third way a game ends, per preset (the other two: tests/games/engine/test_game_end.py).

004: «Cada Rey retirado suma 10 puntos y cada pareja de 13 suma 20 puntos»: the points made are
the player's, however the game ends, so a game given up scores its log as any other.
"""

import pytest

from games.engine import PRESETS, score_moves
from games.models import Game
from games.selectors import game_engine_state
from games.services import game_move_make, game_ranked_start, game_resign
from leaderboard.models import Score
from tests.factories import make_challenge

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("preset", list(PRESETS))
def test_a_game_given_up_keeps_the_points_its_moves_made(player, preset):
    challenge = make_challenge(preset=preset, seed=1)
    game = game_ranked_start(challenge_id=challenge.pk, player=player)[0].game
    state = game_engine_state(game)
    seen = 0
    # a king or a pair if there is one, else a draw: a few moves that score
    for _ in range(4):
        moves = [str(move) for move in state.legal_moves()]
        move = next((m for m in moves if m not in ("D", "R", "T") and not m.startswith("B")), "D")
        state = game_move_make(game_id=game.pk, player=player, move=move, seen=seen).state
        seen += 1
    ended = game_resign(game_id=game.pk, player=player)
    assert ended.game.outcome == Game.Outcome.RESIGNED
    assert ended.game.score == score_moves(state.moves, state.rules) == Score.objects.get(game=game).points
