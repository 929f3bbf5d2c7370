"""Prometheus metrics and their ``/metrics`` endpoint (docs/operations.md, *Health and metrics*).

Moves applied and their server-side time, solver searches, open sockets, and, read at each scrape,
the Celery queue's length and the race pools' sizes.  With ``PROMETHEUS_MULTIPROC_DIR`` set, every
server process writes its values there and a scrape sums them (prometheus_client's multiprocess
mode); otherwise the process's own registry answers.  Only staff, or an address in
``PIRAMIDE_METRICS_ALLOW``, may read them.
"""

from __future__ import annotations

import atexit
import ipaddress
import os
from collections.abc import Callable, Iterator
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

MULTIPROCESS = bool(os.environ.get("PROMETHEUS_MULTIPROC_DIR"))

MOVES = Counter("piramide_moves", "Moves applied, by write path and preset.", ["path", "preset"])
MOVE_SECONDS = Histogram(
    "piramide_move_seconds",
    "Server-side time to apply one move, by write path.",
    ["path"],
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
)
SOLVER_SECONDS = Histogram(
    "piramide_solver_seconds",
    "Time of one solver search, its wait for a solver process included, by kind.",
    ["kind"],
    buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 20.0, 40.0, 80.0),
)
OPEN_SOCKETS = Gauge(
    "piramide_open_sockets", "Live sockets open, by consumer.", ["consumer"], multiprocess_mode="livesum"
)

_move_children: dict[tuple[str, str], tuple[Any, Any]] = {}


def move_applied(path: str, preset: str, seconds: float) -> None:
    """One move written (``path``: ``service``, the threaded service; ``loop``, the event loop's)."""
    children = _move_children.get((path, preset))
    if children is None:
        children = _move_children[(path, preset)] = (MOVES.labels(path, preset), MOVE_SECONDS.labels(path))
    children[0].inc()
    children[1].observe(seconds)


def solver_searched(kind: str, seconds: float) -> None:
    SOLVER_SECONDS.labels(kind).observe(seconds)


if MULTIPROCESS:
    from prometheus_client import multiprocess

    # this process's live gauges stop counting when it ends (a killed one keeps them until the
    # directory is emptied, as piramide_site/serve.py does at start)
    atexit.register(multiprocess.mark_process_dead, os.getpid())


# ----------------------------------------------------------------- read at each scrape


#: Gauges read at each scrape, added by the apps that own what they count (races: its pools), so
#: this module imports no app: each yields its metric families, or raises while its store is down.
state_sources: list[Callable[[], Iterator[GaugeMetricFamily]]] = []


class StateCollector(Collector):
    """What is not counted as it happens but read when asked: the queue, and ``state_sources``."""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        depth = queue_depth()
        if depth is not None:
            family = GaugeMetricFamily(
                "piramide_queue_depth", "Celery tasks waiting in the broker, by queue.", labels=["queue"]
            )
            family.add_metric([getattr(settings, "CELERY_TASK_DEFAULT_QUEUE", "celery")], depth)
            yield family
        for source in state_sources:
            try:
                families = list(source())
            except Exception:  # the database is down: /readyz/ says so; the other metrics still answer
                continue
            yield from families


def queue_depth() -> int | None:
    """The length of Celery's default queue in Redis; None without a broker (eager tasks) or
    when it does not answer."""
    if settings.CELERY_TASK_ALWAYS_EAGER or not settings.REDIS_URL:
        return None
    import redis

    client = redis.Redis.from_url(settings.CELERY_BROKER_URL, socket_timeout=1.0, socket_connect_timeout=1.0)
    try:
        # the Redis transport keeps a queue as a list of that name (and one per priority step)
        queue = getattr(settings, "CELERY_TASK_DEFAULT_QUEUE", "celery")
        names = [queue, *(f"{queue}\x06\x16{step}" for step in (3, 6, 9))]
        return sum(int(client.llen(name)) for name in names)
    except redis.RedisError:
        return None
    finally:
        client.close()


_state = StateCollector()
if not MULTIPROCESS:
    REGISTRY.register(_state)


def registry() -> CollectorRegistry:
    if not MULTIPROCESS:
        return REGISTRY
    from prometheus_client import multiprocess

    scrape = CollectorRegistry()
    multiprocess.MultiProcessCollector(scrape)
    scrape.register(_state)
    return scrape


# ----------------------------------------------------------------- the endpoint


def may_read(request: HttpRequest) -> bool:
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated and user.is_staff:
        return True
    try:
        address = ipaddress.ip_address(request.META.get("REMOTE_ADDR", ""))
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        address = address.ipv4_mapped
    return any(address in network for network in settings.PIRAMIDE_METRICS_ALLOW_NETWORKS)


def metrics_view(request: HttpRequest) -> HttpResponse:
    from plumbing.health import read_only

    refused = read_only(request)
    if refused is not None:
        return refused
    if not may_read(request):
        return JsonResponse(
            {"error": "forbidden", "message": "metrics are for staff and the addresses of PIRAMIDE_METRICS_ALLOW"},
            status=403,
        )
    response = HttpResponse(generate_latest(registry()), content_type=CONTENT_TYPE_LATEST)
    response["Cache-Control"] = "no-store"
    return response
