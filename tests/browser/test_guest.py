"""A visitor plays today's deal as a guest on a phone, then keeps the game by signing up."""

from __future__ import annotations

import re
from typing import Any

from .conftest import ARTIFACTS, CLASSIC_SEED
from .helpers import card, wait_confirmed, winning_line


def test_a_visitor_taps_play_pairs_by_tapping_gives_up_and_keeps_the_game_by_signing_up(
    site: Any, new_context: Any
) -> None:
    page = new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True).new_page()
    page.goto("/")
    page.locator("li[data-preset=classic] button.primary").tap()
    page.wait_for_selector("body[data-ready='1']")
    game_url = page.url
    assert re.search(r"/games/\d+/$", game_url)
    assert page.locator(".guest-badge").inner_text() == "Ospite"
    first_pair = next(move for move in winning_line("classic", CLASSIC_SEED) if "+" in move and "S" not in move)
    for ref in first_pair.split("+"):
        card(page, ref).tap()
    wait_confirmed(page, 1)
    page.once("dialog", lambda dialog: dialog.accept())
    page.locator("[data-action=resign]").tap()
    dialog = page.locator("#result")
    dialog.wait_for(state="visible")
    assert page.locator(".controls button:visible").count() == 0, "no dead buttons once the game is over"
    # the only score of the day is this one: it would be first, and it does not rank as a guest's
    dialog.locator(".rank").filter(has_text="Saresti 1° su 1.").wait_for()
    assert "registrati per tenere questa partita" in dialog.locator(".keep").inner_text()
    assert dialog.locator(".rank").inner_text() == "Saresti 1° su 1."  # the invitation says why, once
    page.screenshot(path=str(ARTIFACTS / "guest-result-phone.png"))
    dialog.get_by_role("link", name="Tieni la mia partita").tap()
    page.wait_for_url(re.compile(r"/signup/\?next="))
    assert "vengono con te" in page.locator(".guest-note").inner_text()
    page.fill("#id_username", "newcomer")
    page.fill("#id_password", "correct-horse-battery-9")
    page.locator("form.stack button[type=submit]").tap()
    page.wait_for_url(game_url)
    page.get_by_text("La tua partita da ospite ora è tua.").wait_for()
    assert page.locator(".guest-badge").count() == 0
    page.goto("/")
    assert page.locator("li[data-preset=classic] .my-score").count() == 1
