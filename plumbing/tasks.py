"""A service's Celery task, sent after the commit, by its registered name.

A service enqueues its own app's tasks, whose module imports the services (a task is a thin call
of one): looked up in the Celery app's registry, the task needs no import the other way, so each
app's layers run one way (tasks over services: the import contract in pyproject.toml).
"""

from __future__ import annotations

from typing import Any

from celery import current_app
from django.db import transaction


def registered(name: str) -> Any:
    """The task registered as ``name``.  The apps' tasks modules are discovered lazily: a worker
    imports them as it starts, but a web server process has imported only those something else
    imported, so the first unknown name imports them all (Celery's own discovery step)."""
    if name not in current_app.tasks:
        current_app.loader.import_default_modules()
    return current_app.tasks[name]


def delay_after_commit(name: str, *args: Any) -> None:
    """``delay`` the task registered as ``name`` once the current transaction commits (at once
    outside one); an unknown name fails here, not after the commit."""
    task = registered(name)
    transaction.on_commit(lambda: task.delay(*args))
