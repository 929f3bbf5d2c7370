"""The pages around play: home in three languages, spectating within the spoiler rule, a race."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import pytest
from django.utils import translation
from django.utils.formats import date_format

from games.selectors import local_today

from .conftest import ARTIFACTS, CLASSIC_SEED
from .helpers import PAST_GAME, card, past_game, play_move, sign_up, start_ranked, touch_drag, wait_confirmed

PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}


@pytest.mark.parametrize(
    ("locale", "heading", "play_button"),
    [
        ("it-IT", "Le sfide di oggi", "Classica"),
        ("en-GB", "Today's challenges", "Classic"),
        ("es-ES", "Los desafíos de hoy", "Clásica"),
    ],
)
def test_the_home_page_speaks_italian_english_and_spanish(
    site: Any, new_context: Any, locale: str, heading: str, play_button: str
) -> None:
    page = new_context(locale=locale).new_page()
    page.goto("/")
    assert heading in page.locator("h1").inner_text()
    assert page.locator("li[data-preset=classic] h2").inner_text() == play_button
    assert page.locator("html").get_attribute("lang") == locale[:2]
    assert re.fullmatch(r"\d\d:\d\d:\d\d", page.locator("#countdown").inner_text())
    # issue 42, 1 and 10: a visitor is one tap from the cards, and reads words, not a 64-digit hash
    assert page.locator("li[data-preset=classic] button.primary").is_visible()
    assert not re.search(r"[0-9a-f]{64}", page.locator("main").inner_text())
    with translation.override(locale[:2]):
        assert page.locator("h1 small").inner_text() == date_format(local_today(), "l j F Y")
    page.screenshot(path=str(ARTIFACTS / f"home-{locale[:2]}.png"))


def test_a_language_chosen_from_the_menu_is_remembered(site: Any, new_context: Any) -> None:
    page = new_context(locale="it-IT").new_page()
    page.goto("/")
    with page.expect_navigation():
        page.select_option("#language-select", "es")
    assert "Los desafíos de hoy" in page.locator("h1").inner_text()
    page.goto("/leaderboards/")
    assert page.locator("h1").inner_text() == "Clasificaciones"


def test_a_spectator_sees_summaries_only_until_the_day_is_over(site: Any, new_context: Any) -> None:
    player = new_context().new_page()
    player_name = sign_up(player, site)
    start_ranked(player)
    for number, move in enumerate(["D", "D"], start=1):
        play_move(player, move)
        wait_confirmed(player, number)
    watched = re.search(r"/games/(\d+)/", player.url).group(1)

    spectator = new_context().new_page()
    sign_up(spectator, site)
    spectator.goto(f"/games/{watched}/watch/")
    spectator.wait_for_selector("[data-stat=moves]:text('2')")
    assert spectator.locator(".watch .spoiler").is_visible()
    assert spectator.locator(".watch .card").count() == 0
    spectator.screenshot(path=str(ARTIFACTS / "watch-summary.png"))
    assert not re.search(r"\b[A2-9TJQK][cdhs]\b", spectator.content().split('id="main"')[1])

    player.keyboard.press("d")
    wait_confirmed(player, 3)
    spectator.wait_for_selector("[data-stat=moves]:text('3')")
    assert spectator.locator(".watch .card").count() == 0

    challenge = site.challenges["classic"]
    spectator.goto(f"/challenges/{challenge}/room/")
    room_entry = spectator.locator(f".room [data-list=games] li[data-game='{watched}']")
    room_entry.wait_for()
    assert "Mosse 3" in room_entry.inner_text()
    assert spectator.locator(".room .card").count() == 0
    spectator.screenshot(path=str(ARTIFACTS / "room.png"))

    spectator.goto("/")
    start_ranked(spectator)
    spectator.once("dialog", lambda dialog: dialog.accept())
    spectator.click("[data-action=resign]")
    spectator.locator("#result").wait_for(state="visible")

    # their own game over, the spectator still sees no card while the day lasts
    spectator.goto(f"/games/{watched}/watch/")
    spectator.wait_for_selector("[data-stat=moves]:text('3')")
    assert spectator.locator(".watch .spoiler").is_visible()
    assert spectator.locator(".watch .card").count() == 0
    assert spectator.locator("#watch-title").inner_text().startswith(f"{player_name} sta giocando")

    # a game of a day that is over: every card, and the replay; nobody is still playing it
    past = past_game(site, player_name, "classic", CLASSIC_SEED, ["D", "D", "D"])
    spectator.goto(f"/games/{past}/watch/")
    spectator.wait_for_selector(".watch .full-view .pyramid .card")
    assert spectator.locator("#watch-title").inner_text().startswith(f"La partita di {player_name}")
    assert spectator.locator(".watch .spoiler").is_hidden()
    assert spectator.locator(".watch .pyramid .card").count() == 28
    spectator.click(".watch .replay-button")
    spectator.locator(".watch .replay-caption").filter(has_text="Mossa 3 di 3").wait_for()


def test_two_friends_race_from_lobby_to_results(site: Any, new_context: Any) -> None:
    host = new_context().new_page()
    sign_up(host, site)
    host.goto("/races/")
    host.select_option("#race-preset", "classic")
    host.click("form.race-new button")
    # The server deals until the solver proves a deal winnable: allow for a slow proof.
    host.wait_for_url(re.compile(r"/races/\w+/$"), timeout=45_000)
    host.wait_for_selector("body[data-ready='1']")  # showRace fills the share link first
    link = host.locator(".share-link").input_value()
    assert link == host.url

    friend = new_context().new_page()
    sign_up(friend, site)
    friend.goto(link)
    friend.click(".race .join")
    host.wait_for_selector("[data-list=players] li:nth-child(2)")
    assert host.locator(".race .join").is_hidden() and friend.locator(".race .join").is_hidden()
    assert host.locator(".race .start").is_visible() and friend.locator(".race .start").is_hidden()

    # A friend who leaves the lobby disappears from the host's list, and may come back.
    friend.click(".race .leave")
    host.wait_for_selector("[data-list=players] li:nth-child(2)", state="detached")
    friend.wait_for_selector(".race .join:not([hidden])")
    friend.click(".race .join")
    host.wait_for_selector("[data-list=players] li:nth-child(2)")

    # Each is told what is theirs to do, and the lobby's players are ready, not yet playing.
    host.locator(".race-status").filter(has_text="Avvia la gara quando ci sono tutti.").wait_for()
    friend.locator(".race-status").filter(has_text="Si aspetta che chi ha creato la gara la avvii").wait_for()
    assert host.locator("[data-list=players] li .summary-text").all_inner_texts()[1].endswith("· pronto")
    host.screenshot(path=str(ARTIFACTS / "race-lobby.png"))
    host.click(".race .start")
    for page in (host, friend):
        page.wait_for_selector(".race .big-count:not([hidden])")
    for page in (host, friend):
        page.wait_for_selector("body[data-playing='1']", timeout=15_000)
    # "Go!" goes without moving the board a player may already be dragging on
    board_at_go = host.locator(".race .play .board").bounding_box()
    host.wait_for_selector(".race .big-count", state="hidden")
    assert host.locator(".race .play .board").bounding_box() == board_at_go

    host.click(".race .play .stock-pile")
    host.wait_for_selector(".race .play[data-confirmed='1']")
    friend.wait_for_selector("[data-list=players] li:has-text('Mosse 1 ')")
    host.screenshot(path=str(ARTIFACTS / "race-host.png"))

    for page in (host, friend):
        page.once("dialog", lambda dialog: dialog.accept())
        page.click(".race .play [data-action=resign]")
    for page in (host, friend):
        page.wait_for_selector(".race .results:not([hidden]) tbody tr:nth-child(2)")
    assert host.locator(".race .results tr.me").count() == 1
    friend.screenshot(path=str(ARTIFACTS / "race-results.png"))


RACE_LINE = """
from games.engine import Game
from games.engine.solver import solve
from races.models import Race
race = Race.objects.get(code={code!r})
print("LINE", " ".join(str(move) for move in solve(Game.from_seed(race.preset, race.seed)).line))
"""

RACE_ON = """
from accounts.models import User
from races.models import RaceEntry
from races.services import race_move_make
player = User.objects.get(username={username!r})
for move in {moves!r}:
    entry = RaceEntry.objects.get(race__code={code!r}, player=player)
    race_move_make(code={code!r}, player=player, move=move, seen=entry.move_count)
"""


def touch_move(page: Any, move: str) -> None:
    """A move with a finger: tap the stock, drag a pair, tap a king."""
    if move in ("D", "R"):
        page.locator(".play .stock-pile").tap()
    elif "+" in move:
        touch_drag(page, *move.split("+"))
    else:
        card(page, move).tap()


def test_on_phones_a_race_takes_a_drag_during_go_and_its_winner_stops_the_others_game_then_both_race_again(
    site: Any, new_context: Any
) -> None:
    """Issue 42, 3, 5 and 7, in Spanish with fingers: a pair dragged while "Go!" is still on screen
    counts; the friend whose game the winner stopped reads so in their language; the results fit;
    a rematch takes both to a new race."""
    # the site's pool holds three classic deals, which the other race tests may have taken: this
    # race and its rematch need two
    site.manage("races_pool_fill", "--size", "2", "--preset", "classic")
    host = new_context(locale="es-ES", **PHONE).new_page()
    host_name = sign_up(host, site)
    host.goto("/races/")
    host.select_option("#race-preset", "classic")
    host.locator("form.race-new button").tap()
    host.wait_for_url(re.compile(r"/races/\w+/$"), timeout=45_000)
    host.wait_for_selector("body[data-ready='1']")
    code = host.url.rstrip("/").rsplit("/", 1)[1]
    out = site.manage("shell", code=RACE_LINE.format(code=code))
    line = next(row.split()[1:] for row in out.splitlines() if row.startswith("LINE "))
    assert line[-1] not in ("D", "R")

    friend = new_context(locale="es-ES", **PHONE).new_page()
    sign_up(friend, site)
    friend.goto(host.url)
    friend.locator(".race .join").tap()
    host.wait_for_selector("[data-list=players] li:nth-child(2)")
    host.locator(".race .start").tap()
    # the first move (a pair is dragged) by a finger the moment the board is there, while "Go!" still shows
    host.wait_for_selector("body[data-playing='1']", timeout=15_000)
    assert host.locator(".race .big-count").is_visible()
    board_at_go = host.locator(".race .play .board").bounding_box()
    touch_move(host, line[0])
    host.wait_for_selector(".race .play[data-confirmed='1']:not(.pending)")
    host.wait_for_selector(".race .big-count", state="hidden")
    assert host.locator(".race .play .board").bounding_box() == board_at_go

    # the rest of the line but its last move as if from another device, the last one by taps (tap
    # by tap, as a phone pairs: a synthetic touch drag's end leaves Chromium dropping the click of
    # the next tap, which the rematch button below needs)
    site.manage("shell", code=RACE_ON.format(username=host_name, code=code, moves=line[1:-1]))
    host.reload()
    host.wait_for_selector(f".race .play[data-confirmed='{len(line) - 1}']")
    for ref in line[-1].split("+"):
        card(host, ref).tap()
    for page in (host, friend):
        page.wait_for_selector(".race .results:not([hidden]) tbody tr:nth-child(2)")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"the race results are {width} px wide"
        # a race that is over takes no more moves: neither the winner's Draw nor the stopped Give up
        assert page.locator(".race .play .controls button:visible").count() == 0
    assert "ganada" in host.locator(".race .results tr.me").inner_text()
    assert "detenida" in friend.locator(".race .results tr.me").inner_text()
    friend.wait_for_selector("[data-list=players] li:has-text('detenida')")
    friend.screenshot(path=str(ARTIFACTS / "race-results-phone.png"), full_page=True)

    # and again: the friend asks for a rematch and hosts it, the winner is told and joins it
    friend.locator(".race .rematch").filter(has_text="Revancha").tap()
    friend.wait_for_url(lambda url: "/races/" in url and url != host.url)
    friend.wait_for_selector("body[data-ready='1']")
    host.locator(".race-status").filter(has_text="pide la revancha").wait_for()
    host.locator(".race .rematch").filter(has_text="Únete a la revancha").tap()
    host.wait_for_url(friend.url)
    friend.wait_for_selector("[data-list=players] li:nth-child(2)")
    assert friend.locator(".race .start").is_visible() and host.locator(".race .start").is_hidden()


def test_a_house_rule_move_without_a_card_to_drag_is_a_button(site: Any, new_context: Any) -> None:
    page = new_context().new_page()
    sign_up(page, site)
    page.goto("/races/")
    page.select_option("#race-preset", "forty-house")
    page.click("form.race-new button")
    page.wait_for_url(re.compile(r"/races/\w+/$"), timeout=45_000)
    page.click(".race .start")
    page.wait_for_selector("body[data-playing='1']", timeout=15_000)
    for number in (1, 2, 3):
        page.keyboard.press("d")
        page.wait_for_selector(f".race .play[data-confirmed='{number}']:not(.pending)")
    # Three draws and no pair: forty-house lets the three go back under the stock (T).
    page.click(".race .house-moves button:has-text('prime tre')")
    page.wait_for_selector(".race .play[data-confirmed='4']:not(.pending)")
    assert page.locator(".race .waste .card").count() == 0
    assert page.locator(".race .house-moves").is_hidden()


@pytest.mark.parametrize("locale", ["it-IT", "en-US", "es-ES"])
def test_on_a_phone_no_page_of_a_player_with_a_finished_game_scrolls_sideways(
    site: Any, new_context: Any, locale: str
) -> None:
    """390 px wide, in each language: the history's and the boards' tables fit or scroll in their own box;
    the header's links and language menu are big enough for a finger; the calendar marks today and
    a day's result in their own month only."""
    page = new_context(locale=locale, **PHONE).new_page()
    page.goto("/")
    assert not small_header_targets(page), "a visitor's header"
    name = sign_up(page, site)
    # a past game with its score, which is what the calendar marks
    code = PAST_GAME.format(
        days_ago=first_week_day_ago(), preset="classic", seed=CLASSIC_SEED, moves=["D", "D"], username=name
    )
    site.manage("shell", code=code + SCORED)
    start_ranked(page)
    assert not small_header_targets(page), "the play page's header and buttons"
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("[data-action=resign]")
    page.locator("#result").wait_for(state="visible")
    assert not small_header_targets(page), "the result's buttons"
    for path in (
        "/",
        "/leaderboards/?board=today&preset=classic",
        "/leaderboards/?board=all&preset=classic",
        "/profile/",
    ):
        page.goto(path)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"{path} in {locale} is {width} px wide"
    assert not small_header_targets(page), "a player's header"
    page.screenshot(path=str(ARTIFACTS / f"profile-phone-{locale}.png"), full_page=True)
    # today (played) and the past game's day each once, in their own month, never in another's padding
    today = page.locator(".calendar td.today")
    assert today.count() == 1 and today.inner_text() == f"{local_today().day}✓"
    assert page.locator(".calendar td.played, .calendar td.won").count() == 2
    assert page.locator(".calendar td.out.played, .calendar td.out.won, .calendar td.out.today").count() == 0


#: Appended to helpers.PAST_GAME: the past game's score, written by the leaderboard's own service.
SCORED = """
from django.db import transaction
from leaderboard.services import score_record
with transaction.atomic():
    score_record(game=Game.objects.select_for_update().get(pk=game.pk), moves=list(state.moves), won=False)
"""


def small_header_targets(page: Any) -> list[str]:
    """The header's links, buttons and menu, and the page's buttons, less than 44 px tall as a
    finger meets them (issue 42: hit targets of at least 44 CSS px on phones; the header's links
    were 20 px).  Cards are sized by the board (their own test)."""
    return page.evaluate(
        """() => [...document.querySelectorAll('header.site a, header.site button, header.site select, main button, main .button')]
        .filter((el) => !el.matches('.card, .stock-pile') && el.getClientRects().length && el.getBoundingClientRect().height < 44)
        .map((el) => `${el.textContent.trim().split(/\\s+/)[0]}: ${el.getBoundingClientRect().height} px`)"""
    )


def first_week_day_ago() -> int:
    """How many days ago a day of the first week of this month or the last fell (not today), so
    that the month before draws it in its padding: a day drawn there was marked 'out played'."""
    today = local_today()
    for first in (today.replace(day=1), (today.replace(day=1) - dt.timedelta(days=1)).replace(day=1)):
        for day in (first + dt.timedelta(days=n) for n in range(6)):
            if day < today and first.weekday() != 0 and (day - first).days < 7 - first.weekday():
                return (today - day).days
    return 1


@pytest.mark.parametrize("path", ["/api/redoc/", "/api/docs/"])
def test_the_api_documentation_renders_under_the_sites_content_policy(site: Any, page: Any, path: str) -> None:
    refused: list[str] = []
    page.on(
        "console", lambda message: refused.append(message.text) if "Content Security Policy" in message.text else None
    )
    page.goto(path)
    page.get_by_text("Piramide API").first.wait_for()
    page.get_by_text("/api/challenges/today/").first.wait_for()
    assert not refused


@pytest.mark.parametrize("locale", ["it-IT", "en-US", "es-ES"])
def test_on_a_phone_the_rules_of_the_new_and_changed_presets_read_in_each_language(
    site: Any, new_context: Any, locale: str
) -> None:
    """Seed 004's own game (`unlimited`) and seed 001's neighbouring waste pair (`egyptian`,
    `forty-open` from rules version 3): each rules page says its rule in the reader's language, draws
    its layout and fits a 390 px screen."""
    from django.utils.translation import gettext

    page = new_context(locale=locale, **PHONE).new_page()
    language = locale[:2]
    with translation.override(language):
        said = {
            "unlimited": gettext("Unlimited redeals"),
            "egyptian": gettext(
                "The two top cards of the waste may also pair with each other: the second pairs with the top card only."
            ),
            "forty-open": gettext(
                "The two top cards of the waste may also pair with each other: the second pairs with the top card only."
            ),
        }
    for preset, text in said.items():
        page.goto(f"/rules/{preset}/")
        page.get_by_text(text).first.wait_for()
        # every card of the drawing has a size on screen (the board's .card rule once sized them to nothing)
        sizes = page.evaluate(
            "[...document.querySelectorAll('figure.layout rect')].map((r) => r.getBoundingClientRect().width)"
        )
        assert len(sizes) > 20 and min(sizes) > 5, f"{preset}: the drawing's cards are {sizes[:5]}... px wide"
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"/rules/{preset}/ in {locale} is {width} px wide"
        page.screenshot(path=str(ARTIFACTS / f"rules-{preset}-phone-{locale}.png"), full_page=True)
