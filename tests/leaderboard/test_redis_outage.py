"""With Redis unreachable, leaderboards answer from SQL and finishing a game still works."""

import pytest

from games.services import game_ranked_start, game_resign
from leaderboard.boards import Board
from leaderboard.selectors import leaderboard_around, leaderboard_page
from tests.factories import make_challenge

from .conftest import add_score

pytestmark = pytest.mark.django_db


@pytest.fixture
def redis_down(settings):
    settings.LEADERBOARD_BACKEND = "redis"
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1


def test_pages_and_ranks_come_from_sql_while_redis_is_down(redis_down, players, monday_challenge):
    for i, player in enumerate(players[:3]):
        add_score(monday_challenge, player, 100 * i, 40)  # the refresh fails quietly too
    board = Board.for_challenge(monday_challenge.pk)
    assert [e["display_name"] for e in leaderboard_page(board=board)["entries"]] == ["P2", "P1", "P0"]
    assert leaderboard_around(board=board, player_id=players[0].pk)["rank"] == 3


def test_a_game_still_finishes_while_redis_is_down(redis_down, player, django_capture_on_commit_callbacks):
    challenge = make_challenge()
    game = game_ranked_start(challenge_id=challenge.pk, player=player)[0].game
    with django_capture_on_commit_callbacks(execute=True):
        play = game_resign(game_id=game.pk, player=player)
    assert play.game.outcome == "resigned"
    assert leaderboard_page(board=Board.for_challenge(challenge.pk))["total"] == 1
