"""A socket's database calls run on the loop's thread pool, each thread keeping its connection
``LIVE_DB_CONN_MAX_AGE`` seconds whatever ``CONN_MAX_AGE`` says (plumbing/db_calls.py)."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from django.db import connection, connections

from plumbing.db_calls import db_call

pytestmark = pytest.mark.django_db(transaction=True)


def open_before_the_call() -> bool:
    """Whether this thread's connection was still open as the call began; it is open after."""
    was_open = connection.connection is not None
    connection.ensure_connection()
    return was_open


def open_at_three_calls() -> list[bool]:
    """Three calls on one pool thread: whether each found the connection the last one left."""

    async def main() -> list[bool]:
        loop = asyncio.get_running_loop()
        pool = ThreadPoolExecutor(max_workers=1)
        loop.set_default_executor(pool)
        try:
            return [await db_call(open_before_the_call)() for _ in range(3)]
        finally:
            await loop.run_in_executor(pool, connections.close_all)

    return asyncio.run(main())


def test_a_pool_thread_keeps_its_connection_from_call_to_call(settings: Any) -> None:
    assert connection.settings_dict["CONN_MAX_AGE"] == 0, "the test needs Django to close connections at once"
    settings.LIVE_DB_CONN_MAX_AGE = 300
    assert open_at_three_calls() == [False, True, True]


def test_with_no_time_to_keep_it_each_call_gives_it_back(settings: Any) -> None:
    settings.LIVE_DB_CONN_MAX_AGE = 0
    assert open_at_three_calls() == [False, False, False]
