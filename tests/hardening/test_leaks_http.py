"""No HTTP response gives away a seed or a card its viewer could not see at a real table.

Every URL pattern of the project is walked (the resolver is iterated, so a new view is scanned
without being listed here), with every id of the day's objects filled in, as an anonymous
visitor, as a player mid-game, as a player who has not started and as one who has finished;
then every static file the application serves.  Bodies and headers are scanned (tests/hardening/leaks.py).
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.staticfiles import finders
from django.test import Client
from django.urls import get_resolver

from tests.factories import make_player

from .leaks import Scanner
from .urlwalk import urls_of, walk
from .world import World, build_world

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def quick_solver(settings: Any) -> None:
    settings.RACE_COUNTDOWN_MIN = 0
    settings.PIRAMIDE_HINT_TIME_LIMIT = 0.5
    settings.PIRAMIDE_REVIEW_TIME_LIMIT = 1.0


@pytest.fixture
def world(today: Any) -> World:
    return build_world(today)


def hidden_for(world: World, viewer: Any, params: dict[str, str]) -> set[str]:
    """The cards this viewer may not see on a URL about these objects."""
    from games.models import DailyChallenge, Game
    from races.models import Race

    if "game_id" in params:
        game = Game.objects.select_related("challenge").filter(pk=params["game_id"]).first()
        if game is not None:
            return world.hidden_in_challenge(viewer, game.challenge)
    if "challenge_id" in params:
        challenge = DailyChallenge.objects.filter(pk=params["challenge_id"]).first()
        if challenge is not None:
            return world.hidden_in_challenge(viewer, challenge)
    if "code" in params:
        race = Race.objects.filter(code=params["code"]).first()
        if race is not None:
            return world.hidden_in_race(viewer, race)
    return world.hidden_everywhere(viewer)


def scan_response(scanner: Scanner, response: Any, hidden: set[str], where: str) -> None:
    headers = "\n".join(f"{key}: {value}" for key, value in response.items())
    scanner.text(headers, hidden, f"{where} (headers)")
    if response.streaming:
        body = b"".join(response.streaming_content)
    else:
        body = response.content
    text = body.decode("utf-8", errors="replace")
    if response.get("Content-Type", "").startswith("application/json"):
        import json

        scanner.json(json.loads(text), hidden, where)
    else:
        scanner.text(text, hidden, where)


#: POSTs that would change who the viewer is mid-scan (start, join, resign, sign out) are left
#: out; everything else is posted an empty body and a few moves that name hidden places.
STATE_CHANGING = ("ranked", "practice", "resign", "leave", "signout", "join", "start", "language", "password")
PROBE_MOVES = ("1.1", "1.1+2.1", "2.1+S", "S", "W", "W+S", "T", "B1", "R", "1.1+S", "7.1+S", "9.9")


def test_no_url_of_the_site_shows_a_seed_or_a_hidden_card(world: World):
    routes = walk(get_resolver().url_patterns)
    viewers = {"anonymous": None, **{name: world.players[name] for name in ("alice", "bob", "carol", "dave")}}
    scanner = Scanner(secrets=world.secrets())
    requests = 0
    walked: set[str] = set()
    for viewer_name, viewer in viewers.items():
        client = Client(HTTP_ACCEPT_LANGUAGE="en", raise_request_exception=True)
        if viewer is not None:
            client.force_login(viewer)
        for route, _pattern in routes:
            for path, params in urls_of(route, world):
                where = f"GET {path} as {viewer_name}"
                response = client.get(path)
                requests += 1
                assert response.status_code < 500, where
                scan_response(scanner, response, hidden_for(world, viewer, params), where)
                walked.add(route)
                if not path.startswith("/api/") or any(word in path for word in STATE_CHANGING):
                    continue
                bodies = [{}] + (
                    [{"move": move, "seen": seen} for move in PROBE_MOVES for seen in (0, 6)]
                    if path.endswith("/moves/")
                    else []
                )
                for body in bodies:
                    response = client.post(path, body, content_type="application/json")
                    requests += 1
                    assert response.status_code < 500, f"POST {path} {body} as {viewer_name}"
                    scan_response(
                        scanner, response, hidden_for(world, viewer, params), f"POST {path} {body} as {viewer_name}"
                    )
    assert walked == {route for route, _ in routes}, "every URL pattern was requested"
    print(
        f"\nleak scan: {len(routes)} URL patterns, {requests} requests, {scanner.scanned} bodies and headers, "
        f"{scanner.characters} characters"
    )
    assert not scanner.leaks, "\n".join(scanner.leaks)
    assert requests > 1000 and scanner.scanned > 2 * requests - 10


def test_no_static_file_served_by_the_application_holds_a_seed_or_a_deal(world: World):
    scanner = Scanner(secrets=world.secrets())
    hidden = world.hidden_everywhere(None)
    client = Client()
    paths = sorted({path for finder in finders.get_finders() for path, _ in finder.list([])})
    assert len(paths) > 50
    for path in paths:
        response = client.get(f"/static/{path}")
        assert response.status_code == 200, path
        body = b"".join(response.streaming_content) if response.streaming else response.content
        if path.startswith("frontend/"):
            scan_response(scanner, response, hidden, f"/static/{path}")
        else:  # the admin's and the API docs' bundles: their cards-like words are code, not cards
            scanner.text(body.decode("utf-8", errors="replace"), set(), f"/static/{path}")
    assert scanner.scanned >= len(paths)
    print(f"\nleak scan: {len(paths)} static files, {scanner.characters} characters")
    assert not scanner.leaks, "\n".join(scanner.leaks)


def test_the_scanner_catches_what_it_looks_for(world: World):
    """The check itself works: a hidden card in any form, a seed in hex, a deal are all caught."""
    viewer = make_player("zed")
    hidden = world.hidden_in_challenge(viewer, world.forty)
    card = sorted(hidden)[0]
    from .leaks import label_of

    scanner = Scanner(secrets=world.secrets())
    scanner.json({"state": {"waste": [card]}}, hidden, "json code")
    scanner.json({"message": f"that is {label_of(card)}"}, hidden, "json label")
    scanner.text(f'<li data-card="{card}">', hidden, "html code")
    scanner.text(f"seed {world.forty.seed:x}", set(), "hex seed")
    scanner.text(str(world.tomorrow.deal), set(), "deal")
    scanner.text("As wide as 4s", hidden | {"As", "4s"}, "prose")
    assert [leak.split(":")[0] for leak in scanner.leaks] == [
        "json code",
        "json label",
        "html code",
        "hex seed",
        "deal",
    ]
