"""HTTP under ASGI: Django's own handlers against the site's (plumbing/http.py), side by side in one process.

    .venv/bin/python bench/handler.py [--requests 800] [--blocks 7] [--concurrency 8]

Serves the same requests through three ASGI handlers, in turn, block after block, in one process
and one event loop (no network: the ASGI messages are handed over directly):

- ``django``: Django's ``ASGIHandler`` as shipped (async middleware chain, a thread per request);
- ``django-sync-chain``: the same handler with the chain built sync and entered once;
- ``site``: ``SyncChainASGIHandler``, a request's sync work in one hop to a kept thread.

Requests: the CSRF API (a DRF view: authentication, throttles, JSON) and a 404 page (a template).
Printed per handler and request: the median, lowest and highest CPU milliseconds per request over
the blocks (``time.process_time`` of the process, so every thread's work counts), the median wall
milliseconds, the status, and each handler's CPU against Django's.  The figures are printed, never
asserted.  It runs on the embedded default (SQLite, no Redis) with the throttles raised.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "piramide_site.settings.local")
for scope in ("ANON", "USER", "AUTH"):
    os.environ.setdefault(f"THROTTLE_{scope}", "100000000/min")

PATHS = ["/api/auth/csrf/", "/no-such-page/"]


def handlers() -> dict[str, Any]:
    import logging

    import django

    django.setup(set_prefix=False)
    logging.disable(logging.WARNING)  # the 404s and their log lines
    from django.core.handlers.asgi import ASGIHandler

    from plumbing.http import SyncChainASGIHandler

    class SyncChain(ASGIHandler):
        def load_middleware(self, is_async: bool = False) -> None:
            super().load_middleware(is_async=False)
            self._middleware_chain = self.adapt_method_mode(True, self._middleware_chain, False)

    return {"django": ASGIHandler(), "django-sync-chain": SyncChain(), "site": SyncChainASGIHandler()}


async def request(app: Any, path: str) -> int:
    scope = {
        "type": "http",
        "http_version": "1.1",
        "method": "GET",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "scheme": "http",
        "headers": [(b"host", b"127.0.0.1")],
        "client": ("127.0.0.1", 5000),
        "server": ("127.0.0.1", 80),
    }
    body_sent = False
    status: list[int] = []

    async def receive() -> dict[str, Any]:
        nonlocal body_sent
        if not body_sent:
            body_sent = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await asyncio.sleep(3600)  # no disconnect: the client waits for the response
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            status.append(message["status"])

    await app(scope, receive, send)
    return status[0]


async def block(app: Any, path: str, count: int, concurrency: int) -> tuple[float, float, int]:
    cpu, wall = time.process_time(), time.perf_counter()
    statuses: list[int] = []
    for _ in range(count // concurrency):
        statuses += await asyncio.gather(*[request(app, path) for _ in range(concurrency)])
    return (time.process_time() - cpu) / count * 1000, (time.perf_counter() - wall) / count * 1000, statuses[0]


async def main_async(args: argparse.Namespace) -> None:
    apps = handlers()
    for path in PATHS:
        runs: dict[str, list[tuple[float, float, int]]] = {name: [] for name in apps}
        for app in apps.values():
            await block(app, path, 100, args.concurrency)  # warm up
        for _ in range(args.blocks):
            for name, app in apps.items():
                runs[name].append(await block(app, path, args.requests, args.concurrency))
        base = statistics.median(cpu for cpu, _, _ in runs["django"])
        print(f"GET {path}")
        for name, rows in runs.items():
            cpu = sorted(row[0] for row in rows)
            wall = statistics.median(row[1] for row in rows)
            print(
                f"  {name:18s} CPU/request median {statistics.median(cpu):.3f} ms (low {cpu[0]:.3f}, high {cpu[-1]:.3f}) · "
                f"wall median {wall:.3f} ms · status {rows[0][2]} · {statistics.median(cpu) / base:.2f}x django's CPU"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=800, help="requests per block")
    parser.add_argument("--blocks", type=int, default=7)
    parser.add_argument("--concurrency", type=int, default=8, help="requests in flight at once")
    args = parser.parse_args()
    print(
        f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; "
        f"{args.blocks} blocks of {args.requests} requests, {args.concurrency} at once"
    )
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
