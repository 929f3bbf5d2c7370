"""Rate limits shared by every process: counters in Redis, changed atomically by Lua scripts.

Fixed windows, and leases for open sockets; without Redis, or while it does not answer, the same
limits in this process's memory.  Design: docs/operations.md, *Throttles*.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import weakref
from dataclasses import dataclass
from typing import Any

from django.conf import settings

log = logging.getLogger(__name__)

#: A socket's place lapses this long after its last renewal (an open socket renews it every minute).
SOCKET_LEASE_SECONDS = 300

_UNITS = {
    "s": 1,
    "sec": 1,
    "second": 1,
    "m": 60,
    "min": 60,
    "minute": 60,
    "h": 3600,
    "hour": 3600,
    "d": 86400,
    "day": 86400,
}


@dataclass(frozen=True)
class Rate:
    """``count`` hits per ``seconds``, written like DRF's rates: ``240/min``, ``5/15min``, ``20/s``."""

    count: int
    seconds: int

    @classmethod
    def parse(cls, text: str) -> Rate:
        count, _, period = text.partition("/")
        digits = "".join(ch for ch in period if ch.isdigit())
        unit = period[len(digits) :]
        if unit not in _UNITS or not count.isdigit():
            raise ValueError(f"{text!r} is not a rate such as '240/min' or '5/15min'")
        return cls(int(count), int(digits or 1) * _UNITS[unit])


#: The settings that hold one rate each; ``rates_check`` reads these and the two tables of rates.
RATE_SETTINGS = (
    "PASSWORD_RESETS_PER_IP",
    "PASSWORD_RESETS_PER_EMAIL",
    "GUESTS_PER_IP",
    "EMAIL_VERIFICATIONS_PER_ACCOUNT",
    "EMAIL_VERIFICATIONS_PER_EMAIL",
    "SIGNIN_FAILURES_PER_USER_IP",
    "SIGNIN_FAILURES_PER_IP",
    "SIGNIN_FAILURES_PER_USER",
    "SOLVER_SEARCHES_PER_USER",
    "LIVE_FRAMES_PER_USER",
    "LIVE_FRAMES_PER_IP",
)


def rates_check(**kwargs: Any) -> list[Any]:
    """A system check: every rate setting reads as a rate, so a mistyped one is reported by
    ``manage.py check`` and stops ``migrate`` (each deployment's first step) instead of failing,
    as a 500, every request that reads it.  An empty one (a limit turned off) passes."""
    from django.core import checks

    rates: dict[str, Any] = {name: getattr(settings, name, None) for name in RATE_SETTINGS}
    throttles: dict[str, Any] = getattr(settings, "REST_FRAMEWORK", {}).get("DEFAULT_THROTTLE_RATES", {})
    for scope, rate in throttles.items():
        rates[f"REST_FRAMEWORK['DEFAULT_THROTTLE_RATES'][{scope!r}]"] = rate
    for scope, by_whom in getattr(settings, "LIMITS_HTTP", {}).items():
        for whom, rate in by_whom.items():
            rates[f"LIMITS_HTTP[{scope!r}][{whom!r}]"] = rate
    errors = []
    for name, text in rates.items():
        if not text:
            continue
        try:
            Rate.parse(str(text))
        except ValueError as error:
            errors.append(checks.Error(f"{name}: {error}", id="plumbing.E001"))
    return errors


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    count: int
    retry_after: float


# ----------------------------------------------------------------- the scripts

#: KEYS[1] counter; ARGV[1] window in ms, ARGV[2] limit, ARGV[3] 1 to count even when refused.
HIT = """
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
local limit = tonumber(ARGV[2])
if count >= limit and ARGV[3] == '0' then
  return {count, redis.call('PTTL', KEYS[1]), 0}
end
count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
if count > limit then
  return {count, ttl, 0}
end
return {count, ttl, 1}
"""

#: Hits on several counters at once, for one caller or many: KEYS every caller's counters one
#: after the other (a user's and an address's, say); ARGV for each caller the number of its
#: counters, then a (limit, window in ms) pair per counter.  Every counter counts the hit; for each
#: caller, in order, the 1-based index of its first counter over its limit (0 if none) and the ms
#: left in that counter's window; then, for each key in order, its count after that hit and the
#: ms left in its window (what the frame counter's fast lane reads).
HITS = """
local answers, counts, k, a = {}, {}, 1, 1
while a <= #ARGV do
  local n = tonumber(ARGV[a])
  local over, wait = 0, 0
  for i = 1, n do
    local limit, window = tonumber(ARGV[a + 2 * i - 1]), tonumber(ARGV[a + 2 * i])
    local key = KEYS[k + i - 1]
    local count = redis.call('INCR', key)
    local ttl = redis.call('PTTL', key)
    if ttl < 0 then
      redis.call('PEXPIRE', key, window)
      ttl = window
    end
    if over == 0 and count > limit then
      over, wait = i, ttl
    end
    counts[#counts + 1] = count
    counts[#counts + 1] = ttl
  end
  answers[#answers + 1] = over
  answers[#answers + 1] = wait
  k, a = k + n, a + 2 * n + 1
end
for i = 1, #counts do answers[#answers + 1] = counts[i] end
return answers
"""

#: A growing delay between attempts: KEYS[1] the attempts counted in a window, KEYS[2] set while
#: the next attempt must wait.  ARGV[1] the window in ms, ARGV[2] attempts before any delay,
#: ARGV[3] the first delay in ms (doubled by each attempt after it), ARGV[4] the longest delay in
#: ms.  Returns {0, ms still to wait} while waiting (nothing counted), else {1, the attempt's count}.
DELAY = """
local wait = redis.call('PTTL', KEYS[2])
if wait > 0 then return {0, wait} end
local count = redis.call('INCR', KEYS[1])
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local over = count - tonumber(ARGV[2])
if over > 0 then
  local delay = math.min(tonumber(ARGV[4]), tonumber(ARGV[3]) * 2 ^ math.min(over - 1, 40))
  redis.call('SET', KEYS[2], '1', 'PX', math.floor(delay))
end
return {1, count}
"""

UNDO = """
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count > 0 then redis.call('DECR', KEYS[1]) end
return 0
"""

#: KEYS: the sorted sets (one per identity); ARGV[1] member, ARGV[2] now (ms), ARGV[3] lease (ms),
#: then one cap per key.  Adds the member to every set, or to none when any is full.
ACQUIRE = """
local now, lease = tonumber(ARGV[2]), tonumber(ARGV[3])
for i, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
  if redis.call('ZCARD', key) >= tonumber(ARGV[3 + i]) then
    return i
  end
end
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, now + lease, ARGV[1])
  redis.call('PEXPIRE', key, lease)
end
return 0
"""

#: Keeps a member's lease alive (only if it still holds one) and drops it on release.
RENEW = """
for i, key in ipairs(KEYS) do
  if redis.call('ZSCORE', key, ARGV[1]) then
    redis.call('ZADD', key, tonumber(ARGV[2]) + tonumber(ARGV[3]), ARGV[1])
    redis.call('PEXPIRE', key, ARGV[3])
  end
end
return 0
"""
RELEASE = """
for i, key in ipairs(KEYS) do redis.call('ZREM', key, ARGV[1]) end
return 0
"""


# ----------------------------------------------------------------- the stores


class MemoryStore:
    """The same counters in one process's memory, behind a lock."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.windows: dict[str, tuple[int, float]] = {}
        self.leases: dict[str, dict[str, float]] = {}

    def clear(self) -> None:
        with self.lock:
            self.windows.clear()
            self.leases.clear()

    def hit(self, key: str, rate: Rate, *, count_refused: bool) -> Verdict:
        now = time.monotonic()
        with self.lock:
            if len(self.windows) > 100_000:
                self.windows = {k: v for k, v in self.windows.items() if v[1] > now}
            count, ends = self.windows.get(key, (0, now + rate.seconds))
            if ends <= now:
                count, ends = 0, now + rate.seconds
            if count >= rate.count and not count_refused:
                return Verdict(False, count, ends - now)
            count += 1
            self.windows[key] = (count, ends)
            return Verdict(count <= rate.count, count, ends - now if count > rate.count else 0.0)

    def peek(self, key: str) -> tuple[int, float]:
        now = time.monotonic()
        with self.lock:
            count, ends = self.windows.get(key, (0, now))
            return (count, ends - now) if ends > now else (0, 0.0)

    def reset(self, key: str) -> None:
        with self.lock:
            self.windows.pop(key, None)

    def undo(self, key: str) -> None:
        with self.lock:
            if key in self.windows and self.windows[key][0] > 0:
                count, ends = self.windows[key]
                self.windows[key] = (count - 1, ends)

    def delay(self, counter: str, gate: str, window: float, free: int, first: float, longest: float) -> float:
        now = time.monotonic()
        with self.lock:
            _, opens = self.windows.get(gate, (0, now))
            if opens > now:
                return opens - now
            count, ends = self.windows.get(counter, (0, now + window))
            if ends <= now:
                count, ends = 0, now + window
            count += 1
            self.windows[counter] = (count, ends)
            if count > free:
                self.windows[gate] = (1, now + min(longest, first * 2 ** min(count - free - 1, 40)))
            return 0.0

    def mark(self, key: str, seconds: float) -> None:
        with self.lock:
            self.windows[key] = (1, time.monotonic() + seconds)

    def acquire(self, keys: list[str], caps: list[int], member: str, lease: float = SOCKET_LEASE_SECONDS) -> int:
        now = time.monotonic()
        with self.lock:
            for i, (key, cap) in enumerate(zip(keys, caps), start=1):
                held = {m: t for m, t in self.leases.get(key, {}).items() if t > now}
                self.leases[key] = held
                if len(held) >= cap:
                    return i
            for key in keys:
                self.leases[key][member] = now + lease
            return 0

    def renew(self, keys: list[str], member: str) -> None:
        now = time.monotonic()
        with self.lock:
            for key in keys:
                if member in self.leases.get(key, {}):
                    self.leases[key][member] = now + SOCKET_LEASE_SECONDS

    def release(self, keys: list[str], member: str) -> None:
        with self.lock:
            for key in keys:
                held = self.leases.get(key)
                if held is not None:
                    held.pop(member, None)
                    if not held:
                        del self.leases[key]


memory = MemoryStore()
_last_warning = 0.0


def _warn(error: Exception) -> None:
    global _last_warning
    if time.monotonic() - _last_warning > 60:
        _last_warning = time.monotonic()
        log.warning("rate limits are kept in memory while Redis does not answer: %s", error)


def key(*parts: Any) -> str:
    return ":".join([settings.LIMITS_KEY_PREFIX, *(str(part) for part in parts)])


# ----------------------------------------------------------------- synchronous (HTTP views)

_sync_client: tuple[str, Any] | None = None
_sync_lock = threading.Lock()


def _redis() -> Any:
    """One client per process (redis-py's pool is thread-safe); None without Redis."""
    global _sync_client
    url = settings.REDIS_URL
    if not url:
        return None
    with _sync_lock:
        if _sync_client is None or _sync_client[0] != url:
            import redis

            _sync_client = (url, redis.Redis.from_url(url, socket_timeout=1.0, socket_connect_timeout=1.0))
        return _sync_client[1]


def hit(name: str, rate: Rate, *, count_refused: bool = False) -> Verdict:
    """Count one hit on ``name`` in its window; refused once the window holds ``rate.count``.

    With ``count_refused`` a refused hit still counts (failed sign-ins go on counting).
    """
    client = _redis()
    if client is not None:
        import redis

        try:
            count, ttl, allowed = client.eval(HIT, 1, name, rate.seconds * 1000, rate.count, int(count_refused))
        except redis.RedisError as error:
            _warn(error)
        else:
            return Verdict(bool(allowed), int(count), 0.0 if allowed else max(int(ttl), 0) / 1000)
    return memory.hit(name, rate, count_refused=count_refused)


def peek(name: str) -> tuple[int, float]:
    """(hits in the current window, seconds until it ends)."""
    client = _redis()
    if client is not None:
        import redis

        try:
            with client.pipeline(transaction=True) as pipe:
                count, ttl = pipe.get(name).pttl(name).execute()
        except redis.RedisError as error:
            _warn(error)
        else:
            return int(count or 0), max(int(ttl), 0) / 1000
    return memory.peek(name)


def undo(name: str) -> None:
    """Take one hit back (a sign-in that turned out right is no failure)."""
    client = _redis()
    if client is not None:
        import redis

        try:
            client.eval(UNDO, 1, name)
            return
        except redis.RedisError as error:
            _warn(error)
    memory.undo(name)


def reset(name: str) -> None:
    client = _redis()
    if client is not None:
        import redis

        try:
            client.delete(name)
        except redis.RedisError as error:
            _warn(error)
    memory.reset(name)


def delay(counter: str, gate: str, *, window: float, free: int, first: float, longest: float) -> float:
    """One attempt on a growing delay: 0 when it may go now (and it is counted), else the seconds
    it must still wait (and nothing is counted).  The first ``free`` attempts of a window of
    ``window`` seconds go at once; each one after them makes the next wait ``first`` seconds,
    doubled at each, never more than ``longest``."""
    client = _redis()
    if client is not None:
        import redis

        try:
            go, value = client.eval(
                DELAY, 2, counter, gate, int(window * 1000), free, int(first * 1000), int(longest * 1000)
            )
        except redis.RedisError as error:
            _warn(error)
        else:
            return 0.0 if int(go) else max(int(value), 1) / 1000
    return memory.delay(counter, gate, window, free, first, longest)


def mark(name: str, seconds: float) -> None:
    """Remember ``name`` for ``seconds`` (from now, again at each mark); ``peek`` counts it as 1."""
    client = _redis()
    if client is not None:
        import redis

        try:
            client.set(name, 1, px=int(seconds * 1000))
            return
        except redis.RedisError as error:
            _warn(error)
    memory.mark(name, seconds)


def hits(names: list[str], rates: list[Rate]) -> Verdict:
    """One hit on each of ``names``, each against its own rate; refused when any is over."""
    client = _redis()
    if client is not None:
        import redis

        try:
            over, wait = client.eval(HITS, len(names), *names, len(names), *_limits(rates))[:2]
        except redis.RedisError as error:
            _warn(error)
        else:
            return Verdict(not over, int(over), max(int(wait), 0) / 1000)
    return _memory_hits(names, rates)


def _limits(rates: list[Rate]) -> list[int]:
    return [number for rate in rates for number in (rate.count, rate.seconds * 1000)]


def _memory_hits(names: list[str], rates: list[Rate]) -> Verdict:
    verdicts = [memory.hit(name, rate, count_refused=True) for name, rate in zip(names, rates)]
    for index, verdict in enumerate(verdicts, start=1):
        if not verdict.allowed:
            return Verdict(False, index, verdict.retry_after)
    return Verdict(True, 0, 0.0)


def acquire(keys: list[str], caps: list[int], member: str, *, lease: float) -> int:
    """Hold one place under each key, or none, for at most ``lease`` seconds unless released first
    (a process that dies frees its places when they lapse): 0, or the 1-based index of the full key."""
    client = _redis()
    if client is not None:
        import redis

        try:
            now = int(time.time() * 1000)
            return int(client.eval(ACQUIRE, len(keys), *keys, member, now, int(lease * 1000), *caps))
        except redis.RedisError as error:
            _warn(error)
    return memory.acquire(keys, caps, member, lease)


def release(keys: list[str], member: str) -> None:
    client = _redis()
    if client is not None:
        import redis

        try:
            client.eval(RELEASE, len(keys), *keys, member)
        except redis.RedisError as error:
            _warn(error)
    memory.release(keys, member)


# ----------------------------------------------------------------- asynchronous (sockets)

#: Sockets' calls to Redis at once in a process, at most; more wait for a free connection (up to
#: ``socket_timeout``) instead of failing over to this process's memory.
ASYNC_CONNECTIONS = 32

_async_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = weakref.WeakKeyDictionary()


def _aredis() -> Any:
    if not settings.REDIS_URL:
        return None
    loop = asyncio.get_running_loop()
    client = _async_clients.get(loop)
    if client is None:
        import redis.asyncio

        pool = redis.asyncio.BlockingConnectionPool.from_url(
            settings.REDIS_URL,
            max_connections=ASYNC_CONNECTIONS,
            timeout=1.0,
            socket_timeout=1.0,
            socket_connect_timeout=1.0,
        )
        client = redis.asyncio.Redis(connection_pool=pool)
        _async_clients[loop] = client
    return client


class _FrameCounter:
    """Counts the frames of every socket of one event loop in Redis, one script call at a time.

    Every frame a client sends is counted in Redis.  One call per frame would put a round trip to
    Redis, and a connection, behind each of them: a burst of frames from hundreds of sockets would
    want hundreds of connections at once.  Here the frames that arrive while a call is out go
    together in the next one (``HITS``: each frame's counters as if it were alone, in the order the
    frames came), so there is never more than one call out.

    A frame waits for its call's answer unless it is in the *fast lane*: each of its counters was
    read in this window (by an earlier answer), and that count plus every frame of this process
    counted on it since still leaves ``FAST_HEADROOM`` of the limit free.  A fast frame is
    delivered at once and counted in the next call all the same, which waits ``FAST_GATHER`` for
    company while no frame waits for it.  The first frame of a counter, a frame near its limit and
    a frame after its window ran out all wait, so a limit lets in exactly its count from one
    process.  Only frames of other processes counted between two answers can make a fast frame
    one over the limit, and they would have to fill the headroom within one round trip to Redis.
    """

    #: the share of a limit (at least one frame) under which a frame waits for its answer
    FAST_HEADROOM = 0.1
    #: seconds a call of fast frames alone waits for more frames
    FAST_GATHER = 0.01

    def __init__(self, client: Any) -> None:
        self.client = client
        self.waiting: list[tuple[list[str], list[Rate], asyncio.Future[Verdict] | None]] = []
        self.flushing: asyncio.Future[None] | None = None
        #: per counter, its count as the last answer read it and the monotonic time its window ends
        self.read: dict[str, tuple[int, float]] = {}
        #: per counter, this process's frames not in that count yet (waiting, or in the call out)
        self.since: dict[str, int] = {}
        #: set when a frame that waits arrives while a call of fast frames gathers company
        self.wake: asyncio.Future[None] | None = None

    def _fast(self, names: list[str], rates: list[Rate]) -> bool:
        now = time.monotonic()
        for name, rate in zip(names, rates):
            known = self.read.get(name)
            if known is None or now >= known[1]:
                return False
            if known[0] + self.since.get(name, 0) + 1 > rate.count - max(1, int(rate.count * self.FAST_HEADROOM)):
                return False
        return True

    def hits(self, names: list[str], rates: list[Rate]) -> asyncio.Future[Verdict] | None:
        """The frame's verdict to come, or None when it may go at once (it is counted all the same)."""
        future: asyncio.Future[Verdict] | None = None
        if not self._fast(names, rates):
            future = asyncio.get_running_loop().create_future()
            if self.wake is not None and not self.wake.done():
                self.wake.set_result(None)
        self.waiting.append((names, rates, future))
        for name in names:
            self.since[name] = self.since.get(name, 0) + 1
        if self.flushing is None:
            self.flushing = asyncio.ensure_future(self._flush())
        return future

    async def _gather(self) -> None:
        loop = asyncio.get_running_loop()
        wake = self.wake = loop.create_future()

        def wake_up() -> None:
            if not wake.done():
                wake.set_result(None)

        timer = loop.call_later(self.FAST_GATHER, wake_up)
        try:
            await wake
        finally:
            timer.cancel()
            self.wake = None

    async def _flush(self) -> None:
        try:
            while self.waiting:
                if all(future is None for _, _, future in self.waiting):
                    await self._gather()
                batch, self.waiting = self.waiting, []
                sent = time.monotonic()
                keys: list[str] = []
                args: list[int] = []
                for names, rates, _ in batch:
                    keys += names
                    args.append(len(names))
                    args += _limits(rates)
                try:
                    answers = await self.client.eval(HITS, len(keys), *keys, *args)
                except Exception as error:  # Redis away, or no connection free in time: as ``hits`` does
                    _warn(error)
                    answers = None
                for name in keys:
                    left = self.since[name] - 1
                    if left:
                        self.since[name] = left
                    else:
                        del self.since[name]
                if answers is None:
                    self.read.clear()  # until Redis answers again, every frame waits (and counts in memory)
                    for names, rates, future in batch:
                        verdict = _memory_hits(names, rates)
                        if future is not None and not future.done():
                            future.set_result(verdict)
                    continue
                self._remember(keys, answers[2 * len(batch) :], sent)
                for index, (_names, _rates, future) in enumerate(batch):
                    if future is None or future.done():
                        continue  # a fast frame, or its socket went away meanwhile
                    over, wait = int(answers[2 * index]), int(answers[2 * index + 1])
                    future.set_result(Verdict(not over, over, max(wait, 0) / 1000))
        finally:
            self.flushing = None

    def _remember(self, keys: list[str], counts: list[Any], sent: float) -> None:
        """The counts an answer read (a counter's last frame in the call carries its latest), each
        window's end measured from when the call left, so never later than Redis's."""
        if len(self.read) > 50_000:
            now = time.monotonic()
            self.read = {name: known for name, known in self.read.items() if known[1] > now}
        for index, name in enumerate(keys):
            self.read[name] = (int(counts[2 * index]), sent + max(int(counts[2 * index + 1]), 0) / 1000)


_frame_counters: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _FrameCounter] = weakref.WeakKeyDictionary()
_ALLOWED = Verdict(True, 0, 0.0)


async def ahits(names: list[str], rates: list[Rate]) -> Verdict:
    """``hits`` for a socket's frame: one hit on each of ``names``; refused when any is over."""
    client = _aredis()
    if client is None:
        return _memory_hits(names, rates)
    loop = asyncio.get_running_loop()
    counter = _frame_counters.get(loop)
    if counter is None or counter.client is not client:
        counter = _frame_counters[loop] = _FrameCounter(client)
    future = counter.hits(names, rates)
    return _ALLOWED if future is None else await future


async def aacquire(keys: list[str], caps: list[int], member: str) -> int:
    """Hold one socket place under each key, or none: 0, or the 1-based index of the full key."""
    client = _aredis()
    if client is not None:
        import redis

        try:
            now = int(time.time() * 1000)
            return int(
                await client.eval(ACQUIRE, len(keys), *keys, member, now, int(SOCKET_LEASE_SECONDS * 1000), *caps)
            )
        except (redis.RedisError, OSError) as error:
            _warn(error)
    return memory.acquire(keys, caps, member)


async def arenew(keys: list[str], member: str) -> None:
    client = _aredis()
    if client is not None:
        import redis

        try:
            await client.eval(
                RENEW, len(keys), *keys, member, int(time.time() * 1000), int(SOCKET_LEASE_SECONDS * 1000)
            )
            return
        except (redis.RedisError, OSError) as error:
            _warn(error)
    memory.renew(keys, member)


async def arelease(keys: list[str], member: str) -> None:
    client = _aredis()
    if client is not None:
        import redis

        try:
            await client.eval(RELEASE, len(keys), *keys, member)
            return
        except (redis.RedisError, OSError) as error:
            _warn(error)
    memory.release(keys, member)
