import datetime as dt

import pytest

from games.models import Game, Move
from games.services import game_move_make, game_move_undo, game_practice_start, game_ranked_start, game_resign
from leaderboard.models import Score
from plumbing.errors import BadRequest, GameFinished, NotAllowed, StaleMove
from tests.factories import make_challenge

pytestmark = pytest.mark.django_db


def test_resigning_scores_the_moves_made(player):
    challenge = make_challenge()
    game = game_ranked_start(challenge_id=challenge.pk, player=player)[0].game
    game_move_make(game_id=game.pk, player=player, move="D", seen=0)
    play = game_resign(game_id=game.pk, player=player)
    assert play.game.outcome == Game.Outcome.RESIGNED
    score = Score.objects.get(game=game)
    assert (score.points, score.moves, score.won) == (play.game.score, 1, False)


def test_resigning_twice_is_refused(player):
    challenge = make_challenge()
    game = game_ranked_start(challenge_id=challenge.pk, player=player)[0].game
    game_resign(game_id=game.pk, player=player)
    with pytest.raises(GameFinished):
        game_resign(game_id=game.pk, player=player)
    assert Score.objects.count() == 1


def test_practice_games_leave_no_score(player, today):
    challenge = make_challenge(date=today - dt.timedelta(days=1))
    game = game_practice_start(challenge_id=challenge.pk, player=player).game
    game_resign(game_id=game.pk, player=player)
    assert Score.objects.count() == 0


def test_ranked_games_have_no_undo(player):
    challenge = make_challenge()
    game = game_ranked_start(challenge_id=challenge.pk, player=player)[0].game
    game_move_make(game_id=game.pk, player=player, move="D", seen=0)
    with pytest.raises(NotAllowed, match="no undo"):
        game_move_undo(game_id=game.pk, player=player, seen=1)


def test_practice_undo_takes_back_the_last_move(player, today):
    challenge = make_challenge(date=today - dt.timedelta(days=1))
    game = game_practice_start(challenge_id=challenge.pk, player=player).game
    game_move_make(game_id=game.pk, player=player, move="D", seen=0)
    game_move_make(game_id=game.pk, player=player, move="D", seen=1)
    play = game_move_undo(game_id=game.pk, player=player, seen=2)
    assert play.game.move_count == 1 and play.state.visible()["moves"] == 1
    assert list(Move.objects.filter(game=game).values_list("number", flat=True)) == [1]
    with pytest.raises(StaleMove):
        game_move_undo(game_id=game.pk, player=player, seen=2)
    game_move_undo(game_id=game.pk, player=player, seen=1)
    with pytest.raises(BadRequest, match="no move"):
        game_move_undo(game_id=game.pk, player=player, seen=0)
