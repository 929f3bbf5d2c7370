"""Commit–reveal on the pages: a challenge's SHA-256 commitment from the moment it is scheduled;
its seed, and the exact text to hash to check it, only once its day is over."""

from __future__ import annotations

import datetime as dt
import hashlib
import html
import re
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from games.selectors import challenge_day_end
from games.services import game_practice_start, game_ranked_start
from tests.factories import make_challenge, make_player

pytestmark = pytest.mark.django_db

#: Large seeds, so a seed found on a page cannot be a page's own number by chance.
TODAY_SEED, TOMORROW_SEED, YESTERDAY_SEED = (
    8_123_456_789_012_345_671,
    7_123_456_789_012_345_672,
    6_123_456_789_012_345_673,
)


def page(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    return response.content.decode()


def seed_forms(seed: int) -> list[str]:
    return [str(seed), format(seed, "x")]


def assert_committed_not_revealed(text: str, challenge: Any) -> None:
    assert challenge.seed_commitment in text
    for form in seed_forms(challenge.seed):
        assert form not in text
    if challenge.salt:
        assert challenge.salt not in text and challenge.salt.upper() not in text
    assert "piramide-seed-v" not in text and "sha256sum" not in text


def test_today_and_tomorrow_show_the_commitment_and_never_the_seed(today: dt.date) -> None:
    classic = make_challenge(date=today, preset="classic", seed=TODAY_SEED)
    forty = make_challenge(date=today, preset="forty", seed=TODAY_SEED + 2)
    tomorrow = make_challenge(date=today + dt.timedelta(days=1), preset="classic", seed=TOMORROW_SEED)
    alice = make_player("alice")
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(alice)
    home = page(client, "/")
    # the front page says it in words and links to the room, where the full commitment is explained
    assert home.count("A deal fixed in advance") == 2
    for challenge in (classic, forty):
        assert_committed_not_revealed(home, challenge)
        assert_committed_not_revealed(page(client, f"/challenges/{challenge.pk}/room/"), challenge)
    assert_committed_not_revealed(page(client, f"/challenges/{tomorrow.pk}/room/"), tomorrow)
    game = game_ranked_start(challenge_id=classic.pk, player=alice)[0].game
    assert_committed_not_revealed(page(client, f"/games/{game.pk}/"), classic)


def revealed_recipe(text: str, challenge: Any) -> str:
    assert challenge.seed_commitment in text
    seed = re.search(r'<code class="seed">(\d+)</code>', text).group(1)
    assert seed == str(challenge.seed)
    salt = re.search(r'<code class="salt">([0-9a-f]+)</code>', text)
    assert (salt.group(1) if salt else "") == challenge.salt
    recipe = html.unescape(re.search(r'<pre class="recipe"><code>(.*?)</code></pre>', text).group(1))
    preimage = re.fullmatch(r"printf '%s' '(.*)' \| sha256sum", recipe).group(1)
    assert hashlib.sha256(preimage.encode("ascii")).hexdigest() == challenge.seed_commitment
    return preimage


@pytest.mark.parametrize("language", ["en", "it", "es"])
def test_once_the_day_is_over_the_pages_reveal_the_seed_and_how_to_check_it(today: dt.date, language: str) -> None:
    yesterday = make_challenge(date=today - dt.timedelta(days=1), preset="forty", seed=YESTERDAY_SEED)
    bob = make_player("bob")
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(bob)
    room = page(client, f"/challenges/{yesterday.pk}/room/")
    label = {
        "en": "Seed commitment (SHA-256)",
        "it": "Impegno sul seme (SHA-256)",
        "es": "Compromiso de la semilla (SHA-256)",
    }
    assert label[language] in room
    assert revealed_recipe(room, yesterday) == f"piramide-seed-v2:forty:{YESTERDAY_SEED}:{yesterday.salt}"
    assert f'href="/api/challenges/{yesterday.pk}/"' in room
    practice = game_practice_start(challenge_id=yesterday.pk, player=bob).game
    revealed_recipe(page(client, f"/games/{practice.pk}/"), yesterday)
    # The API the page links to has the same seed and the deal it gives.
    body = client.get(f"/api/challenges/{yesterday.pk}/").json()
    assert body["seed"] == str(YESTERDAY_SEED) and body["deal"] == str(yesterday.deal)


SALTED = {
    "en": "together with a random salt",
    "it": "insieme a un sale casuale",
    "es": "junto con una sal aleatoria",
}
SALT_LABEL = {"en": "Salt", "it": "Sale", "es": "Sal"}


@pytest.mark.parametrize("language", ["en", "it", "es"])
def test_the_salt_is_explained_before_and_shown_after_at_the_day_boundary(
    today: dt.date, language: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    challenge = make_challenge(date=today, preset="classic", seed=TODAY_SEED)
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(make_player("carol"))
    url = f"/challenges/{challenge.pk}/room/"

    monkeypatch.setattr(timezone, "now", lambda: challenge_day_end(challenge) - dt.timedelta(seconds=1))
    before = page(client, url)
    assert_committed_not_revealed(before, challenge)
    assert SALTED[language] in before and f"{SALT_LABEL[language]}: " not in before

    monkeypatch.setattr(timezone, "now", lambda: challenge_day_end(challenge) + dt.timedelta(seconds=1))
    after = page(client, url)
    assert f'{SALT_LABEL[language]}: <code class="salt">{challenge.salt}</code>' in after
    assert revealed_recipe(after, challenge) == f"piramide-seed-v2:classic:{TODAY_SEED}:{challenge.salt}"


def test_a_v1_challenge_keeps_its_unsalted_text_before_and_its_v1_recipe_after(today: dt.date) -> None:
    tomorrow = make_challenge(date=today + dt.timedelta(days=1), seed=TOMORROW_SEED, commitment_version=1)
    yesterday = make_challenge(date=today - dt.timedelta(days=1), seed=YESTERDAY_SEED, commitment_version=1)
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(make_player("dan"))
    before = page(client, f"/challenges/{tomorrow.pk}/room/")
    assert_committed_not_revealed(before, tomorrow)
    assert "stays secret until the day is over. Then it is published here" in before and SALTED["en"] not in before
    after = page(client, f"/challenges/{yesterday.pk}/room/")
    assert 'class="salt"' not in after
    assert revealed_recipe(after, yesterday) == f"piramide-seed-v1:classic:{YESTERDAY_SEED}"
