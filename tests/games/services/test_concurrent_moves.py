"""Racing requests on one game leave exactly one result (row locks on Postgres)."""

import pytest

from games.models import Game, Move
from games.services import game_move_make, game_ranked_start, game_resign
from leaderboard.models import Score
from plumbing.errors import GameFinished, StaleMove
from tests.concurrency import at_once
from tests.factories import make_challenge

pytestmark = pytest.mark.django_db(transaction=True)


def race(count, call):
    outcomes = []
    for result in at_once([call] * count):
        if isinstance(result, (StaleMove, GameFinished)):
            outcomes.append(type(result).__name__)
        elif isinstance(result, Exception):
            outcomes.append(repr(result))
        else:
            outcomes.append("ok")
    return sorted(outcomes)


def test_the_same_move_sent_ten_times_at_once_is_stored_once(postgres, player):
    challenge = make_challenge()
    game = game_ranked_start(challenge_id=challenge.pk, player=player)[0].game
    outcomes = race(10, lambda: game_move_make(game_id=game.pk, player=player, move="D", seen=0))
    assert outcomes == ["StaleMove"] * 9 + ["ok"]
    assert list(Move.objects.filter(game=game).values_list("number", flat=True)) == [1]
    assert Game.objects.get(pk=game.pk).move_count == 1


def test_ten_resignations_at_once_leave_one_score(postgres, player):
    challenge = make_challenge()
    game = game_ranked_start(challenge_id=challenge.pk, player=player)[0].game
    outcomes = race(10, lambda: game_resign(game_id=game.pk, player=player))
    assert outcomes == ["GameFinished"] * 9 + ["ok"]
    assert Score.objects.filter(game=game).count() == 1


def test_ten_first_starts_at_once_make_one_ranked_game(postgres, player):
    challenge = make_challenge()
    outcomes = race(10, lambda: game_ranked_start(challenge_id=challenge.pk, player=player))
    assert outcomes == ["ok"] * 10
    assert Game.objects.filter(challenge=challenge, player=player, ranked=True).count() == 1


def test_the_same_move_sent_ten_times_at_once_after_a_first_move_is_stored_once(postgres, player):
    """The second move takes the one-statement path (this process saw the first commit): it must hold too."""
    from games import positions

    challenge = make_challenge()
    game = game_ranked_start(challenge_id=challenge.pk, player=player)[0].game
    first = game_move_make(game_id=game.pk, player=player, move="D", seen=0)
    assert positions.hint("game", game.pk).version == 1, "the committed move left its version for the next one"
    move = str(first.state.legal_moves()[0])
    outcomes = race(10, lambda: game_move_make(game_id=game.pk, player=player, move=move, seen=1))
    assert outcomes == ["StaleMove"] * 9 + ["ok"]
    assert list(Move.objects.filter(game=game).values_list("number", flat=True)) == [1, 2]
    stored = Game.objects.get(pk=game.pk)
    assert (stored.move_count, stored.version) == (2, 2)


def test_moves_racing_a_resignation_leave_a_consistent_game(postgres, player):
    from games import positions

    challenge = make_challenge()
    game = game_ranked_start(challenge_id=challenge.pk, player=player)[0].game
    first = game_move_make(game_id=game.pk, player=player, move="D", seen=0)
    assert positions.hint("game", game.pk) is not None
    move = str(first.state.legal_moves()[0])
    calls = [lambda: game_resign(game_id=game.pk, player=player)] + [
        lambda: game_move_make(game_id=game.pk, player=player, move=move, seen=1) for _ in range(5)
    ]
    results = [type(result).__name__ if isinstance(result, Exception) else "ok" for result in at_once(calls)]
    stored = Game.objects.get(pk=game.pk)
    assert stored.outcome == Game.Outcome.RESIGNED
    numbers = list(Move.objects.filter(game=game).values_list("number", flat=True))
    assert numbers == list(range(1, stored.move_count + 1)) and stored.move_count in (1, 2)
    score = Score.objects.get(game=game)
    assert score.moves == stored.move_count
    assert results.count("ok") == 1 + (stored.move_count - 1)
