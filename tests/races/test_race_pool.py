"""Races deal from a pool of proven-winnable deals (races/pool.py): a take is a row, an empty pool
a 503 that asks for a top-up, the top-up searches outside any request, never a daily deal."""

from __future__ import annotations

import threading

import pytest
from rest_framework.test import APIClient

from games import solving
from races import pool
from races.models import PooledDeal, Race
from races.services import RacePoolEmpty, race_create
from races.tasks import races_pool_fill_task
from tests.factories import BIG_WINNABLE, make_challenge, make_player
from tests.hardening.conftest import forget_limits

from .conftest import SEED

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_limits():
    forget_limits()
    yield
    forget_limits()


@pytest.fixture
def no_search(monkeypatch):
    """Any search, here or through the solver processes, fails the test."""
    monkeypatch.setattr(pool, "prove_here", lambda *args: pytest.fail("searched in the request"))
    before = sum(solving.searches.values())
    yield
    assert sum(solving.searches.values()) == before, "no search through the solver processes"


@pytest.fixture
def forget_top_ups():
    from django.core.cache import cache

    for preset in pool.pool_presets():
        cache.delete(f"piramide:races:pool-top-up:{preset}")


def stock(*seeds: int, preset: str = "classic") -> None:
    for seed in seeds:
        PooledDeal.objects.create(preset=preset, seed=seed, line_length=30)


def test_a_race_takes_the_oldest_pooled_deal_and_searches_nothing(player, no_search):
    stock(SEED, BIG_WINNABLE)
    race = race_create(host=player, preset="classic")
    assert race.seed == SEED
    assert list(PooledDeal.objects.values_list("seed", flat=True)) == [BIG_WINNABLE], "a deal is dealt once"


def test_an_empty_pool_is_a_503_with_retry_after_and_a_top_up_is_queued(
    player_api, settings, monkeypatch, django_capture_on_commit_callbacks, forget_top_ups, no_search
):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    queued: list[str] = []
    monkeypatch.setattr(races_pool_fill_task, "delay", queued.append)
    with django_capture_on_commit_callbacks(execute=True):
        responses = [player_api.post("/api/races/", {"preset": "one-pass"}, format="json") for _ in range(3)]
    for response in responses:
        body = response.json()
        assert response.status_code == 503 and body["error"] == "unavailable", body
        assert int(response["Retry-After"]) == body["retry_after"] == settings.RACE_POOL_RETRY_AFTER
        assert "no one-pass race deal is ready" in body["message"]
    assert queued == ["one-pass"], "one top-up for the three refusals"
    assert not Race.objects.exists()


def test_a_take_that_leaves_the_pool_under_half_asks_for_a_top_up(
    player, settings, monkeypatch, django_capture_on_commit_callbacks, forget_top_ups
):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.RACE_POOL_SIZE = 4
    queued: list[str] = []
    monkeypatch.setattr(races_pool_fill_task, "delay", queued.append)
    stock(SEED, BIG_WINNABLE, 5)
    with django_capture_on_commit_callbacks(execute=True):
        race_create(host=player, preset="classic")
    assert queued == [], "two of four left: half full"
    with django_capture_on_commit_callbacks(execute=True):
        race_create(host=player, preset="classic")
    assert queued == ["classic"]


def test_a_pooled_deal_that_became_a_daily_deal_is_never_dealt(player, today):
    stock(SEED, BIG_WINNABLE)
    make_challenge(date=today, preset="classic", seed=SEED)  # scheduled after it was pooled
    assert race_create(host=player, preset="classic").seed == BIG_WINNABLE
    assert not PooledDeal.objects.exists(), "the daily deal was thrown away"
    with pytest.raises(RacePoolEmpty):
        race_create(host=player, preset="classic")


def test_a_race_that_fails_to_be_created_gives_its_deal_back(player, monkeypatch):
    from races import services

    stock(SEED)
    monkeypatch.setattr(services, "new_code", lambda: "always-same")
    race_create(host=player, preset="classic", seed=BIG_WINNABLE)  # takes the code
    from plumbing.errors import Conflict

    with pytest.raises(Conflict):
        race_create(host=player, preset="classic")
    assert list(PooledDeal.objects.values_list("seed", flat=True)) == [SEED]


def test_the_fill_task_tops_every_kept_preset_up_with_proven_deals(settings, today):
    from games.engine import Game as EngineGame
    from games.engine.solver import Verdict, solve

    settings.RACE_POOL_PRESETS = ["classic", "forty"]
    settings.RACE_POOL_SIZE = 2
    stock(SEED)
    assert races_pool_fill_task.delay().get() == {"classic": 1, "forty": 2}
    assert races_pool_fill_task.delay("classic").get() == {"classic": 0}, "full: nothing to do"
    for deal in PooledDeal.objects.all():
        assert deal.verdict == "winnable" and deal.line_length and deal.solve_seconds >= 0
        assert solve(EngineGame.from_seed(deal.preset, deal.seed), time_limit=10).verdict is Verdict.WINNABLE


def test_creating_races_is_limited_per_player(player_api, settings):
    settings.LIMITS_HTTP = {**settings.LIMITS_HTTP, "races": {"user": "2/min"}}
    stock(SEED, BIG_WINNABLE, 5)
    codes = [player_api.post("/api/races/", {"preset": "classic"}, format="json").status_code for _ in range(3)]
    assert codes == [201, 201, 429]
    assert PooledDeal.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_on_eager_tasks_the_top_up_runs_beside_the_request_not_in_it(settings, forget_top_ups):
    """The embedded default (no broker): an empty pool's 503 comes at once, and a thread of the
    process fills the pool, searching through the solver processes (here on its own thread)."""
    settings.CELERY_TASK_ALWAYS_EAGER = True
    settings.RACE_POOL_BACKGROUND_FILL = True
    settings.RACE_POOL_SIZE = 2
    client = APIClient()
    client.force_login(make_player("erin"))
    before = solving.searches["winnable_job"]
    assert client.post("/api/races/", {"preset": "classic"}, format="json").status_code == 503
    filler = pool._background["classic"]
    filler.join(timeout=60)
    assert not filler.is_alive() and pool.pool_count("classic") == 2
    assert solving.searches["winnable_job"] > before
    assert client.post("/api/races/", {"preset": "classic"}, format="json").status_code == 201


def test_on_postgres_concurrent_takes_get_different_deals(postgres, transactional_db, player):
    from django.db import connections

    stock(SEED, BIG_WINNABLE)
    taken: list[int | None] = []
    lock = threading.Lock()
    barrier = threading.Barrier(4)

    def take() -> None:
        from django.db import transaction

        try:
            barrier.wait()
            with transaction.atomic():
                seed = pool.race_deal_take(preset="classic")
            with lock:
                taken.append(seed)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=take) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert sorted(taken, key=lambda seed: (seed is None, seed or 0)) == sorted([SEED, BIG_WINNABLE]) + [None, None]


def test_a_rematch_counts_against_the_race_limit_like_opening_a_race(player_api, settings):
    """A rematch opens a race from the pool as creating one does: without the same limit, one
    player looping start, resign, rematch would drain a preset's pool and keep its top-up searching."""
    settings.LIMITS_HTTP = {**settings.LIMITS_HTTP, "races": {"user": "2/min"}}
    stock(SEED, BIG_WINNABLE, 5)
    code = player_api.post("/api/races/", {"preset": "classic"}, format="json").json()["code"]
    answers = []
    for _ in range(2):
        assert player_api.post(f"/api/races/{code}/start/", {"countdown": 0}, format="json").status_code == 200
        assert player_api.post(f"/api/races/{code}/resign/").status_code == 200
        answer = player_api.post(f"/api/races/{code}/rematch/")
        answers.append(answer.status_code)
        code = answer.json().get("code", code)
    assert answers == [200, 429]
    assert PooledDeal.objects.count() == 1
