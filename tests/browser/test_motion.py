"""Motion on the play page: a removal fades, a draw slides from the stock, a redeal flies back to
it, a win bursts; with prefers-reduced-motion: reduce none of it happens.  Motion never holds
the board back: a card is gone from the board the moment its stand-in starts to fade."""

from __future__ import annotations

import re
from typing import Any

import pytest

from .conftest import CLASSIC_SEED
from .helpers import card, play_on, sign_up, start_ranked, wait_confirmed, winning_line

# Every animated thing the page puts on screen, as it appears: its kind, its computed animation,
# and for a stand-in of a card that left whether the board still shows that card.
RECORD = """() => {
  window.motion = [];
  const kinds = ["leave", "home", "arrive", "celebration"];
  const seen = Object.fromEntries(kinds.map((kind) => [kind, new WeakSet()]));
  const note = (kind, el) => {
    if (seen[kind].has(el)) return;
    seen[kind].add(el);
    const style = getComputedStyle(kind === "celebration" ? el.firstElementChild : el);
    const gone = el.dataset.gone;
    window.motion.push({ kind, name: style.animationName, duration: style.animationDuration,
      onBoard: gone ? !!document.querySelector(`.play .card[data-card="${gone}"]`) : null });
  };
  new MutationObserver((records) => {
    for (const record of records)
      for (const el of record.type === "attributes" ? [record.target] : record.addedNodes)
        if (el.nodeType === 1) for (const kind of kinds) if (el.classList.contains(kind)) note(kind, el);
  }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["class"] });
}"""


def tap_move(page: Any, move: str) -> None:
    if move in ("D", "R"):
        page.click(".play .stock-pile")
        return
    for ref in move.split("+"):
        card(page, ref).click()


def motion(page: Any, kind: str) -> list[dict[str, Any]]:
    return [entry for entry in page.evaluate("window.motion") if entry["kind"] == kind]


def reload_at(page: Any) -> None:
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    page.evaluate(RECORD)


@pytest.mark.parametrize("reduced", [False, True], ids=["motion", "reduced-motion"])
def test_removals_draws_redeals_and_a_win_move_unless_the_player_asks_for_reduced_motion(
    site: Any, new_context: Any, reduced: bool
) -> None:
    page = new_context(reduced_motion="reduce" if reduced else "no-preference").new_page()
    name = sign_up(page, site)
    start_ranked(page)
    game_id = int(re.search(r"/games/(\d+)/", page.url).group(1))  # type: ignore[union-attr]
    line = winning_line("classic", CLASSIC_SEED)
    redeal = line.index("R")
    assert line[0].count("+") == 1 and line[1] == "D"
    page.evaluate(RECORD)

    tap_move(page, line[0])  # a pair, tapped
    wait_confirmed(page, 1)
    tap_move(page, line[1])  # a draw
    wait_confirmed(page, 2)
    removed, drawn = motion(page, "leave"), motion(page, "arrive")
    play_on(site, name, game_id, line[2:redeal])
    reload_at(page)
    tap_move(page, "R")
    wait_confirmed(page, redeal + 1)
    redealt = motion(page, "home")

    play_on(site, name, game_id, line[redeal + 1 : -1])
    reload_at(page)
    tap_move(page, line[-1])
    page.locator("#result").wait_for(state="visible")
    assert page.locator("#result .title").inner_text() == "Hai smontato la piramide!"
    page.wait_for_timeout(100)
    celebrated = motion(page, "celebration")

    if reduced:
        assert removed == drawn == redealt == celebrated == []
        assert page.locator(".celebration, .card.ghost").count() == 0
        assert page.evaluate("getComputedStyle(document.querySelector('.play .card')).transitionDuration") == "0s"
        return
    assert len(removed) == 2 and all(e["name"] == "leave" and e["duration"] == "0.3s" for e in removed), removed
    assert not any(e["onBoard"] for e in removed), "the board waited for the animation"
    assert drawn and all(e["name"] == "arrive" for e in drawn), drawn
    assert redealt and all(e["name"] == "home" for e in redealt), redealt
    assert len(celebrated) == 1 and celebrated[0]["name"] == "burst", celebrated
    # stand-ins take no input: the board's cards are still the ones a tap reaches
    assert page.evaluate(
        "[...document.querySelectorAll('.card.ghost')].every(g => getComputedStyle(g).pointerEvents === 'none')"
    )
