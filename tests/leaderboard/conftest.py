import datetime as dt
import itertools

import pytest

from games.models import Game
from leaderboard.models import Score
from tests.factories import make_challenge, make_player

BASE = dt.datetime(2026, 6, 1, 12, 0, tzinfo=dt.UTC)
_minutes = itertools.count()


@pytest.fixture(params=["database", "redis"])
def store(request, settings, db):
    """Every leaderboard test runs on both rank stores."""
    if request.param == "redis":
        return request.getfixturevalue("redis_ranks")
    settings.LEADERBOARD_BACKEND = "database"
    from leaderboard.ranks import rank_store

    return rank_store()


def add_score(challenge, player, points, moves, *, minute=None, won=True):
    """A score row as score_record stores it, followed by the rank store's refresh."""
    from leaderboard.boards import boards_of
    from leaderboard.services import leaderboard_entries_refresh

    finished = BASE + dt.timedelta(minutes=next(_minutes) if minute is None else minute)
    game = Game.objects.create(
        challenge=challenge,
        player=player,
        ranked=True,
        outcome="won",
        score=points,
        move_count=moves,
        finished_at=finished,
    )
    score = Score.objects.create(
        player=player,
        challenge=challenge,
        game=game,
        date=challenge.date,
        preset=challenge.preset,
        points=points,
        moves=moves,
        won=won,
        finished_at=finished,
    )
    leaderboard_entries_refresh(boards=boards_of(score), player_ids=[player.pk])
    return score


@pytest.fixture
def players(db):
    return [make_player(f"p{i}", display_name=f"P{i}") for i in range(6)]


@pytest.fixture
def monday_challenge(db):
    return make_challenge(date=dt.date(2026, 6, 1), preset="classic")
