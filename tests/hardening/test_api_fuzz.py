"""The whole REST API fuzzed from its own OpenAPI schema with schemathesis, in-process.

Every operation gets cases drawn from the schema, sent through the real application with a signed-in
session; every response must pass schemathesis's checks.  What is and is not checked:
docs/testing.md, *The API fuzzed from its schema*.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
import schemathesis
from django.conf import settings
from django.core.wsgi import get_wsgi_application
from django.middleware.csrf import _get_new_csrf_string
from django.test import Client
from hypothesis import HealthCheck, Phase, given
from hypothesis import settings as hsettings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.core.parameters import ParameterLocation
from schemathesis.specs.openapi.checks import positive_data_acceptance

from games.services import game_move_make, game_practice_start, game_ranked_start, game_resign
from tests.factories import BIG_WINNABLE, make_challenge, make_player

pytestmark = pytest.mark.django_db

#: Cases per operation and generation mode: 26 operations x 2 modes x this, in about a minute.
EXAMPLES = 40


@pytest.fixture
def objects(settings: Any, today: Any) -> dict[str, list[Any]]:
    settings.PIRAMIDE_HINT_TIME_LIMIT = 0.3
    settings.PIRAMIDE_REVIEW_TIME_LIMIT = 0.3
    import datetime as dt

    from games.engine import PRESETS
    from races.models import PooledDeal
    from races.services import race_create

    # The fuzz creates races of every preset: each takes a pooled deal (an empty pool is a 503,
    # which the fuzz counts as a server error), so every pool gets more than it can take.
    PooledDeal.objects.bulk_create(
        [PooledDeal(preset=preset, seed=10_000 + number, line_length=30) for preset in PRESETS for number in range(200)]
    )

    player = make_player("fuzzer")
    classic = make_challenge(preset="classic", seed=BIG_WINNABLE, date=today)
    forty = make_challenge(preset="forty", date=today)
    past = make_challenge(preset="classic", date=today - dt.timedelta(days=1))
    ranked = game_ranked_start(challenge_id=classic.pk, player=player)[0].game
    game_move_make(game_id=ranked.pk, player=player, move="D", seen=0)
    game_resign(game_id=ranked.pk, player=player)
    practice = game_practice_start(challenge_id=past.pk, player=player).game
    other = game_ranked_start(challenge_id=forty.pk, player=make_player("other"))[0].game
    race = race_create(host=player, preset="classic", seed=7)  # not a daily deal
    return {
        "player": [player],
        "challenge_id": [classic.pk, forty.pk, past.pk],
        "game_id": [ranked.pk, practice.pk, other.pk],
        "code": [race.code],
        "preset": ["classic", "forty"],
    }


@pytest.fixture
def wsgi_app() -> Any:
    """The real WSGI application, minus the hook that closes the database connection after each
    request (as Django's own test client does): the test's transaction lives on that connection."""
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield get_wsgi_application()
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


def steer(case: Any, objects: dict[str, list[Any]]) -> None:
    """Two cases in three name a real object; the third keeps what the schema drew."""
    for name, value in list((case.path_parameters or {}).items()):
        real = objects.get(name)
        if not real:
            continue
        index = value if isinstance(value, int) else len(str(value))
        if index % 3:
            case.path_parameters[name] = real[index % len(real)]


def signed_in(player: Any) -> tuple[dict[str, str], dict[str, str]]:
    """(headers, cookies) of a fresh signed-in session with its CSRF token: a case may sign out."""
    client = Client()
    client.force_login(player)
    token = _get_new_csrf_string()
    cookies = {
        settings.SESSION_COOKIE_NAME: client.cookies[settings.SESSION_COOKIE_NAME].value,
        settings.CSRF_COOKIE_NAME: token,
    }
    return {"X-CSRFToken": token, "Accept-Language": "en"}, cookies


@pytest.mark.slow  # schemathesis over every operation: about 2 minutes
def test_every_operation_answers_as_its_schema_says(objects, wsgi_app):
    schema = schemathesis.openapi.from_wsgi("/api/schema/", wsgi_app)
    player = objects["player"][0]
    failures: list[str] = []
    statuses: Counter[int] = Counter()
    cases = 0
    operations = 0
    for result in schema.get_all_operations():
        operation = result.ok()
        operations += 1
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):

            @hsettings(
                max_examples=EXAMPLES,
                deadline=None,
                database=None,
                derandomize=True,
                phases=[Phase.explicit, Phase.generate],
                suppress_health_check=list(HealthCheck),
            )
            @given(case=operation.as_strategy(generation_mode=mode))
            def run(case: Any) -> None:
                nonlocal cases
                cases += 1
                # What this case breaks on purpose stays broken: a broken path keeps its ids, and a
                # case that drops or garbles the session cookie is sent without a real session.
                broken = {
                    where
                    for where, info in (case.meta.components or {}).items()
                    if info.mode is GenerationMode.NEGATIVE
                }
                if ParameterLocation.PATH not in broken:
                    steer(case, objects)
                headers, cookies = signed_in(player)
                if ParameterLocation.COOKIE in broken:
                    cookies = {**(case.cookies or {}), settings.CSRF_COOKIE_NAME: cookies[settings.CSRF_COOKIE_NAME]}
                response = case.call(headers=headers, cookies=cookies)
                statuses[response.status_code] += 1
                try:
                    case.validate_response(response, headers=headers, excluded_checks=[positive_data_acceptance])
                except (AssertionError, BaseExceptionGroup) as error:  # collect every failure, report them at the end
                    failures.append(f"{operation.label} [{mode.value}] {response.status_code}: {str(error)[:600]}")

            try:
                run()
            except Unsatisfiable:
                # Nothing to break: an operation with no parameters and no body has no invalid input.
                assert mode is GenerationMode.NEGATIVE, operation.label
    print(f"\nschemathesis: {cases} cases over {operations} operations; statuses {dict(sorted(statuses.items()))}")
    assert operations >= 20
    assert cases >= operations * EXAMPLES
    assert not failures, "\n\n".join(failures[:20])
