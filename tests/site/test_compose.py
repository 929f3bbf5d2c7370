"""Docker is not available here, so the compose file is checked against the settings instead:
the services, the one image, the commands, the health checks and the environment they run on."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]
APP_SERVICES = {"migrate", "web", "worker", "beat"}


@pytest.fixture(scope="module")
def compose():
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def interpolate(value: str) -> str:
    """${VAR:-default} takes its default, ${VAR:?message} a stand-in, as `docker compose` would with them unset."""
    value = re.sub(r"\$\{(\w+):-([^}]*)\}", lambda m: m.group(2), value)
    return re.sub(r"\$\{(\w+):\?[^}]*\}", lambda m: f"stand-in-{m.group(1).lower()}", value)


def test_the_production_shape_has_its_five_services(compose):
    assert set(compose["services"]) == {"postgres", "redis", *APP_SERVICES}
    assert compose["services"]["postgres"]["image"].startswith("postgres:")
    assert compose["services"]["redis"]["image"].startswith("redis:")


def test_every_app_service_runs_the_one_image_built_here(compose):
    images = {compose["services"][name]["image"] for name in APP_SERVICES}
    assert images == {"piramide:latest"}
    assert all(compose["services"][name]["build"] == "." for name in APP_SERVICES)
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "pip install --no-cache-dir -r requirements.txt" in dockerfile
    assert "DJANGO_SETTINGS_MODULE=piramide_site.settings.production" in dockerfile


def test_long_running_services_have_health_checks(compose):
    for name in ("postgres", "redis", "web", "worker", "beat"):
        assert compose["services"][name]["healthcheck"]["test"], name


def test_web_serves_the_asgi_application_of_the_settings(compose):
    command = compose["services"]["web"]["command"]
    module, attr = settings.ASGI_APPLICATION.rsplit(".", 1)
    assert command[:2] == ["uvicorn", f"{module}:{attr}"]
    cmd_line = re.search(r"CMD (\[.*\])", (ROOT / "Dockerfile").read_text()).group(1)
    assert json.loads(cmd_line) == command, "the image's default command is the web service's"


def test_the_web_health_check_asks_a_url_that_answers_over_plain_http_on_its_own_host(compose, client, db):
    check = " ".join(compose["services"]["web"]["healthcheck"]["test"])
    url = re.search(r"http://127\.0\.0\.1:8000(/\S*?)'", check).group(1)
    assert url == "/healthz/"
    response = client.get(url)
    assert response.status_code == 200 and response.json() == {"ok": True}


def test_worker_and_beat_run_the_celery_app_with_the_configured_scheduler(compose):
    from piramide_site.celery import app

    worker = compose["services"]["worker"]["command"]
    beat = compose["services"]["beat"]["command"]
    assert worker[:4] == ["celery", "-A", app.main, "worker"]
    assert beat[:4] == ["celery", "-A", app.main, "beat"]
    assert beat[beat.index("--scheduler") + 1] == settings.CELERY_BEAT_SCHEDULER
    assert compose["services"]["migrate"]["command"] == ["python", "manage.py", "migrate", "--noinput"]


def test_the_compose_environment_gives_postgres_redis_and_a_real_worker():
    """Load the production settings with exactly the compose environment, in a fresh process."""
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    env = {k: interpolate(str(v)) for k, v in compose["services"]["web"]["environment"].items()}
    assert env["DATABASE_URL"].startswith("postgres://") and "@postgres:5432/" in env["DATABASE_URL"]
    assert env["REDIS_URL"] == "redis://redis:6379/0"
    probe = (
        "import django, json; django.setup(); from django.conf import settings as s; "
        "print(json.dumps({'db': s.DATABASES['default']['ENGINE'], 'host': s.DATABASES['default']['HOST'],"
        " 'layer': s.CHANNEL_LAYERS['default']['BACKEND'], 'broker': s.CELERY_BROKER_URL,"
        " 'eager': s.CELERY_TASK_ALWAYS_EAGER, 'ranks': s.LEADERBOARD_BACKEND, 'cache': s.CACHES['default']['BACKEND'],"
        " 'debug': s.DEBUG, 'tz': s.PIRAMIDE_TIME_ZONE, 'presets': s.PIRAMIDE_DAILY_PRESETS,"
        " 'hosts': s.ALLOWED_HOSTS, 'exempt': s.SECURE_REDIRECT_EXEMPT, 'ssl': s.SECURE_SSL_REDIRECT}))"
    )
    minimal = {"PATH": "/usr/bin:/bin", **env}
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=minimal, capture_output=True, text=True, check=True)
    loaded = json.loads(out.stdout.strip().splitlines()[-1])
    assert loaded == {
        "db": "django.db.backends.postgresql",
        "host": "postgres",
        "layer": "channels_redis.core.RedisChannelLayer",
        "broker": "redis://redis:6379/0",
        "eager": False,
        "ranks": "redis",
        "cache": "django.core.cache.backends.redis.RedisCache",
        "debug": False,
        "tz": "Europe/Rome",
        "presets": ["classic", "forty"],
        "hosts": ["localhost", "127.0.0.1"],
        "exempt": ["^healthz/$"],
        "ssl": True,
    }


def test_production_settings_refuse_to_start_without_a_secret():
    env = {"PATH": "/usr/bin:/bin", "DJANGO_SETTINGS_MODULE": "piramide_site.settings.production"}
    out = subprocess.run([sys.executable, "-c", "import django; django.setup()"], cwd=ROOT, env=env, capture_output=True, text=True)
    assert out.returncode != 0 and "DJANGO_SECRET_KEY" in out.stderr
