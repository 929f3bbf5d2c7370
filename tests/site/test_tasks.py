"""plumbing/tasks.py: a service's task sent by name, after the commit."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from typing import Any

import pytest
from celery.exceptions import NotRegistered

from plumbing.tasks import delay_after_commit
from tests.conftest import ROOT

#: A web server process as uvicorn starts it: the settings, then the ASGI application, and then
#: each task name the services send, looked up as a service would.
WEB_PROCESS = """
import json, sys
import django
django.setup()
import piramide_site.asgi
from plumbing.tasks import registered
print(json.dumps({name: registered(name).name for name in sys.argv[1:]}))
"""


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


def test_every_task_a_service_sends_is_found_in_a_web_server_process_that_imported_no_tasks_module() -> None:
    """Found with bench/abuse.py: POST /api/races/ answered 500 (NotRegistered) on a real uvicorn,
    whose process had never imported races.tasks, when the race pool asked for a top-up."""
    names = sorted(
        {
            name
            for folder in ("accounts", "games", "leaderboard", "races", "fairplay", "frontend")
            for path in (ROOT / folder).rglob("*.py")
            for name in re.findall(r'delay_after_commit\(\s*"([\w.]+)"', path.read_text())
        }
    )
    assert "races.tasks.races_pool_fill_task" in names, names
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "piramide_site.settings.local", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", WEB_PROCESS, *names], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.splitlines()[-1]) == {name: name for name in names}
