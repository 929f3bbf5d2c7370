"""What a challenge's other players chose along one game's line, read from their Move rows
(fairplay/services.py ``challenge_population``): the same as ``signals.population_of`` on the same
games, in one query, and only finished ranked games of other players count."""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

import pytest
from django.utils import timezone

from fairplay.services import challenge_population
from fairplay.signals import population_of
from games.models import Game, Move
from tests.factories import make_challenge, make_player

pytestmark = pytest.mark.django_db


def stored_game(
    challenge: Any,
    player: Any,
    moves: tuple[str, ...],
    *,
    ranked: bool = True,
    finished: bool = True,
    score: int | None = None,
) -> Game:
    game = Game.objects.create(
        challenge=challenge,
        player=player,
        ranked=ranked,
        outcome=Game.Outcome.LOST if finished else Game.Outcome.IN_PROGRESS,
        move_count=len(moves),
        score=score if finished else None,
        finished_at=timezone.now() if finished else None,
    )
    Move.objects.bulk_create(Move(game=game, number=n, notation=text) for n, text in enumerate(moves, start=1))
    return game


def test_the_population_read_from_the_database_is_the_one_the_signals_compute(django_assert_num_queries: Any) -> None:
    challenge = make_challenge()
    rng = random.Random(5)
    line = tuple(rng.choice("DAB") for _ in range(12))
    mine = stored_game(challenge, make_player("me"), line, score=30)
    others: list[tuple[tuple[str, ...], int | None]] = []
    for n in range(25):
        # lines that follow this one for a while, then go their own way (some longer, some shorter)
        keep = rng.randrange(0, 14)
        moves = line[:keep] + tuple(rng.choice("DABC") for _ in range(rng.randrange(0, 6)))
        score = rng.randrange(0, 60)
        stored_game(challenge, make_player(f"p{n}"), moves, score=score)
        others.append((moves, score))
    with django_assert_num_queries(1):
        found = challenge_population(mine, line, until=timezone.now())
    assert found == population_of(line, others)
    assert found.games == sum(1 for moves, _ in others if moves)


def test_only_other_players_finished_ranked_games_count() -> None:
    challenge = make_challenge()
    me = make_player("me")
    line = ("D", "D", "1.1")
    mine = stored_game(challenge, me, line, score=5)
    stored_game(challenge, me, line, ranked=False, score=5)  # my own practice game
    stored_game(challenge, make_player("still-playing"), line, finished=False)
    stored_game(challenge, make_player("practising"), line, ranked=False, score=99)
    stored_game(make_challenge(preset="forty"), make_player("elsewhere"), line, score=99)
    stored_game(challenge, make_player("counted"), line, score=7)
    found = challenge_population(mine, line, until=timezone.now())
    assert (found.games, found.agreeing, found.scores) == (1, (1, 1, 1), (7,))


def test_games_finished_after_the_cutoff_are_not_counted() -> None:
    """A line copied ten times must not look common: the population stops at the first repeat."""
    challenge = make_challenge()
    line = ("D", "D")
    mine = stored_game(challenge, make_player("me"), line, score=5)
    before = stored_game(challenge, make_player("before"), line, score=5)
    stored_game(challenge, make_player("after"), line, score=5)
    cutoff = before.finished_at
    Game.objects.exclude(pk__in=[mine.pk, before.pk]).update(finished_at=cutoff + dt.timedelta(seconds=1))
    assert challenge_population(mine, line, until=cutoff).games == 1
