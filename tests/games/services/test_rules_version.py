"""Rules versions (docs/rules.md, "Rules versions"): every challenge and game records the version it was
dealt under and is replayed under it, so games played before a rule changed keep their outcome and
score; new games follow the new rule.

The log used throughout is classic seed 13's random game of issue 41: under version 1 it ends
"lost" the moment the pyramid freezes, with 5 stock cards, 8♣ face up and K♥ next.
"""

from __future__ import annotations

import random

import pytest
from django.utils import timezone

from games.engine import RULES_VERSION, deal_from_seed, get_rules, score_moves
from games.engine import Game as EngineGame
from games.engine import Outcome as EngineOutcome
from games.models import DailyChallenge, Game, Move
from games.selectors import game_engine_state, game_view
from games.services import _verify_deal, game_move_make, game_practice_start, game_ranked_start, game_resign
from leaderboard.models import Score
from plumbing.errors import GameFinished
from tests.factories import end_the_day, make_challenge

pytestmark = pytest.mark.django_db

FROZEN = "no free pyramid card can ever be removed: nothing still to come pairs with one"


def frozen_log() -> tuple[list[str], int]:
    """Classic seed 13's random game under version 1: its moves and score."""
    game = EngineGame.start(deal_from_seed(get_rules("classic", 1), 13))
    chooser = random.Random(13)
    while game.outcome is EngineOutcome.IN_PROGRESS:
        game = game.apply(chooser.choice(game.legal_moves()))
    assert game.outcome_reason == FROZEN
    return [str(move) for move in game.moves], game.score


def play(game: Game, player, moves: list[str]):
    result = None
    for number, move in enumerate(moves):
        result = game_move_make(game_id=game.pk, player=player, move=move, seen=number)
    return result


def test_new_challenges_and_their_games_take_the_current_version(player):
    challenge = make_challenge()
    assert challenge.rules_version == RULES_VERSION and challenge.deal.rules.version == RULES_VERSION
    game = game_ranked_start(challenge_id=challenge.pk, player=player)[0].game
    assert game.rules_version == RULES_VERSION and game.deal.rules is get_rules("classic")


def test_a_game_takes_its_challenges_version_ranked_or_practice(player, today):
    challenge = make_challenge(seed=13, rules_version=1)
    ranked = game_ranked_start(challenge_id=challenge.pk, player=player)[0].game
    assert ranked.rules_version == 1 and ranked.deal.rules.ends_when_frozen
    end_the_day(challenge)
    practice = game_practice_start(challenge_id=challenge.pk, player=player).game
    assert practice.rules_version == 1 and practice.deal.rules is get_rules("classic", 1)


def test_a_stored_game_of_version_1_replays_to_its_outcome_and_score(player):
    """A row written before the change (the migration sets it to version 1) with its log as stored."""
    moves, score = frozen_log()
    challenge = make_challenge(seed=13, rules_version=1)
    game = Game.objects.create(
        challenge=challenge,
        player=player,
        ranked=True,
        rules_version=1,
        outcome=Game.Outcome.LOST,
        move_count=len(moves),
        version=len(moves),
        score=score,
        finished_at=timezone.now(),
    )
    Move.objects.bulk_create(Move(game=game, number=n, notation=text) for n, text in enumerate(moves, start=1))
    state = game_engine_state(Game.objects.select_related("challenge").get(pk=game.pk))
    assert state.outcome is EngineOutcome.LOST and state.outcome_reason == FROZEN
    assert state.score == score == score_moves(state.moves)
    view = game_view(game, state)
    assert view["outcome"] == "lost" and view["score"] == score and view["state"]["legal_moves"] == []


def test_a_version_1_game_still_ends_when_its_pyramid_freezes(player):
    """A ranked game begun before the change goes on under version 1 to the end."""
    moves, score = frozen_log()
    challenge = make_challenge(seed=13, rules_version=1)
    game = game_ranked_start(challenge_id=challenge.pk, player=player)[0].game
    last = play(game, player, moves)
    assert last.game.outcome == Game.Outcome.LOST and last.game.score == score
    assert Score.objects.get(game=game).points == score
    with pytest.raises(GameFinished):
        game_move_make(game_id=game.pk, player=player, move="D", seen=len(moves))


def test_a_new_game_plays_on_past_a_frozen_pyramid_and_is_told_so(player):
    """004: «Si has repasado el mazo y no quedan parejas posibles ... la partida concluye sin victoria»."""
    moves, score = frozen_log()
    challenge = make_challenge(seed=13)
    game = game_ranked_start(challenge_id=challenge.pk, player=player)[0].game
    last = play(game, player, moves)
    assert last.game.outcome == Game.Outcome.IN_PROGRESS and not Score.objects.filter(game=game).exists()
    view = game_view(last.game, last.state)
    assert view["state"]["pyramid_clearable"] is False and view["state"]["outcome"] == "in_progress"
    after = game_move_make(game_id=game.pk, player=player, move="D", seen=len(moves))
    play_on = game_move_make(game_id=game.pk, player=player, move="S", seen=len(moves) + 1)  # K♥ leaves: +10
    assert play_on.game.outcome == Game.Outcome.IN_PROGRESS and after.state.score == score
    ended = game_resign(game_id=game.pk, player=player)
    assert ended.game.outcome == Game.Outcome.RESIGNED and ended.game.score == score + 10
    assert Score.objects.get(game=game).points == score + 10


def test_a_challenge_is_verified_under_its_own_version():
    old, new = _verify_deal("classic", 1, 1), _verify_deal("classic", 1)
    assert old["verdict"] == new["verdict"] == DailyChallenge.Verdict.WINNABLE
    assert new["par"] >= old["par"]
