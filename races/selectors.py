"""Reads on races: the race as a client sees it, a player's race game, the results table."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.utils import timezone

from games import positions
from games.engine import Game as EngineGame
from games.engine import parse_move
from games.live import player_ref
from plumbing.errors import NotFound

from .models import Race, RaceEntry


def race_get(*, code: str) -> Race:
    race = Race.objects.select_related("host").filter(code=code).first()
    if race is None:
        raise NotFound(f"there is no race {code!r}")
    return race


def race_entries(race: Race) -> list[RaceEntry]:
    return list(race.entries.select_related("player").order_by("joined_at", "id"))


def race_entry_state(race: Race, entry: RaceEntry) -> EngineGame:
    """The player's position, rebuilt from the race's deal and the stored moves (remembered: no undo)."""
    key = positions.key_of("race", entry.pk, entry.joined_at, entry.move_count, entry.move_count)
    state = positions.recall(key)
    if state is None:
        notations = entry.moves.order_by("number").values_list("notation", flat=True)
        state = EngineGame.replay(race.deal, [parse_move(text) for text in notations])
        positions.remember(key, state)
    return state


def pyramid_left(state: EngineGame) -> int:
    return state.geometry.size - bin(state.removed).count("1")


def race_summary(entry: RaceEntry) -> dict[str, Any]:
    """Progress without a card: what the other racers see."""
    return {
        "moves": entry.move_count,
        "score": entry.score,
        "pyramid_left": entry.pyramid_left,
        "finished": entry.is_finished,
        "outcome": entry.outcome,
    }


def _iso(moment: dt.datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


def race_results(race: Race, entries: list[RaceEntry]) -> list[dict[str, Any]]:
    """The table that closes a race: whoever cleared the pyramid first, then the highest score,
    fewer moves and the earlier finish."""

    def key(entry: RaceEntry) -> tuple[Any, ...]:
        finished = entry.finished_at or race.finished_at or timezone.now()
        return (entry.outcome != RaceEntry.Outcome.WON, -entry.score, entry.move_count, finished, entry.pk)

    return [
        {
            "place": place,
            "player": player_ref(entry.player),
            "outcome": entry.outcome,
            "score": entry.score,
            "moves": entry.move_count,
            "pyramid_left": entry.pyramid_left,
            "finished_at": _iso(entry.finished_at),
        }
        for place, entry in enumerate(sorted(entries, key=key), start=1)
    ]


def race_view(race: Race, entries: list[RaceEntry] | None = None, *, now: dt.datetime | None = None) -> dict[str, Any]:
    """The race as every client sees it: players as summaries, the seed only once it is over."""
    entries = race_entries(race) if entries is None else entries
    now = now or timezone.now()
    finished = race.status == Race.Status.FINISHED
    expired = race.is_expired(now)
    return {
        "code": race.code,
        "preset": race.preset,
        "status": race.phase(now),
        "version": race.version,
        "host": player_ref(race.host),
        "countdown": race.countdown,
        "starts_at": _iso(race.starts_at),
        "finished_at": _iso(race.expires_at() if expired else race.finished_at),
        "players": [{"player": player_ref(entry.player), "summary": race_summary(entry)} for entry in entries],
        "results": race_results(race, entries) if finished else [] if expired else None,
        "seed": str(race.seed) if finished or expired else None,
        "rematch": race.rematch.code if race.rematch is not None else None,
    }


def race_game_view(race: Race, entry: RaceEntry, state: EngineGame | None = None) -> dict[str, Any]:
    """A player's own race game, shaped like a game view: only what ``visible()`` shows."""
    state = state or race_entry_state(race, entry)
    visible = state.visible()
    if entry.is_finished or race.status == Race.Status.FINISHED:
        visible["legal_moves"] = []
    return {
        "race": race.code,
        "outcome": entry.outcome,
        "moves": entry.move_count,
        "score": entry.score,
        "finished_at": _iso(entry.finished_at),
        "state": visible,
    }


def race_game_for_player(*, code: str, player: Any) -> dict[str, Any] | None:
    """The player's race game once the countdown is over; None before it (the deal is still hidden)."""
    race = race_get(code=code)
    entry = race.entries.filter(player_id=player.pk).first()
    if entry is None or race.phase(timezone.now()) in ("lobby", "countdown"):
        return None
    return race_game_view(race, entry)


def race_state_message(*, code: str, viewer: Any) -> dict[str, Any]:
    """Everything a race socket shows, from the database: sent on connect and on every sync."""
    race = race_get(code=code)
    entries = race_entries(race)
    mine = next((entry for entry in entries if viewer is not None and entry.player_id == viewer.pk), None)
    game = None
    if mine is not None and race.phase(timezone.now()) not in ("lobby", "countdown"):
        game = race_game_view(race, mine)
    return {
        "type": "race.state",
        "v": 1,
        "version": race.version,
        "race": race_view(race, entries),
        "me": {"member": mine is not None, "host": viewer is not None and race.host_id == viewer.pk, "game": game},
    }
