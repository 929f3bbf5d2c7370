"""Every page of the site, at desktop and at phone size, passes axe-core's WCAG 2.0/2.1 A and AA
rules: a visitor's pages, a guest's game, a player's pages mid-game and after it, a race.

axe-core comes pinned inside the ``axe-playwright-python`` package (requirements-dev.txt), so the
project's own files install it; the pages' strict CSP is bypassed for the test's context only, to
let the checker's script in.
"""

from __future__ import annotations

import importlib.resources
from typing import Any

import pytest

from .helpers import sign_up, start_ranked

AXE = (importlib.resources.files("axe_playwright_python") / "axe.min.js").read_text(encoding="utf-8")
RULES = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
SIZES = {
    "desktop": {"viewport": {"width": 1280, "height": 800}},
    "phone": {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True},
}


def violations(page: Any, path: str) -> list[str]:
    page.goto(path)
    page.wait_for_load_state("networkidle")
    page.add_script_tag(content=AXE)
    found = page.evaluate(
        "rules => axe.run(document, {runOnly: {type: 'tag', values: rules}})"
        ".then(r => r.violations.map(v => `${v.id} (${v.impact}): ${v.nodes.map(n => n.target.join(' ')).slice(0, 4).join(', ')}`))",
        RULES,
    )
    return [f"{path}: {line}" for line in found]


@pytest.mark.parametrize("size", SIZES)
def test_every_page_passes_wcag_a_and_aa_for_visitors_guests_and_players(
    site: Any, new_context: Any, size: str
) -> None:
    options = {**SIZES[size], "bypass_csp": True}
    found: list[str] = []
    classic = site.challenges["classic"]

    visitor = new_context(**options).new_page()
    visitor_pages = ["/", "/signin/", "/signup/", "/password/reset/", "/leaderboards/", f"/challenges/{classic}/room/"]
    for path in [*visitor_pages, "/offline/", "/calendar/", "/rules/forty/", "/rules/forty-house/"]:
        found += violations(visitor, path)

    guest = new_context(**options).new_page()
    guest.goto("/")
    guest.locator("li[data-preset=forty] button.primary").click()
    guest.wait_for_selector("body[data-ready='1']")
    found += violations(guest, guest.url.removeprefix(site.url))

    player = new_context(**options).new_page()
    sign_up(player, site)
    start_ranked(player)
    game = player.url.removeprefix(site.url)
    found += violations(player, game)
    player.once("dialog", lambda dialog: dialog.accept())
    player.click("[data-action=resign]")
    player.locator("#result").wait_for(state="visible")
    for path in [game, "/", "/profile/", "/profile/email/", "/password/", "/leaderboards/?board=week", "/races/"]:
        found += violations(player, path)
    player.goto("/races/")
    player.locator("form.stack button[type=submit], form button.primary").first.click()
    player.wait_for_url("**/races/*/")
    found += violations(player, player.url.removeprefix(site.url))

    assert not found, "\n".join(found)
