"""The hub on real Redis: this process's sockets hear its own events once, at once; events
published elsewhere (another server, a Celery task) reach them through the subscription."""

from __future__ import annotations

import asyncio
import json

import pytest

from games import events
from tests.faults.stack import run_async

# The coroutines run on a loop thread of their own (tests/faults/stack.py): the browser tests leave
# Playwright's loop running on the main thread.


class Ear:
    def __init__(self) -> None:
        self.heard: list[events.Encoded] = []
        self.arrived = asyncio.Event()

    def hear(self, group: str, heard: list[events.Encoded]) -> None:
        self.heard.extend(heard)
        self.arrived.set()


def event(n: int) -> events.Encoded:
    return events.encode({"type": "game.progress", "v": 1, "game": 1, "version": n})


@pytest.fixture
def on_redis(redis_url, settings):
    settings.REDIS_URL = redis_url


async def wait_for(ear: Ear, count: int) -> None:
    async def enough() -> None:
        while len(ear.heard) < count:
            ear.arrived.clear()
            await ear.arrived.wait()

    await asyncio.wait_for(enough(), 5)


def test_own_events_are_heard_once_and_at_once(on_redis):
    run_async(own_events(), timeout=30)


async def own_events() -> None:
    hub = events.hub()
    ear = Ear()
    group = "test-hub-own"
    await hub.add(group, ear)
    await hub.publish({group: [event(1), event(2)]})
    assert [json.loads(e["text"])["version"] for e in ear.heard] == [1, 2], "delivered before Redis answered"
    await asyncio.sleep(0.3)  # Redis echoes the message back to this hub's subscription
    assert len(ear.heard) == 2
    await hub.discard(group, ear)


def test_events_of_another_origin_arrive_through_redis(on_redis):
    run_async(other_origins(), timeout=30)


async def other_origins() -> None:
    hub = events.hub()
    ear = Ear()
    group = "test-hub-other"
    await hub.add(group, ear)
    other = events.Hub(asyncio.get_running_loop())  # a second server's hub, with a subscription of its own
    await other.publish({group: [event(7)]})
    await asyncio.to_thread(events._send_elsewhere, {group: [event(8)]})  # what a Celery task does
    await wait_for(ear, 2)
    assert sorted(json.loads(e["text"])["version"] for e in ear.heard) == [7, 8]
    await asyncio.sleep(0.2)
    assert len(ear.heard) == 2
    await hub.discard(group, ear)
    await other.redis.aclose()
