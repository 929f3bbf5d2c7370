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
    assert set(compose["services"]) == {"proxy", "gate", "postgres", "redis", *APP_SERVICES}
    assert compose["services"]["proxy"]["image"] == "caddy:2"
    assert compose["services"]["gate"]["image"].startswith("nginx:")
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
    for name in ("postgres", "redis", "web", "worker", "beat", "gate"):
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


def address_on(compose, service: str, network: str) -> str:
    return compose["services"][service]["networks"][network]["ipv4_address"]


def members(compose, network: str) -> set[str]:
    return {name for name, service in compose["services"].items() if network in (service.get("networks") or [])}


def test_only_the_proxy_is_published_and_only_the_gate_shares_a_network_with_web(compose):
    import ipaddress

    services = compose["services"]
    published = {name for name, service in services.items() if service.get("ports")}
    assert published == {"proxy"}
    assert {interpolate(str(port)) for port in services["proxy"]["ports"]} == {"80:80", "443:443", "443:443/udp"}
    assert members(compose, "edge") == {"proxy", "gate"}
    assert members(compose, "inner") == {"gate", "web"}
    assert set(services["web"]["networks"]) == {"default", "inner"}, "web still reaches postgres and redis"
    for service, network in (("proxy", "edge"), ("gate", "edge"), ("gate", "inner")):
        subnet = ipaddress.ip_network(compose["networks"][network]["ipam"]["config"][0]["subnet"])
        assert ipaddress.ip_address(address_on(compose, service, network)) in subnet, (service, network)


def test_web_believes_forwarded_addresses_from_the_gate_alone_and_the_gate_from_the_proxy_alone(compose):
    web = compose["services"]["web"]
    assert "--proxy-headers" in web["command"]
    trusted = interpolate(str(web["environment"]["FORWARDED_ALLOW_IPS"]))
    assert trusted == address_on(compose, "gate", "inner"), "the gate's fixed address, nothing wider and never *"
    gate = compose["services"]["gate"]["environment"]
    assert gate["GATE_TRUSTED_PROXY"] == address_on(compose, "proxy", "edge")
    # web by its fixed address: nginx would resolve a name once, and miss a recreated web's new one
    assert gate["GATE_UPSTREAM"] == f"{address_on(compose, 'web', 'inner')}:8000" and gate["GATE_LISTEN"] == "8080"
    # The image alone trusts only itself.
    assert "FORWARDED_ALLOW_IPS=127.0.0.1" in (ROOT / "Dockerfile").read_text()
    # The other services do not serve HTTP, and none overrides the web's choice.
    for name in APP_SERVICES - {"web"}:
        assert "FORWARDED_ALLOW_IPS" not in compose["services"][name]["environment"], name


def gate_filled(compose) -> str:
    """ops/nginx/gate.conf.template as the nginx image fills it in from the gate's environment."""
    from bench.proxies import template_filled

    gate = compose["services"]["gate"]
    assert gate["volumes"] == [
        "./ops/nginx/nginx.conf:/etc/nginx/nginx.conf:ro",
        "./ops/nginx/gate.conf.template:/etc/nginx/templates/gate.conf.template:ro",
    ]
    values = {name: interpolate(str(value)) for name, value in gate["environment"].items()}
    return template_filled((ROOT / "ops" / "nginx" / "gate.conf.template").read_text(), values)


def test_the_gate_s_environment_fills_in_every_variable_of_its_template_and_nginx_accepts_it(compose, tmp_path):
    import shutil

    from bench.proxies import gate_main_config
    from tests.conftest import missing

    filled = gate_filled(compose)  # a variable without a value fails here
    assert "listen 8080;" in filled and "server 172.30.1.3:8000;" in filled
    assert "set_real_ip_from 172.30.0.2;" in filled
    assert f"client_max_body_size {settings.HTTP_MAX_BODY_BYTES};" in filled, "the application's own limit"
    # the gate lets an idle connection to web go before uvicorn does, never reusing one uvicorn is closing
    import uvicorn

    upstream = re.search(r"upstream piramide_web \{(.*?)\}", filled, re.S).group(1)
    idle = int(re.search(r"keepalive_timeout (\d+)s;", upstream).group(1))
    assert idle < uvicorn.Config("x:y").timeout_keep_alive
    assert "--timeout-keep-alive" not in compose["services"]["web"]["command"]
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    if not Path(nginx).exists():
        missing("needs nginx (Debian: apt-get install nginx) to check ops/nginx/gate.conf.template")
    (tmp_path / "gate.conf").write_text(filled)
    main = gate_main_config(tmp_path)  # ops/nginx/nginx.conf, its paths here
    # room for every player's socket, each two connections (client and web)
    assert int(re.search(r"worker_connections\s+(\d+);", main).group(1)) >= 8192
    (tmp_path / "nginx.conf").write_text(main)
    checked = subprocess.run(
        [nginx, "-t", "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf")], capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stderr


def test_the_gate_s_health_check_asks_web_s_health_through_it(compose, tmp_path):
    """The compose health check, run with bash against a real gate in front of a server that
    answers /healthz/ (and against a gate whose upstream is gone)."""
    import shutil

    from bench.proxies import gate_start
    from tests.conftest import missing
    from tests.uvicorn_server import free_port

    if shutil.which("nginx") is None and not Path("/usr/sbin/nginx").exists():
        missing("needs nginx (Debian: apt-get install nginx) to run the gate")
    command = compose["services"]["gate"]["healthcheck"]["test"]
    assert command[:3] == ["CMD", "bash", "-c"] and "/dev/tcp/127.0.0.1/8080" in command[3]
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", str(tmp_path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    (tmp_path / "healthz").mkdir()
    (tmp_path / "healthz" / "index.html").write_text("ok")
    try:
        gate, gate_port = gate_start(f"127.0.0.1:{port}", tmp_path)
        try:
            check = command[3].replace("/8080", f"/{gate_port}")
            assert subprocess.run(["bash", "-c", check], timeout=10).returncode == 0
            server.terminate()
            server.wait(timeout=10)
            assert subprocess.run(["bash", "-c", check], timeout=10).returncode != 0, "web gone: a 502"
        finally:
            gate.terminate()
            gate.wait(timeout=10)
    finally:
        server.kill()
        server.wait(timeout=10)


def test_the_proxy_serves_the_caddyfile_here_in_front_of_web(compose):
    proxy = compose["services"]["proxy"]
    assert "./ops/Caddyfile:/etc/caddy/Caddyfile:ro" in proxy["volumes"]
    assert {"caddy-data", "caddy-config"} <= set(compose["volumes"]), "certificates outlive the container"
    assert proxy["depends_on"]["gate"]["condition"] == "service_healthy"
    assert compose["services"]["gate"]["depends_on"]["web"]["condition"] == "service_healthy"
    config = caddyfile()
    # TLS: the site's public name from SITE_ADDRESS, with Caddy's automatic HTTPS
    assert re.search(r"^\{\$SITE_ADDRESS:localhost\} \{$", config, re.MULTILINE)
    assert interpolate(proxy["environment"]["SITE_ADDRESS"]) == "localhost"
    assert "tls internal" not in config and "auto_https off" not in config
    assert re.search(r"^\treverse_proxy gate:8080$", config, re.MULTILINE)
    # Caddy then replaces the client's X-Forwarded-For with the peer's address (run for real in
    # tests/hardening/test_caddy_proxy.py), unless told to trust someone
    assert "trusted_proxies" not in config and "X-Forwarded-For" not in config


def test_the_proxy_and_the_gate_cap_bodies_at_the_application_s_own_limit(compose):
    proxy_env = compose["services"]["proxy"]["environment"]
    web_env = compose["services"]["web"]["environment"]
    assert proxy_env["DJANGO_HTTP_MAX_BODY_BYTES"] == web_env["DJANGO_HTTP_MAX_BODY_BYTES"], "one variable for both"
    gate_env = compose["services"]["gate"]["environment"]
    assert gate_env["DJANGO_HTTP_MAX_BODY_BYTES"] == web_env["DJANGO_HTTP_MAX_BODY_BYTES"], "and for the gate"
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
    """The compose setting with the gate at 127.0.0.3 instead of its compose address."""
    trusted = interpolate(compose["services"]["web"]["environment"]["FORWARDED_ALLOW_IPS"])
    trusted = trusted.replace(address_on(compose, "gate", "inner"), "127.0.0.3")
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
