"""The daily program kept by the web process itself where no Celery beat runs (the embedded
default of `make run`): today's and tomorrow's challenges (each day's whole program) are made at
start and again every hour and just after midnight, so a site left running overnight has the new
day's deals at midnight.

The filling runs as `manage.py program_fill` in a child process, so its solver work never holds
the web process's event loop or interpreter; the command takes a file lock, so of several web
processes on one database one fills at a time and the others skip that round.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import sys
from pathlib import Path
from typing import Any

from django.conf import settings
from django.utils import timezone

from games.selectors import challenge_time_zone

log = logging.getLogger(__name__)

#: How many days, today included, the web process keeps filled: each day's whole program (daily
#: presets and variant of the day).  Two are enough for midnight; the beat fills 14 (a first fill
#: of 14 days takes about a minute, docs/operations.md, "The daily program").
DAYS = 2
#: The longest wait between two rounds; a round also runs just after each midnight.
ROUND = dt.timedelta(hours=1)
MANAGE = Path(__file__).resolve().parent.parent / "manage.py"


def seconds_to_next_round(now: dt.datetime) -> float:
    """Until the next round: an hour, or a few seconds past the coming midnight if that is sooner."""
    local = now.astimezone(challenge_time_zone())
    midnight = dt.datetime.combine(local.date() + dt.timedelta(days=1), dt.time(), tzinfo=local.tzinfo)
    return max(1.0, min(ROUND.total_seconds(), (midnight - local).total_seconds() + 5))


async def fill_once() -> int:
    """One round: run the fill command to its end; its exit status (0 also when another process held the lock)."""
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        str(MANAGE),
        "program_fill",
        "--days",
        str(DAYS),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    try:
        output, _ = await child.communicate()
    except asyncio.CancelledError:
        child.kill()
        await child.wait()
        raise
    for line in output.decode(errors="replace").splitlines():
        log.info("program_fill: %s", line)
    if child.returncode:
        log.error("program_fill exited with %s", child.returncode)
    return child.returncode or 0


async def keep_program() -> None:
    while True:
        try:
            await fill_once()
        except OSError:
            log.exception("program_fill could not be started")
        await asyncio.sleep(seconds_to_next_round(timezone.now()))


async def lifespan(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """The ASGI lifespan protocol: the keeper starts with the server and stops with it."""
    keeper: asyncio.Task[None] | None = None
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            if settings.PIRAMIDE_PROGRAM_KEEPER:
                keeper = asyncio.create_task(keep_program(), name="program keeper")
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            if keeper is not None:
                keeper.cancel()
                try:
                    await keeper
                except asyncio.CancelledError:
                    pass
            await send({"type": "lifespan.shutdown.complete"})
            return
