"""The staff's fair-play queue in the admin, in a browser: a score in review with its signals,
linked accounts and replay; clearing it writes the audit log and puts it back on the boards."""

from __future__ import annotations

import datetime as dt
from typing import Any

from games.selectors import local_today
from tests.factories import UNWINNABLE

from .conftest import ARTIFACTS, CLASSIC_SEED

QUEUE = """
import datetime as dt
from django.utils import timezone
from accounts.models import User
from accounts.names import display_name_skeleton as skeleton
from fairplay.models import Assessment
from games.engine import Game as EngineGame, parse_move, score_moves
from games.models import DailyChallenge, Game, Move
from games.selectors import local_today
from games.services import challenge_schedule
from leaderboard.models import Score
day = local_today() - dt.timedelta(days=6)
challenge = DailyChallenge.objects.filter(date=day, preset="classic").first() or challenge_schedule(date=day, preset="classic", seed=%(seed)d)
def person(username, name, **extra):
    return User.objects.create_user(username, password="x-long-pass-99", display_name=name,
                                    display_name_skeleton=skeleton(name), **extra)
moderator = person("moderator", "Moderator", is_staff=True, is_superuser=True)
moderator.set_password("moderator-pass-42")
moderator.save()
old = timezone.now() - dt.timedelta(days=60)
suspect = person("suspect", "Suspect", date_joined=old)
friend = person("friend", "Friend", date_joined=old)
def finished(user, moves, standing):
    state = EngineGame.replay(challenge.deal, [parse_move(m) for m in moves])
    game = Game.objects.create(challenge=challenge, player=user, ranked=True, outcome="resigned", move_count=len(moves),
        version=len(moves), score=score_moves(state.moves), finished_at=timezone.now(), start_address="192.0.2.1")
    Move.objects.bulk_create([Move(game=game, number=i, notation=m) for i, m in enumerate(moves, start=1)])
    return Score.objects.create(player=user, challenge=challenge, game=game, date=day, preset="classic",
        points=9999, moves=len(moves), won=False, finished_at=game.finished_at, standing=standing,
        standing_reason="signals" if standing == "review" else "")
finished(friend, ["D"], "good")
score = finished(suspect, ["D", "D"], "review")
Assessment.objects.create(score=score, suspicion=1.75, flagged=True, linked={str(friend.pk): "address"},
    signals={"address_link": 1.0, "after_linked": 1.0, "solver_line": 1.0, "device_link": 0.0, "fast": 0.0, "steady": 0.0, "copied_line": 0.0})
print("SCORE", score.pk)
"""


def test_staff_clear_a_score_in_review_and_the_audit_log_and_boards_follow(site: Any, new_context: Any) -> None:
    site.manage("shell", code=QUEUE % {"seed": CLASSIC_SEED})
    page = new_context(viewport={"width": 1280, "height": 900}, locale="en-GB").new_page()
    page.goto("/admin/login/?next=/admin/fairplay/scoreinreview/")
    page.fill("#id_username", "moderator")
    page.fill("#id_password", "moderator-pass-42")
    page.click("input[type=submit]")
    page.wait_for_url("**/admin/fairplay/scoreinreview/")
    row = page.locator("#result_list tbody tr").filter(has_text="Suspect")
    assert row.count() == 1
    assert "1.75" in row.inner_text() and "Friend" in row.inner_text()
    assert page.locator("#result_list tbody tr").count() == 1, "Friend's good score is not queued"
    page.screenshot(path=str(ARTIFACTS / "admin-fairplay-queue.png"), full_page=True)

    row.locator("th a, td a").first.click()
    page.locator(".fairplay-signals").wait_for()
    assert "solver_line" in page.locator(".fairplay-signals").inner_text()
    assert page.locator(".fairplay-replay details").count() == 3, "the deal and two moves"
    page.locator(".fairplay-replay details").nth(2).locator("summary").click()
    assert "stock" in page.locator(".fairplay-replay details").nth(2).locator("pre").inner_text()
    page.screenshot(path=str(ARTIFACTS / "admin-fairplay-score.png"), full_page=True)

    page.goto("/admin/fairplay/scoreinreview/")
    page.locator("#result_list tbody tr").filter(has_text="Suspect").locator("input.action-select").check()
    page.select_option("select[name=action]", "clear")
    page.click("button[name=index]")
    page.locator(".messagelist .success").filter(has_text="cleared").wait_for()
    assert page.locator("#result_list tbody tr").filter(has_text="Suspect").count() == 0

    page.goto("/admin/fairplay/moderationaction/")
    log = page.locator("#result_list tbody tr").first.inner_text()
    assert "moderator" in log.lower() and "clear" in log.lower() and "Suspect" in log

    page.goto("/leaderboards/?board=all&preset=classic")
    assert page.locator("table").filter(has_text="Suspect").count() == 1, "the cleared score ranks at once"


SCHEDULER = """
from accounts.models import User
from accounts.names import display_name_skeleton as skeleton
staff = User.objects.create_user("scheduler", password="scheduler-pass-42", display_name="Scheduler",
                                 display_name_skeleton=skeleton("Scheduler"), is_staff=True, is_superuser=True)
"""


def test_staff_scheduling_an_unwinnable_seed_are_told_so_and_the_challenge_list_fits_a_laptop(
    site: Any, new_context: Any
) -> None:
    """Issue 42, point 11: 'added successfully' said nothing of a deal the solver found unwinnable,
    and the list's columns ran past 1280 px."""
    site.manage("shell", code=SCHEDULER)
    page = new_context(viewport={"width": 1280, "height": 800}, locale="en-GB").new_page()
    page.goto("/admin/login/?next=/admin/games/dailychallenge/add/")
    page.fill("#id_username", "scheduler")
    page.fill("#id_password", "scheduler-pass-42")
    page.click("input[type=submit]")
    page.wait_for_url("**/admin/games/dailychallenge/add/")
    day = (local_today() + dt.timedelta(days=40)).isoformat()
    page.fill("#id_date", day)
    page.select_option("#id_preset", "classic")
    page.fill("#id_seed", str(UNWINNABLE["classic"]))
    page.click("input[name=_save]")
    page.wait_for_url("**/admin/games/dailychallenge/")
    # the admin scrolls a wide list inside its own box: every column must show without that
    cut = page.evaluate("(el => el.scrollWidth - el.clientWidth)(document.querySelector('#changelist .results'))")
    assert cut <= 0, f"the challenge list is cut off by {cut} px"
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    # what the solver does with it, then (its verification ran) the warning at the top of the list
    page.locator(".messagelist .info").filter(
        has_text=f"the solver is verifying seed {UNWINNABLE['classic']}"
    ).wait_for()
    page.goto("/admin/games/dailychallenge/")
    warning = page.locator(".messagelist .warning").filter(has_text=day)
    warning.filter(has_text="Replace with a winnable deal").wait_for()
    page.screenshot(path=str(ARTIFACTS / "admin-challenges.png"), full_page=True)
    # one click replaces it (issue 42: "a one-click 'replace with a winnable deal'")
    warning.get_by_role("button", name="Replace with a winnable deal").click()
    page.locator(".messagelist .success, .messagelist .info").filter(has_text="looking for a winnable deal").wait_for()
    page.goto("/admin/games/dailychallenge/")
    assert page.locator(".messagelist .warning").filter(has_text=day).count() == 0
