"""The test suite.  DATABASE_URL / REDIS_URL switch it to Postgres and Redis, as in CI."""

import os
import tempfile
from urllib.parse import urlsplit, urlunsplit


def redis_url_of_worker(url: str, worker: int) -> str:
    """``url`` with its database number raised by ``worker`` (``redis://h:6379/2``, worker 1: ``/3``)."""
    parts = urlsplit(url)
    number = int(parts.path.strip("/") or 0) + worker
    if number > 15:
        raise ValueError(f"REDIS_URL {url}: worker {worker} would need Redis database {number}, past the default 15")
    return urlunsplit(parts._replace(path=f"/{number}"))


# Each pytest-xdist worker has a Redis database of its own: two workers' tests would otherwise share
# the Celery broker's queues (a worker could take the other's task, on the other's database), the
# cache and the limits.  (Each worker's Postgres test database is its own already: pytest-django
# adds the worker to its name.)  Done once, in the worker's process, before the settings read it;
# the servers and Celery workers its tests start inherit the result and keep it.
_XDIST_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
if _XDIST_WORKER.startswith("gw") and os.environ.get("REDIS_URL") and not os.environ.get("PIRAMIDE_TEST_REDIS_WORKER"):
    os.environ["REDIS_URL"] = redis_url_of_worker(os.environ["REDIS_URL"], int(_XDIST_WORKER[2:]))
    os.environ["PIRAMIDE_TEST_REDIS_WORKER"] = _XDIST_WORKER

from .base import *  # noqa: E402, F403
from .base import env  # noqa: E402

DEBUG = False
SECRET_KEY = "test-only-key"
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
WHITENOISE_USE_FINDERS = True
# The suite imports the ASGI application in its own process: its collector keeps Python's
# defaults (tests/site/test_collector.py checks the tuning in a server's process).
GC_TUNED = False
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":  # noqa: F405
    # A file, not Django's shared-cache in-memory database: there, two connections touching one
    # table fail at once with "table is locked" (no busy wait), while sockets and requests run
    # their database calls on threads of their own, as they do on the site.
    DATABASES["default"]["TEST"] = {  # noqa: F405
        "NAME": os.path.join(tempfile.gettempdir(), f"piramide-test-{os.getpid()}.sqlite3")
    }
STATIC_ROOT = None  # served from the apps by the finders; no collectstatic here
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
# Tasks run eagerly unless a test starts a real worker (tests/conftest.py: celery_worker).
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=True)
# The test servers are given their challenges; tests/games/test_program.py turns the keeper on.
PIRAMIDE_PROGRAM_KEEPER = env.bool("PIRAMIDE_PROGRAM_KEEPER", default=False)
# Most tests play the solver's line at machine speed, which fair play rightly sends to review:
# its own tests (tests/fairplay) turn it on.
FAIRPLAY_ASSESS = env.bool("FAIRPLAY_ASSESS", default=False)
# Short: par searches that hit it just report an inexact par; verdicts of the test seeds take milliseconds.
PIRAMIDE_SOLVE_TIME_LIMIT = env.float("PIRAMIDE_SOLVE_TIME_LIMIT", default=1.5)
# About 15% of random forty deals are winnable: 40 tries all miss once in 600 fills, and the suite
# fills forty days in several tests.  300 tries miss once in 10^20.
PIRAMIDE_WINNABLE_ATTEMPTS = env.int("PIRAMIDE_WINNABLE_ATTEMPTS", default=300)
# Each test run gets its own key space in a shared Redis.
LEADERBOARD_KEY_PREFIX = env("LEADERBOARD_KEY_PREFIX", default=f"piramide-test-{os.getpid()}:lb")
REST_FRAMEWORK = {**REST_FRAMEWORK}  # noqa: F405
REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] = {
    "anon": "10000/min",
    "user": "10000/min",
    "moves": "10000/min",
    "auth": "10000/min",
}
# The shared limits of plumbing/limits.py: this run's own keys, and high enough that only
# the tests of the limits themselves (which lower them) ever meet them.
LIMITS_KEY_PREFIX = env("LIMITS_KEY_PREFIX", default=f"piramide-test-{os.getpid()}:limits")
LIMITS_HTTP = {
    "moves": {"user": "100000/min", "ip": "100000/min"},
    "auth": {"ip": "100000/min"},
    "races": {"user": "100000/min"},
}
# Searches run on the test's own thread (spawning solver processes costs more than the test
# seeds' searches); tests/games/test_solving.py starts real ones.
SOLVER_PROCESSES = env.int("SOLVER_PROCESSES", default=0)
SOLVER_SEARCHES_PER_USER = env("SOLVER_SEARCHES_PER_USER", default="100000/min")
RACE_POOL_SIZE = env.int("RACE_POOL_SIZE", default=3)
# No thread of the test process tops race pools up behind a test's back; tests fill them.
RACE_POOL_BACKGROUND_FILL = False
LIVE_SOCKETS_PER_USER = 10000
LIVE_SOCKETS_PER_IP = 10000
LIVE_FRAMES_PER_USER = "100000/min"
LIVE_FRAMES_PER_IP = "100000/min"
SIGNIN_FAILURES_PER_USER = "5/15min"
GUESTS_PER_IP = "100000/hour"
SIGNIN_FAILURES_PER_USER_IP = "5/15min"
SIGNIN_FAILURES_PER_IP = "1000/15min"
