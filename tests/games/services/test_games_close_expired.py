import datetime as dt

import pytest

from games.models import Game
from games.services import game_move_make, game_practice_start, game_ranked_start, games_close_expired
from leaderboard.models import Score
from tests.factories import make_challenge

pytestmark = pytest.mark.django_db


def test_a_ranked_game_left_open_after_its_day_is_resigned_and_scored(player, today):
    challenge = make_challenge(date=today)
    game = game_ranked_start(challenge_id=challenge.pk, player=player)[0].game
    game_move_make(game_id=game.pk, player=player, move="D", seen=0)
    assert games_close_expired(today=today) == 0, "today's game is still open"
    assert games_close_expired(today=today + dt.timedelta(days=1)) == 1
    game.refresh_from_db()
    assert game.outcome == Game.Outcome.RESIGNED and game.finished_at is not None
    score = Score.objects.get(game=game)
    assert (score.points, score.moves, score.won) == (game.score, 1, False)
    assert games_close_expired(today=today + dt.timedelta(days=1)) == 0, "a second run changes nothing"


def test_practice_games_are_left_alone(player, today):
    challenge = make_challenge(date=today - dt.timedelta(days=2))
    game = game_practice_start(challenge_id=challenge.pk, player=player).game
    assert games_close_expired(today=today) == 0
    game.refresh_from_db()
    assert game.outcome == Game.Outcome.IN_PROGRESS


def test_a_ranked_game_open_at_midnight_can_be_resigned_and_scores_as_the_closing_task_would(player, today):
    from games.services import game_resign
    from tests.factories import make_player

    challenge = make_challenge(date=today)
    other = make_player("twin")
    games = [game_ranked_start(challenge_id=challenge.pk, player=p)[0].game for p in (player, other)]
    for game in games:
        game_move_make(game_id=game.pk, player=game.player, move="D", seen=0)
    challenge.date = today - dt.timedelta(days=1)  # midnight has passed
    challenge.save(update_fields=["date"])

    resigned = game_resign(game_id=games[0].pk, player=player).game
    assert resigned.outcome == Game.Outcome.RESIGNED
    assert games_close_expired(today=today) == 1, "only the other game was still open"
    mine, theirs = Score.objects.get(game=games[0]), Score.objects.get(game=games[1])
    assert (
        (mine.points, mine.moves, mine.won) == (theirs.points, theirs.moves, theirs.won) == (resigned.score, 1, False)
    )


def test_a_move_after_midnight_is_still_refused(player, today):
    from games.services import game_move_make as move
    from plumbing.errors import NotAllowed

    challenge = make_challenge(date=today)
    game = game_ranked_start(challenge_id=challenge.pk, player=player)[0].game
    challenge.date = today - dt.timedelta(days=1)
    challenge.save(update_fields=["date"])
    with pytest.raises(NotAllowed, match="day is over"):
        move(game_id=game.pk, player=player, move="D", seen=0)
