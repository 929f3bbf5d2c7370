"""Every write on races.  Each service says which row it locks; events leave through games.events.

A race's moves all lock the race row: a race has at most ``RACE_MAX_PLAYERS`` players, and the
lock is what makes "the first to clear the pyramid" exact and the race version gap-free.
"""

from __future__ import annotations

import datetime as dt
import secrets
import time
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from rest_framework import status

from games import events, positions
from games.engine import Game as EngineGame
from games.engine import Outcome, get_rules, score_moves
from games.engine.rules import UnknownPresetError
from games.live import player_ref
from games.selectors import is_daily_deal
from games.services import move_apply, move_parse
from plumbing import metrics
from plumbing.errors import (
    BadRequest,
    Conflict,
    GameFinished,
    NotAllowed,
    NotFound,
    ServiceError,
    StaleMove,
    Unavailable,
)

from . import pool
from .models import Race, RaceEntry, RaceMove
from .selectors import pyramid_left, race_entries, race_entry_state, race_results, race_summary

CODE_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"
CODE_LENGTH = 10
COUNTDOWN_MAX = 30


class NotMember(ServiceError):
    status_code, code = status.HTTP_403_FORBIDDEN, "not_member"


class NotHost(ServiceError):
    status_code, code = status.HTTP_403_FORBIDDEN, "not_host"


class NotStarted(ServiceError):
    status_code, code = status.HTTP_409_CONFLICT, "not_started"


class RacePoolEmpty(Unavailable):
    """No proven-winnable deal of the preset is ready: the pool is being topped up."""


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def _refuse_guest(player: Any) -> None:
    if getattr(player, "guest", False):
        raise NotAllowed("sign up to race: guests play the daily challenges only")


def race_create(*, host: Any, preset: str, seed: int | None = None) -> Race:
    """Open a race room for a preset; the host joins it.  Locks the pooled deal it takes.

    The deal comes from the preset's pool of deals the solver proved winnable ahead of time
    (races/pool.py), taken in the race's own transaction: no search runs here.  An empty pool is
    a 503 with Retry-After, and a top-up is asked for.  A ``seed`` given (tests, staff tools)
    deals that seed instead.

    Never a daily challenge's deal: a race shows its cards to everyone in it and reveals its seed
    when it ends, and a daily deal must stay secret until its day is over.
    """
    _refuse_guest(host)
    try:
        get_rules(preset)
    except UnknownPresetError as error:
        raise BadRequest(str(error)) from None
    if seed is not None and is_daily_deal(preset, seed):
        raise BadRequest("a race never deals the deal of a daily challenge")
    for _ in range(5):
        try:
            with transaction.atomic():
                dealt = pool.race_deal_take(preset=preset) if seed is None else seed
                if dealt is None:
                    break
                size = EngineGame.from_seed(preset, dealt).geometry.size
                race = Race.objects.create(code=new_code(), host=host, preset=preset, seed=dealt, version=1)
                RaceEntry.objects.create(race=race, player=host, pyramid_left=size)
                if seed is None:
                    transaction.on_commit(lambda: pool.race_pool_take_follow_up(preset))
                return race
        except IntegrityError:  # the code was taken: draw another (the deal went back to the pool)
            continue
    else:
        raise Conflict("could not name the race: try again")
    pool.race_pool_top_up_soon(preset)
    wait = settings.RACE_POOL_RETRY_AFTER
    raise RacePoolEmpty(
        f"no {preset} race deal is ready: more are being found, try again in {wait} s", retry_after=wait
    )


def _locked_race(code: str) -> Race:
    race = Race.objects.select_for_update().filter(code=code).first()
    if race is None:
        raise NotFound(f"there is no race {code!r}")
    return race


def races_player_leaving(user: Any) -> None:
    """Before ``user``'s account is deleted (``accounts.services.ACCOUNT_LEAVING``): each race it
    hosts passes to the player who joined next, so that the deletion, which takes the races its
    account hosts with it, takes nobody else's race, entry or moves (a race it alone is in goes);
    and each race not over that it is in tells its room, once the deletion commits, that it left
    (``race.player_left``, with the host), as a player leaving does: the pages there sync, so its
    seat or game goes from them and its heir is shown the start.  Locks those races' rows."""
    in_races = RaceEntry.objects.filter(player_id=user.pk).values("race_id")
    races = Race.objects.select_for_update().filter(Q(host_id=user.pk) | Q(pk__in=in_races)).order_by("pk")
    now = timezone.now()
    for race in races:
        rest = [entry for entry in race_entries(race) if entry.player_id != user.pk]
        if not rest:
            continue  # it alone is in it: the race goes with the account, or stays with nobody to tell
        fields = []
        if race.host_id == user.pk:
            race.host = rest[0].player
            fields = ["host"]
        over = race.status == Race.Status.FINISHED or race.is_expired(now)
        if over and not fields:
            continue
        _bump(race, *fields)
        if not over:
            _publish_player_left(race, user, len(rest))


def _publish_player_left(race: Race, player: Any, players: int) -> None:
    """``player`` left the race, ``players`` are left in it (with its host, which may be new)."""
    events.publish_race_event(
        code=race.code,
        event={
            "type": "race.player_left",
            "v": 1,
            "race": race.code,
            "version": race.version,
            "player": player_ref(player),
            "players": players,
            "host": player_ref(race.host),
        },
    )


def _bump(race: Race, *fields: str) -> None:
    race.version += 1
    race.save(update_fields=["version", *fields])


def _refuse_if_expired(race: Race) -> None:
    if race.is_expired(timezone.now()):
        raise Conflict("this race expired: nobody started it in time; open a new one")


def race_join(*, code: str, player: Any) -> Race:
    """Join a race in its lobby (joining twice changes nothing).  Locks the race row."""
    _refuse_guest(player)
    with transaction.atomic():
        race = _locked_race(code)
        if race.entries.filter(player_id=player.pk).exists():
            return race
        _refuse_if_expired(race)
        if race.status != Race.Status.LOBBY:
            raise Conflict("this race has started: it takes no more players")
        players = race.entries.count()
        if players >= settings.RACE_MAX_PLAYERS:
            raise Conflict(f"this race is full ({settings.RACE_MAX_PLAYERS} players)")
        RaceEntry.objects.create(race=race, player=player, pyramid_left=EngineGame.start(race.deal).geometry.size)
        _bump(race)
        events.publish_race_event(
            code=race.code,
            event={
                "type": "race.player_joined",
                "v": 1,
                "race": race.code,
                "version": race.version,
                "player": player_ref(player),
                "players": players + 1,
            },
        )
    return race


def race_start(*, code: str, player: Any, countdown: int | None = None) -> Race:
    """The host starts the countdown; the race runs from ``starts_at``.  Locks the race row."""
    countdown = settings.RACE_COUNTDOWN if countdown is None else countdown
    low, high = settings.RACE_COUNTDOWN_MIN, COUNTDOWN_MAX
    if not low <= countdown <= high:
        raise BadRequest(f"a countdown lasts from {low} to {high} seconds")
    with transaction.atomic():
        race = _locked_race(code)
        if race.host_id != player.pk:
            raise NotHost("only the host starts the race")
        _refuse_if_expired(race)
        if race.status != Race.Status.LOBBY:
            raise Conflict("this race has started already")
        race.status = Race.Status.STARTED
        race.countdown = countdown
        race.starts_at = timezone.now() + dt.timedelta(seconds=countdown)
        _bump(race, "status", "countdown", "starts_at")
        events.publish_race_event(
            code=race.code,
            event={
                "type": "race.countdown",
                "v": 1,
                "race": race.code,
                "version": race.version,
                "starts_at": race.starts_at.isoformat(),
                "seconds": countdown,
            },
        )
    return race


@dataclass(frozen=True)
class RacePlay:
    race: Race
    entry: RaceEntry
    state: EngineGame


def _playing_entry(race: Race, player: Any) -> RaceEntry:
    entry = race.entries.select_related("player").filter(player_id=player.pk).first()
    if entry is None:
        raise NotMember("you have not joined this race")
    if race.status == Race.Status.FINISHED:
        raise GameFinished("the race is over")
    if race.status == Race.Status.LOBBY or race.phase(timezone.now()) == "countdown":
        raise NotStarted("the race has not started yet")
    if entry.is_finished:
        raise GameFinished(f"your race game is over ({entry.outcome})")
    return entry


def _progress(race: Race, entry: RaceEntry) -> None:
    _bump(race)
    events.publish_race_event(
        code=race.code,
        event={
            "type": "race.progress",
            "v": 1,
            "race": race.code,
            "version": race.version,
            "player": player_ref(entry.player),
            "summary": race_summary(entry),
        },
    )


def _finish_race_if_over(race: Race, *, winner: RaceEntry | None) -> None:
    """Close the race when someone cleared the pyramid or nobody is still playing."""
    entries = race_entries(race)
    if winner is None and any(not entry.is_finished for entry in entries):
        return
    now = timezone.now()
    for entry in entries:
        if not entry.is_finished:
            entry.outcome = RaceEntry.Outcome.STOPPED
            entry.finished_at = now
            entry.save(update_fields=["outcome", "finished_at"])
    race.status = Race.Status.FINISHED
    race.finished_at = now
    _bump(race, "status", "finished_at")
    events.publish_race_event(
        code=race.code,
        event={
            "type": "race.finished",
            "v": 1,
            "race": race.code,
            "version": race.version,
            "results": race_results(race, entries),
            "seed": str(race.seed),
        },
    )


def race_move_make(*, code: str, player: Any, move: str, seen: int) -> RacePlay:
    """Apply one move of the player's race game, sent with the moves the client has seen.

    Locks the race row.  A stale, repeated or illegal move changes nothing; the move that clears
    the pyramid first wins the race and closes it.
    """
    started = time.perf_counter()
    parsed = move_parse(move)
    with transaction.atomic():
        race = _locked_race(code)
        entry = _playing_entry(race, player)
        if seen != entry.move_count:
            raise StaleMove(
                f"your race game has {entry.move_count} moves and you have seen {seen}: reload it and try again",
                moves=entry.move_count,
            )
        state = move_apply(race_entry_state(race, entry), parsed)
        entry.move_count += 1
        RaceMove.objects.create(entry=entry, number=entry.move_count, notation=str(state.moves[-1]))
        entry.score = state.score
        entry.pyramid_left = pyramid_left(state)
        if state.outcome is not Outcome.IN_PROGRESS:
            entry.outcome = RaceEntry.Outcome.WON if state.outcome is Outcome.WON else RaceEntry.Outcome.LOST
            entry.finished_at = timezone.now()
            entry.score = score_moves(list(state.moves), state.rules)
        entry.save(update_fields=["move_count", "score", "pyramid_left", "outcome", "finished_at"])
        key = positions.key_of("race", entry.pk, entry.joined_at, entry.move_count, entry.move_count)
        transaction.on_commit(lambda: positions.remember(key, state))
        _progress(race, entry)
        if entry.is_finished:
            _finish_race_if_over(race, winner=entry if entry.outcome == RaceEntry.Outcome.WON else None)
    metrics.move_applied("race", state.deal.rules.name, time.perf_counter() - started)
    return RacePlay(race, entry, state)


def race_resign(*, code: str, player: Any) -> RacePlay:
    """Give up the player's race game; the race ends when nobody is still playing.  Locks the race row."""
    with transaction.atomic():
        race = _locked_race(code)
        entry = _playing_entry(race, player)
        return _resign(race, entry)


def _resign(race: Race, entry: RaceEntry) -> RacePlay:
    state = race_entry_state(race, entry)
    entry.outcome = RaceEntry.Outcome.RESIGNED
    entry.finished_at = timezone.now()
    entry.save(update_fields=["outcome", "finished_at"])
    _progress(race, entry)
    _finish_race_if_over(race, winner=None)
    return RacePlay(race, entry, state)


def race_rematch(*, code: str, player: Any) -> Race:
    """Race the same friends again once the race is over, and return the new race.

    The first player of the race to ask opens a new race of its preset (a fresh pooled deal) as
    its host and tells the room (``race.rematch``); each later one joins that race.  Locks the
    finished race's row first, then the rematch's, so two players asking at once open one race.
    """
    _refuse_guest(player)
    with transaction.atomic():
        race = _locked_race(code)
        if not race.entries.filter(player_id=player.pk).exists():
            raise NotMember("only the race's players can ask for a rematch")
        if race.status != Race.Status.FINISHED:
            raise Conflict("the race is not over: a rematch comes after it")
        if race.rematch is not None:
            return race_join(code=race.rematch.code, player=player)
        rematch = race_create(host=player, preset=race.preset)
        race.rematch = rematch
        _bump(race, "rematch")
        events.publish_race_event(
            code=race.code,
            event={
                "type": "race.rematch",
                "v": 1,
                "race": race.code,
                "version": race.version,
                "rematch": rematch.code,
                "host": player_ref(player),
            },
        )
    return rematch


def race_leave(*, code: str, player: Any) -> Race:
    """Leave a race.  Locks the race row.

    In the lobby the player's seat is given up (a host who leaves hands the room to the player who
    joined next; the last one out closes it); once the race has started, leaving gives up the
    player's game, as resigning does; after the end, or for a game already over, nothing changes.
    """
    with transaction.atomic():
        race = _locked_race(code)
        entry = race.entries.select_related("player").filter(player_id=player.pk).first()
        if entry is None:
            raise NotMember("you have not joined this race")
        if race.status == Race.Status.FINISHED or race.is_expired(timezone.now()):
            return race
        if race.status == Race.Status.STARTED:
            if not entry.is_finished:
                _resign(race, entry)
            return race
        entry.delete()
        rest = race_entries(race)
        fields = []
        if not rest:
            race.status, race.finished_at = Race.Status.FINISHED, timezone.now()
            fields = ["status", "finished_at"]
        elif race.host_id == player.pk:
            race.host = rest[0].player
            fields = ["host"]
        _bump(race, *fields)
        _publish_player_left(race, player, len(rest))
    return race
