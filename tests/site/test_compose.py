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


def test_the_production_shape_has_its_services(compose):
    assert set(compose["services"]) == {"proxy", "postgres", "redis", *APP_SERVICES}
    assert compose["services"]["proxy"]["image"] == "caddy:2"
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
    """Through piramide_site/serve.py, which hands uvicorn the settings' application and socket
    message limit (--ws-max-size), so neither is written here, in the image or in the Makefile."""
    from piramide_site.serve import uvicorn_arguments

    command = compose["services"]["web"]["command"]
    assert command[:3] == ["python", "-m", "piramide_site.serve"]
    assert not any(arg.startswith("--ws-max-size") for arg in command)
    arguments = uvicorn_arguments(command[3:])
    module, attr = settings.ASGI_APPLICATION.rsplit(".", 1)
    assert arguments[0] == f"{module}:{attr}"
    assert arguments[arguments.index("--ws-max-size") + 1] == str(settings.LIVE_MAX_MESSAGE_BYTES)
    cmd_line = re.search(r"CMD (\[.*\])", (ROOT / "Dockerfile").read_text()).group(1)
    assert json.loads(cmd_line) == command, "the image's default command is the web service's"


def test_make_run_starts_the_server_the_same_way():
    recipe = (ROOT / "Makefile").read_text().split("\nrun:", 1)[1].split("\n\n", 1)[0]
    assert "$(PY) -m piramide_site.serve " in recipe
    assert "uvicorn" not in recipe.replace("piramide_site.serve", "")


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
        " 'layer': getattr(s, 'CHANNEL_LAYERS', None), 'broker': s.CELERY_BROKER_URL,"
        " 'eager': s.CELERY_TASK_ALWAYS_EAGER, 'ranks': s.LEADERBOARD_BACKEND, 'cache': s.CACHES['default']['BACKEND'],"
        " 'debug': s.DEBUG, 'tz': s.PIRAMIDE_TIME_ZONE, 'presets': s.PIRAMIDE_DAILY_PRESETS,"
        " 'hosts': s.ALLOWED_HOSTS, 'exempt': s.SECURE_REDIRECT_EXEMPT, 'ssl': s.SECURE_SSL_REDIRECT,"
        " 'log': s.LOG_FORMAT}))"
    )
    minimal = {"PATH": "/usr/bin:/bin", **env}
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=minimal, capture_output=True, text=True, check=True
    )
    loaded = json.loads(out.stdout.strip().splitlines()[-1])
    assert loaded == {
        "db": "django.db.backends.postgresql",
        "host": "postgres",
        "layer": None,  # no consumer uses a Channels layer (docs/live.md)
        "broker": "redis://redis:6379/0",
        "eager": False,
        "ranks": "redis",
        "cache": "django.core.cache.backends.redis.RedisCache",
        "debug": False,
        "tz": "Europe/Rome",
        "presets": ["classic", "forty"],
        "hosts": ["localhost", "127.0.0.1"],
        "exempt": ["^healthz/$", "^readyz/$", "^metrics$"],
        "ssl": True,
        "log": "json",
    }


def test_production_settings_refuse_to_start_without_a_secret():
    env = {"PATH": "/usr/bin:/bin", "DJANGO_SETTINGS_MODULE": "piramide_site.settings.production"}
    out = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert out.returncode != 0 and "DJANGO_SECRET_KEY" in out.stderr


def caddyfile() -> str:
    """ops/Caddyfile without its comments."""
    return re.sub(r"(?m)^\s*#.*\n|\s+#.*$", "", (ROOT / "ops" / "Caddyfile").read_text())


def proxy_address(compose) -> str:
    return compose["services"]["proxy"]["networks"]["edge"]["ipv4_address"]


def test_only_the_proxy_is_published_and_only_it_shares_a_network_with_web(compose):
    import ipaddress

    services = compose["services"]
    published = {name for name, service in services.items() if service.get("ports")}
    assert published == {"proxy"}
    assert {interpolate(str(port)) for port in services["proxy"]["ports"]} == {"80:80", "443:443", "443:443/udp"}
    on_edge = {name for name, service in services.items() if "edge" in (service.get("networks") or [])}
    assert on_edge == {"proxy", "web"}
    assert set(services["web"]["networks"]) == {"default", "edge"}, "web still reaches postgres and redis"
    subnet = ipaddress.ip_network(compose["networks"]["edge"]["ipam"]["config"][0]["subnet"])
    assert ipaddress.ip_address(proxy_address(compose)) in subnet


def test_web_believes_forwarded_addresses_from_the_proxy_alone(compose):
    web = compose["services"]["web"]
    assert "--proxy-headers" in web["command"]
    trusted = interpolate(str(web["environment"]["FORWARDED_ALLOW_IPS"]))
    assert trusted == proxy_address(compose), "the proxy's fixed address, nothing wider and never *"
    # The image alone trusts only itself.
    assert "FORWARDED_ALLOW_IPS=127.0.0.1" in (ROOT / "Dockerfile").read_text()
    # The other services do not serve HTTP, and none overrides the web's choice.
    for name in APP_SERVICES - {"web"}:
        assert "FORWARDED_ALLOW_IPS" not in compose["services"][name]["environment"], name


def test_the_proxy_serves_the_caddyfile_here_in_front_of_web(compose):
    proxy = compose["services"]["proxy"]
    assert "./ops/Caddyfile:/etc/caddy/Caddyfile:ro" in proxy["volumes"]
    assert {"caddy-data", "caddy-config"} <= set(compose["volumes"]), "certificates outlive the container"
    assert proxy["depends_on"]["web"]["condition"] == "service_healthy"
    config = caddyfile()
    # TLS: the site's public name from SITE_ADDRESS, with Caddy's automatic HTTPS
    assert re.search(r"^\{\$SITE_ADDRESS:localhost\} \{$", config, re.MULTILINE)
    assert interpolate(proxy["environment"]["SITE_ADDRESS"]) == "localhost"
    assert "tls internal" not in config and "auto_https off" not in config
    assert re.search(r"^\treverse_proxy web:8000$", config, re.MULTILINE)
    # Caddy then replaces the client's X-Forwarded-For with the peer's address (run for real in
    # tests/hardening/test_caddy_proxy.py), unless told to trust someone
    assert "trusted_proxies" not in config and "X-Forwarded-For" not in config


def test_the_proxy_caps_bodies_at_the_application_s_own_limit(compose):
    proxy_env = compose["services"]["proxy"]["environment"]
    web_env = compose["services"]["web"]["environment"]
    assert proxy_env["DJANGO_HTTP_MAX_BODY_BYTES"] == web_env["DJANGO_HTTP_MAX_BODY_BYTES"], "one variable for both"
    assert int(interpolate(web_env["DJANGO_HTTP_MAX_BODY_BYTES"])) == settings.HTTP_MAX_BODY_BYTES
    cap = re.search(r"request_body \{\s*max_size \{\$DJANGO_HTTP_MAX_BODY_BYTES:(\d+)\}\s*\}", caddyfile())
    assert cap and int(cap.group(1)) == settings.HTTP_MAX_BODY_BYTES


def client_address_seen(
    trusted: str | None, tmp_path: Path, source: str = "127.0.0.2", forwarded: str = "203.0.113.7"
) -> str:
    """Start uvicorn as the web service starts it, with FORWARDED_ALLOW_IPS as given, and ask it from
    ``source`` (not its own address) with an X-Forwarded-For header: which client does the app see?"""
    import os
    import socket
    import time

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {key: value for key, value in os.environ.items() if key != "FORWARDED_ALLOW_IPS"}
    if trusted is not None:
        env["FORWARDED_ALLOW_IPS"] = trusted
    uvicorn = str(Path(sys.executable).with_name("uvicorn"))
    log = (tmp_path / f"uvicorn-{port}.log").open("w")
    server = subprocess.Popen(
        [
            uvicorn,
            "tests.site.echo_asgi:app",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--proxy-headers",
            "--lifespan",
            "off",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=2, source_address=(source, 0)) as conn:
                    conn.sendall(
                        b"GET / HTTP/1.1\r\nHost: piramide.example.org\r\nX-Forwarded-For: "
                        + forwarded.encode()
                        + b"\r\nConnection: close\r\n\r\n"
                    )
                    answer = b""
                    while chunk := conn.recv(4096):
                        answer += chunk
                return answer.decode().split("\r\n\r\n", 1)[1]
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise AssertionError((tmp_path / f"uvicorn-{port}.log").read_text()) from None
                time.sleep(0.1)
    finally:
        server.terminate()
        server.wait(timeout=10)
        log.close()


def test_uvicorn_takes_the_client_address_from_the_proxy_as_the_compose_file_says(compose, tmp_path):
    """The compose setting with the proxy at 127.0.0.3 instead of its compose address."""
    trusted = interpolate(compose["services"]["web"]["environment"]["FORWARDED_ALLOW_IPS"])
    trusted = trusted.replace(proxy_address(compose), "127.0.0.3")
    assert trusted == "127.0.0.3"
    # From the proxy, the address it forwards (the proxy overwrites whatever the client wrote).
    assert client_address_seen(trusted, tmp_path, source="127.0.0.3") == "203.0.113.7"
    # Even a proxy that appended to a forged header would not let the forgery through: uvicorn takes
    # the rightmost address it does not trust.
    assert (
        client_address_seen(trusted, tmp_path, source="127.0.0.3", forwarded="198.51.100.1, 203.0.113.7")
        == "203.0.113.7"
    )
    # From anywhere else, the header is ignored.
    assert client_address_seen(trusted, tmp_path, source="127.0.0.2") == "127.0.0.2"
    # Without it (uvicorn's default, and the image's), a forwarded address from elsewhere is ignored.
    assert client_address_seen(None, tmp_path) == "127.0.0.2"
    assert client_address_seen("127.0.0.1", tmp_path) == "127.0.0.2"
    # What the compose file used to say: the client's leftmost entry wins.
    assert client_address_seen("*", tmp_path, forwarded="198.51.100.1, 203.0.113.7") == "198.51.100.1"


def test_web_keeps_its_metrics_where_every_server_process_writes_them(compose):
    """Several uvicorn processes may serve: prometheus_client's multiprocess mode sums them."""
    assert compose["services"]["web"]["environment"]["PROMETHEUS_MULTIPROC_DIR"].startswith("/tmp/")
    assert "PROMETHEUS_MULTIPROC_DIR" not in compose["x-app"]["environment"], "the worker and beat are not scraped"
