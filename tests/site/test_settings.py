"""The embedded default needs no server; DATABASE_URL / REDIS_URL switch the same code to the real ones."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROBE = (
    "import django, json; django.setup(); from django.conf import settings as s; "
    "print(json.dumps([s.DATABASES['default']['ENGINE'], s.CACHES['default']['BACKEND'],"
    " s.CELERY_TASK_ALWAYS_EAGER, s.LEADERBOARD_BACKEND, s.CELERY_BROKER_URL]))"
)


def load(**env):
    base = {"PATH": "/usr/bin:/bin", "DJANGO_SETTINGS_MODULE": "piramide_site.settings.local"}
    out = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env={**base, **env}, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_local_default_needs_no_server():
    assert load() == [
        "django.db.backends.sqlite3",
        "django.core.cache.backends.locmem.LocMemCache",
        True,
        "database",
        "memory://",
    ]


def test_database_and_redis_urls_switch_to_the_real_servers():
    assert load(DATABASE_URL="postgres://u@db:5432/x", REDIS_URL="redis://r:6379/1") == [
        "django.db.backends.postgresql",
        "django.core.cache.backends.redis.RedisCache",
        False,
        "redis",
        "redis://r:6379/1",
    ]


POOL_PROBE = (
    "import django, json; django.setup(); from django.conf import settings as s; d = s.DATABASES['default'];"
    " print(json.dumps([d.get('OPTIONS', {}).get('pool'), d['CONN_MAX_AGE'], s.LIVE_DB_CONN_MAX_AGE]))"
)


def probe(code: str, module: str = "piramide_site.settings.local", **env: str) -> subprocess.CompletedProcess[str]:
    base = {"PATH": "/usr/bin:/bin", "DJANGO_SETTINGS_MODULE": module, "DJANGO_SECRET_KEY": "settings-test-key"}
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env={**base, **env}, capture_output=True, text=True)


def pool_of(module: str = "piramide_site.settings.local", **env: str):
    out = probe(POOL_PROBE, module, **env)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


PG = "postgres://u@db:5432/x"


def test_postgres_gets_a_bounded_connection_pool_in_every_environment():
    sized = {"min_size": 2, "max_size": 20, "timeout": 10.0}
    for module in ("piramide_site.settings.local", "piramide_site.settings.production"):
        # The pool refuses persistent connections, and the sockets' threads give theirs back after each call.
        assert pool_of(module, DATABASE_URL=PG) == [sized, 0, 0]
    assert pool_of(DATABASE_URL=PG, DJANGO_DB_POOL_MIN="0", DJANGO_DB_POOL_MAX="5", DJANGO_DB_POOL_TIMEOUT="2.5") == [
        {"min_size": 0, "max_size": 5, "timeout": 2.5},
        0,
        0,
    ]


def test_sqlite_persistent_connections_or_a_zero_size_leave_the_pool_out():
    assert pool_of() == [None, 0, 300]
    assert pool_of(DATABASE_URL=PG, DJANGO_CONN_MAX_AGE="60") == [None, 60, 300]
    assert pool_of("piramide_site.settings.production", DATABASE_URL=PG, DJANGO_DB_POOL_MAX="0") == [None, 0, 300]


def test_a_pool_sized_wrong_is_one_clear_error():
    out = probe(POOL_PROBE, DATABASE_URL=PG, DJANGO_DB_POOL_MIN="8", DJANGO_DB_POOL_MAX="4")
    assert out.returncode != 0 and "DJANGO_DB_POOL_MIN (8) must be between 0 and DJANGO_DB_POOL_MAX (4)" in out.stderr
    out = probe(POOL_PROBE, DATABASE_URL=PG, DJANGO_DB_POOL_TIMEOUT="0")
    assert out.returncode != 0 and "DJANGO_DB_POOL_TIMEOUT (0.0) must be positive" in out.stderr


def test_passwords_are_hashed_with_argon2_and_older_pbkdf2_hashes_verify_and_are_upgraded():
    code = (
        "import django, json; django.setup(); from django.conf import settings as s\n"
        "from django.contrib.auth.hashers import PBKDF2PasswordHasher, check_password, make_password\n"
        "old = PBKDF2PasswordHasher().encode('pw-123456', 'saltsaltsalt'); upgraded = []\n"
        "ok = check_password('pw-123456', old, setter=upgraded.append)\n"
        "wrong = check_password('other', old, setter=upgraded.append)\n"
        "print(json.dumps([s.PASSWORD_HASHERS[:2], make_password('x').split('$')[:4], ok, wrong,"
        " upgraded]))"
    )
    out = probe(code, "piramide_site.settings.production")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1]) == [
        ["piramide_site.settings.hashers.Argon2idHasher", "django.contrib.auth.hashers.Argon2PasswordHasher"],
        ["argon2", "argon2id", "v=19", "m=19456,t=2,p=1"],
        True,
        False,
        ["pw-123456"],  # the right password, once: the caller stores it again with Argon2
    ]


POOL_USE = """
import django, json, threading, time; django.setup()
from django.db import OperationalError, connection, connections
pids, errors = [], []
def query(seconds):
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid(), pg_sleep(%s)", [seconds])
            pids.append(cursor.fetchone()[0])
    except OperationalError as error:
        errors.append(type(error).__module__ + "." + type(error).__name__)
    finally:
        connections.close_all()
threads = [threading.Thread(target=query, args=(0.2,)) for _ in range(8)]
[t.start() for t in threads]; [t.join() for t in threads]
busy = threading.Thread(target=query, args=(3,)); busy.start(); busy2 = threading.Thread(target=query, args=(3,)); busy2.start()
time.sleep(0.5); started = time.monotonic(); query(0); waited = time.monotonic() - started
busy.join(); busy2.join()
print(json.dumps([len(pids), len(set(pids)), errors, round(waited, 1)]))
"""


def test_the_pool_caps_a_process_connections_and_a_request_over_it_waits_then_fails_clearly(postgres):
    from django.db import connection

    db = connection.settings_dict
    url = f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
    out = probe(POOL_USE, DATABASE_URL=url, DJANGO_DB_POOL_MIN="0", DJANGO_DB_POOL_MAX="2", DJANGO_DB_POOL_TIMEOUT="1")
    assert out.returncode == 0, out.stderr
    done, distinct, errors, waited = json.loads(out.stdout.strip().splitlines()[-1])
    # Eight threads at once, two connections: each thread waits its turn rather than opening one.
    assert done == 10 and distinct <= 2
    # With both held, the next one waits DJANGO_DB_POOL_TIMEOUT, then gets Django's OperationalError (a 503).
    assert errors == ["django.db.utils.OperationalError"] and 0.9 <= waited < 2.5


def test_each_pytest_xdist_worker_of_the_suite_has_a_redis_database_of_its_own():
    test_settings = {"DJANGO_SETTINGS_MODULE": "piramide_site.settings.test", "REDIS_URL": "redis://r:6379/2"}
    assert load(**test_settings)[4] == "redis://r:6379/2"
    assert load(**test_settings, PYTEST_XDIST_WORKER="gw0")[4] == "redis://r:6379/2"
    assert load(**test_settings, PYTEST_XDIST_WORKER="gw1")[4] == "redis://r:6379/3"
    # a server or Celery worker the worker's tests start inherits its environment: not raised again
    inherited = {**test_settings, "REDIS_URL": "redis://r:6379/3", "PIRAMIDE_TEST_REDIS_WORKER": "gw1"}
    assert load(**inherited, PYTEST_XDIST_WORKER="gw1")[4] == "redis://r:6379/3"
