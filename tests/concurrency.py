"""Calls released at the same instant, one thread each: what racing requests look like to the server."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from django.db import connections


def at_once(calls: list[Callable[[], Any]], timeout: float = 60) -> list[Any]:
    """Run each call in a thread of its own, all released together by a barrier; return, in order,
    what each call returned or the exception it raised.  Each thread closes its own database
    connections when its call is done."""
    barrier = threading.Barrier(len(calls), timeout=30)
    results: list[Any] = [None] * len(calls)

    def run(index: int, call: Callable[[], Any]) -> None:
        try:
            barrier.wait()
            results[index] = call()
        except Exception as error:
            results[index] = error
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(index, call)) for index, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout)
    assert not any(thread.is_alive() for thread in threads), "a call did not finish"
    return results
