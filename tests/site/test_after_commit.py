"""Work left for after a commit: at the commit outside a server, after the caller returns on one, in order, once."""

from __future__ import annotations

import asyncio
import logging
import threading

import pytest
from django.db import transaction

from plumbing import after_commit
from plumbing.db_calls import db_call

pytestmark = pytest.mark.django_db(transaction=True)


def test_outside_a_server_the_job_runs_at_the_commit_and_not_after_a_rollback() -> None:
    ran: list[str] = []
    with transaction.atomic():
        after_commit.later("kept", lambda: ran.append("kept"))
        assert ran == []
    assert ran == ["kept"]
    with pytest.raises(RuntimeError), transaction.atomic():
        after_commit.later("rolled back", lambda: ran.append("rolled back"))
        raise RuntimeError("abandon the transaction")
    assert ran == ["kept"]


def test_a_failing_job_is_logged_and_the_write_stands(caplog: pytest.LogCaptureFixture) -> None:
    def fail() -> None:
        raise ValueError("the rank store is away")

    with caplog.at_level(logging.WARNING, logger="plumbing.after_commit"), transaction.atomic():
        after_commit.later(("rank-store", 1), fail)
    assert "the rank store is away" in caplog.text


@pytest.mark.asyncio
async def test_on_a_server_the_caller_returns_before_its_job_runs() -> None:
    returned = threading.Event()
    seen: list[bool] = []

    def job() -> None:
        # inline, this would wait out its timeout and see the caller still inside
        seen.append(returned.wait(timeout=5))

    def service() -> None:
        with transaction.atomic():
            after_commit.later("slow", job)

    await db_call(service)()
    returned.set()
    await after_commit.idle()
    assert seen == [True]


@pytest.mark.asyncio
async def test_jobs_run_one_at_a_time_in_order_and_a_waiting_job_asked_again_runs_once_at_the_back() -> None:
    gate = threading.Event()
    ran: list[str] = []
    running = 0
    overlapped = False

    def job(name: str) -> after_commit.Job:
        def run() -> None:
            nonlocal running, overlapped
            running += 1
            overlapped = overlapped or running > 1
            if name == "first":
                gate.wait(timeout=5)  # the others are asked for while this one runs
            ran.append(name)
            running -= 1

        return run

    def ask(*names: str) -> None:
        for name in names:
            after_commit.later(name, job(name))

    await db_call(ask)("first")
    await asyncio.sleep(0.05)  # "first" is on the pool now
    await db_call(ask)("room", "ranks A", "room", "ranks B")
    gate.set()
    await after_commit.idle()
    assert ran == ["first", "ranks A", "room", "ranks B"]
    assert not overlapped


@pytest.mark.asyncio
async def test_jobs_still_waiting_when_the_loop_stops_run_before_it_goes() -> None:
    gate = threading.Event()
    ran: list[str] = []

    def first() -> None:
        gate.wait(timeout=5)
        ran.append("first")

    def ask() -> None:
        after_commit.later("first", first)
        after_commit.later("second", lambda: ran.append("second"))

    await db_call(ask)()
    await asyncio.sleep(0.05)
    queue = after_commit._queue_of(asyncio.get_running_loop())
    assert queue.task is not None
    queue.task.cancel()  # as the loop's shutdown cancels its tasks
    with pytest.raises(asyncio.CancelledError):
        await queue.task
    assert ran == ["second"]  # run at once; "first", already on the pool, finishes there
    gate.set()
