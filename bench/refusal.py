"""What a refused request costs the server: the site's refusal from the event loop against the least
any application can do under the same uvicorn (issue #40).

    .venv/bin/python bench/refusal.py [--requests 6000] [--wave 120] [--repeat 3]

Starts two uvicorn processes as production starts them (uvloop, httptools, no access log): one
serving the site's ASGI application (``piramide_site.asgi``, local settings) with one session
cookie already at its cap of requests in flight (``plumbing/inflight.py``), so every request
carrying it is refused 429 on the event loop; and one serving ``bare``, an application that
answers 429 to everything and does nothing else.  Each round sends ``--requests`` requests with
that cookie to each server in turn, in waves of ``--wave`` new connections at once (as
``bench/abuse.py``'s attacker does), and reads the server process's CPU time from /proc before and
after.  Printed: the server CPU per request of each, per round, their medians and the ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
COOKIE = "bench-refused"
BODY = b'{"error": "throttled"}'


async def bare(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Answers 429 to every request, and does nothing else."""
    if scope["type"] != "http":
        return
    await send(
        {
            "type": "http.response.start",
            "status": 429,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(BODY)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": BODY})


def site() -> Any:
    """The site's ASGI application, with ``COOKIE`` at its cap of requests in flight."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "piramide_site.settings.local")
    from piramide_site.asgi import application

    limiter = application.app.application_mapping["http"]
    limiter.inflight[f"session:{COOKIE}"] = 1 << 30
    return application


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def one(port: int) -> int:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        f"GET /api/games/1/review/ HTTP/1.1\r\nHost: localhost\r\nCookie: sessionid={COOKIE}\r\n"
        "Connection: close\r\n\r\n".encode()
    )
    await writer.drain()
    answer = await reader.read()
    writer.close()
    return int(answer.split(b" ", 2)[1])


async def fire(port: int, pid: int, requests: int, wave: int) -> float:
    """Server CPU seconds per request, over ``requests`` requests in waves of ``wave``."""
    before = cpu_seconds(pid)
    for _ in range(requests // wave):
        statuses = await asyncio.gather(*[one(port) for _ in range(wave)])
        if set(statuses) != {429}:
            raise RuntimeError(f"expected only 429s, got {sorted(set(statuses))}")
    return (cpu_seconds(pid) - before) / (requests // wave * wave)


def start(target: str, port: int, factory: bool = False, access_log: bool = False) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DJANGO_LOG_LEVEL": "WARNING"}
    command = [sys.executable, "-m", "uvicorn", target, "--port", str(port), "--loop", "uvloop"]
    command += ["--factory"] if factory else []
    command += ["--http", "httptools", "--lifespan", "off"]
    command += ["--log-level", "info"] if access_log else ["--no-access-log", "--log-level", "warning"]
    return subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


async def wait_listening(port: int) -> None:
    for _ in range(300):
        try:
            await one(port)
            return
        except OSError:
            await asyncio.sleep(0.1)
    raise RuntimeError(f"nothing listens on {port}")


async def main(args: argparse.Namespace) -> None:
    servers = {
        "site": start("bench.refusal:site", args.port, factory=True, access_log=args.access_log),
        "bare": start("bench.refusal:bare", args.port + 1),
    }
    try:
        ports = {"site": args.port, "bare": args.port + 1}
        for port in ports.values():
            await wait_listening(port)
        for name, port in ports.items():  # warm both: the first requests load code
            await fire(port, servers[name].pid, args.wave * 4, args.wave)
        figures: dict[str, list[float]] = {"site": [], "bare": []}
        print(f"{args.requests} requests a round, in waves of {args.wave} new connections; server CPU per request")
        for number in range(1, args.repeat + 1):
            for name, port in ports.items():
                figures[name].append(await fire(port, servers[name].pid, args.requests, args.wave))
            print(f"round {number}: site {figures['site'][-1] * 1000:.3f} ms, bare {figures['bare'][-1] * 1000:.3f} ms")
        site_median, bare_median = statistics.median(figures["site"]), statistics.median(figures["bare"])
        print(
            f"median: site {site_median * 1000:.3f} ms, bare {bare_median * 1000:.3f} ms, "
            f"ratio {site_median / bare_median:.2f}"
        )
    finally:
        for process in servers.values():
            process.terminate()
            process.wait(timeout=10)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("--requests", type=int, default=6000)
    parser.add_argument("--wave", type=int, default=120)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--port", type=int, default=8931)
    parser.add_argument(
        "--access-log", action="store_true", help="the site's server writes uvicorn's access log, as production's does"
    )
    started = time.perf_counter()
    asyncio.run(main(parser.parse_args()))
    print(f"time: {time.perf_counter() - started:.1f} s")
