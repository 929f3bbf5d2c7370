"""plumbing/tasks.py: a service's task sent by name, after the commit."""

from __future__ import annotations

from typing import Any

import pytest
from celery.exceptions import NotRegistered

from plumbing.tasks import delay_after_commit


@pytest.mark.django_db
def test_a_task_named_by_a_service_is_sent_once_the_transaction_commits(
    monkeypatch: Any, django_capture_on_commit_callbacks: Any
) -> None:
    from games.tasks import challenge_verify_task

    sent: list[tuple[Any, ...]] = []
    monkeypatch.setattr(challenge_verify_task, "delay", lambda *args: sent.append(args))
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        delay_after_commit("games.tasks.challenge_verify_task", 7)
        assert sent == [], "not before the commit"
    assert len(callbacks) == 1 and sent == [(7,)]


@pytest.mark.django_db
def test_an_unknown_task_name_fails_at_once_not_after_the_commit(django_capture_on_commit_callbacks: Any) -> None:
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        with pytest.raises(NotRegistered):
            delay_after_commit("games.tasks.no_such_task", 7)
    assert callbacks == [], "nothing left to fail after the commit"
