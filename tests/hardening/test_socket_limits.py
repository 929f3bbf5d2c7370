"""Socket abuse: the per-user and per-address caps on open sockets and on frames, in front of every
consumer (plumbing/socket_limits.py), through the whole ASGI stack of piramide_site.asgi."""

from __future__ import annotations

import json
from typing import Any

import pytest
from channels.testing import WebsocketCommunicator
from django.conf import settings

from tests.factories import make_challenge, make_player
from tests.sockets import session_cookie

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


class Sock:
    def __init__(self, path: str, cookie: str | None = None, address: str = "10.0.0.1") -> None:
        from piramide_site.asgi import application

        headers = [(b"origin", b"http://127.0.0.1")]
        if cookie:
            headers.append((b"cookie", f"{settings.SESSION_COOKIE_NAME}={cookie}".encode()))
        self.c = WebsocketCommunicator(application, path, headers=headers)
        self.c.scope["client"] = (address, 40000)

    async def open(self) -> tuple[bool, list[dict[str, Any]]]:
        connected, _ = await self.c.connect(timeout=5)
        return connected, await self.drain()

    async def drain(self, timeout: float = 0.3) -> list[dict[str, Any]]:
        out = []
        while not await self.c.receive_nothing(timeout=timeout):
            output = await self.c.receive_output(timeout=timeout)
            if output["type"] == "websocket.send":
                out.append(json.loads(output["text"]))
            elif output["type"] == "websocket.close":
                out.append({"type": "closed", "code": output.get("code")})
                break
        return out


@pytest.fixture
def room(transactional_db: Any) -> str:
    return f"/ws/challenges/{make_challenge().pk}/"


async def test_a_user_may_hold_only_so_many_sockets(settings, room):
    from channels.db import database_sync_to_async

    settings.LIVE_SOCKETS_PER_USER = 2
    alice = await database_sync_to_async(make_player)("alice")
    cookie = await database_sync_to_async(session_cookie)(alice)
    first, second = Sock(room, cookie, "10.0.0.1"), Sock(room, cookie, "10.0.0.2")
    for sock in (first, second):
        connected, messages = await sock.open()
        assert connected and messages[0]["type"] == "room.snapshot"
    third = Sock(room, cookie, "10.0.0.3")
    connected, messages = await third.open()
    assert [m["type"] for m in messages] == ["error", "closed"]
    assert messages[0]["code"] == "rate_limited" and "sockets" in messages[0]["message"]
    assert messages[1]["code"] == 4429
    # An anonymous socket from the same address is not this user's.
    connected, messages = await Sock(room, None, "10.0.0.3").open()
    assert messages[0]["type"] == "room.snapshot"
    # Closing one frees its place at once.
    await first.c.disconnect()
    connected, messages = await Sock(room, cookie, "10.0.0.4").open()
    assert messages[0]["type"] == "room.snapshot"


async def test_an_address_may_hold_only_so_many_sockets(settings, room):
    settings.LIVE_SOCKETS_PER_IP = 3
    socks = [Sock(room, None, "10.7.7.7") for _ in range(4)]
    results = [await sock.open() for sock in socks]
    assert [messages[0]["type"] for _, messages in results] == ["room.snapshot"] * 3 + ["error"]
    assert results[3][1][-1] == {"type": "closed", "code": 4429}
    connected, messages = await Sock(room, None, "10.7.7.8").open()
    assert messages[0]["type"] == "room.snapshot"


async def test_frames_are_counted_per_user_across_sockets(settings, room):
    from channels.db import database_sync_to_async

    settings.LIVE_FRAMES_PER_USER = "6/min"
    alice = await database_sync_to_async(make_player)("alice")
    cookie = await database_sync_to_async(session_cookie)(alice)
    a, b = Sock(room, cookie, "10.0.0.1"), Sock(room, cookie, "10.0.0.2")
    await a.open()
    await b.open()
    answers = []
    for sock in (a, b, a, b, a, b, a, b):
        await sock.c.send_to(text_data=json.dumps({"type": "ping", "ref": "p"}))
        # the room may send its own news (a late snapshot, an update) at any time: only answers count
        answers.extend(m for m in await sock.drain(0.2) if m["type"] in ("pong", "error"))
    kinds = [m["type"] if m["type"] == "pong" else m["code"] for m in answers]
    assert kinds == ["pong"] * 6 + ["rate_limited"] * 2
    assert 0 < answers[-1]["retry_after"] <= 60


async def test_frames_are_counted_per_address_and_a_flood_is_closed(settings, room):
    settings.LIVE_FRAMES_PER_IP = "5/min"
    sock = Sock(room, None, "10.3.3.3")
    await sock.open()
    for _ in range(5):
        await sock.c.send_to(text_data=json.dumps({"type": "ping"}))
    assert [m["type"] for m in await sock.drain()] == ["pong"] * 5
    from plumbing.socket_limits import REFUSED_BEFORE_CLOSE

    for _ in range(REFUSED_BEFORE_CLOSE):
        await sock.c.send_to(text_data="x" * 100)
    messages = await sock.drain()
    assert all(m["code"] == "rate_limited" for m in messages[:-1])
    assert messages[-1] == {"type": "closed", "code": 4429}
    assert len(messages) == REFUSED_BEFORE_CLOSE + 1


async def test_a_socket_from_a_foreign_origin_is_refused_before_any_message(room):
    from piramide_site.asgi import application

    communicator = WebsocketCommunicator(application, room, headers=[(b"origin", b"https://evil.example")])
    connected, code = await communicator.connect(timeout=5)
    assert not connected


async def test_socket_places_are_shared_through_redis(redis_url, settings, room):
    """With Redis, the count is in one sorted set per user or address, seen by every process."""
    import redis

    from plumbing import limits

    settings.LIVE_SOCKETS_PER_IP = 2
    socks = [Sock(room, None, "10.5.5.5") for _ in range(3)]
    results = [await sock.open() for sock in socks]
    assert [messages[0]["type"] for _, messages in results] == ["room.snapshot", "room.snapshot", "error"]
    client = redis.Redis.from_url(redis_url)
    assert client.zcard(limits.key("sockets", "ip", "10.5.5.5")) == 2
    await socks[0].c.disconnect()
    assert client.zcard(limits.key("sockets", "ip", "10.5.5.5")) == 1
    assert not limits.memory.leases


async def test_an_idle_socket_keeps_its_place(settings, room, monkeypatch):
    """Places are renewed by the open socket itself, not by its frames: idling does not free one."""
    from plumbing import limits, socket_limits

    monkeypatch.setattr(socket_limits, "RENEW_EVERY", 0.05)
    monkeypatch.setattr(limits, "SOCKET_LEASE_SECONDS", 0.2)
    settings.LIVE_SOCKETS_PER_IP = 1
    first = Sock(room, None, "10.6.6.6")
    assert (await first.open())[1][0]["type"] == "room.snapshot"
    await first.drain(0.5)  # idle for longer than a lease
    connected, messages = await Sock(room, None, "10.6.6.6").open()
    assert messages[0]["code"] == "rate_limited"
    await first.c.disconnect()
    connected, messages = await Sock(room, None, "10.6.6.6").open()
    assert messages[0]["type"] == "room.snapshot"


# ----------------------------------------------------------------- the frame counter


async def test_frames_of_hundreds_of_sockets_at_once_are_all_counted_in_redis_in_order(redis_url):
    """More frames at once than the process has Redis connections: each is counted in Redis, none
    falls back to this process's memory, and the limit lets in exactly the first ones."""
    import asyncio

    import redis

    from plumbing import limits

    address, user = limits.key("test", "frames", "ip"), limits.key("test", "frames", "user")
    rates = [limits.Rate.parse("100000/min"), limits.Rate.parse("250/min")]
    frames = 10 * limits.ASYNC_CONNECTIONS
    verdicts = await asyncio.gather(*(limits.ahits([address, user], rates) for _ in range(frames)))
    assert [verdict.allowed for verdict in verdicts] == [True] * 250 + [False] * (frames - 250)
    refused = verdicts[-1]
    assert refused.count == 2, "the user's counter is the one over" and 0 < refused.retry_after <= 60
    client = redis.Redis.from_url(redis_url)
    assert int(client.get(address)) == int(client.get(user)) == frames
    assert not limits.memory.windows, "nothing fell back to memory"


async def test_a_frame_whose_socket_went_away_leaves_the_others_counted(redis_url):
    import asyncio

    from plumbing import limits

    name, rate = limits.key("test", "frames", "gone"), limits.Rate.parse("2/min")
    first = asyncio.ensure_future(limits.ahits([name], [rate]))
    gone = asyncio.ensure_future(limits.ahits([name], [rate]))
    last = asyncio.ensure_future(limits.ahits([name], [rate]))
    await asyncio.sleep(0)  # all three are waiting for the same call
    gone.cancel()
    assert [(await first).allowed, (await last).allowed] == [True, False], "the gone frame was counted too"


async def _settled(counter: Any) -> None:
    """Until the frame counter has no call out and nothing waiting."""
    import asyncio

    while counter.flushing is not None:
        await asyncio.sleep(0.005)


async def test_frames_far_below_their_limits_go_at_once_and_are_counted_all_the_same(redis_url):
    """Once an answer has read a counter, a frame far below its limit does not wait for Redis;
    Redis still counts every frame."""
    import asyncio

    import redis

    from plumbing import limits

    name, rate = limits.key("test", "frames", "fast"), limits.Rate.parse("1000/min")
    assert (await limits.ahits([name], [rate])).allowed  # the first frame waits: nothing read yet
    counter = limits._frame_counters[asyncio.get_running_loop()]
    await _settled(counter)
    for _ in range(50):
        frame = asyncio.ensure_future(limits.ahits([name], [rate]))
        await asyncio.sleep(0)  # one step of the loop: no answer from Redis can be in yet
        assert frame.done() and frame.result().allowed
    await _settled(counter)
    assert int(redis.Redis.from_url(redis_url).get(name)) == 51
    assert not counter.since, "every frame's count was read back"


async def test_near_its_limit_a_frame_waits_and_the_limit_lets_in_exactly_its_count(redis_url):
    import asyncio

    from plumbing import limits

    name, rate = limits.key("test", "frames", "near"), limits.Rate.parse("20/min")
    verdicts = []
    waited = 0
    for _ in range(30):
        frame = asyncio.ensure_future(limits.ahits([name], [rate]))
        await asyncio.sleep(0)
        waited += not frame.done()
        verdicts.append((await frame).allowed)
    assert verdicts == [True] * 20 + [False] * 10
    # the first frame and every frame within two (a tenth of 20) of the limit waited
    assert waited == 1 + 12


async def test_frames_counted_by_other_processes_are_read_back_before_the_limit(redis_url):
    """Another process's frames (here, counted straight into Redis) come back with the next
    answer: this process's frames then wait near the limit and stop at it."""
    import asyncio

    import redis

    from plumbing import limits

    name, rate = limits.key("test", "frames", "shared"), limits.Rate.parse("100/min")
    assert (await limits.ahits([name], [rate])).allowed
    counter = limits._frame_counters[asyncio.get_running_loop()]
    await _settled(counter)
    redis.Redis.from_url(redis_url).incrby(name, 95)
    assert (await limits.ahits([name], [rate])).allowed  # fast: its count (97) is read back after
    await _settled(counter)
    verdicts = [(await limits.ahits([name], [rate])).allowed for _ in range(5)]
    assert verdicts == [True, True, True, False, False]


async def test_after_its_window_a_counter_is_read_again_before_a_frame_goes(redis_url):
    import asyncio

    from plumbing import limits

    name, rate = limits.key("test", "frames", "window"), limits.Rate.parse("1000/1s")
    assert (await limits.ahits([name], [rate])).allowed
    counter = limits._frame_counters[asyncio.get_running_loop()]
    await _settled(counter)
    await asyncio.sleep(1.05)
    frame = asyncio.ensure_future(limits.ahits([name], [rate]))
    await asyncio.sleep(0)
    assert not frame.done(), "the window this counter was read in is over: the frame waits"
    assert (await frame).allowed


async def test_while_redis_is_down_frames_are_counted_in_memory(settings, caplog):
    import asyncio

    from plumbing import limits

    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens there
    limits._last_warning = 0.0
    name, rate = limits.key("test", "frames", "down"), limits.Rate.parse("3/min")
    verdicts = await asyncio.gather(*(limits.ahits([name], [rate]) for _ in range(5)))
    assert [verdict.allowed for verdict in verdicts] == [True, True, True, False, False]
    assert "kept in memory" in caplog.text


async def test_nothing_is_sent_after_the_application_closed_its_socket(settings: Any) -> None:
    """A consumer that answers after it closed (a refusal racing its own close) must not reach the
    server with it: uvicorn raises on a send after a close, and the socket ended in a traceback."""
    from plumbing.socket_limits import SocketLimitMiddleware

    async def closes_then_talks(scope: Any, receive: Any, send: Any) -> None:
        await receive()
        await send({"type": "websocket.accept"})
        await send({"type": "websocket.close", "code": 1009})
        await send({"type": "websocket.send", "text": "{}"})

    sent: list[dict[str, Any]] = []

    async def server_send(message: dict[str, Any]) -> None:
        if sent and sent[-1]["type"] == "websocket.close":
            raise RuntimeError(f"Unexpected ASGI message {message['type']!r}, after sending 'websocket.close'")
        sent.append(message)

    async def server_receive() -> dict[str, Any]:
        return {"type": "websocket.connect"}

    scope = {"type": "websocket", "path": "/ws/x/", "client": ("10.0.0.9", 1), "headers": [], "user": None}
    await SocketLimitMiddleware(closes_then_talks)(scope, server_receive, server_send)
    assert [m["type"] for m in sent] == ["websocket.accept", "websocket.close"]
