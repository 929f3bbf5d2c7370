"""One Redis connection pool per process for Django's cache, whatever the thread.

Django keeps a cache object per thread, and its Redis backend a connection pool per cache
object; under ASGI every HTTP request runs on a thread of its own, so each request opened a new
Redis connection (and its handshake) for the throttles' cache reads, and dropped it.  This pool
class hands every cache object of the process the same pool for the same URL and options
(redis-py's pools are thread-safe, and start afresh in a forked child).
"""

from __future__ import annotations

import threading
from typing import Any

import redis

_pools: dict[tuple[str, tuple[tuple[str, str], ...]], redis.ConnectionPool] = {}
_lock = threading.Lock()


class SharedConnectionPool(redis.ConnectionPool):
    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> Any:
        key = (url, tuple(sorted((name, repr(value)) for name, value in kwargs.items())))
        with _lock:
            pool = _pools.get(key)
            if pool is None:
                pool = _pools[key] = redis.ConnectionPool.from_url(url, **kwargs)
        return pool
