"""`make backup` and `make restore`: a backup restored into a fresh database holds every row.

Games (won, resigned, in play, practice), their moves and scores are made through the services on
the test database; `make backup` dumps it, `make restore` loads the dump into a database that does
not exist yet, and every row of every table comes back, sequences included, and the leaderboards
rebuild from the restored scores.  A second backup, taken after one more score, restored over the
first copy, replaces it (and the boards follow, without a stale entry).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.conftest import ROOT

TABLES = [
    "accounts_user",
    "games_dailychallenge",
    "games_game",
    "games_move",
    "leaderboard_score",
    "django_session",
]


def make(target: str, database_url: str | None, **variables: str) -> subprocess.CompletedProcess[str]:
    """Run a Makefile target as a person would (the venv is there already: -o skips reinstalling it)."""
    env = {key: value for key, value in os.environ.items() if key != "DATABASE_URL"}
    if database_url is not None:
        env["DATABASE_URL"] = database_url
    env.update(variables)
    return subprocess.run(
        ["make", "--no-print-directory", "-o", ".venv/.installed", target, *(f"{k}={v}" for k, v in variables.items())],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.parametrize(
    ("url", "says"),
    [
        (None, "DATABASE_URL is not set"),
        ("sqlite:////tmp/piramide.sqlite3", "names a SQLite database"),
        ("mysql://root@127.0.0.1/piramide", "Postgres only"),
        ("postgres://postgres@127.0.0.1:5432/", "names no database"),
    ],
)
def test_backup_and_restore_refuse_anything_but_postgres_with_the_reason(
    url: str | None, says: str, tmp_path: Path
) -> None:
    for target in ("backup", "restore"):
        result = make(target, url, BACKUP_FILE=str(tmp_path / "x.dump"))
        assert result.returncode != 0
        assert says in result.stderr and "Traceback" not in result.stderr, result.stderr
    assert not list(tmp_path.iterdir())


def test_restore_refuses_a_file_that_is_not_a_backup(tmp_path: Path) -> None:
    missing = make(
        "restore", "postgres://postgres@127.0.0.1:5432/piramide_nothing", BACKUP_FILE=str(tmp_path / "no.dump")
    )
    assert missing.returncode != 0 and "there is no backup file" in missing.stderr
    (tmp_path / "junk.dump").write_text("not a dump")
    junk = make(
        "restore", "postgres://postgres@127.0.0.1:5432/piramide_nothing", BACKUP_FILE=str(tmp_path / "junk.dump")
    )
    assert junk.returncode != 0 and "pg_restore failed" in junk.stderr and "Traceback" not in junk.stderr


# ----------------------------------------------------------------- against Postgres


def url_of(settings_dict: dict[str, Any], name: str | None = None) -> str:
    host, port = settings_dict["HOST"] or "127.0.0.1", settings_dict["PORT"] or 5432
    return f"postgres://{settings_dict['USER']}@{host}:{port}/{name or settings_dict['NAME']}"


def rows(url: str) -> dict[str, list[tuple[Any, ...]]]:
    with psycopg.connect(url.replace("postgres://", "postgresql://", 1)) as conn:
        found = {table: conn.execute(f"SELECT * FROM {table} ORDER BY 1").fetchall() for table in TABLES}
        found["sequences"] = conn.execute(
            "SELECT sequencename, last_value FROM pg_sequences WHERE schemaname = 'public' ORDER BY 1"
        ).fetchall()
    return found


def drop_database(settings_dict: dict[str, Any], name: str) -> None:
    with psycopg.connect(
        url_of(settings_dict, "postgres").replace("postgres://", "postgresql://", 1), autocommit=True
    ) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


BOARDS = """
import datetime as dt, json
from leaderboard.boards import Board
from leaderboard.selectors import leaderboard_page
from games.selectors import local_today
boards = [Board.for_challenge(c) for c in CHALLENGES] + [Board.all_time(p) for p in ("classic", "forty")]
boards += [Board.for_week(p, local_today()) for p in ("classic", "forty")]
print("@@" + json.dumps([leaderboard_page(board=b) for b in boards], default=str))
"""


def boards_on(url: str, challenges: list[int], prefix: str, redis_url: str) -> list[dict[str, Any]]:
    """The leaderboards as a fresh process on ``url`` answers them, from Redis sorted sets under ``prefix``."""
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "REDIS_URL": redis_url,
        "LEADERBOARD_BACKEND": "redis",
        "LEADERBOARD_KEY_PREFIX": prefix,
        "DJANGO_SETTINGS_MODULE": "piramide_site.settings.test",
    }
    code = f"CHALLENGES = {challenges!r}\n{BOARDS}"
    result = subprocess.run(
        [sys.executable, "manage.py", "shell", "--no-startup", "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    line = [text for text in result.stdout.splitlines() if text.startswith("@@")][-1]
    return json.loads(line[2:])  # type: ignore[no-any-return]


def play(challenge_id: int, player: Any, moves: list[str], *, resign: bool = False, practice: bool = False) -> int:
    from games.services import game_move_make, game_practice_start, game_ranked_start, game_resign

    if practice:
        game = game_practice_start(challenge_id=challenge_id, player=player).game
    else:
        game = game_ranked_start(challenge_id=challenge_id, player=player)[0].game
    for seen, move in enumerate(moves):
        game_move_make(game_id=game.pk, player=player, move=move, seen=seen)
    if resign:
        game_resign(game_id=game.pk, player=player)
    return int(game.pk)


def test_a_backup_restored_into_a_fresh_database_holds_every_game_move_and_score(
    postgres: Any, redis_url: str, transactional_db: Any, tmp_path: Path
) -> None:
    import datetime as dt

    from django.db import connection
    from django.test import Client

    from tests.factories import WINNABLE, make_challenge, make_player
    from tests.faults.conftest import winning_line

    classic = make_challenge(preset="classic", seed=WINNABLE["classic"])
    forty = make_challenge(preset="forty", seed=WINNABLE["forty"])
    classic_line, forty_line = winning_line("classic", classic.seed), winning_line("forty", forty.seed)
    alice, bob, carol, dave = (
        make_player(name, display_name=name.title()) for name in ("alice", "bob", "carol", "dave")
    )
    play(classic.pk, alice, classic_line)
    past = make_challenge(preset="classic", seed=WINNABLE["classic"], date=classic.date - dt.timedelta(days=1))
    play(past.pk, alice, classic_line[:4], practice=True)  # practice opens once a day is over
    play(forty.pk, alice, forty_line)
    play(classic.pk, bob, classic_line[:9], resign=True)
    play(forty.pk, bob, forty_line[:2], resign=True)
    play(classic.pk, carol, classic_line[:3])  # still in play: no score yet
    Client().force_login(carol)  # a session row too

    settings_dict = connection.settings_dict
    source = url_of(settings_dict)
    copy_name = f"{settings_dict['NAME']}_restored"
    copy = url_of(settings_dict, copy_name)
    drop_database(settings_dict, copy_name)
    prefix = f"piramide-backup-test-{os.getpid()}:lb"
    try:
        first = tmp_path / "first.dump"
        backed_up = make("backup", source, BACKUP_FILE=str(first))
        assert backed_up.returncode == 0, backed_up.stderr
        assert "backed up" in backed_up.stdout and first.stat().st_size > 0
        assert not list(tmp_path.glob("*.partial"))

        restored = make("restore", copy, BACKUP_FILE=str(first), LEADERBOARD_KEY_PREFIX=prefix)
        assert restored.returncode == 0, restored.stderr
        assert "(created)" in restored.stdout
        original = rows(source)
        assert sum(len(original[table]) for table in TABLES) > 0
        assert len(original["games_move"]) == len(classic_line) + 4 + len(forty_line) + 9 + 2 + 3
        assert len(original["leaderboard_score"]) == 4
        assert rows(copy) == original

        challenges = [classic.pk, forty.pk]
        expected = boards_on(source, challenges, prefix + "-source", redis_url)
        assert [len(board["entries"]) for board in expected] == [2, 2, 2, 2, 2, 2]
        assert boards_on(copy, challenges, prefix, redis_url) == expected

        # One more score, a second backup restored over the first copy: the boards follow.
        play(classic.pk, dave, classic_line[:5], resign=True)
        second = tmp_path / "second.dump"
        assert make("backup", source, BACKUP_FILE=str(second)).returncode == 0
        again = make("restore", copy, BACKUP_FILE=str(second), LEADERBOARD_KEY_PREFIX=prefix)
        assert again.returncode == 0, again.stderr
        assert "previous tables replaced" in again.stdout and "will be rebuilt" in again.stdout
        assert rows(copy) == rows(source)
        after = boards_on(copy, challenges, prefix, redis_url)
        assert after == boards_on(source, challenges, prefix + "-source2", redis_url)
        assert "Dave" in [row["display_name"] for row in after[0]["entries"]]
    finally:
        drop_database(settings_dict, copy_name)
        from leaderboard.ranks import redis_client

        client = redis_client(redis_url)
        keys = list(client.scan_iter(match=f"piramide-backup-test-{os.getpid()}:*", count=1000))
        if keys:
            client.delete(*keys)
