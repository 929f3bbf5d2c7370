"""Prometheus metrics: what moves, solver searches and the scrape-time readings count, who may
read /metrics, and the multiprocess mode several server processes share."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client
from prometheus_client import REGISTRY

from games import solver_jobs, solving
from games.services import game_move_make, game_ranked_start
from piramide_site.serve import metrics_dir_ready
from plumbing import metrics
from tests.factories import make_challenge, make_player

ROOT = Path(__file__).resolve().parents[2]


def sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


# ----------------------------------------------------------------- what is counted


@pytest.mark.django_db
def test_a_move_through_the_service_counts_once_by_path_and_preset_with_its_time(player):
    challenge = make_challenge(preset="classic")
    game = game_ranked_start(challenge_id=challenge.pk, player=player)[0].game
    moves, timed = (
        sample("piramide_moves_total", path="service", preset="classic"),
        sample("piramide_move_seconds_count", path="service"),
    )
    game_move_make(game_id=game.pk, player=player, move="D", seen=0)
    assert sample("piramide_moves_total", path="service", preset="classic") == moves + 1
    assert sample("piramide_move_seconds_count", path="service") == timed + 1


@pytest.mark.django_db
def test_a_refused_move_is_not_counted(player):
    from plumbing.errors import StaleMove

    challenge = make_challenge(preset="classic")
    game = game_ranked_start(challenge_id=challenge.pk, player=player)[0].game
    moves = sample("piramide_moves_total", path="service", preset="classic")
    with pytest.raises(StaleMove):
        game_move_make(game_id=game.pk, player=player, move="D", seen=3)
    assert sample("piramide_moves_total", path="service", preset="classic") == moves


def test_a_solver_search_is_timed_under_its_kind(settings):
    settings.SOLVER_PROCESSES = 0
    searched = sample("piramide_solver_seconds_count", kind="burn")
    assert solving.run(solver_jobs.burn_job, 0.0, player_id=None, time_limit=1.0)
    assert sample("piramide_solver_seconds_count", kind="burn") == searched + 1


# ----------------------------------------------------------------- who may read /metrics


@pytest.mark.django_db
@pytest.mark.parametrize("address", ["127.0.0.1", "10.1.2.3", "172.30.0.9", "192.168.1.5", "::1", "::ffff:127.0.0.1"])
def test_addresses_of_the_allow_list_read_the_metrics(address):
    response = Client().get("/metrics", REMOTE_ADDR=address)
    assert response.status_code == 200, address
    assert response["Content-Type"].startswith("text/plain")
    text = response.content.decode()
    assert "piramide_moves_total" in text or "# TYPE piramide_moves counter" in text
    assert 'piramide_race_pool_deals{preset="classic"}' in text


@pytest.mark.django_db
@pytest.mark.parametrize("address", ["203.0.113.5", "2001:db8::1", "not-an-address", ""])
def test_anyone_else_is_refused_with_a_json_403(address):
    response = Client().get("/metrics", REMOTE_ADDR=address)
    assert response.status_code == 403
    assert response.json()["error"] == "forbidden"


@pytest.mark.django_db
def test_staff_read_the_metrics_from_anywhere_and_other_players_do_not():
    staff, player = make_player("opsstaff", is_staff=True), make_player("opsplayer")
    as_staff, as_player = Client(REMOTE_ADDR="203.0.113.5"), Client(REMOTE_ADDR="203.0.113.5")
    as_staff.force_login(staff)
    as_player.force_login(player)
    assert as_staff.get("/metrics").status_code == 200
    assert as_player.get("/metrics").status_code == 403


@pytest.mark.django_db
def test_the_allow_list_setting_decides(settings):
    import ipaddress

    settings.PIRAMIDE_METRICS_ALLOW_NETWORKS = [ipaddress.ip_network("203.0.113.0/24")]
    assert Client().get("/metrics", REMOTE_ADDR="203.0.113.5").status_code == 200
    assert Client().get("/metrics", REMOTE_ADDR="127.0.0.1").status_code == 403


def test_a_bad_allow_list_stops_the_settings_from_loading():
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "piramide_site.settings.test",
        "PIRAMIDE_METRICS_ALLOW": "127.0.0.1/8,intranet",
    }
    result = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert result.returncode != 0 and "PIRAMIDE_METRICS_ALLOW" in result.stderr


@pytest.mark.django_db
def test_metrics_answer_only_get_and_head():
    assert Client().post("/metrics").status_code == 405


# ----------------------------------------------------------------- read at each scrape


@pytest.mark.django_db
def test_race_pools_are_counted_per_preset_at_each_scrape(settings):
    from races.models import PooledDeal

    settings.RACE_POOL_PRESETS = ["classic", "forty"]
    PooledDeal.objects.create(preset="forty", seed=11, line_length=10)
    PooledDeal.objects.create(preset="forty", seed=12, line_length=10)
    text = Client().get("/metrics").content.decode()
    assert 'piramide_race_pool_deals{preset="forty"} 2.0' in text
    assert 'piramide_race_pool_deals{preset="classic"} 0.0' in text


def test_without_a_broker_there_is_no_queue_depth(settings):
    settings.CELERY_TASK_ALWAYS_EAGER = True
    assert metrics.queue_depth() is None


def test_a_broker_that_does_not_answer_gives_no_queue_depth_rather_than_an_error(settings):
    settings.CELERY_TASK_ALWAYS_EAGER, settings.REDIS_URL = False, "redis://127.0.0.1:1/14"
    settings.CELERY_BROKER_URL = settings.REDIS_URL
    assert metrics.queue_depth() is None


def test_the_queue_depth_is_the_length_of_the_queue_s_lists_in_redis(redis_url, settings, db):
    """A queue of its own, which no worker of the suite takes from: the Redis transport keeps a
    queue as a list of its name, and one more per priority step."""
    import redis

    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.CELERY_TASK_DEFAULT_QUEUE = queue = f"piramide-test-{os.getpid()}-queue"
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    try:
        assert metrics.queue_depth() == 0
        client.lpush(queue, b"one", b"two")
        client.lpush(f"{queue}\x06\x166", b"three")
        assert metrics.queue_depth() == 3
        text = Client().get("/metrics").content.decode()
        assert f'piramide_queue_depth{{queue="{queue}"}} 3.0' in text
    finally:
        client.delete(queue, f"{queue}\x06\x166")


# ----------------------------------------------------------------- several processes


COUNT_A_MOVE = """
from plumbing import metrics
metrics.move_applied("service", "classic", 0.002)
"""

SCRAPE = """
import django
django.setup()
from prometheus_client import generate_latest
from plumbing import metrics
assert metrics.MULTIPROCESS
print(generate_latest(metrics.registry()).decode())
"""


def test_serve_empties_the_multiprocess_dir_of_an_earlier_run(tmp_path, monkeypatch):
    folder = tmp_path / "metrics"
    folder.mkdir()
    (folder / "counter_999999.db").write_bytes(b"stale")
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(folder))
    assert metrics_dir_ready() == folder
    assert not list(folder.glob("*.db"))
    monkeypatch.delenv("PROMETHEUS_MULTIPROC_DIR")
    assert metrics_dir_ready() is None


def test_with_a_multiprocess_dir_a_scrape_sums_every_process(tmp_path):
    env = {
        **os.environ,
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path),
        "DJANGO_SETTINGS_MODULE": "piramide_site.settings.test",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'none.sqlite3'}",
        "REDIS_URL": "",
    }
    for _ in range(2):
        subprocess.run([sys.executable, "-c", COUNT_A_MOVE], cwd=ROOT, env=env, check=True)
    scraped = subprocess.run(
        [sys.executable, "-c", SCRAPE], cwd=ROOT, env=env, check=True, capture_output=True, text=True
    )
    assert 'piramide_moves_total{path="service",preset="classic"} 2.0' in scraped.stdout
    assert 'piramide_move_seconds_count{path="service"} 2.0' in scraped.stdout
