"""Solver work on a budget (games/solving.py): hints and reviews cached per position, caps per
player and for the site answered before any search, the request's connection given back before
it waits, and searches in solver processes under a CPU limit."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connections
from rest_framework.test import APIClient

from games import solver_jobs, solving
from games.models import Game
from games.services import game_move_make, game_practice_start, game_ranked_start, game_resign
from plumbing import limits
from tests.factories import BIG_WINNABLE, end_the_day, make_challenge, make_player
from tests.hardening.conftest import forget_limits

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_places() -> Iterator[None]:
    """Places held by an earlier test (ids repeat after rollbacks) are not this test's."""
    forget_limits()
    yield
    forget_limits()


def forget_answers(game: Game, kind: str = "review") -> None:
    """The cache outlives a test (in Redis, a run): forget the answers this test will ask for."""
    from django.core.cache import cache

    from games.selectors import game_engine_state, game_moves

    moves = game_moves(game) if kind == "review" else list(game_engine_state(game).moves)
    cache.delete(solving.answer_key(kind, game.challenge.preset, game.challenge.deal, moves))


def client_of(player: Any) -> APIClient:
    client = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(player)
    return client


@pytest.fixture
def lost_game(today: Any) -> Game:
    """A ranked game resigned after two draws, of a challenge whose day is not over."""
    challenge = make_challenge(preset="classic", seed=BIG_WINNABLE, date=today)
    player = make_player("alice")
    game = game_ranked_start(challenge_id=challenge.pk, player=player)[0].game
    for seen in range(2):
        game_move_make(game_id=game.pk, player=player, move="D", seen=seen)
    game_resign(game_id=game.pk, player=player)
    game.refresh_from_db()
    forget_answers(game)
    return game


def hold(*keys: str) -> str:
    """Take a place under each key, as a search in flight (another request, another process) holds it."""
    member = f"held-{time.monotonic_ns()}"
    assert limits.acquire(list(keys), [1_000] * len(keys), member, lease=60) == 0
    return member


def refused(response: Any, status: int, error: str) -> dict[str, Any]:
    body = response.json()
    assert response.status_code == status and body["error"] == error, body
    assert int(response["Retry-After"]) == body["retry_after"] > 0
    assert body["message"]
    return body


# ----------------------------------------------------------------- caps


def test_a_player_over_their_cap_gets_429_and_nothing_is_searched(lost_game, settings):
    settings.SOLVER_JOBS_PER_USER = 1
    hold(limits.key("solver", "user", lost_game.player_id))
    before = sum(solving.searches.values())
    response = client_of(lost_game.player).get(f"/api/games/{lost_game.pk}/review/")
    body = refused(response, 429, "throttled")
    assert "solver searches running" in body["message"]
    assert sum(solving.searches.values()) == before
    # another player is not held back by alice's searches
    other = make_player("bob")
    mine = game_ranked_start(challenge_id=lost_game.challenge_id, player=other)[0].game
    game_resign(game_id=mine.pk, player=other)
    assert client_of(other).get(f"/api/games/{mine.pk}/review/").status_code == 200


def test_the_site_over_its_cap_gets_503_and_nothing_is_searched(lost_game, settings):
    settings.SOLVER_JOBS_GLOBAL = 2
    hold(limits.key("solver", "all"))
    hold(limits.key("solver", "all"))
    before = sum(solving.searches.values())
    body = refused(client_of(lost_game.player).get(f"/api/games/{lost_game.pk}/review/"), 503, "unavailable")
    assert "busy" in body["message"]
    assert sum(solving.searches.values()) == before


def test_hints_are_capped_as_reviews_are(today, settings):
    settings.SOLVER_JOBS_PER_USER = 1
    past = make_challenge(date=today, seed=BIG_WINNABLE)
    end_the_day(past)
    player = make_player("carol")
    game = game_practice_start(challenge_id=past.pk, player=player).game
    forget_answers(game, "hint")
    member = hold(limits.key("solver", "user", player.pk))
    refused(client_of(player).get(f"/api/games/{game.pk}/hint/"), 429, "throttled")
    limits.release([limits.key("solver", "user", player.pk)], member)
    assert client_of(player).get(f"/api/games/{game.pk}/hint/").json()["verdict"] == "winnable"


def test_a_player_who_started_the_window_s_searches_gets_429_and_nothing_is_searched(lost_game, settings):
    settings.SOLVER_SEARCHES_PER_USER = "2/min"
    client = client_of(lost_game.player)
    review = f"/api/games/{lost_game.pk}/review/"
    for _ in range(2):
        forget_answers(lost_game)
        assert client.get(review).status_code == 200
    assert client.get(review).status_code == 200, "a cached answer is no search: never refused by the rate"
    forget_answers(lost_game)
    before = sum(solving.searches.values())
    body = refused(client.get(review), 429, "throttled")
    assert "2 solver searches in 60 s" in body["message"] and body["retry_after"] <= 60
    assert sum(solving.searches.values()) == before
    # the rate is alice's: bob searches
    other = make_player("bob")
    mine = game_ranked_start(challenge_id=lost_game.challenge_id, player=other)[0].game
    game_resign(game_id=mine.pk, player=other)
    assert client_of(other).get(f"/api/games/{mine.pk}/review/").status_code == 200


def test_a_search_the_site_s_cap_refused_is_not_counted_under_the_player_s_rate(lost_game, settings):
    settings.SOLVER_SEARCHES_PER_USER = "1/min"
    settings.SOLVER_JOBS_GLOBAL = 1
    client = client_of(lost_game.player)
    member = hold(limits.key("solver", "all"))
    refused(client.get(f"/api/games/{lost_game.pk}/review/"), 503, "unavailable")
    limits.release([limits.key("solver", "all")], member)
    assert client.get(f"/api/games/{lost_game.pk}/review/").status_code == 200


def test_a_search_gives_its_places_back(lost_game, settings):
    settings.SOLVER_JOBS_PER_USER = 1
    client = client_of(lost_game.player)
    assert client.get(f"/api/games/{lost_game.pk}/review/").status_code == 200
    forget_answers(lost_game)
    assert client.get(f"/api/games/{lost_game.pk}/review/").status_code == 200, "the first search's place was freed"


# ----------------------------------------------------------------- once per position


def test_a_second_review_is_answered_from_the_cache(lost_game):
    client = client_of(lost_game.player)
    before = solving.searches["review_job"]
    first = client.get(f"/api/games/{lost_game.pk}/review/")
    assert first.status_code == 200 and solving.searches["review_job"] == before + 1
    second = client.get(f"/api/games/{lost_game.pk}/review/")
    assert second.json() == first.json()
    assert solving.searches["review_job"] == before + 1, "the second review searched nothing"


def test_the_same_position_in_another_game_is_not_searched_again(today):
    past = make_challenge(seed=BIG_WINNABLE, date=today)
    end_the_day(past)
    alice, bob = make_player("alice"), make_player("bob")
    games = [game_practice_start(challenge_id=past.pk, player=player).game for player in (alice, bob)]
    for game, player in zip(games, (alice, bob)):
        game_move_make(game_id=game.pk, player=player, move="D", seen=0)
    forget_answers(Game.objects.get(pk=games[0].pk), "hint")
    before = solving.searches["hint_job"]
    hints = [client_of(player).get(f"/api/games/{game.pk}/hint/").json() for game, player in zip(games, (alice, bob))]
    assert hints[0] == hints[1] and hints[0]["verdict"] == "winnable"
    assert solving.searches["hint_job"] == before + 1


def test_a_cached_review_still_hides_the_line_until_the_day_is_over(lost_game):
    """The knowledge rule holds on a cache hit: the line is cached, and withheld on every answer
    until the day is over (games/selectors.py ``require_deal_public``, ``game_review``)."""
    client = client_of(lost_game.player)
    before = solving.searches["review_job"]
    for _ in range(2):
        body = client.get(f"/api/games/{lost_game.pk}/review/").json()
        assert body["line"] == [] and body["line_opens_at"].endswith("Z")
    end_the_day(lost_game.challenge)
    opened = client.get(f"/api/games/{lost_game.pk}/review/").json()
    assert opened["line"] and opened["line_opens_at"] is None
    assert solving.searches["review_job"] == before + 1, "one search for all three answers"


def test_an_unknown_answer_is_kept_for_a_short_while_only(lost_game, settings, monkeypatch):
    kept: list[tuple[str, int]] = []

    class Cache:
        def get(self, key: str) -> None:
            return None

        def set(self, key: str, value: Any, timeout: int) -> None:
            kept.append((value["start_verdict"], timeout))

    monkeypatch.setattr(solving, "cache", Cache())
    monkeypatch.setattr(
        solver_jobs,
        "review_job",
        lambda *args: {"start_verdict": "unknown", "point_of_no_return": None, "line": [], "seconds": 9.9},
    )
    assert client_of(lost_game.player).get(f"/api/games/{lost_game.pk}/review/").json()["start_verdict"] == "unknown"
    assert kept == [("unknown", settings.SOLVER_CACHE_UNKNOWN_SECONDS)]


# ----------------------------------------------------------------- the connection and the processes


@pytest.mark.django_db(transaction=True)
def test_the_request_gives_its_database_connection_back_before_the_search(today, monkeypatch):
    challenge = make_challenge(preset="classic", seed=BIG_WINNABLE, date=today)
    player = make_player("dora")
    game = game_ranked_start(challenge_id=challenge.pk, player=player)[0].game
    game_resign(game_id=game.pk, player=player)
    forget_answers(Game.objects.get(pk=game.pk))
    seen: list[bool] = []
    real = solver_jobs.review_job

    def review_job(*args: Any) -> Any:
        seen.append(connections["default"].connection is None)
        return real(*args)

    monkeypatch.setattr(solver_jobs, "review_job", review_job)
    assert client_of(player).get(f"/api/games/{game.pk}/review/").status_code == 200
    assert seen == [True], "no connection open while the search ran"


@pytest.fixture
def solver_processes(settings: Any) -> Any:
    settings.SOLVER_PROCESSES = 1
    settings.SOLVER_NICE = 0
    solving.shutdown()
    yield
    solving.shutdown()


def test_a_search_runs_in_a_solver_process(lost_game, solver_processes):
    import os

    assert solving.run(solver_jobs.pid_job, player_id=None, time_limit=5) != os.getpid()
    before = solving.searches["review_job"]
    body = client_of(lost_game.player).get(f"/api/games/{lost_game.pk}/review/").json()
    assert body["start_verdict"] == "winnable" and solving.searches["review_job"] == before + 1


def test_a_search_over_its_cpu_time_is_stopped_and_the_process_serves_on(solver_processes, settings):
    settings.SOLVER_CPU_MARGIN = 0.2
    assert solving.run(solver_jobs.burn_job, 0.2, player_id=None, time_limit=2) == "finished"
    started = time.monotonic()
    assert solving.run(solver_jobs.burn_job, 30.0, player_id=None, time_limit=0.5) == "stopped"
    assert time.monotonic() - started < 20
    assert solving.run(solver_jobs.burn_job, 0.1, player_id=None, time_limit=2) == "finished"


def test_a_dead_solver_process_is_replaced(solver_processes):
    import os
    import signal

    pid = solving.run(solver_jobs.pid_job, player_id=None, time_limit=5)
    os.kill(pid, signal.SIGKILL)
    for _ in range(2):  # the first may find the pool broken (a 503), the next gets a new one
        try:
            assert solving.run(solver_jobs.pid_job, player_id=None, time_limit=5) != pid
            break
        except solving.SolverBusy:
            continue
    else:
        pytest.fail("no new solver process")


def test_solver_processes_end_with_their_web_process_even_when_it_is_killed():
    """A pool's processes hold both ends of its queue and would wait for ever for a killed parent."""
    import os
    import signal
    import subprocess
    import sys

    from tests.conftest import ROOT

    script = (
        "import multiprocessing, time\n"
        "from concurrent.futures import ProcessPoolExecutor\n"
        "from games import solver_jobs\n"
        "if __name__ == '__main__':\n"
        "    pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context('spawn'),\n"
        "                               initializer=solver_jobs.init_process, initargs=(0,))\n"
        "    print(pool.submit(solver_jobs.pid_job, 1.0, None).result(), flush=True)\n"
        "    time.sleep(120)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PIRAMIDE_SOLVER_KERNEL": "python"}
    parent = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
    try:
        child = int(parent.stdout.readline())
        parent.send_signal(signal.SIGKILL)
        parent.wait(timeout=10)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and _alive(child):
            time.sleep(0.1)
        assert not _alive(child), "the solver process outlived its parent"
    finally:
        if parent.poll() is None:
            parent.kill()


def _alive(pid: int) -> bool:
    from pathlib import Path

    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_a_cached_answers_key_names_the_rules_version() -> None:
    """From rules version 3 egyptian's two top waste cards pair: the same deal and moves may have
    another answer, so an answer found under version 2 is never given for version 3."""
    from games.engine import deal_from_seed, get_rules

    old, new = deal_from_seed(get_rules("egyptian", 2), 1), deal_from_seed(get_rules("egyptian", 3), 1)
    assert str(old) == str(new)
    assert solving.answer_key("hint", "egyptian", old, ["D"]) != solving.answer_key("hint", "egyptian", new, ["D"])
    assert solving.answer_key("hint", "egyptian", new, ["D"]) == solving.answer_key("hint", "egyptian", new, ["D"])


def test_the_same_position_under_another_rules_version_is_searched_again(today):
    alice = make_player("alice")
    before = solving.searches["hint_job"]
    for version, days_ago in ((2, 2), (3, 1)):
        challenge = make_challenge(preset="egyptian", rules_version=version, date=today - dt.timedelta(days=days_ago))
        game = game_practice_start(challenge_id=challenge.pk, player=alice).game
        assert game.rules_version == version
        game_move_make(game_id=game.pk, player=alice, move="D", seen=0)
        forget_answers(Game.objects.get(pk=game.pk), "hint")
        assert client_of(alice).get(f"/api/games/{game.pk}/hint/").json()["verdict"] == "winnable"
    assert solving.searches["hint_job"] == before + 2
