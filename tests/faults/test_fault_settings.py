"""The pieces the fault tests rely on, checked without any server (the first, embedded CI pass)."""

from __future__ import annotations

import pytest
from django.db import OperationalError
from django.test import Client, RequestFactory

from games import tasks
from piramide_site.celery import visibility_timeout_from_env
from plumbing.errors import server_error


def test_the_visibility_timeout_comes_from_the_environment_only_when_set() -> None:
    defaults = {"visibility_timeout": 3300}
    assert visibility_timeout_from_env(None, defaults) == defaults
    assert visibility_timeout_from_env("", defaults) == defaults
    short = visibility_timeout_from_env("7", defaults)
    assert short == {"visibility_timeout": 7.0, "unacked_restore_interval": 3, "unacked_restore_throttle": 1}
    assert visibility_timeout_from_env("7200", defaults) == {"visibility_timeout": 7200.0}
    for wrong in ("soon", "0", "-5"):
        with pytest.raises(ValueError, match="CELERY_BROKER_VISIBILITY_TIMEOUT"):
            visibility_timeout_from_env(wrong, defaults)


def test_every_task_retries_while_the_database_is_unreachable() -> None:
    for task in (
        tasks.challenge_verify_task,
        tasks.challenge_replace_task,
        tasks.challenges_fill_task,
        tasks.challenge_fill_task,
        tasks.games_close_expired_task,
    ):
        assert OperationalError in task.autoretry_for, task.name
        assert task.max_retries == 20 and task.retry_backoff_max == 60


@pytest.mark.django_db
def test_an_api_view_that_loses_the_database_answers_503_json(monkeypatch: pytest.MonkeyPatch) -> None:
    from games import apis

    def down(*args: object, **kwargs: object) -> None:
        raise OperationalError('connection to server at "127.0.0.1", port 5432 failed: Connection refused')

    monkeypatch.setattr(apis.selectors, "challenges_for_day", down)
    response = Client(raise_request_exception=False).get("/api/challenges/today/")
    assert response.status_code == 503 and response["Retry-After"] == "5"
    assert response.json()["error"] == "unavailable" and "5432" not in response.content.decode()


@pytest.mark.django_db
def test_a_page_that_loses_the_database_answers_503_and_other_crashes_stay_500() -> None:
    request = RequestFactory().get("/")
    try:
        raise OperationalError("the database system is shutting down")
    except OperationalError:
        page = server_error(request)
    assert page.status_code == 503 and b"<h1>" in page.content and b"shutting down" not in page.content
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        assert server_error(request).status_code == 500
    # No exception at hand (as under ASGI) and a database that answers: a plain 500.
    assert server_error(request).status_code == 500
