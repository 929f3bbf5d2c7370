"""Rank stores: where a leaderboard's order is kept for fast lookups.

``RedisRanks`` keeps one sorted set per board, updated after each score commits; Postgres stays
the source of truth, and a board whose sorted set is missing (a flush, a new Redis) is rebuilt
from it on first use.  ``DatabaseRanks`` answers the same questions with SQL, for the embedded
default that runs without Redis.
"""

from __future__ import annotations

import datetime as dt
import functools
import logging
import time
from collections.abc import Callable
from typing import Protocol

import redis
from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from .boards import Board, Entry, entry_of

log = logging.getLogger(__name__)

#: Moves of an entry fit below this; points are multiplied by it (all within a double's 53 bits).
MOVES_SPAN = 2**22
#: Scores committed this close to a rebuild's start are applied again after it (see rebuild).
CATCH_UP_SECONDS = 120
#: A rebuild that takes longer than this (a crashed process) no longer keeps others from trying.
REBUILD_LOCK_SECONDS = 300


class RankStore(Protocol):
    def rank_of(self, board: Board, player_id: int) -> tuple[int, Entry] | None: ...

    def page(self, board: Board, offset: int, limit: int) -> list[Entry]: ...

    def count(self, board: Board) -> int: ...

    def page_and_count(self, board: Board, offset: int, limit: int) -> tuple[list[Entry], int]: ...

    def entries_of(self, board: Board, player_ids: list[int]) -> list[Entry]: ...

    def entries_changed(self, board: Board, player_ids: list[int]) -> None: ...

    def entries_replaced(self, board: Board, player_ids: list[int]) -> None: ...

    def rebuild(self, board: Board) -> int: ...


class DatabaseRanks:
    """Ranks by SQL: exact and simple; a rank costs a count over the board."""

    def rank_of(self, board: Board, player_id: int) -> tuple[int, Entry] | None:
        found = board.entries([player_id])
        if not found:
            return None
        entry = found[0]
        if board.is_sum:
            p, m, f = "total_points", "total_moves", "last"
        else:
            p, m, f = "points", "moves", "finished_at"
        better = (
            Q(**{f"{p}__gt": entry.points})
            | Q(**{p: entry.points, f"{m}__lt": entry.moves})
            | Q(**{p: entry.points, m: entry.moves, f"{f}__lt": entry.finished_at})
            | Q(**{p: entry.points, m: entry.moves, f: entry.finished_at, "player_id__lt": player_id})
        )
        return board.rows().filter(better).count() + 1, entry

    def page(self, board: Board, offset: int, limit: int) -> list[Entry]:
        return [entry_of(row) for row in board.rows()[offset : offset + limit]]

    def count(self, board: Board) -> int:
        return board.rows().count()

    def page_and_count(self, board: Board, offset: int, limit: int) -> tuple[list[Entry], int]:
        return self.page(board, offset, limit), self.count(board)

    def entries_of(self, board: Board, player_ids: list[int]) -> list[Entry]:
        return board.entries(player_ids)

    def entries_changed(self, board: Board, player_ids: list[int]) -> None:
        pass

    def entries_replaced(self, board: Board, player_ids: list[int]) -> None:
        pass

    def rebuild(self, board: Board) -> int:
        return self.count(board)


# KEYS: zset, member hash, version hash.  ARGV: player, member, score, version.
_SET_ENTRY = """
local current = redis.call('HGET', KEYS[3], ARGV[1])
if current and tonumber(current) > tonumber(ARGV[4]) then return 0 end
local old = redis.call('HGET', KEYS[2], ARGV[1])
if old then redis.call('ZREM', KEYS[1], old) end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[4])
return 1
"""


# KEYS: zset, member hash, version hash.  ARGV: player.  Takes a player's entry off a board, version included.
_DROP_ENTRY = """
local old = redis.call('HGET', KEYS[2], ARGV[1])
if old then redis.call('ZREM', KEYS[1], old) end
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
return 1
"""


# KEYS: zset, member hash, built marker.  ARGV: player.  One round trip per rank lookup.
_RANK_OF = """
if redis.call('EXISTS', KEYS[3]) == 0 then return {-1} end
local member = redis.call('HGET', KEYS[2], ARGV[1])
if not member then return {} end
return {redis.call('ZRANK', KEYS[1], member), member, redis.call('ZSCORE', KEYS[1], member)}
"""

# KEYS: zset, built marker.  ARGV: first, last.  The size and one page in one round trip.
_PAGE = """
if redis.call('EXISTS', KEYS[2]) == 0 then return {-1} end
local rows = redis.call('ZRANGE', KEYS[1], ARGV[1], ARGV[2], 'WITHSCORES')
table.insert(rows, 1, redis.call('ZCARD', KEYS[1]))
return rows
"""


# KEYS: zset, member hash, built marker.  ARGV: players.  Their members and scores, one round trip.
_ENTRIES_OF = """
if redis.call('EXISTS', KEYS[3]) == 0 then return {-1} end
local rows = {}
for _, player in ipairs(ARGV) do
  local member = redis.call('HGET', KEYS[2], player)
  local score = member and redis.call('ZSCORE', KEYS[1], member)
  if score then
    table.insert(rows, member)
    table.insert(rows, score)
  end
end
return rows
"""


def _member(entry: Entry) -> str:
    # Equal sorted-set scores order by member, byte by byte: the finish time first, then the player.
    micros = int(entry.finished_at.timestamp() * 1_000_000)
    return f"{micros:017d}:{entry.player_id:012d}"


def _score(entry: Entry) -> int:
    return -entry.points * MOVES_SPAN + entry.moves


def _entry(member: str, score: float) -> Entry:
    micros, player = member.split(":")
    value = int(score)
    moves = value % MOVES_SPAN
    points = -(value - moves) // MOVES_SPAN
    finished = dt.datetime.fromtimestamp(int(micros) / 1_000_000, tz=dt.UTC)
    return Entry(int(player), points, moves, finished)


@functools.cache
def redis_client(url: str) -> redis.Redis:
    return redis.Redis.from_url(url, decode_responses=True)


class RedisRanks:
    """One sorted set per board: score = -points·2²² + moves, member = finish time then player."""

    def __init__(self, client: redis.Redis, prefix: str) -> None:
        self.client = client
        self.prefix = prefix
        self._set_entry = client.register_script(_SET_ENTRY)
        self._drop_entry = client.register_script(_DROP_ENTRY)
        self._rank_of = client.register_script(_RANK_OF)
        self._page = client.register_script(_PAGE)
        self._entries_of = client.register_script(_ENTRIES_OF)

    def _keys(self, board: Board, suffix: str = "") -> list[str]:
        base = f"{self.prefix}:{board.key}{suffix}"
        return [f"{base}:z", f"{base}:members", f"{base}:versions"]

    def _built_key(self, board: Board) -> str:
        return f"{self.prefix}:{board.key}:built"

    def rank_of(self, board: Board, player_id: int) -> tuple[int, Entry] | None:
        zset, members, _ = self._keys(board)
        for _ in range(2):
            found = self._rank_of(keys=[zset, members, self._built_key(board)], args=[player_id])
            if found != [-1]:
                break
            if not self._rebuild_alone(board):
                return DatabaseRanks().rank_of(board, player_id)
        if len(found) != 3 or found[0] is None:
            return None
        rank, member, score = found
        return int(rank) + 1, _entry(member, float(score))

    def page_and_count(self, board: Board, offset: int, limit: int) -> tuple[list[Entry], int]:
        zset = self._keys(board)[0]
        span = [offset, offset + limit - 1] if limit > 0 else [1, 0]  # ZRANGE 0 -1 would be everything
        for _ in range(2):
            rows = self._page(keys=[zset, self._built_key(board)], args=span)
            if rows != [-1]:
                break
            if not self._rebuild_alone(board):
                return DatabaseRanks().page_and_count(board, offset, limit)
        total, flat = int(rows[0]), rows[1:]
        return [_entry(flat[i], float(flat[i + 1])) for i in range(0, len(flat), 2)], total

    def page(self, board: Board, offset: int, limit: int) -> list[Entry]:
        return self.page_and_count(board, offset, limit)[0]

    def count(self, board: Board) -> int:
        return self.page_and_count(board, 0, 0)[1]

    def entries_of(self, board: Board, player_ids: list[int]) -> list[Entry]:
        """These players' entries as the sorted set holds them, in rank order (players without one are left out)."""
        zset, members, _ = self._keys(board)
        if not player_ids:
            return []
        for _ in range(2):
            rows = self._entries_of(keys=[zset, members, self._built_key(board)], args=player_ids)
            if rows != [-1]:
                break
            if not self._rebuild_alone(board):
                return DatabaseRanks().entries_of(board, player_ids)
        # The set's own order: score, then member (finish time, then player), as Entry.sort_key says.
        pairs = sorted((float(rows[i + 1]), rows[i]) for i in range(0, len(rows), 2))
        return [_entry(member, score) for score, member in pairs]

    def entries_changed(self, board: Board, player_ids: list[int]) -> None:
        """Copy these players' entries from Postgres; a board not built yet is left to its rebuild."""
        if not self.client.exists(self._built_key(board)):
            return
        self._write(board, board.entries(player_ids))

    def entries_replaced(self, board: Board, player_ids: list[int]) -> None:
        """Take these players' entries off the board and copy them again from Postgres: for a score
        whose standing changed, after which an entry can be smaller than the one stored (a sum
        with fewer scores, a lower version) or gone."""
        if not self.client.exists(self._built_key(board)):
            return
        keys = self._keys(board)
        entries = board.entries(player_ids)
        pipe = self.client.pipeline(transaction=True)
        for player_id in player_ids:
            self._drop_entry(keys=keys, args=[player_id], client=pipe)
        for entry in entries:
            self._set_entry(
                keys=keys, args=[entry.player_id, _member(entry), _score(entry), entry.version], client=pipe
            )
        pipe.execute()

    def _write(self, board: Board, entries: list[Entry]) -> None:
        keys = self._keys(board)
        pipe = self.client.pipeline(transaction=False)
        for entry in entries:
            self._set_entry(
                keys=keys, args=[entry.player_id, _member(entry), _score(entry), entry.version], client=pipe
            )
        pipe.execute()

    def _rebuild_alone(self, board: Board) -> bool:
        """Rebuild a missing board unless another process is already at it (then False: the
        caller answers from SQL meanwhile, rather than every request rebuilding at once)."""
        lock = f"{self.prefix}:{board.key}:rebuilding"
        if not self.client.set(lock, "1", nx=True, ex=REBUILD_LOCK_SECONDS):
            return False
        try:
            self.rebuild(board)
        finally:
            self.client.delete(lock)
        return True

    def rebuild(self, board: Board, *, batch: int = 5000) -> int:
        """Rebuild a board from Postgres into fresh keys, swap them in, then catch up.

        A score that commits while the board is being read finds no built board and leaves it to
        us, so every score finished since shortly before the read began is applied again at the
        end (versions make that harmless).
        """
        started = timezone.now()
        tmp = self._keys(board, f":rebuild:{time.time_ns()}")
        count = 0
        entries: list[Entry] = []

        def flush() -> None:
            pipe = self.client.pipeline(transaction=False)
            pipe.zadd(tmp[0], {_member(e): _score(e) for e in entries})
            pipe.hset(tmp[1], mapping={str(e.player_id): _member(e) for e in entries})
            pipe.hset(tmp[2], mapping={str(e.player_id): e.version for e in entries})
            pipe.execute()
            entries.clear()

        for row in board.rows().iterator(chunk_size=batch):
            entries.append(entry_of(row))
            count += 1
            if len(entries) >= batch:
                flush()
        if entries:
            flush()
        live = self._keys(board)
        pipe = self.client.pipeline(transaction=True)
        for source, target in zip(tmp, live):
            if count:
                pipe.rename(source, target)
            else:
                pipe.delete(target)
        pipe.set(self._built_key(board), started.isoformat())
        pipe.execute()
        recent = board.scores().filter(finished_at__gte=started - dt.timedelta(seconds=CATCH_UP_SECONDS))
        late = list(recent.values_list("player_id", flat=True).distinct())
        if late:
            self._write(board, board.entries(late))
        return count

    def forget(self, board: Board) -> None:
        self.client.delete(*self._keys(board), self._built_key(board))


class ResilientRanks:
    """Redis first; while Redis is unreachable, reads come from SQL and writes are left to the
    rebuild, so a Redis outage slows leaderboards down but never fails a move or a page."""

    def __init__(self, primary: RedisRanks) -> None:
        self.primary = primary
        self.fallback = DatabaseRanks()

    def rank_of(self, board: Board, player_id: int) -> tuple[int, Entry] | None:
        try:
            return self.primary.rank_of(board, player_id)
        except redis.RedisError:
            log.warning("Redis unreachable: ranking %s by SQL", board.key, exc_info=True)
            return self.fallback.rank_of(board, player_id)

    def page(self, board: Board, offset: int, limit: int) -> list[Entry]:
        return self.page_and_count(board, offset, limit)[0]

    def count(self, board: Board) -> int:
        return self.page_and_count(board, 0, 0)[1]

    def page_and_count(self, board: Board, offset: int, limit: int) -> tuple[list[Entry], int]:
        try:
            return self.primary.page_and_count(board, offset, limit)
        except redis.RedisError:
            log.warning("Redis unreachable: paging %s by SQL", board.key, exc_info=True)
            return self.fallback.page_and_count(board, offset, limit)

    def entries_of(self, board: Board, player_ids: list[int]) -> list[Entry]:
        try:
            return self.primary.entries_of(board, player_ids)
        except redis.RedisError:
            log.warning("Redis unreachable: reading %s by SQL", board.key, exc_info=True)
            return self.fallback.entries_of(board, player_ids)

    def entries_changed(self, board: Board, player_ids: list[int]) -> None:
        self._write(board, lambda: self.primary.entries_changed(board, player_ids))

    def entries_replaced(self, board: Board, player_ids: list[int]) -> None:
        self._write(board, lambda: self.primary.entries_replaced(board, player_ids))

    def _write(self, board: Board, write: Callable[[], None]) -> None:
        try:
            write()
        except redis.RedisError:
            # The board may now lack this write: unmark it so the next read rebuilds it, if we can.
            log.error("Redis unreachable: %s misses an update and will be rebuilt", board.key, exc_info=True)
            try:
                self.primary.client.delete(self.primary._built_key(board))
            except redis.RedisError:
                log.error(
                    "could not unmark %s either: run `manage.py leaderboards_invalidate` when Redis is back", board.key
                )

    def rebuild(self, board: Board) -> int:
        return self.primary.rebuild(board)


def rank_store() -> RankStore:
    if settings.LEADERBOARD_BACKEND == "redis":
        return ResilientRanks(RedisRanks(redis_client(settings.REDIS_URL), settings.LEADERBOARD_KEY_PREFIX))
    return DatabaseRanks()
