"""The Celery app; every setting comes from Django's settings under the CELERY_ prefix.

``CELERY_BROKER_VISIBILITY_TIMEOUT`` (seconds) may also come straight from the environment: how long
Redis waits before it hands a lost task (its worker gone without a word) to another worker.  What a
shorter one costs: docs/operations.md, *A Celery worker dies mid-task*.
"""

import logging
import os
import threading

from celery import Celery
from celery.signals import (
    after_setup_logger,
    after_setup_task_logger,
    task_failure,
    task_postrun,
    task_prerun,
    worker_init,
    worker_process_init,
)

from plumbing import observability

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "piramide_site.settings.local")

log = logging.getLogger(__name__)

#: Redis transport's own sweep for lost tasks runs about every interval x throttle seconds.
DEFAULT_RESTORE_SWEEP_SECONDS = 100

app = Celery("piramide_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# Each task's lines carry its id, and its unhandled error one structured line (plumbing/observability.py).
task_prerun.connect(observability.task_started, weak=False)
task_postrun.connect(observability.task_ended, weak=False)
task_failure.connect(observability.task_failed, weak=False)
after_setup_logger.connect(observability.add_request_ids, weak=False)
after_setup_task_logger.connect(observability.add_request_ids, weak=False)


def visibility_timeout_from_env(value: str | None, options: dict[str, object]) -> dict[str, object]:
    """The broker transport options with ``CELERY_BROKER_VISIBILITY_TIMEOUT`` applied, if it is set.

    A short timeout also makes the worker look for lost tasks as often (every half timeout):
    kombu's default sweep runs only every 100 s or so.
    """
    if not value:
        return options
    try:
        seconds = float(value)
    except ValueError:
        raise ValueError(f"CELERY_BROKER_VISIBILITY_TIMEOUT must be a number of seconds, not {value!r}") from None
    if seconds <= 0:
        raise ValueError(f"CELERY_BROKER_VISIBILITY_TIMEOUT must be more than 0 seconds, not {value!r}")
    options = {**options, "visibility_timeout": seconds}
    if seconds < 2 * DEFAULT_RESTORE_SWEEP_SECONDS:
        options.update(unacked_restore_interval=max(1, int(seconds // 2)), unacked_restore_throttle=1)
    return options


@app.on_after_configure.connect
def _visibility_timeout(sender: Celery, **kwargs: object) -> None:
    value = os.environ.get("CELERY_BROKER_VISIBILITY_TIMEOUT")
    if not value:
        return
    sender.conf.broker_transport_options = visibility_timeout_from_env(
        value, dict(sender.conf.broker_transport_options or {})
    )
    limit = sender.conf.task_time_limit
    if limit and float(value) <= limit:
        log.warning(
            "CELERY_BROKER_VISIBILITY_TIMEOUT=%s is not longer than the task time limit (%s s): "
            "a task running longer than it may start a second time",
            value,
            limit,
        )


@worker_init.connect
def _lower_priority(**kwargs: object) -> int:
    """A worker's tasks are background work (verifications, race deals, fair play): on a machine it
    shares with web processes, it yields the CPU to them (``WORKER_NICE``, 10; 0 keeps the
    priority).  Set before the pool starts, so its processes inherit it.  The niceness it set."""
    from django.conf import settings

    nice = int(getattr(settings, "WORKER_NICE", 0))
    return os.nice(nice) if nice else os.nice(0)


@worker_process_init.connect
def _load_solver_kernel(**kwargs: object) -> threading.Thread | None:
    """Load the solver's compiled kernel in each worker process, beside its first tasks: a search
    with a time limit moves to it only once it is loaded (docs/solver.md, "The compiled kernel").
    On a thread, since Celery kills a process whose start takes over four seconds, and compiling
    the kernel where no cache holds it takes longer; if it cannot be loaded, the process solves in
    pure Python, as without Numba.  The thread, if one was started."""
    from games.engine.solver.kernel import available

    if not available():
        return None
    thread = threading.Thread(target=_warm_solver_kernel, name="solver-kernel", daemon=True)
    thread.start()
    return thread


def _warm_solver_kernel() -> None:
    from games.engine.solver.warm import warm

    try:
        seconds = warm()
    except Exception:
        log.exception("the solver's compiled kernel could not be loaded; this worker process solves in pure Python")
        os.environ["PIRAMIDE_SOLVER_KERNEL"] = "python"
    else:
        log.info("the solver's compiled kernel is loaded (%.1f s)", seconds)
