"""A Celery worker is killed (SIGKILL) in the middle of a verification.

Whether the whole worker or only the pool process running the task is killed, the verification runs
again from the start and leaves exactly one result.  The cases and figures: docs/operations.md,
*A Celery worker dies mid-task*.
"""

from __future__ import annotations

import os
import re
import signal
import time

import pytest

from tests.faults.conftest import Stack
from tests.faults.stack import Worker, wait_for

pytestmark = pytest.mark.servers

#: A classic deal won at once whose par search needs far longer than the limit (about 15 s of CPU
#: with the compiled clearing search, 27 to 30 s without): its verification takes the whole limit,
#: on any machine.
SLOW_SEED = 123
SOLVE_LIMIT = "3"
VISIBILITY = 6


def pending_challenge(stack: Stack, seed: int, days_ahead: int) -> int:
    """A scheduled challenge whose verification is enqueued on commit, as the admin's action does it."""
    return int(
        stack.django(
            "import datetime as dt\nfrom tests.factories import make_challenge\n"
            "from games.selectors import local_today\nfrom games.services import challenge_verification_request\n"
            f"challenge = make_challenge(date=local_today() + dt.timedelta(days={days_ahead}), seed={seed}, "
            "status='pending', verdict='')\n"
            "challenge_verification_request(challenge_id=challenge.pk)\nresult = challenge.pk"
        )
    )


def status(stack: Stack, challenge_id: int) -> tuple[str, str, int | None, int | None, float | None]:
    row = stack.query(
        "SELECT status, verdict, line_length, par, verify_seconds FROM games_dailychallenge WHERE id = %s", challenge_id
    )
    return row[0]  # type: ignore[return-value]


def task_lines(workers: list[Worker], what: str) -> list[str]:
    pattern = re.compile(rf"Task games\.tasks\.challenge_verify_task\[[0-9a-f-]+\] {what}")
    return [line for worker in workers for line in worker.output().splitlines() if pattern.search(line)]


def nothing_left(stack: Stack) -> bool:
    redis = stack.redis.client()
    return redis.llen("celery") == 0 and redis.hlen("unacked") == 0


def test_a_verification_whose_worker_is_killed_runs_again_on_the_next_worker(stack: Stack) -> None:
    settings = {"PIRAMIDE_SOLVE_TIME_LIMIT": SOLVE_LIMIT, "CELERY_BROKER_VISIBILITY_TIMEOUT": str(VISIBILITY)}
    first = stack.worker("first", **settings)
    challenge = pending_challenge(stack, SLOW_SEED, days_ahead=1)
    wait_for(lambda: status(stack, challenge)[0] == "running", 30, "the verification to start", interval=0.05)
    time.sleep(1)
    assert status(stack, challenge)[0] == "running", "the verification should still run: pick a slower deal"
    first.kill()
    killed_at = time.monotonic()
    assert stack.redis.client().hlen("unacked") == 1, "the killed worker's task is held for redelivery"

    second = stack.worker("second", **settings)
    wait_for(lambda: status(stack, challenge)[0] == "done", 60, "the verification to run again", interval=0.1)
    redelivered_after = time.monotonic() - killed_at
    state, verdict, line_length, par, seconds = status(stack, challenge)
    assert verdict == "winnable" and line_length and par is not None
    assert seconds is not None and seconds >= float(SOLVE_LIMIT) - 0.5, "a whole verification, from the start"
    wait_for(lambda: nothing_left(stack), 10, "the task to be acknowledged")
    assert len(task_lines([first, second], "received")) == 2
    assert len(task_lines([first, second], "succeeded")) == 1
    assert not task_lines([first], "succeeded")
    assert VISIBILITY - 1 <= redelivered_after <= VISIBILITY + 30, redelivered_after
    print(f"killed worker's verification done on the next worker {redelivered_after:.1f} s after the kill")


def test_a_verification_whose_pool_process_is_killed_is_requeued_at_once(stack: Stack) -> None:
    # The production default visibility timeout (about an hour): only the requeue can bring it back.
    worker = stack.worker("prefork", pool="prefork", PIRAMIDE_SOLVE_TIME_LIMIT=SOLVE_LIMIT)
    challenge = pending_challenge(stack, SLOW_SEED, days_ahead=2)
    wait_for(lambda: status(stack, challenge)[0] == "running", 30, "the verification to start", interval=0.05)
    time.sleep(1)
    assert status(stack, challenge)[0] == "running", "the verification should still run: pick a slower deal"
    children = worker.children()
    assert len(children) == 1, children
    os.kill(children[0], signal.SIGKILL)
    killed_at = time.monotonic()
    wait_for(lambda: status(stack, challenge)[0] == "done", 60, "the verification to run again", interval=0.1)
    requeued_after = time.monotonic() - killed_at
    assert worker.alive()
    state, verdict, line_length, par, seconds = status(stack, challenge)
    assert verdict == "winnable" and line_length and par is not None
    wait_for(lambda: nothing_left(stack), 10, "the task to be acknowledged")
    log = worker.output()
    assert "WorkerLostError" in log or "SIGKILL" in log, log[-3000:]
    assert len(task_lines([worker], "received")) == 2
    assert len(task_lines([worker], "succeeded")) == 1
    assert requeued_after < float(SOLVE_LIMIT) * 2 + 15, requeued_after
    print(f"killed pool process's verification done {requeued_after:.1f} s after the kill")
