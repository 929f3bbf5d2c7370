from __future__ import annotations

from typing import Any

import pytest

from games.engine import Game as EngineGame
from games.engine import deal_from_seed, get_rules
from games.engine.solver import solve
from tests.factories import WINNABLE

SEED = WINNABLE["classic"]


@pytest.fixture(autouse=True)
def race_settings(settings: Any) -> None:
    settings.RACE_COUNTDOWN_MIN = 0


@pytest.fixture(scope="session")
def race_line() -> list[str]:
    """The winning line of the race deal used in these tests."""
    deal = deal_from_seed(get_rules("classic"), SEED)
    return [str(move) for move in solve(EngineGame.start(deal), time_limit=10).line]
