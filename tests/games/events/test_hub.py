"""The hub on real Redis: this process's sockets hear its own events once, at once; events
published elsewhere (another server, a Celery task) reach them through the subscription."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

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


def test_events_sent_from_outside_a_loop_go_to_the_redis_of_the_moment(on_redis, settings):
    """A process that once published with another REDIS_URL (a test of an outage, here) keeps no
    client of it for later: the next events reach the Redis the setting names."""
    import redis

    good = settings.REDIS_URL
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    with pytest.raises(redis.ConnectionError):
        events._send_elsewhere({"test-hub-moment": [event(1)]})
    settings.REDIS_URL = good
    run_async(other_origins(), timeout=30)


@asynccontextmanager
async def two_hubs() -> AsyncIterator[tuple[events.Hub, events.Hub]]:
    """A hub, with its Redis client, and a second server's, closed afterwards."""
    loop = asyncio.get_running_loop()
    hub, other = events.Hub(loop), events.Hub(loop)
    hub._client()
    try:
        yield hub, other
    finally:
        if hub.reader is not None:
            hub.reader.cancel()
        await hub.redis.aclose()
        if other.redis is not None:
            await other.redis.aclose()


def test_sockets_joining_at_once_are_subscribed_in_a_few_commands_and_hear_other_servers(on_redis):
    run_async(many_joins(), timeout=30)


async def many_joins() -> None:
    """Sockets open by the hundred on a busy day (games ending, the next ones opening): each join
    waits for its SUBSCRIBE to be sent, and those that come together share one command."""
    async with two_hubs() as (hub, other):
        commands: list[int] = []
        subscribe = hub.pubsub.subscribe

        async def counted(*channels: str) -> None:
            commands.append(len(channels))
            await subscribe(*channels)

        hub.pubsub.subscribe = counted
        groups = [f"test-hub-many-{n}" for n in range(200)]
        ears = [Ear() for _ in groups]
        await asyncio.gather(*(hub.add(group, ear) for group, ear in zip(groups, ears)))
        assert hub.subscribed == set(groups)
        assert sum(commands) == len(groups) and len(commands) <= 3, commands
        await other.publish({group: [event(n)] for n, group in enumerate(groups)})
        for ear in ears:
            await wait_for(ear, 1)
        await asyncio.gather(*(hub.discard(group, ear) for group, ear in zip(groups, ears)))
        assert hub.subscribed == set()
        await asyncio.sleep(0.2)
        counts = await other._client().pubsub_numsub(*(hub.prefix + group for group in groups))
        assert all(count == 0 for _, count in counts), counts


@pytest.mark.parametrize("leave_first", [True, False])
def test_a_leave_racing_a_join_of_the_same_group_ends_subscribed(on_redis, leave_first):
    run_async(join_racing_leave(leave_first), timeout=30)


async def join_racing_leave(leave_first: bool) -> None:
    async with two_hubs() as (hub, other):
        group, leaving, joining = "test-hub-race", Ear(), Ear()
        await hub.add(group, leaving)
        calls = [hub.discard(group, leaving), hub.add(group, joining)]
        await asyncio.gather(*(calls if leave_first else calls[::-1]))
        assert group in hub.subscribed and hub.members[group] == {joining}
        await other.publish({group: [event(3)]})
        await wait_for(joining, 1)
        assert leaving.heard == []


def test_a_socket_gone_while_its_join_waits_does_not_stop_the_others_subscription(on_redis):
    run_async(cancelled_join(), timeout=30)


async def cancelled_join() -> None:
    async with two_hubs() as (hub, other):
        gone, staying = Ear(), Ear()
        going = asyncio.ensure_future(hub.add("test-hub-gone", gone))
        stays = asyncio.ensure_future(hub.add("test-hub-stays", staying))
        await asyncio.sleep(0)  # both wait for the same round
        going.cancel()
        await stays
        assert "test-hub-stays" in hub.subscribed
        await other.publish({"test-hub-stays": [event(5)]})
        await wait_for(staying, 1)
        await asyncio.gather(going, return_exceptions=True)


def test_a_join_while_the_round_that_unsubscribes_its_group_is_out_subscribes_again(on_redis):
    run_async(join_during_leave(), timeout=30)


async def join_during_leave() -> None:
    """The round that unsubscribes a group first sends another group's SUBSCRIBE; a socket that
    joins the leaving group in between must not find it still marked subscribed."""
    async with two_hubs() as (hub, other):
        leaving, coming, late = Ear(), Ear(), Ear()
        subscribe = hub.pubsub.subscribe
        joins: list[asyncio.Future[None]] = []

        async def then_join(*channels: str) -> None:
            await subscribe(*channels)
            if not joins:  # the round that leaves "test-hub-back" is out: join it again now
                joins.append(asyncio.ensure_future(hub.add("test-hub-back", late)))
                await asyncio.sleep(0)

        await hub.add("test-hub-back", leaving)
        hub.pubsub.subscribe = then_join
        await asyncio.gather(hub.discard("test-hub-back", leaving), hub.add("test-hub-new", coming))
        await joins[0]
        assert {"test-hub-back", "test-hub-new"} <= hub.subscribed
        await other.publish({"test-hub-back": [event(9)]})
        await wait_for(late, 1)


def test_a_round_that_fails_does_not_leave_the_next_rounds_joins_waiting(on_redis, caplog):
    run_async(failed_round(), timeout=30)
    assert "a round of subscription changes failed" in caplog.text


async def failed_round() -> None:
    """A round that raises (not a Redis error, which it logs itself) still ends, and the joins
    that came while it was out are sent by the next round."""
    async with two_hubs() as (hub, other):
        change, first, after = hub._change, Ear(), Ear()
        joins: list[asyncio.Future[None]] = []

        async def fails_once(joined: list[str], left: list[str]) -> None:
            hub._change = change
            joins.append(asyncio.ensure_future(hub.add("test-hub-after", after)))
            await asyncio.sleep(0)
            raise RuntimeError("a round that fails")

        hub._change = fails_once
        await hub.add("test-hub-first", first)
        await asyncio.wait_for(joins[0], 5)
        assert "test-hub-after" in hub.subscribed
        await other.publish({"test-hub-after": [event(7)]})
        await wait_for(after, 1)
