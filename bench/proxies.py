"""The proxies of docker-compose.yml, run from Debian's packages on loopback for benches and tests.

``caddy_start`` runs ops/Caddyfile's site block over plain HTTP; ``gate_start`` runs the nginx gate
(ops/nginx/nginx.conf and gate.conf.template, filled in as the official image fills it in) in front
of upstreams.
Each returns the process and its port once ``/healthz/`` answers through it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from bench.processes import answering, free_ports

ROOT = Path(__file__).resolve().parents[1]
GATE_TEMPLATE = ROOT / "ops" / "nginx" / "gate.conf.template"

#: ops/Caddyfile's site block over plain HTTP on loopback: TLS would cost the clients, which share
#: this machine with the servers, more than it tells; what matters is what the proxy does to a
#: flood of connections (it keeps its own to the servers open and reuses them).
CADDYFILE = """{
	admin off
	auto_https off
}
http://127.0.0.1:%(port)s {
	request_body {
		max_size 65536
	}
	reverse_proxy %(upstreams)s
}
"""

GATE_MAIN = ROOT / "ops" / "nginx" / "nginx.conf"


def gate_main_config(folder: Path) -> str:
    """ops/nginx/nginx.conf with every path in ``folder`` and the workers run as whoever runs
    nginx (the image's ``nginx`` user is not Debian's); each line replaced must be there."""
    text = GATE_MAIN.read_text()
    for old, new in {
        "user  nginx;": "user  root;",
        "/var/log/nginx/error.log": f"{folder}/nginx-error.log",
        "/var/run/nginx.pid": f"{folder}/nginx.pid",
        "/var/log/nginx/access.log": f"{folder}/nginx-access.log",
        "include /etc/nginx/conf.d/gate.conf;": (
            f"include {folder}/gate.conf;\n"
            + "".join(
                f"    {kind}_temp_path {folder}/{kind};\n"
                for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
            )
        ),
    }.items():
        if old not in text:
            raise ValueError(f"ops/nginx/nginx.conf no longer says {old!r}")
        text = text.replace(old, new)
    return text


#: The gate's variables as docker-compose.yml sets them, but for where it listens and what it
#: proxies to.
GATE_DEFAULTS = {
    "GATE_TRUSTED_PROXY": "127.0.0.1",
    "GATE_SOLVER_RATE": "2r/s",
    "GATE_SOLVER_BURST": "10",
    "GATE_RACE_RATE": "1r/s",
    "GATE_RACE_BURST": "5",
    "DJANGO_HTTP_MAX_BODY_BYTES": "65536",
}


def template_filled(text: str, values: dict[str, str]) -> str:
    """``text`` with each ``${NAME}`` replaced, as the nginx image's envsubst step does; every one
    must be given (envsubst would leave an unknown one for nginx to refuse)."""
    missing = sorted(set(re.findall(r"\$\{(\w+)\}", text)) - set(values))
    if missing:
        raise ValueError(f"no value for {', '.join(missing)}")
    return re.sub(r"\$\{(\w+)\}", lambda match: values[match.group(1)], text)


def started(process: subprocess.Popen[bytes], port: int, log: Path, name: str) -> None:
    """Returns once ``/healthz/`` answers through the proxy; kills it and says why if it never does."""
    try:
        answering(process, f"http://127.0.0.1:{port}/healthz/", timeout=30, log=log)
    except RuntimeError as error:
        process.kill()
        raise SystemExit(f"{name} did not serve: {error}") from None


def caddy_start(upstreams: list[str], log_dir: Path) -> tuple[subprocess.Popen[bytes], int]:
    """Debian's Caddy in front of ``upstreams`` (``host:port``)."""
    caddy = shutil.which("caddy")
    if caddy is None:
        raise SystemExit("needs caddy (apt-get install caddy)")
    (port,) = free_ports(1)
    log_dir.mkdir(parents=True, exist_ok=True)
    config = log_dir / f"Caddyfile-{port}"
    config.write_text(CADDYFILE % {"port": port, "upstreams": " ".join(upstreams)})
    env = {
        **os.environ,
        "HOME": str(log_dir),
        "XDG_DATA_HOME": str(log_dir / "caddy-data"),
        "XDG_CONFIG_HOME": str(log_dir / "caddy-config"),
    }
    log = log_dir / f"caddy-{port}.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [caddy, "run", "--config", str(config), "--adapter", "caddyfile"], env=env, stdout=out, stderr=out
        )
    started(process, port, log, "caddy")
    return process, port


def gate_start(upstream: str, log_dir: Path, **values: str) -> tuple[subprocess.Popen[bytes], int]:
    """Debian's nginx running the gate in front of ``upstream`` (``host:port``), its variables as
    in GATE_DEFAULTS unless given."""
    nginx = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
    if nginx is None:
        raise SystemExit("needs nginx (apt-get install nginx)")
    (port,) = free_ports(1)
    folder = log_dir / f"nginx-{port}"
    folder.mkdir(parents=True, exist_ok=True)
    filled = {**GATE_DEFAULTS, "GATE_UPSTREAM": upstream, "GATE_LISTEN": f"127.0.0.1:{port}", **values}
    (folder / "gate.conf").write_text(template_filled(GATE_TEMPLATE.read_text(), filled))
    (folder / "nginx.conf").write_text(gate_main_config(folder))
    with (folder / "nginx.out").open("wb") as out:
        process = subprocess.Popen(
            [nginx, "-p", str(folder), "-c", str(folder / "nginx.conf"), "-g", "daemon off;"],
            stdout=out,
            stderr=out,
        )
    started(process, port, folder / "nginx.out", "nginx")
    return process, port
