"""/healthz/ (liveness: the process and its database) and /readyz/ (each component, with a reason,
kept a few seconds): up and down for the database, Redis and a Celery worker."""

from __future__ import annotations

import os
import signal
import time
from typing import Any

import pytest
from django.db import OperationalError
from django.test import Client

from plumbing import health

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fresh_answer(settings: Any) -> Any:
    """Every test asks afresh, unless it sets the keeping time itself."""
    settings.HEALTH_CACHE_SECONDS = 0
    health.kept_readiness.forget()
    yield
    health.kept_readiness.forget()


def ready(**extra: Any) -> tuple[int, dict[str, Any]]:
    response = Client().get("/readyz/", **extra)
    assert response["Cache-Control"] == "no-store"
    return response.status_code, response.json()


@pytest.fixture
def database_down(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise OperationalError("connection refused")

    monkeypatch.setattr(health.connection, "cursor", refuse)


# ----------------------------------------------------------------- the embedded default


def test_on_the_embedded_default_redis_and_the_worker_are_not_used_and_the_site_is_ready(settings):
    settings.REDIS_URL, settings.CELERY_TASK_ALWAYS_EAGER = "", True
    status, body = ready()
    assert status == 200 and body["ok"] is True
    assert body["checks"]["database"] == {"status": "ok"}
    assert body["checks"]["redis"]["status"] == "not used" and "REDIS_URL" in body["checks"]["redis"]["reason"]
    assert body["checks"]["worker"]["status"] == "not used" and "eagerly" in body["checks"]["worker"]["reason"]


def test_liveness_stays_the_cheap_database_check():
    response = Client().get("/healthz/")
    assert response.status_code == 200 and response.json() == {"ok": True}


def test_a_database_that_does_not_answer_fails_liveness_and_readiness_with_a_reason(database_down):
    assert Client().get("/healthz/").status_code == 503
    status, body = ready()
    assert status == 503 and body["ok"] is False
    assert body["checks"]["database"] == {
        "status": "error",
        "reason": "the database does not answer (OperationalError)",
    }


def test_a_wrong_redis_url_fails_redis_and_the_worker_behind_it(settings):
    settings.REDIS_URL = "redis://127.0.0.1:1/14"  # nothing listens on port 1
    settings.CELERY_TASK_ALWAYS_EAGER = False
    started = time.monotonic()
    status, body = ready()
    assert time.monotonic() - started < 3
    assert status == 503
    assert body["checks"]["redis"] == {"status": "error", "reason": "Redis does not answer (ConnectionError)"}
    assert body["checks"]["worker"] == {"status": "error", "reason": "no broker to reach a worker through"}
    assert "127.0.0.1" not in str(body), "internal addresses stay out of a public answer"


def test_a_component_left_out_of_health_required_is_reported_but_does_not_fail_readiness(settings):
    settings.REDIS_URL, settings.CELERY_TASK_ALWAYS_EAGER = "redis://127.0.0.1:1/14", False
    settings.HEALTH_REQUIRED = ["database"]
    status, body = ready()
    assert status == 200 and body["ok"] is True
    assert body["checks"]["redis"]["status"] == "error"


def test_the_answer_is_kept_so_repeated_requests_ask_the_servers_once(settings, monkeypatch):
    settings.HEALTH_CACHE_SECONDS = 60
    asked = []
    real = health.check_database
    monkeypatch.setattr(health, "check_database", lambda: asked.append(1) or real())
    for _ in range(20):
        status, body = ready()
        assert status == 200
    assert len(asked) == 1
    assert body["age"] >= 0


def test_a_kept_answer_is_made_again_once_it_is_older_than_the_setting(settings, monkeypatch):
    settings.HEALTH_CACHE_SECONDS = 0.05
    asked = []
    real = health.check_database
    monkeypatch.setattr(health, "check_database", lambda: asked.append(1) or real())
    ready()
    time.sleep(0.1)
    ready()
    assert len(asked) == 2


def test_readiness_answers_only_get_and_head():
    response = Client().post("/readyz/")
    assert response.status_code == 405 and response["Allow"] == "GET, HEAD"
    assert response.json()["error"] == "method_not_allowed"


# ----------------------------------------------------------------- real servers


def test_postgres_that_answers_is_ok(postgres):
    status, body = ready()
    assert body["checks"]["database"] == {"status": "ok"}


def test_redis_that_answers_is_ok(redis_url, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = True
    status, body = ready()
    assert status == 200 and body["checks"]["redis"] == {"status": "ok"}


def test_a_live_worker_answers_and_a_stopped_one_fails_within_the_ping_timeout(celery_worker):
    status, body = ready()
    assert status == 200, body
    assert body["checks"]["worker"]["status"] == "ok" and body["checks"]["worker"]["workers"] >= 1
    os.kill(celery_worker.pid, signal.SIGSTOP)
    try:
        started = time.monotonic()
        status, body = ready()
        took = time.monotonic() - started
    finally:
        os.kill(celery_worker.pid, signal.SIGCONT)
    assert status == 503
    assert body["checks"]["worker"] == {"status": "error", "reason": "no worker answered within 1 s"}
    assert took < health.PING_TIMEOUT + 1.5
