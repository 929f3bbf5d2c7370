import datetime as dt
from unittest import mock

import pytest

from games.engine import Game as EngineGame
from games.engine import score_moves
from games.engine.solver import solve
from games.models import Game, Move
from games.services import game_move_make, game_ranked_start
from leaderboard.models import Score
from plumbing.errors import GameFinished, IllegalMove, NotAllowed, NotFound, NotYours, StaleMove
from tests.factories import make_challenge

pytestmark = pytest.mark.django_db


@pytest.fixture
def ranked(player):
    challenge = make_challenge(preset="classic")
    play, _ = game_ranked_start(challenge_id=challenge.pk, player=player)
    return play.game


def winning_line(game):
    return [str(move) for move in solve(EngineGame.start(game.challenge.deal), time_limit=10).line]


def test_a_legal_move_is_stored_and_counted(player, ranked):
    play = game_move_make(game_id=ranked.pk, player=player, move="D", seen=0)
    assert play.game.move_count == 1
    assert list(Move.objects.filter(game=ranked).values_list("number", "notation")) == [(1, "D")]
    assert play.state.visible()["moves"] == 1


def test_an_illegal_move_is_refused_with_the_engines_reason_and_changes_nothing(player, ranked):
    with pytest.raises(IllegalMove) as error:
        game_move_make(game_id=ranked.pk, player=player, move="1.1+S", seen=0)
    assert "covered" in error.value.message or "not" in error.value.message
    assert Move.objects.filter(game=ranked).count() == 0
    ranked.refresh_from_db()
    assert ranked.move_count == 0


def test_unreadable_notation_is_refused(player, ranked):
    with pytest.raises(IllegalMove, match="not"):
        game_move_make(game_id=ranked.pk, player=player, move="hello", seen=0)


def test_a_stale_move_is_refused_without_change(player, ranked):
    game_move_make(game_id=ranked.pk, player=player, move="D", seen=0)
    with pytest.raises(StaleMove) as error:
        game_move_make(game_id=ranked.pk, player=player, move="D", seen=0)  # the same request again
    assert error.value.extra == {"moves": 1}
    assert Move.objects.filter(game=ranked).count() == 1


def test_a_move_from_the_future_is_refused(player, ranked):
    with pytest.raises(StaleMove):
        game_move_make(game_id=ranked.pk, player=player, move="D", seen=3)


def test_a_move_on_another_players_game_is_refused(other_player, ranked):
    with pytest.raises(NotYours):
        game_move_make(game_id=ranked.pk, player=other_player, move="D", seen=0)
    assert Move.objects.count() == 0


def test_a_move_on_a_missing_game_is_refused(player):
    with pytest.raises(NotFound):
        game_move_make(game_id=999999, player=player, move="D", seen=0)


def test_a_move_on_a_challenge_not_yet_open_is_refused(player, today):
    challenge = make_challenge(date=today + dt.timedelta(days=1))
    game = Game.objects.create(challenge=challenge, player=player, ranked=False)
    with pytest.raises(NotAllowed, match="not open yet"):
        game_move_make(game_id=game.pk, player=player, move="D", seen=0)


def test_a_ranked_game_closes_when_its_day_is_over(player, ranked):
    tomorrow = dt.datetime.now(dt.UTC) + dt.timedelta(days=1)
    with mock.patch("django.utils.timezone.now", return_value=tomorrow):
        with pytest.raises(NotAllowed, match="day is over"):
            game_move_make(game_id=ranked.pk, player=player, move="D", seen=0)


def test_winning_finishes_the_game_and_records_the_engines_score(player, ranked):
    line = winning_line(ranked)
    for seen, move in enumerate(line):
        play = game_move_make(game_id=ranked.pk, player=player, move=move, seen=seen)
    game = play.game
    assert game.outcome == Game.Outcome.WON
    moves = [m for m in play.state.moves]
    assert game.score == score_moves(moves) == play.state.score
    score = Score.objects.get(player=player, challenge=ranked.challenge)
    assert (score.points, score.moves, score.won) == (game.score, len(line), True)


def test_a_move_on_a_finished_game_is_refused(player, ranked):
    line = winning_line(ranked)
    for seen, move in enumerate(line):
        game_move_make(game_id=ranked.pk, player=player, move=move, seen=seen)
    with pytest.raises(GameFinished):
        game_move_make(game_id=ranked.pk, player=player, move="D", seen=len(line))
    assert Move.objects.filter(game=ranked).count() == len(line)


def test_a_game_with_no_move_left_is_lost_and_scored(player):
    from tests.factories import UNWINNABLE

    challenge = make_challenge(preset="classic", seed=UNWINNABLE["classic"])
    game = game_ranked_start(challenge_id=challenge.pk, player=player)[0].game
    state = EngineGame.start(challenge.deal)
    seen = 0
    while state.legal_moves():
        move = state.legal_moves()[0]
        play = game_move_make(game_id=game.pk, player=player, move=str(move), seen=seen)
        state, seen = play.state, seen + 1
    assert play.game.outcome == Game.Outcome.LOST
    assert Score.objects.get(game=game).won is False
