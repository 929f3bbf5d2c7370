"""Tasks are thin: ids in, one service call, safe to run twice (eager here; a real worker below)."""

import datetime as dt
import time
from unittest import mock

import pytest

from games.models import DailyChallenge
from games.tasks import (
    challenge_fill_task,
    challenge_replace_task,
    challenge_verify_task,
    challenges_fill_task,
    games_close_expired_task,
)
from piramide_site.celery import app
from tests.factories import UNWINNABLE, WINNABLE, make_challenge


def test_tasks_are_late_acknowledged_and_requeued_when_a_worker_dies(settings):
    assert app.conf.task_acks_late is True
    assert app.conf.task_reject_on_worker_lost is True
    assert app.conf.worker_prefetch_multiplier == 1
    timeout = app.conf.broker_transport_options["visibility_timeout"]
    longest = settings.PIRAMIDE_SOLVE_TIME_LIMIT * 2 * settings.PIRAMIDE_WINNABLE_ATTEMPTS
    assert timeout > longest, "Redis must not hand a running solve to a second worker"
    assert app.conf.task_time_limit < timeout


def test_beat_runs_the_fill_job_every_hour():
    entry = app.conf.beat_schedule["challenges-fill"]
    assert entry["task"] == challenges_fill_task.name
    assert app.conf.beat_scheduler == "django_celery_beat.schedulers:DatabaseScheduler"
    assert app.conf.beat_schedule["games-close-expired"]["task"] == games_close_expired_task.name


@pytest.mark.django_db
def test_verify_task_twice_leaves_one_consistent_result():
    challenge = make_challenge(seed=WINNABLE["classic"], status="pending", verdict="")
    assert challenge_verify_task.delay(challenge.pk).get() == "done"
    assert challenge_verify_task.delay(challenge.pk).get() == "done"
    challenge.refresh_from_db()
    assert challenge.verdict == "winnable" and challenge.par is not None


@pytest.mark.django_db
def test_fill_task_fills_the_configured_days(settings):
    settings.PIRAMIDE_DAILY_PRESETS = ["classic"]
    settings.PIRAMIDE_VARIANT_OF_THE_DAY = False
    settings.PIRAMIDE_FILL_DAYS = 3
    fanned_out = challenges_fill_task.delay().get()
    assert len(fanned_out) == 3
    assert DailyChallenge.objects.count() == 3
    assert challenges_fill_task.delay().get() == []
    assert challenge_fill_task.delay(str(DailyChallenge.objects.first().date), "classic").get() is None


@pytest.mark.django_db
def test_replace_task_swaps_in_a_winnable_deal(today):
    challenge = make_challenge(date=today + dt.timedelta(days=3), seed=UNWINNABLE["classic"], verdict="unwinnable")
    assert challenge_replace_task.delay(challenge.pk).get() == "done"
    challenge.refresh_from_db()
    assert challenge.verdict == "winnable" and challenge.seed != UNWINNABLE["classic"]


def wait_for(predicate, timeout=60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.2)
    return False


def test_a_real_worker_verifies_a_challenge_scheduled_through_the_service(celery_worker, today):
    from django.db import transaction

    from games.services import challenge_schedule

    with transaction.atomic():
        challenge = challenge_schedule(date=today + dt.timedelta(days=20), preset="classic", seed=WINNABLE["classic"])
        assert DailyChallenge.objects.get(pk=challenge.pk).status == "pending"
    # on commit the task went to Redis; the worker process picks it up
    assert wait_for(lambda: DailyChallenge.objects.get(pk=challenge.pk).status == "done"), (
        "the worker never verified it"
    )
    challenge.refresh_from_db()
    assert challenge.verdict == "winnable" and challenge.line_length and challenge.par is not None


def test_a_real_worker_fills_the_days_ahead_once(celery_worker, today):
    """The worker is configured (tests/conftest.py) for 3 days of classic."""
    challenges_fill_task.delay()
    challenges_fill_task.delay()  # a second run right behind the first creates nothing
    assert wait_for(lambda: DailyChallenge.objects.count() >= 3, timeout=120)
    time.sleep(2)
    rows = list(DailyChallenge.objects.values_list("date", "preset"))
    assert sorted(rows) == [(today + dt.timedelta(days=d), "classic") for d in range(3)]


def test_a_worker_process_loads_the_solver_kernel_on_a_thread_as_it_starts(monkeypatch) -> None:
    """A search with a time limit moves to the compiled kernel only where it is loaded (docs/solver.md):
    each worker process loads it beside its first tasks, and solves in pure Python if it cannot."""
    from games.engine.solver import kernel as solver_kernel
    from games.engine.solver import warm as solver_warm
    from piramide_site import celery as celery_app

    pytest.importorskip("numba")
    monkeypatch.setenv("PIRAMIDE_SOLVER_KERNEL", "numba")
    monkeypatch.setattr(solver_kernel, "_loaded", False)
    # (the thread itself: where the kernel is loaded already, it may have ended before anyone looks for it)
    loader = celery_app._load_solver_kernel()
    assert loader is not None and loader.name == "solver-kernel"
    loader.join(timeout=120)
    assert solver_kernel._loaded

    def broken() -> float:
        raise RuntimeError("no LLVM here")

    monkeypatch.setattr(solver_warm, "warm", broken)
    loader = celery_app._load_solver_kernel()
    assert loader is not None
    loader.join(timeout=120)
    assert not solver_kernel.available()


def test_a_worker_lowers_its_priority_as_it_starts(monkeypatch, settings):
    """Its tasks are background work: the web processes come first on a shared machine."""
    from piramide_site import celery as celery_app

    asked: list[int] = []
    monkeypatch.setattr(celery_app.os, "nice", lambda increment: asked.append(increment) or increment)
    settings.WORKER_NICE = 10
    assert celery_app._lower_priority() == 10
    settings.WORKER_NICE = 0
    celery_app._lower_priority()
    assert asked == [10, 0]


@pytest.mark.django_db
def test_fill_task_fans_out_the_whole_program_of_the_beats_days(settings, today):
    """The beat's job: every (day, preset) of the next PIRAMIDE_FILL_DAYS days, variant included."""
    settings.PIRAMIDE_DAILY_PRESETS = ["classic", "forty"]
    settings.PIRAMIDE_ROTATION_PRESETS = ["egyptian", "forty-open", "forty-house"]
    settings.PIRAMIDE_ROTATION_START = today
    settings.PIRAMIDE_FILL_DAYS = 14
    with mock.patch("games.tasks.challenge_fill_task.delay") as fill:
        fanned_out = challenges_fill_task.delay().get()
    assert len(fanned_out) == 14 * 3
    asked = {(call.args[0], call.args[1]) for call in fill.call_args_list}
    assert (str(today), "egyptian") in asked and (str(today + dt.timedelta(days=12)), "egyptian") in asked
    assert (str(today + dt.timedelta(days=2)), "forty-house") in asked
    assert {preset for _, preset in asked} == {"classic", "forty", "egyptian", "forty-open", "forty-house"}
