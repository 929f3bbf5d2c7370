"""Django's cache on Redis shares one connection pool per process, whatever the thread (each
ASGI request runs on a thread of its own, with a cache object of its own)."""

from __future__ import annotations

import threading

from django.core.cache import caches


def test_cache_objects_of_different_threads_share_one_pool_and_its_connections(redis_url):
    seen = []

    def in_a_request_thread() -> None:
        cache = caches["default"]
        cache.set("piramide-test:pool", "1", 5)
        assert cache.get("piramide-test:pool") == "1"
        seen.append((cache, cache._cache._get_connection_pool(True)))

    def connections() -> int:
        pool = seen[0][1]
        return len(pool._available_connections) + len(pool._in_use_connections)

    def run() -> None:
        thread = threading.Thread(target=in_a_request_thread)
        thread.start()
        thread.join()

    run()
    opened = connections()
    for _ in range(4):
        run()
    assert len({id(cache) for cache, _ in seen}) == 5, "Django gives each thread its own cache object"
    assert len({id(pool) for _, pool in seen}) == 1
    assert connections() == opened, "the threads reused the pool's connections, one after the other"
