"""Back up and restore the service's Postgres database: `make backup`, `make restore` (docs/operations.md).

    python ops/pgbackup.py backup [--file backups/<time>-<db>.dump]
    python ops/pgbackup.py restore --file F

DATABASE_URL names the database, read as the settings read it; anything but Postgres is refused.
A backup is pg_dump's custom format, renamed into place only once whole; a restore is all or nothing.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
POSTGRES_ENGINES = ("django.db.backends.postgresql", "django.contrib.gis.db.backends.postgis")
#: DATABASE_URL query options that libpq understands (the others are Django's or psycopg's own).
LIBPQ_OPTIONS = {
    "sslmode",
    "sslrootcert",
    "sslcert",
    "sslkey",
    "sslcrl",
    "sslpassword",
    "connect_timeout",
    "application_name",
    "options",
    "target_session_attrs",
    "gssencmode",
    "channel_binding",
    "passfile",
}


class Refused(Exception):
    """A reason to stop, for the person at the terminal (no traceback)."""


def database_config(url: str | None) -> dict[str, Any]:
    if not url:
        raise Refused(
            "DATABASE_URL is not set: backups are of a Postgres database, e.g.\n"
            "  make backup DATABASE_URL=postgres://postgres@127.0.0.1:5432/piramide\n"
            "(without DATABASE_URL the service runs on SQLite: copy db.sqlite3 while the site is stopped)"
        )
    import environ

    try:
        config = environ.Env.db_url_config(url)
    except Exception as error:  # django-environ raises several kinds for a malformed URL
        raise Refused(f"DATABASE_URL is not a database URL django-environ understands: {error}") from None
    engine = config.get("ENGINE", "")
    if engine not in POSTGRES_ENGINES:
        kind = "SQLite" if "sqlite" in engine else (engine or url.split(":", 1)[0])
        raise Refused(
            f"DATABASE_URL names a {kind} database, and make backup / make restore work on Postgres only "
            "(pg_dump / pg_restore).  For SQLite, copy the database file while the site is stopped."
        )
    if not config.get("NAME"):
        raise Refused("DATABASE_URL names no database (postgres://user@host:port/<database>)")
    return config


def connection(config: dict[str, Any], database: str | None = None) -> tuple[str, dict[str, str]]:
    """A libpq connection string for the pg_* tools, and their environment (the password stays out of argv)."""
    from psycopg.conninfo import make_conninfo

    params: dict[str, Any] = {"dbname": database or config["NAME"]}
    for key, name in (("HOST", "host"), ("PORT", "port"), ("USER", "user")):
        if config.get(key):
            params[name] = str(config[key])
    params.update({k: str(v) for k, v in (config.get("OPTIONS") or {}).items() if k in LIBPQ_OPTIONS})
    env = dict(os.environ)
    if config.get("PASSWORD"):
        env["PGPASSWORD"] = str(config["PASSWORD"])
    return make_conninfo(**params), env


def where(config: dict[str, Any]) -> str:
    host = config.get("HOST") or "the local socket"
    port = f":{config['PORT']}" if config.get("PORT") else ""
    return f"database {config['NAME']!r} on {host}{port}"


def tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise Refused(f"{name} is not installed (Debian: apt-get install postgresql-client)")
    return found


def run(command: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(command, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        shown = [
            part if not part.startswith(("host=", "dbname=", "user=", "port=")) else "<DATABASE_URL>"
            for part in command
        ]
        raise Refused(f"{Path(command[0]).name} failed ({' '.join(shown)}):\n{result.stderr.strip()}")
    return result


def backup(config: dict[str, Any], file: Path | None) -> Path:
    if file is None:
        stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
        file = ROOT / "backups" / f"{stamp}-{config['NAME']}.dump"
    file = file.resolve()
    if file.is_dir():
        raise Refused(f"{file} is a directory: BACKUP_FILE names the file to write")
    file.parent.mkdir(parents=True, exist_ok=True)
    partial = file.with_name(file.name + ".partial")
    conninfo, env = connection(config)
    try:
        run([tool("pg_dump"), "--format=custom", "--file", str(partial), "--dbname", conninfo], env)
        listing = run([tool("pg_restore"), "--list", str(partial)], env).stdout
        partial.replace(file)
    finally:
        partial.unlink(missing_ok=True)
    tables = sum(1 for line in listing.splitlines() if " TABLE DATA " in line)
    print(f"backed up {where(config)} to {file} ({file.stat().st_size} bytes, {tables} tables)")
    return file


def ensure_database(config: dict[str, Any]) -> bool:
    """Create the target database if it does not exist yet; True if it was created."""
    import psycopg
    from psycopg import sql

    conninfo, env = connection(config, database="postgres")
    password: dict[str, Any] = {"password": env["PGPASSWORD"]} if env.get("PGPASSWORD") else {}
    try:
        with psycopg.connect(conninfo, autocommit=True, **password) as conn:
            exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (config["NAME"],)).fetchone()
            if exists:
                return False
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(config["NAME"])))
            return True
    except psycopg.Error as error:
        raise Refused(f"could not reach or create {where(config)}: {error}".strip()) from None


def restore(config: dict[str, Any], file: Path) -> None:
    if not file.is_file():
        raise Refused(f"there is no backup file {file}")
    conninfo, env = connection(config)
    run([tool("pg_restore"), "--list", str(file)], env)  # refuses anything that is not a custom-format dump
    created = ensure_database(config)
    run(
        [
            tool("pg_restore"),
            "--clean",
            "--if-exists",
            "--no-owner",
            "--no-privileges",
            "--single-transaction",
            "--exit-on-error",
            "--dbname",
            conninfo,
            str(file),
        ],
        env,
    )
    print(f"restored {file} into {where(config)}" + (" (created)" if created else " (its previous tables replaced)"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", choices=["backup", "restore"])
    parser.add_argument("--file", type=Path, help="the dump to write (backup) or read (restore)")
    args = parser.parse_args(argv)
    try:
        config = database_config(os.environ.get("DATABASE_URL"))
        if args.action == "backup":
            backup(config, args.file)
        else:
            if args.file is None:
                raise Refused("restore needs the dump to read: make restore BACKUP_FILE=backups/<file>.dump")
            restore(config, args.file)
    except Refused as reason:
        print(f"{args.action}: {reason}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
