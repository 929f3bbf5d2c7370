"""Playing a daily deal in the browser: drags, taps, refusals, the keyboard, the end screen."""

from __future__ import annotations

import re
from typing import Any

import pytest

from games.engine import Game, parse_move

from .conftest import ARTIFACTS, CLASSIC_SEED, FORTY_SEED, SEARCHES_PER_PLAYER
from .helpers import (
    PAST_GAME,
    box,
    card,
    drag,
    past_game,
    play_move,
    sign_up,
    start_ranked,
    tab_to,
    touch_drag,
    wait_confirmed,
    winning_line,
)


def test_sign_up_play_the_whole_daily_deal_by_dragging_and_see_the_score_on_the_leaderboard(
    site: Any, new_context: Any
) -> None:
    context = new_context()
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = context.new_page()
    sign_up(page, site)
    start_ranked(page)
    page.screenshot(path=str(ARTIFACTS / "play-desktop.png"))
    line = winning_line("classic", CLASSIC_SEED)
    for number, move in enumerate(line, start=1):
        play_move(page, move)
        wait_confirmed(page, number)
    expected = Game.from_seed("classic", CLASSIC_SEED)
    for move in line:
        expected = expected.apply(parse_move(move))
    dialog = page.locator("#result")
    dialog.wait_for(state="visible")
    assert dialog.locator(".final-score").inner_text() == str(expected.score)
    # a won game keeps no Draw nor Give up (which answered with the engine's raw "the game is over")
    assert page.locator(".controls button:visible").count() == 0
    # an account made today scores provisionally: the dialog says so, and why (docs/fairplay.md)
    dialog.locator(".rank").filter(has_text="Provvisorio").wait_for()
    page.screenshot(path=str(ARTIFACTS / "play-won.png"))
    share = dialog.locator(".share-preview").inner_text()
    assert "🟩🟩🟩🟩🟩🟩🟩" in share and str(expected.score) in share
    dialog.locator(".share").click()
    dialog.locator(".share-done").filter(has_text="Copiato").wait_for()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.startswith("Piramide #") and "⬜" not in copied and f"{expected.score} punti" in copied
    page.goto("/leaderboards/?board=today&preset=classic")
    page.screenshot(path=str(ARTIFACTS / "leaderboard.png"), full_page=True)
    assert page.locator("tr.me").count() == 0, "a provisional score ranks nowhere"
    mine = page.locator(".standing [data-standing=provisional]")
    assert str(expected.score) in mine.inner_text() and "Provvisorio" in mine.inner_text()
    # the board itself is empty: the only score of the day is this provisional one
    assert page.locator("table").count() == 0
    page.get_by_text("Nessuna partita finita per ora.").wait_for()


def test_a_refused_drop_snaps_back_and_shows_the_servers_reason(site: Any, page: Any) -> None:
    sign_up(page, site)
    start_ranked(page)
    # 7.1 and 7.2 (2♦ and 7♦) make 9, not 13: the server refuses the pair.
    first_place = box(page, "7.1")
    target = box(page, "7.2")
    page.mouse.move(first_place["x"] + first_place["width"] / 2, first_place["y"] + first_place["height"] * 0.3)
    page.mouse.down()
    page.mouse.move(target["x"] + target["width"] / 2, target["y"] + target["height"] * 0.3, steps=6)
    # the carried card is see-through over its target, whose highlight shows under it
    assert "drop-target" in (card(page, "7.2").get_attribute("class") or "")
    assert float(card(page, "7.1").evaluate("el => getComputedStyle(el).opacity")) < 1
    page.mouse.up()
    toast = page.locator(".play .toast")
    toast.wait_for(state="visible")
    assert toast.inner_text() == "Mossa non valida: 2♦ + 7♦ fa 9, non 13"
    assert_over_the_cards(page, toast)
    assert card(page, "7.1").count() == 1 and card(page, "7.2").count() == 1
    # Back where it lay, once the snap and the refusal's shake are over.
    page.wait_for_function(
        """([x, y]) => { const el = document.querySelector('.play .card[data-ref="7.1"]');
        const r = el && el.getBoundingClientRect();
        return r && Math.abs(r.x - x) < 0.5 && Math.abs(r.y - y) < 0.5 && !el.classList.contains('snapping'); }""",
        arg=[first_place["x"], first_place["y"]],
    )
    assert page.locator(".play").get_attribute("data-confirmed") == "0"


def assert_over_the_cards(page: Any, toast: Any) -> None:
    """A refusal is said over the pyramid, in sight, not at the foot of the page far from the cards."""
    said = toast.bounding_box()
    pyramid = page.locator(".play .pyramid").bounding_box()
    middle = said["y"] + said["height"] / 2
    assert pyramid["y"] <= middle <= pyramid["y"] + pyramid["height"], (said, pyramid)
    assert 0 <= said["y"] and said["y"] + said["height"] <= page.viewport_size["height"]


def test_tapping_a_card_then_its_partner_pairs_them_and_a_second_tap_lets_the_choice_go(site: Any, page: Any) -> None:
    sign_up(page, site)
    start_ranked(page)
    line = winning_line("classic", CLASSIC_SEED)
    first_pair = next(move for move in line if "+" in move and "S" not in move)
    a, b = first_pair.split("+")
    card(page, a).click()
    assert card(page, a).get_attribute("aria-pressed") == "true"
    card(page, a).click()
    assert card(page, a).get_attribute("aria-pressed") != "true"
    card(page, a).click()
    card(page, b).click()
    wait_confirmed(page, 1)
    assert card(page, a).count() == 0 and card(page, b).count() == 0


def test_on_a_phone_a_tap_on_a_card_that_is_no_partner_says_why_and_lets_go(site: Any, new_context: Any) -> None:
    page = new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True).new_page()
    sign_up(page, site)
    start_ranked(page)
    # 7.1 and 7.2 (2♦ and 7♦) make 9, not 13
    card(page, "7.1").tap()
    card(page, "7.2").tap()
    toast = page.locator(".play .toast")
    toast.wait_for(state="visible")
    assert toast.inner_text() == "Mossa non valida: 2♦ + 7♦ fa 9, non 13"
    assert_over_the_cards(page, toast)
    assert page.locator(".play .card[aria-pressed=true]").count() == 0
    first_pair = next(move for move in winning_line("classic", CLASSIC_SEED) if "+" in move and "S" not in move)
    for ref in first_pair.split("+"):
        card(page, ref).tap()
    wait_confirmed(page, 1)


def test_keyboard_only_play_of_several_moves(site: Any, page: Any) -> None:
    sign_up(page, site)
    start_ranked(page)
    line = winning_line("classic", CLASSIC_SEED)[:6]
    for number, move in enumerate(line, start=1):
        if move == "D":
            page.keyboard.press("d")
        elif move == "R":
            page.keyboard.press("r")
        else:
            first, *rest = move.split("+")
            tab_to(page, first)
            page.keyboard.press("Enter")
            for ref in rest:
                assert card(page, first).get_attribute("aria-pressed") == "true"
                page.screenshot(path=str(ARTIFACTS / "play-keyboard.png"))
                tab_to(page, ref)
                page.keyboard.press(" ")
        wait_confirmed(page, number)
    assert page.locator("[data-stat=moves]").inner_text() == str(len(line))
    tab_to(page, "7.7")
    page.keyboard.press("ArrowLeft")
    moved_to = page.evaluate("document.activeElement.dataset.ref")
    assert moved_to and moved_to.startswith("7.") and moved_to != "7.7"


@pytest.mark.parametrize(
    ("locale", "free", "covered", "suits"),
    [
        ("it-IT", ", libera", ", bloccata", ("fiori", "quadri", "cuori", "picche")),
        ("en-US", ", free", ", covered", ("clubs", "diamonds", "hearts", "spades")),
        ("es-ES", ", libre", ", bloqueada", ("tréboles", "diamantes", "corazones", "picas")),
    ],
)
def test_cards_are_named_for_screen_readers_in_each_language(
    site: Any, new_context: Any, locale: str, free: str, covered: str, suits: tuple[str, ...]
) -> None:
    page = new_context(locale=locale).new_page()
    sign_up(page, site)
    start_ranked(page)
    labels = [card(page, f"7.{i}").get_attribute("aria-label") for i in range(1, 8)]
    assert all(label.endswith(free) for label in labels), labels
    apex = card(page, "1.1").get_attribute("aria-label")
    assert apex.endswith(covered)
    assert all(any(suit in label for suit in suits) for label in labels + [apex])


def test_two_tabs_of_one_player_stay_in_step(site: Any, new_context: Any) -> None:
    context = new_context()
    first = context.new_page()
    sign_up(first, site)
    start_ranked(first)
    second = context.new_page()
    second.goto(first.url)
    second.wait_for_selector("body[data-live='1']")
    first.keyboard.press("d")
    wait_confirmed(first, 1)
    wait_confirmed(second, 1)
    assert second.locator("[data-stat=moves]").inner_text() == "1"
    second.keyboard.press("d")
    wait_confirmed(second, 2)
    wait_confirmed(first, 2)


def test_on_a_phone_a_finger_drags_a_pair_and_forty_shows_face_down_cards(site: Any, new_context: Any) -> None:
    page = new_context(
        viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True, device_scale_factor=2
    ).new_page()
    sign_up(page, site)
    start_ranked(page, "classic")
    page.screenshot(path=str(ARTIFACTS / "play-phone.png"))
    assert page.locator(".controls kbd").is_hidden(), "no key hint on a touch screen"
    first = winning_line("classic", CLASSIC_SEED)[0]
    assert "+" in first
    touch_drag(page, *first.split("+"))
    wait_confirmed(page, 1)
    assert all(card(page, ref).count() == 0 for ref in first.split("+"))
    page.goto("/")
    start_ranked(page, "forty")
    backs = page.locator(".play .pyramid .card.back")
    assert backs.count() == 15
    assert backs.first.get_attribute("aria-label") == "carta coperta, bloccata"
    page.screenshot(path=str(ARTIFACTS / "play-phone-forty.png"))


def test_after_a_loss_the_point_of_no_return_is_shown_and_the_line_waits_for_the_day_to_end(
    site: Any, page: Any
) -> None:
    name = sign_up(page, site)
    start_ranked(page, "forty")
    # Two pairs of the base row: the second one loses the deal (the winning line starts 6.3+6.4).
    play_move(page, "6.1+6.2")
    wait_confirmed(page, 1)
    play_move(page, "5.1+6.3")
    wait_confirmed(page, 2)
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("[data-action=resign]")
    dialog = page.locator("#result")
    # The review is a solver search: give it time on a busy machine.
    dialog.locator(".review-text").filter(has_text="fino alla tua mossa 2").wait_for(timeout=30_000)
    assert dialog.locator(".title").inner_text() == "Hai abbandonato"
    assert "quando la giornata è finita" in dialog.locator(".review-text").inner_text()
    assert dialog.locator(".show-me").is_hidden(), "no winning move before the day is over"
    assert dialog.locator("form.practice").count() == 0

    # The same game on a day that is over: the line, its replay and practice open.
    past = past_game(site, name, "forty", FORTY_SEED, ["6.1+6.2", "5.1+6.3"])
    page.goto(f"/games/{past}/")
    dialog.locator(".review-text").filter(has_text="fino alla tua mossa 2").wait_for(timeout=30_000)
    dialog.locator(".show-me").click()
    replay = page.locator("#replay")
    replay.locator(".caption").filter(has_text="Una mossa vincente").wait_for(timeout=15_000)
    assert replay.locator(".card.hint").count() == 2
    page.screenshot(path=str(ARTIFACTS / "play-show-me.png"))


def test_practice_of_a_deal_whose_day_is_over_has_undo_and_hint(site: Any, page: Any) -> None:
    name = sign_up(page, site)
    past = past_game(site, name, "classic", CLASSIC_SEED, ["D"], days_ago=2)
    page.goto(f"/games/{past}/")
    page.locator("#result form.practice button").click()
    page.wait_for_selector("body[data-ready='1']")
    assert "allenamento" in page.locator("h1").inner_text()
    page.keyboard.press("d")
    wait_confirmed(page, 1)
    page.click("[data-action=undo]")
    wait_confirmed(page, 0)
    page.click("[data-action=hint]")
    page.locator(".play .toast").filter(has_text="Suggerimento").wait_for(timeout=20_000)
    assert page.locator(".play .card.hint").count() >= 1


def test_hints_over_the_player_s_searches_say_when_to_ask_again_and_a_review_waits_in_their_language(
    site: Any, page: Any
) -> None:
    """Over SOLVER_SEARCHES_PER_USER the service answers 429 with the seconds to wait: the page said
    the server's English text before, and a review refused so left its panel empty."""
    name = sign_up(page, site)
    past = past_game(site, name, "classic", 4242, ["D"], days_ago=20)  # a day and deal no other test asks about
    other = past_game(site, name, "classic", 4243, ["D"], days_ago=21)
    page.goto(f"/games/{past}/")
    page.locator("#result form.practice button").click()
    page.wait_for_selector("body[data-ready='1']")
    statuses = []
    for drawn in range(SEARCHES_PER_PLAYER + 1):  # each position a search of its own
        with page.expect_response(lambda response: response.url.endswith("/hint/")) as answer:
            page.click("[data-action=hint]")
        statuses.append(answer.value.status)
        if statuses[-1] != 200:
            break
        page.keyboard.press("d")
        wait_confirmed(page, drawn + 1)
    assert statuses[-1] == 429 and set(statuses[:-1]) == {200}, statuses
    busy = page.locator(".play .toast").filter(has_text="Il risolutore è occupato: chiedi di nuovo tra")
    busy.wait_for(timeout=10_000)
    assert re.search(r"chiedi di nuovo tra \d+ s\.$", busy.inner_text()), busy.inner_text()
    page.screenshot(path=str(ARTIFACTS / "play-solver-busy.png"))

    # the review of another game, asked while the searches are spent: it says it is coming
    page.goto(f"/games/{other}/")
    page.locator("#result .review-text").filter(has_text="Il risolutore è occupato: l'analisi arriva").wait_for(
        timeout=20_000
    )


def test_a_move_the_server_refuses_after_it_was_shown_is_rolled_back(site: Any, new_context: Any) -> None:
    context = new_context()
    first = context.new_page()
    sign_up(first, site)
    start_ranked(first)
    pair = winning_line("classic", CLASSIC_SEED)[0]
    assert "+" in pair and "S" not in pair

    # The second tab never hears of the first tab's moves, so its view goes out of date.
    def deaf_to_moves(ws: Any) -> None:
        server = ws.connect_to_server()
        server.on_message(lambda message: None if "game.move_made" in str(message) else ws.send(message))

    second = context.new_page()
    second.route_web_socket(re.compile(r"/ws/games/"), deaf_to_moves)
    second.goto(first.url)
    second.wait_for_selector("body[data-live='1']")

    first.keyboard.press("d")
    wait_confirmed(first, 1)
    assert second.locator(".play").get_attribute("data-confirmed") == "0"

    watched_ref = pair.split("+")[0]
    second.evaluate(
        """ref => { window.vanished = false; const pyramid = document.querySelector('.play .pyramid');
        new MutationObserver(() => { if (!pyramid.querySelector(`[data-ref="${ref}"]`)) window.vanished = true; })
          .observe(pyramid, { childList: true }); }""",
        watched_ref,
    )
    drag(second, *pair.split("+"))
    toast = second.locator(".play .toast")
    toast.filter(has_text="altrove").wait_for()
    wait_confirmed(second, 1)
    assert all(card(second, ref).count() == 1 for ref in pair.split("+"))
    assert second.locator("[data-stat=moves]").inner_text() == "1"
    assert second.evaluate("window.vanished"), "the pair was not shown removed before the server answered"


def test_a_drag_survives_a_move_from_another_tab_arriving_mid_drag(site: Any, new_context: Any) -> None:
    context = new_context()
    first = context.new_page()
    sockets: list[Any] = []
    first.on("websocket", lambda ws: sockets.append(ws))
    sign_up(first, site)
    start_ranked(first)
    first.wait_for_selector("body[data-live='1']")
    second = context.new_page()
    second.goto(first.url)
    second.wait_for_selector("body[data-live='1']")
    # The first tab picks up 7.3 and is halfway to 7.4 when the second tab's draw reaches it.
    a = box(first, "7.3")
    b = box(first, "7.4")
    first.mouse.move(a["x"] + a["width"] / 2, a["y"] + a["height"] * 0.3)
    first.mouse.down()
    first.mouse.move((a["x"] + b["x"]) / 2 + a["width"] / 2, a["y"] + a["height"] * 0.3, steps=3)
    with sockets[-1].expect_event("framereceived", predicate=lambda frame: "game.move_made" in str(frame)):
        second.keyboard.press("d")
    wait_confirmed(second, 1)
    first.wait_for_timeout(200)  # the page handles the frame it has received (before the fix: a redraw)
    first.mouse.move(b["x"] + b["width"] / 2, b["y"] + b["height"] * 0.3, steps=3)
    first.mouse.up()
    wait_confirmed(first, 2)
    assert card(first, "7.3").count() == 0 and card(first, "7.4").count() == 0


def test_the_result_stays_on_the_page_with_what_comes_next_and_a_finished_game_offers_no_dead_buttons(
    site: Any, page: Any
) -> None:
    sign_up(page, site)
    start_ranked(page)
    assert page.locator(".controls kbd").is_visible(), "the key hint shows where there is a keyboard"
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("[data-action=resign]")
    result = page.locator("#result")
    result.wait_for(state="visible")
    assert result.locator(".title").inner_text() == "Hai abbandonato"
    assert page.locator(".controls button:visible").count() == 0, "no dead buttons once the game is over"
    # what comes next: today's other challenge, the live room, the countdown to the next deal
    result.locator("li[data-preset=forty] button.primary").wait_for()
    assert result.get_by_role("link", name="Guarda la giornata nella sala dal vivo").is_visible()
    assert re.fullmatch(r"\d\d:\d\d:\d\d", result.locator("#countdown").inner_text())
    page.reload()
    result.wait_for(state="visible")
    assert result.locator(".title").inner_text() == "Hai abbandonato", "the result is still there after a reload"
    assert result.locator(".final-score").inner_text() == page.locator("[data-stat=score]").inner_text()
    result.locator("li[data-preset=forty] button.primary").click()
    page.wait_for_selector("body[data-ready='1']")
    assert "Quaranta" in page.locator("h1").inner_text()


def test_forty_says_what_its_court_cards_count_and_a_tap_on_the_waiting_stock_says_why(
    site: Any, new_context: Any
) -> None:
    page = new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True).new_page()
    sign_up(page, site)
    start_ranked(page, "forty")
    assert "il fante vale 8, la donna 9, il re 10" in page.locator(".play .rules-note").inner_text()
    # a pair lies on the table at the start: the stock waits, dimmed, but still answers a tap
    stock = page.locator(".play .stock-pile")
    assert "waiting" in (stock.get_attribute("class") or "") and stock.is_enabled()
    stock.tap()
    toast = page.locator(".play .toast")
    toast.wait_for(state="visible")
    assert toast.inner_text().startswith("Mossa non valida: puoi pescare solo quando non si può togliere nulla")
    assert page.locator(".play").get_attribute("data-confirmed") == "0"


#: Appended to helpers.PAST_GAME: the challenge's par made that game's score.
PAR_IS_THE_SCORE = """
DailyChallenge.objects.filter(pk=challenge.pk).update(par=game.score)
"""


def test_a_score_equal_to_par_says_so_rather_than_zero_above_it(site: Any, page: Any) -> None:
    name = sign_up(page, site)
    # a day of its own, whose par is this game's score
    code = PAST_GAME.format(days_ago=9, preset="forty", seed=FORTY_SEED, moves=["6.3+6.4"], username=name)
    out = site.manage("shell", code=code + PAR_IS_THE_SCORE)
    past = int(next(line.split()[1] for line in out.splitlines() if line.startswith("GAME ")))
    page.goto(f"/games/{past}/")
    result = page.locator("#result")
    result.wait_for(state="visible")
    assert result.locator(".vs-par").inner_text() == "pari al par"
