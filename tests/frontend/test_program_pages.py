"""The program's pages: the home page names today's variant and links its rules, each preset has a
rules page written from its engine rule set, and the calendar of the coming days shows presets only."""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from typing import Any

import pytest
from django.test import Client
from django.utils import translation

from frontend.rules import layout_drawing, rules_sentences
from games.engine import PRESETS, StockModel
from tests.factories import BIG_WINNABLE, make_challenge, make_player

pytestmark = pytest.mark.usefixtures("db")


@pytest.fixture
def rotation(settings: Any, today: dt.date) -> None:
    settings.PIRAMIDE_DAILY_PRESETS = ["classic", "forty"]
    settings.PIRAMIDE_ROTATION_PRESETS = ["egyptian", "double"]
    settings.PIRAMIDE_ROTATION_START = today


def page(path: str, language: str = "en") -> str:
    response = Client(HTTP_ACCEPT_LANGUAGE=language).get(path)
    assert response.status_code == 200, path
    return response.content.decode()


def test_home_names_todays_variant_and_links_its_rules_and_the_calendar(rotation: None, today: dt.date) -> None:
    for preset in ("classic", "forty", "egyptian"):
        make_challenge(date=today, preset=preset)
    text = page("/", "it")
    assert "Variante del giorno: Campagna d&#x27;Egitto" in text or "Variante del giorno: Campagna d'Egitto" in text
    assert 'href="/rules/egyptian/"' in text and 'href="/calendar/"' in text
    variant_rows = re.findall(r'<li class="challenge variant" data-preset="([a-z-]+)">', text)
    assert variant_rows == ["egyptian"]
    for preset in ("classic", "forty", "egyptian"):
        assert f'href="/rules/{preset}/"' in text


def test_home_without_a_variant_names_none(settings: Any) -> None:
    settings.PIRAMIDE_VARIANT_OF_THE_DAY = False
    make_challenge(preset="classic")
    assert 'class="variant-of-the-day"' not in page("/")


@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize(("language", "title"), [("en", "Rules"), ("it", "Regole"), ("es", "Reglas")])
def test_every_preset_has_a_rules_page_with_its_layout_in_three_languages(
    preset: str, language: str, title: str
) -> None:
    rules = PRESETS[preset]
    text = page(f"/rules/{preset}/", language)
    assert f"<h1>{title}:" in text
    assert str(rules.pyramid_size) in text and str(rules.stock_size) in text and str(rules.pair_sum) in text
    assert text.count('class="slot') == rules.pyramid_size + len(layout_drawing(rules)["piles"])
    assert text.count('class="slot down"') == (rules.pyramid_size - rules.rows if rules.face_down else 0) + 1
    assert "<img" not in text and "http://" not in text.replace('xmlns="http://www.w3.org/2000/svg"', "")
    with translation.override(language):
        for sentence in rules_sentences(rules):
            assert sentence.replace("'", "&#x27;") in text


@pytest.mark.parametrize("language", ["it", "es", "en"])
def test_the_drawings_numbers_are_svg_numbers_in_every_language(language: str) -> None:
    """Italian and Spanish write 2.5 as "2,5": an SVG attribute must not."""
    text = page("/rules/double/", language)
    svg = text[text.index("<svg") : text.index("</svg>")]
    numbers = re.findall(r'\s(?:x|y|width|height|viewBox)="([^"]*)"', svg)
    assert numbers and all(re.fullmatch(r"[0-9. ]+", value) for value in numbers), numbers


def test_an_unknown_preset_has_no_rules_page() -> None:
    assert Client().get("/rules/spider/").status_code == 404


@pytest.mark.parametrize("preset", list(PRESETS))
def test_the_rules_text_follows_the_engines_rule_set(preset: str) -> None:
    """Each sentence comes from a field: the page cannot say one thing while the engine does another."""
    rules = PRESETS[preset]
    with translation.override("en"):
        text = " ".join(rules_sentences(rules))
    assert f"The pyramid has {rules.rows} rows, {rules.pyramid_size} cards" in text
    assert f"make {rules.pair_sum} leave together" in text
    assert ("face down" in text) == rules.face_down
    assert ("Two 52-card decks" in text) == (rules.decks == 2)
    assert ("40-card deck" in text) == (rules.deck_size == 40)
    assert ("as often as you like, provided a card was removed" in text) == rules.recycle_needs_removal
    assert ("no card can be removed, now or in another pass" in text) == rules.recycle_needs_removal
    assert ("for each row of the pyramid emptied" in text) == rules.row_bonus
    if rules.recycle_needs_removal:
        assert "passes through the stock" not in text and "−10 each time" in text
    elif rules.recycles:
        assert f"{rules.passes} passes through the stock" in text and "−10 each time" in text
    else:
        assert "One pass through the stock" in text and "−10" not in text
    assert ("top card of the stock lies face up" in text) == (rules.stock_model is StockModel.STOCK_TOP_AND_WASTE)
    assert ("the card just drawn is in play" in text) == (rules.stock_model is StockModel.DRAWN_AND_WASTE)
    assert ("only the top card of the waste plays" in text) == (rules.stock_model is StockModel.WASTE_ONLY)
    assert ("You may draw only when nothing can be removed" in text) == rules.draw_only_when_stuck
    # two waste cards that pair: seed 001's neighbouring pozzo cards (reach 2) or forty-house's house rule
    assert ("The two top cards of the waste may also pair" in text) == (rules.house_waste_reach == 2)
    assert ("House rule" in text) == (rules.house_put_back or rules.house_return_three or rules.house_waste_reach > 2)
    assert ("or as soon as no free pyramid card" in text) == rules.ends_when_frozen
    assert ("you are told so" in text) == (not rules.ends_when_frozen)


def test_a_changed_rule_changes_the_text() -> None:
    classic = PRESETS["classic"]
    with translation.override("en"):
        once = " ".join(rules_sentences(dataclasses.replace(classic, passes=2)))
        twice = " ".join(rules_sentences(classic))
    assert "the same order, 1 time." in once and "the same order, 2 times." in twice


def test_the_forty_house_drawing_shows_the_waste_cards_its_pairs_reach() -> None:
    labels = [pile["label"] for pile in layout_drawing(PRESETS["forty-house"])["piles"]]
    assert labels == ["", "W", "W2", "W3", "W4"]
    assert [pile["label"] for pile in layout_drawing(PRESETS["classic"])["piles"]] == ["", "S", "W"]


def test_the_calendar_page_shows_the_coming_days_presets_and_no_deal(rotation: None, today: dt.date) -> None:
    scheduled = [
        make_challenge(date=today + dt.timedelta(days=n), preset="classic", seed=BIG_WINNABLE + n) for n in range(14)
    ]
    text = page("/calendar/", "es")
    assert "El programa de los próximos días" in text
    assert len(re.findall(r"<time datetime=", text)) == 14
    assert re.findall(r'class="variant" data-preset="([a-z-]+)"', text) == ["egyptian", "double"] * 7
    for challenge in scheduled:
        assert str(challenge.seed) not in text and challenge.seed_commitment not in text and challenge.salt not in text


def test_profile_and_home_show_the_all_variants_and_per_variant_streaks(rotation: None, today: dt.date) -> None:
    from tests.leaderboard.conftest import add_score

    player = make_player()
    for days_ago in (1, 0):
        for preset in ("classic", "forty", "egyptian" if days_ago == 0 else "double"):
            add_score(make_challenge(date=today - dt.timedelta(days=days_ago), preset=preset, seed=1), player, 100, 40)
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(player)
    home = client.get("/").content.decode()
    assert "2 days with every variant played" in home
    profile = client.get("/profile/").content.decode()
    rows = re.findall(
        r'<tr data-preset="([a-z-]+)"><td><a href="/rules/\1/">[^<]+</a></td><td class="num">(\d+)</td>', profile
    )
    assert rows == [("classic", "2"), ("forty", "2"), ("egyptian", "1"), ("double", "1")]
    me = client.get("/api/me/").json()
    assert me["streaks"]["all_variants_current"] == 2 and me["streaks"]["played_current"] == 2
    assert {s["preset"]: s["played_best"] for s in me["preset_streaks"]} == {
        "classic": 2,
        "forty": 2,
        "egyptian": 1,
        "double": 1,
    }
