"""Before a challenge day is over, no API response holds a card the player cannot see, or the seed.

Hidden cards are the face-down pyramid cards and the undrawn stock (in presets whose stock top
lies face up, that one top card is seen).  Every response of a full game, its errors included,
is scanned for them, by their text form (``7s``) and their label (``7♠``).
"""

import json
import re

import pytest
from rest_framework.test import APIClient

from games.engine import Game as EngineGame
from games.engine import StockModel
from games.engine.solver import solve
from tests.factories import BIG_WINNABLE, make_challenge, make_player

pytestmark = pytest.mark.django_db

CARD = re.compile(r"(?<![A-Za-z0-9])([A2-9TJQK][cdhs])(?![A-Za-z0-9])")


def hidden_cards(state: EngineGame) -> set:
    hidden = set()
    for i, card in enumerate(state.deal.pyramid):
        if not state.removed >> i & 1 and not state.is_face_up(i):
            hidden.add(card)
    stock = state.stock
    if state.rules.stock_model is StockModel.STOCK_TOP_AND_WASTE:
        stock = stock[1:]
    hidden.update(stock)
    return hidden


class Watcher:
    """An API client that checks every response against what the player may see at that moment."""

    def __init__(self, client, challenge):
        self.client = client
        self.challenge = challenge
        self.state = EngineGame.start(challenge.deal)
        self.checked = 0

    def check(self, response):
        text = response.content.decode()
        hidden = hidden_cards(self.state)
        tokens = set(CARD.findall(text))
        leaked = {str(card) for card in hidden} & tokens
        leaked |= {card.label for card in hidden if card.label in text}
        assert not leaked, f"{response.request['PATH_INFO']} leaked {sorted(leaked)}"
        assert str(self.challenge.seed) not in text
        assert str(self.challenge.deal) not in text
        self.checked += 1
        return response

    def get(self, url):
        return self.check(self.client.get(url))

    def post(self, url, data=None):
        return self.check(self.client.post(url, data or {}, format="json"))


def scan_everything(watcher, game_id):
    c = watcher.challenge
    for url in (
        "/api/challenges/today/",
        f"/api/challenges/{c.pk}/",
        f"/api/games/{game_id}/",
        f"/api/leaderboards/challenges/{c.pk}/",
        f"/api/leaderboards/challenges/{c.pk}/?around=me",
        f"/api/leaderboards/weeks/{c.preset}/",
        f"/api/leaderboards/all-time/{c.preset}/",
        "/api/me/",
        "/api/schema/",
        "/",
    ):
        watcher.get(url)


def probe_errors(watcher, game_id, seen):
    """Moves that name face-down or undrawn cards: their error messages must not name the card."""
    url = f"/api/games/{game_id}/moves/"
    legal = {str(move) for move in watcher.state.legal_moves()}
    for move in ("1.1", "1.1+2.1", "2.2+S", "S", "W", "W2+W", "B1", "T", "R", "9.9", "1.1+S"):
        if move not in legal:
            assert watcher.post(url, {"move": move, "seen": seen}).status_code == 400


@pytest.mark.parametrize("preset", ["forty", "classic"])
def test_a_whole_ranked_game_never_shows_a_hidden_card_or_the_seed(preset):
    challenge = make_challenge(preset=preset, seed=BIG_WINNABLE)
    client = APIClient()
    client.force_login(make_player("watcher"))
    watcher = Watcher(client, challenge)
    game = watcher.post(f"/api/challenges/{challenge.pk}/ranked/").json()
    assert hidden_cards(watcher.state), "the test needs hidden cards to look for"
    line = solve(EngineGame.start(challenge.deal), time_limit=10).line
    scan_everything(watcher, game["id"])
    for seen, move in enumerate(line):
        probe_errors(watcher, game["id"], seen)
        response = watcher.client.post(
            f"/api/games/{game['id']}/moves/", {"move": str(move), "seen": seen}, format="json"
        )
        assert response.status_code == 200, response.json()
        watcher.state = watcher.state.apply(move)
        watcher.check(response)
    assert response.json()["outcome"] == "won"
    scan_everything(watcher, game["id"])
    watcher.get(f"/api/games/{game['id']}/review/")

    # Practice (hints and undo) waits for the end of the day, even now the ranked game is won.
    refused = watcher.post(f"/api/challenges/{challenge.pk}/practice/")
    assert refused.status_code == 403 and refused.json()["error"] == "deal_secret"
    assert watcher.checked > len(line) * 10


def test_the_hidden_card_check_catches_a_leak():
    """The watcher itself works: a response holding an undrawn card fails it."""
    challenge = make_challenge(preset="forty")

    class Fake:
        content = " ".join(str(card) for card in challenge.deal.stock).encode()
        request = {"PATH_INFO": "/fake"}

    with pytest.raises(AssertionError, match="leaked"):
        Watcher(None, challenge).check(Fake())


def test_the_schema_never_mentions_the_seed_of_a_challenge():
    challenge = make_challenge(seed=BIG_WINNABLE)
    text = APIClient().get("/api/schema/").content.decode()
    assert str(challenge.seed) not in text
    assert json.dumps(challenge.seed) not in text
