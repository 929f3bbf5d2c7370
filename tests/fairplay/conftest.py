from typing import Any

import pytest


@pytest.fixture(autouse=True)
def fairplay_on(settings: Any) -> None:
    """Fair play assesses every finished ranked game here, as on the site (the suite's other tests
    play the solver's line at machine speed and leave it off: piramide_site/settings/test.py)."""
    settings.FAIRPLAY_ASSESS = True
