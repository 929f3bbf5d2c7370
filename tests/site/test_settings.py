"""The embedded default needs no server; DATABASE_URL / REDIS_URL switch the same code to the real ones."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROBE = (
    "import django, json; django.setup(); from django.conf import settings as s; "
    "print(json.dumps([s.DATABASES['default']['ENGINE'], s.CHANNEL_LAYERS['default']['BACKEND'],"
    " s.CELERY_TASK_ALWAYS_EAGER, s.LEADERBOARD_BACKEND, s.CELERY_BROKER_URL]))"
)


def load(**env):
    base = {"PATH": "/usr/bin:/bin", "DJANGO_SETTINGS_MODULE": "piramide_site.settings.local"}
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env={**base, **env}, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_local_default_needs_no_server():
    assert load() == ["django.db.backends.sqlite3", "channels.layers.InMemoryChannelLayer", True, "database", "memory://"]


def test_database_and_redis_urls_switch_to_the_real_servers():
    assert load(DATABASE_URL="postgres://u@db:5432/x", REDIS_URL="redis://r:6379/1") == [
        "django.db.backends.postgresql",
        "channels_redis.core.RedisChannelLayer",
        False,
        "redis",
        "redis://r:6379/1",
    ]
