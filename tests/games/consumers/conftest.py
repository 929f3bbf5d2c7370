from __future__ import annotations

from typing import Any

import pytest

from games.engine import Game as EngineGame
from games.engine.solver import solve
from games.services import game_ranked_start
from tests.factories import make_challenge, make_player
from tests.sockets import session_cookie


@pytest.fixture(autouse=True)
def quick_room(settings: Any) -> None:
    """The challenge room sends its updates every 50 ms, so tests need not wait for them."""
    settings.LIVE_ROOM_INTERVAL = 0.05


@pytest.fixture
def challenge(transactional_db: Any) -> Any:
    return make_challenge(preset="classic")


@pytest.fixture
def alice(transactional_db: Any) -> Any:
    return make_player("alice", display_name="Alice")


@pytest.fixture
def bob(transactional_db: Any) -> Any:
    return make_player("bob", display_name="Bob")


@pytest.fixture
def alice_cookie(alice: Any) -> str:
    return session_cookie(alice)


@pytest.fixture
def bob_cookie(bob: Any) -> str:
    return session_cookie(bob)


@pytest.fixture
def alice_game(challenge: Any, alice: Any) -> Any:
    return game_ranked_start(challenge_id=challenge.pk, player=alice)[0].game


@pytest.fixture
def line(challenge: Any) -> list[str]:
    """A winning line of the challenge's deal, as notation."""
    return [str(move) for move in solve(EngineGame.start(challenge.deal), time_limit=10).line]
