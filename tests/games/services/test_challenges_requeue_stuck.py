"""A verification lost with its task (a flushed broker) is enqueued again by the hourly fill job."""

import datetime as dt

import pytest
from django.utils import timezone

from games.models import DailyChallenge
from games.services import challenges_requeue_stuck, verification_stuck_after
from games.tasks import challenges_fill_task
from tests.factories import WINNABLE, make_challenge

pytestmark = pytest.mark.django_db


def lost(status, seconds_ago, **fields):
    """A challenge left in ``status`` since ``seconds_ago``, its task gone."""
    return make_challenge(
        status=status, verdict="", verify_requested_at=timezone.now() - dt.timedelta(seconds=seconds_ago), **fields
    )


def test_a_verification_pending_or_running_past_any_task_is_run_again_by_the_fill_job(
    settings, django_capture_on_commit_callbacks
):
    settings.PIRAMIDE_FILL_DAYS = 0  # nothing to fill: the job only looks for lost verifications
    too_long = verification_stuck_after() + 60
    pending = lost(DailyChallenge.Status.PENDING, too_long)
    running = lost(DailyChallenge.Status.RUNNING, too_long, date=timezone.localdate() + dt.timedelta(days=1))
    with django_capture_on_commit_callbacks(execute=True) as enqueued:
        challenges_fill_task.delay()  # eager here: the requeued verifications run after commit
    assert len(enqueued) == 2
    for challenge in (pending, running):
        challenge.refresh_from_db()
        assert challenge.status == DailyChallenge.Status.DONE and challenge.verdict == DailyChallenge.Verdict.WINNABLE
        assert challenge.seed == WINNABLE["classic"]


def test_a_verification_still_within_its_time_is_left_alone(settings):
    settings.CELERY_TASK_ALWAYS_EAGER = False  # enqueueing would fail loudly without a broker
    recent = lost(DailyChallenge.Status.RUNNING, verification_stuck_after() - 60)
    done = make_challenge(date=timezone.localdate() + dt.timedelta(days=2))
    done.verify_requested_at = timezone.now() - dt.timedelta(days=3)
    done.save()
    assert challenges_requeue_stuck() == []
    recent.refresh_from_db()
    assert recent.status == DailyChallenge.Status.RUNNING


def test_the_cut_off_outlasts_the_broker_handing_back_a_lost_task_and_the_longest_task(settings):
    from piramide_site.celery import app

    assert verification_stuck_after() > app.conf.broker_transport_options["visibility_timeout"]
    assert (
        verification_stuck_after() >= app.conf.broker_transport_options["visibility_timeout"] + app.conf.task_time_limit
    )
