from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


def forget_limits() -> None:
    """Every test starts with empty counters, in memory and (when configured) in Redis."""
    from django.conf import settings

    from plumbing import limits

    limits.memory.clear()
    if settings.REDIS_URL:
        import redis

        try:
            client = redis.Redis.from_url(settings.REDIS_URL)
            keys = list(client.scan_iter(match=f"{settings.LIMITS_KEY_PREFIX}:*", count=1000))
            if keys:
                client.delete(*keys)
        except redis.RedisError:
            pass


@pytest.fixture(autouse=True)
def _fresh_limits(settings: Any) -> Iterator[None]:
    forget_limits()
    yield
    forget_limits()
