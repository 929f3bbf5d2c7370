"""Leaderboard benchmark: load 1,000,000 score rows into Postgres, back the boards with Redis,
and print rank-lookup and top-100 latency (median and p99).

Needs Postgres and Redis (defaults: the machine's own, as in CI):

    .venv/bin/python bench/leaderboard.py [--users 250000 --challenges 4] [--samples 2000]

It creates (and afterwards drops) a database of its own, ``piramide_bench_leaderboard``, and uses its own
Redis key prefix, so it never touches a real one.  Targets from issue 4: a rank in <= 2 ms
median, a page of 100 in <= 5 ms.  It prints figures; it asserts nothing.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DB_NAME = "piramide_bench_leaderboard"


def parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--postgres", default=os.environ.get("BENCH_POSTGRES", "postgres://postgres@127.0.0.1:5432"))
    parser.add_argument("--redis", default=os.environ.get("BENCH_REDIS", "redis://127.0.0.1:6379/0"))
    parser.add_argument("--users", type=int, default=250_000)
    parser.add_argument("--challenges", type=int, default=4, help="score rows = users x challenges")
    parser.add_argument("--samples", type=int, default=2000)
    parser.add_argument("--keep", action="store_true", help="keep the database and Redis keys afterwards")
    return parser.parse_args()


def recreate_database(server: str) -> None:
    import psycopg

    with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {DB_NAME}")
        conn.execute(f"CREATE DATABASE {DB_NAME}")


def drop_database(server: str) -> None:
    import psycopg
    from django.db import connections

    connections.close_all()
    with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {DB_NAME}")


def ms(values: list[float]) -> str:
    values = sorted(values)
    p99 = values[min(len(values) - 1, int(len(values) * 0.99))]
    return f"median {statistics.median(values) * 1000:7.3f} ms   p99 {p99 * 1000:7.3f} ms   (n={len(values)})"


def load(users: int, challenges: int) -> list[int]:
    """COPY users, challenges, games and scores straight into Postgres; returns the challenge ids."""
    from django.db import connection

    from accounts.names import display_name_skeleton
    from games.models import DailyChallenge, commitment_fields

    rng = random.Random(4)
    start = dt.date(2026, 6, 1)
    ids = []
    for day in range(challenges):
        challenge = DailyChallenge.objects.create(
            date=start + dt.timedelta(days=day),
            preset="classic",
            seed=day + 1,
            **commitment_fields("classic", day + 1),
            status="done",
            verdict="winnable",
        )
        ids.append(challenge.pk)
    joined = dt.datetime(2026, 5, 1, tzinfo=dt.UTC)
    with connection.cursor() as cursor:
        raw = cursor.cursor
        t = time.perf_counter()
        with raw.copy(
            "COPY accounts_user (password, is_superuser, username, first_name, last_name, email, is_staff,"
            " is_active, date_joined, display_name, display_name_skeleton, follow_token) FROM STDIN"
        ) as copy:
            for i in range(users):
                name = f"Player {i}"
                copy.write_row(
                    (
                        "!",
                        False,
                        f"u{i}",
                        "",
                        "",
                        "",
                        False,
                        True,
                        joined,
                        name,
                        display_name_skeleton(name),
                        f"bench-{i}",
                    )
                )
        cursor.execute("SELECT min(id) FROM accounts_user")
        first_user = cursor.fetchone()[0]
        print(f"  {users:,} users in {time.perf_counter() - t:.1f} s")
        t = time.perf_counter()
        with raw.copy(
            "COPY games_game (challenge_id, player_id, ranked, outcome, move_count, score, started_at, finished_at)"
            " FROM STDIN"
        ) as copy_games:
            rows = []
            for c, challenge_id in enumerate(ids):
                day_start = dt.datetime.combine(start + dt.timedelta(days=c), dt.time(), tzinfo=dt.UTC)
                for i in range(users):
                    points = rng.randrange(-20, 700, 10)
                    moves = rng.randrange(25, 140)
                    finished = day_start + dt.timedelta(
                        seconds=rng.randrange(86_400), microseconds=rng.randrange(10**6)
                    )
                    copy_games.write_row((challenge_id, first_user + i, True, "won", moves, points, finished, finished))
                    rows.append((first_user + i, challenge_id, start + dt.timedelta(days=c), points, moves, finished))
        cursor.execute("SELECT min(id) FROM games_game")
        first_game = cursor.fetchone()[0]
        print(f"  {len(rows):,} games in {time.perf_counter() - t:.1f} s")
        t = time.perf_counter()
        with raw.copy(
            "COPY leaderboard_score (player_id, challenge_id, game_id, date, preset, points, moves, won, finished_at)"
            " FROM STDIN"
        ) as copy_scores:
            for n, (player, challenge_id, date, points, moves, finished) in enumerate(rows):
                copy_scores.write_row(
                    (player, challenge_id, first_game + n, date, "classic", points, moves, points > 400, finished)
                )
        cursor.execute("ANALYZE")
        print(f"  {len(rows):,} score rows in {time.perf_counter() - t:.1f} s")
    return ids


def main() -> None:
    args = parse()
    os.environ.update(
        DJANGO_SETTINGS_MODULE="piramide_site.settings.local",
        DATABASE_URL=f"{args.postgres}/{DB_NAME}",
        REDIS_URL=args.redis,
        LEADERBOARD_KEY_PREFIX="piramide-bench:lb",
        DJANGO_LOG_LEVEL="WARNING",
    )
    recreate_database(args.postgres)
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from leaderboard.boards import Board
    from leaderboard.models import Score
    from leaderboard.ranks import DatabaseRanks, RedisRanks, rank_store
    from leaderboard.selectors import leaderboard_around, leaderboard_page

    call_command("migrate", verbosity=0)
    total = args.users * args.challenges
    print(f"loading {total:,} score rows ({args.users:,} players x {args.challenges} challenges) into Postgres")
    ids = load(args.users, args.challenges)
    assert Score.objects.count() == total
    store = rank_store()
    assert isinstance(store, RedisRanks)
    boards = [
        ("one challenge", Board.for_challenge(ids[0])),
        ("all time (sum over every row)", Board.all_time("classic")),
    ]
    players = list(get_user_model().objects.values_list("pk", flat=True))
    rng = random.Random(7)
    try:
        for label, board in boards:
            store.forget(board)
            t = time.perf_counter()
            entries = store.rebuild(board)
            print(
                f"\n{label}: {board.key}, {entries:,} entries; rebuilt from Postgres in {time.perf_counter() - t:.1f} s"
            )
            rank_times, around_times, page_times, deep_times = [], [], [], []
            for _ in range(args.samples):
                player = rng.choice(players)
                t = time.perf_counter()
                found = store.rank_of(board, player)
                rank_times.append(time.perf_counter() - t)
                assert found is not None
                t = time.perf_counter()
                leaderboard_around(board=board, player_id=player, radius=5)
                around_times.append(time.perf_counter() - t)
            for _ in range(max(200, args.samples // 4)):
                t = time.perf_counter()
                page = leaderboard_page(board=board, offset=0, limit=100)
                page_times.append(time.perf_counter() - t)
                offset = rng.randrange(0, max(1, entries - 100))
                t = time.perf_counter()
                leaderboard_page(board=board, offset=offset, limit=100)
                deep_times.append(time.perf_counter() - t)
            assert len(page["entries"]) == 100
            print(f"  rank lookup (Redis)                   {ms(rank_times)}")
            print(f"  my rank + 5 neighbours, with names    {ms(around_times)}")
            print(f"  top-100 page, with names              {ms(page_times)}")
            print(f"  a page of 100 at a random depth       {ms(deep_times)}")
            sql = DatabaseRanks()
            sql_times = []
            for _ in range(5):
                player = rng.choice(players)
                t = time.perf_counter()
                assert sql.rank_of(board, player)[0] == store.rank_of(board, player)[0]
                sql_times.append(time.perf_counter() - t)
            print(f"  for comparison, rank by SQL count     {ms(sql_times)}  (same ranks as Redis)")
        flush_board = boards[0][1]
        store.forget(flush_board)
        t = time.perf_counter()
        leaderboard_page(board=flush_board, offset=0, limit=100)
        print(f"\nafter a Redis flush, the first request rebuilds its board: {time.perf_counter() - t:.1f} s")
    finally:
        if not args.keep:
            for _, board in boards:
                store.forget(board)
            drop_database(args.postgres)


if __name__ == "__main__":
    main()
