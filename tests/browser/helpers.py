"""What a person does in the browser, as steps the tests share."""

from __future__ import annotations

import itertools
from typing import Any

from games.engine import Game
from games.engine.solver import solve

_names = itertools.count(1)


def sign_up(page: Any, site: Any, name: str | None = None) -> str:
    name = name or f"player{next(_names)}x{id(page) % 10000}"
    page.goto("/signup/")
    page.fill("#id_username", name)
    page.fill("#id_password", "correct-horse-battery-9")
    page.click("form.stack button[type=submit]")
    page.wait_for_url(site.url + "/")
    return name


def start_ranked(page: Any, preset: str = "classic") -> None:
    page.click(f"li[data-preset={preset}] button.primary")
    page.wait_for_selector("body[data-ready='1']")


def winning_line(preset: str, seed: int) -> list[str]:
    return [str(move) for move in solve(Game.from_seed(preset, seed)).line]


def card(page: Any, ref: str) -> Any:
    return page.locator(f'.play .card[data-ref="{ref}"]')


def box(page: Any, ref: str) -> dict[str, float]:
    """A card's place on screen, once at rest (a drawn card slides in for a quarter second, as a
    player sees it land before aiming at it); the board redraws whole, so ask again if it was
    mid-redraw."""
    for _ in range(50):
        target = card(page, ref)
        if target.count():
            target.evaluate("el => Promise.all(el.getAnimations().map((a) => a.finished.catch(() => null)))")
        found = target.bounding_box()
        if found is not None:
            return found
        page.wait_for_timeout(20)
    raise AssertionError(f"no card at {ref}")


def drag(page: Any, source: str, target: str) -> None:
    """Press on one card, move in small steps onto the other, release: a pointer drag."""
    a = box(page, source)
    b = box(page, target)
    page.mouse.move(a["x"] + a["width"] / 2, a["y"] + a["height"] * 0.3)
    page.mouse.down()
    page.mouse.move(b["x"] + b["width"] / 2, b["y"] + b["height"] * 0.3, steps=6)
    page.mouse.up()


def touch_drag(page: Any, source: str, target: str) -> None:
    """The same drag with a finger: raw touch events, which Chromium turns into touch pointer events."""
    a = box(page, source)
    b = box(page, target)
    cdp = page.context.new_cdp_session(page)
    start = (a["x"] + a["width"] / 2, a["y"] + a["height"] * 0.3)
    end = (b["x"] + b["width"] / 2, b["y"] + b["height"] * 0.3)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": start[0], "y": start[1]}]})
    for step in range(1, 7):
        x = start[0] + (end[0] - start[0]) * step / 6
        y = start[1] + (end[1] - start[1]) * step / 6
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


def wait_confirmed(page: Any, moves: int) -> None:
    page.wait_for_selector(f".play[data-confirmed='{moves}']:not(.pending)")


def play_move(page: Any, move: str) -> None:
    """Make one move the way a player does: tap the stock to draw or redeal, tap a king, drag a pair."""
    if move in ("D", "R"):
        page.click(".play .stock-pile")
    elif "+" in move:
        first, second = move.split("+")
        drag(page, first, second)
    else:
        card(page, move).click()


def tab_to(page: Any, ref: str, limit: int = 120) -> None:
    """Press Tab until the card at ``ref`` has the focus, as a keyboard-only player does."""
    for _ in range(limit):
        if page.evaluate("document.activeElement && document.activeElement.dataset.ref") == ref:
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached the card at {ref}")


PAST_GAME = """
import datetime as dt
from django.utils import timezone
from accounts.models import User
from games.engine import Game as EngineGame, parse_move, score_moves
from games.models import DailyChallenge, Game, Move
from games.selectors import local_today
from games.services import challenge_schedule
day = local_today() - dt.timedelta(days={days_ago})
challenge = DailyChallenge.objects.filter(date=day, preset={preset!r}).first()
challenge = challenge or challenge_schedule(date=day, preset={preset!r}, seed={seed})
moves = {moves!r}
state = EngineGame.replay(challenge.deal, [parse_move(m) for m in moves])
game = Game.objects.create(
    challenge=challenge, player=User.objects.get(username={username!r}), ranked=True, outcome="resigned",
    move_count=len(moves), version=len(moves), score=score_moves(state.moves), finished_at=timezone.now(),
)
Move.objects.bulk_create([Move(game=game, number=i, notation=m) for i, m in enumerate(moves, start=1)])
print("GAME", game.pk)
"""


def past_game(site: Any, username: str, preset: str, seed: int, moves: list[str], days_ago: int = 1) -> int:
    """A resigned ranked game of the player's on a challenge whose day is over (as after midnight)."""
    code = PAST_GAME.format(days_ago=days_ago, preset=preset, seed=seed, moves=moves, username=username)
    out = site.manage("shell", code=code)
    return int(next(line.split()[1] for line in out.splitlines() if line.startswith("GAME ")))


PLAY_ON = """
from accounts.models import User
from games.models import Game
from games.services import game_move_make
player = User.objects.get(username={username!r})
for move in {moves!r}:
    game = Game.objects.get(pk={game_id})
    game_move_make(game_id=game.pk, player=player, move=move, seen=game.move_count)
"""


def play_on(site: Any, username: str, game_id: int, moves: list[str]) -> None:
    """Moves of the player's game made through the same service a socket or the API calls, as if
    from another device: for reaching a late position quickly (reload the page after)."""
    site.manage("shell", code=PLAY_ON.format(username=username, game_id=game_id, moves=moves))
