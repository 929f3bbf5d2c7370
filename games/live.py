"""Reads for the live layer: who may see cards, game summaries, resyncs, replays, the challenge room.

Everything a socket sends is built here or in ``games.events`` from what the database holds, so
any message can be rebuilt after it was lost.  A summary never carries a card; a full view is
the REST game view (the engine's ``visible()``), for the owner, and for everyone once the
challenge's day is over (docs/live.md, *Spoilers*).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Count, Max, Q
from rest_framework import serializers

from games.engine import Game as EngineGame
from games.engine import parse_move
from plumbing.errors import NotFound
from plumbing.internals import related_is_cached

from .models import DailyChallenge, Game
from .selectors import challenge_is_over, game_engine_state, game_view

_DATETIME = serializers.DateTimeField()

FULL = "full"
SUMMARY = "summary"
ROOM_GAMES = 50
ROOM_TOP = 10

#: Where the room's top of the board comes from: leaderboard's ``challenge_board_page``, registered
#: in its ``AppConfig.ready`` so that games imports no app above it.  Called with ``challenge_id``
#: and ``limit``; returns what ``leaderboard_page`` does (``board``, ``entries``, ``total``).
BOARD_PAGE: list[Callable[..., dict[str, Any]]] = []


def player_ref(user: Any) -> dict[str, Any]:
    return {"id": user.pk, "display_name": user.display_name}


#: Display names by player id, kept a minute per process: every move's summary names its player.
_names: dict[int, tuple[float, str]] = {}
NAME_SECONDS = 60.0


def game_player_ref(game: Game) -> dict[str, Any]:
    """The game's player as summaries show it, without a query per move (the locked row lacks the name)."""
    player_id = game.player_id
    if player_id is None:
        return {"id": None, "display_name": "?"}  # a deleted account's game (accounts.services.user_delete)
    if related_is_cached(game, "player"):
        return player_ref(game.player)
    now = time.monotonic()
    known = _names.get(player_id)
    if known is None or now - known[0] > NAME_SECONDS:
        name = get_user_model().objects.filter(pk=player_id).values_list("display_name", flat=True).get()
        if len(_names) > 100_000:
            _names.clear()
        _names[player_id] = known = (now, name)
    return {"id": player_id, "display_name": known[1]}


def game_json(game: Game, state: EngineGame | None = None) -> dict[str, Any]:
    """The game view exactly as the REST API renders it (dates as ISO strings).

    Built once per position: a move's answer and its event share it.
    """
    stamp = (game.move_count, game.outcome, game.score, game.finished_at)
    memo = game.__dict__.get("_live_json")
    if state is not None and memo is not None and memo[0] is state and memo[1] == stamp:
        return memo[2]
    # The fields of games.apis.GameOutputSerializer, rendered the way it renders them, without
    # building a serializer (and deep-copying its fields) on every move.
    body = game_view(game, state)
    body["started_at"] = _DATETIME.to_representation(body["started_at"])
    if body["finished_at"] is not None:
        body["finished_at"] = _DATETIME.to_representation(body["finished_at"])
    if state is not None:
        game.__dict__["_live_json"] = (state, stamp, body)
    return body


def game_summary(game: Game, state: EngineGame) -> dict[str, Any]:
    """Progress without a single card: what a viewer before the spoiler line may see."""
    return {
        "game": game.pk,
        "challenge": game.challenge_id,
        "ranked": game.ranked,
        "player": game_player_ref(game),
        "moves": game.move_count,
        "score": game.score if game.score is not None else state.score,
        "pyramid_left": state.geometry.size - bin(state.removed).count("1"),
        "finished": game.is_finished,
        "outcome": game.outcome,
    }


def viewer_sees_cards(*, game: Game, viewer: Any) -> bool:
    """The spoiler line: the owner sees their own game, anyone else only once the challenge's day is over.

    Not a viewer whose own ranked game is over: another player's game shows cards that viewer's
    own game never did (the knowledge rule, docs/fairplay.md).
    """
    if viewer is not None and viewer.is_authenticated and viewer.pk == game.player_id:
        return True
    return challenge_is_over(game.challenge)


def live_game_get(*, game_id: int) -> Game:
    """The game row with its challenge: every socket opening reads it.  Not the player's row (a
    summary names the player from ``game_player_ref``'s memory), and no ORDER BY (``first()`` would
    add one): 0.55 ms of CPU instead of 0.81 ms on Postgres."""
    found = list(Game.objects.select_related("challenge").filter(pk=game_id).order_by()[:1])
    if not found:
        raise NotFound(f"there is no game {game_id}")
    return found[0]


@dataclass(frozen=True)
class Opening:
    """What a game socket learns when it opens or resyncs: the game, the viewer's view, the messages."""

    game: Game
    view: str
    messages: list[dict[str, Any]]


def game_sync(*, game_id: int, viewer: Any, since: int | None) -> Opening:
    """The messages that bring a client up to date: the missed moves when that is safe, else a full state.

    Missed moves are replayed only for ranked games (they cannot undo, so a version names one
    position for ever) and only for gaps of at most ``LIVE_RESYNC_GAP`` moves.
    """
    from . import events, services

    game = live_game_get(game_id=game_id)
    view = FULL if viewer_sees_cards(game=game, viewer=viewer) else SUMMARY
    state = game_engine_state(game)
    if viewer is not None and game.player_id == viewer.pk:
        services.game_opened(game, state)
    version = game.move_count
    messages: list[dict[str, Any]] = []
    if view == SUMMARY:
        messages.append({"type": "summary", "version": version, "summary": game_summary(game, state)})
    elif game.ranked and since is not None and 0 <= since <= version and version - since <= settings.LIVE_RESYNC_GAP:
        position = EngineGame.replay(game.deal, state.moves[:since])
        for number, move in enumerate(state.moves[since:], start=since + 1):
            position = position.apply(move)
            body = _view_at(game, position, final=number == version)
            messages.append({**events.move_made_payload(game, move=str(move), view=body), "replayed": True})
    else:
        messages.append({"type": "state", "version": version, "game": game_json(game, state)})
    if view == FULL and game.is_finished and not (messages and messages[-1]["type"] == "state"):
        messages.append(events.finished_payload(game, game_summary(game, state)))
    messages.append({"type": "synced", "version": version})
    return Opening(game, view, messages)


def _view_at(game: Game, position: EngineGame, *, final: bool) -> dict[str, Any]:
    """The game view as it was right after a move of the log: only the last move can have ended it."""
    body = game_json(game, position)
    if not final:
        body.update(outcome=Game.Outcome.IN_PROGRESS.value, moves=len(position.moves), score=position.score)
        body.update(finished_at=None, state=position.visible())
    return body


def game_pong(*, game_id: int) -> dict[str, Any]:
    row = Game.objects.filter(pk=game_id).values("move_count", "outcome").first()
    if row is None:
        raise NotFound(f"there is no game {game_id}")
    return {"type": "pong", "version": row["move_count"], "finished": row["outcome"] != Game.Outcome.IN_PROGRESS}


def game_replay(*, game_id: int) -> dict[str, Any]:
    """Every position of a game, from the deal to now: for move-by-move viewing on the full view."""
    game = live_game_get(game_id=game_id)
    position = EngineGame.start(game.deal)
    start = position.visible()
    steps = []
    for number, text in enumerate(game.moves.order_by("number").values_list("notation", flat=True), start=1):
        position = position.apply(parse_move(text))
        steps.append({"number": number, "move": text, "state": position.visible()})
    return {"type": "replay", "game": game.pk, "version": game.move_count, "start": start, "steps": steps}


# ----------------------------------------------------------------- the challenge room


def challenge_stats(*, challenge_id: int) -> dict[str, int]:
    counts = Game.objects.filter(challenge_id=challenge_id, ranked=True).aggregate(
        players=Count("id"),
        playing=Count("id", filter=Q(outcome=Game.Outcome.IN_PROGRESS)),
        wins=Count("id", filter=Q(outcome=Game.Outcome.WON)),
    )
    return {
        "players": counts["players"],
        "playing": counts["playing"],
        "finished": counts["players"] - counts["playing"],
        "wins": counts["wins"],
    }


def challenge_top(*, challenge_id: int, limit: int = ROOM_TOP) -> dict[str, Any]:
    if not BOARD_PAGE:
        raise RuntimeError("no app gives the challenge board's page: leaderboard is not installed")
    page = BOARD_PAGE[0](challenge_id=challenge_id, limit=limit)
    top = [
        {
            "rank": row["rank"],
            "player": {"id": row["player_id"], "display_name": row["display_name"]},
            "points": row["points"],
            "moves": row["moves"],
        }
        for row in page["entries"]
    ]
    return {"board": page["board"], "top": top, "total": page["total"]}


def challenge_room_snapshot(*, challenge_id: int) -> dict[str, Any]:
    """Who is playing now (the most recently active ranked games), the counts and the top of the board."""
    challenge = DailyChallenge.objects.filter(pk=challenge_id).first()
    if challenge is None:
        raise NotFound(f"there is no challenge {challenge_id}")
    playing = (
        Game.objects.filter(challenge=challenge, ranked=True, outcome=Game.Outcome.IN_PROGRESS)
        .select_related("challenge", "player")
        .annotate(last_move=Max("moves__created_at"))
        .order_by("-last_move", "-started_at")[:ROOM_GAMES]
    )
    return {
        "type": "room.snapshot",
        "v": 1,
        "challenge": {
            "id": challenge.pk,
            "date": challenge.date.isoformat(),
            "preset": challenge.preset,
            "is_over": challenge_is_over(challenge),
        },
        "games": [game_summary(game, game_engine_state(game)) for game in playing],
        "stats": challenge_stats(challenge_id=challenge.pk),
        "top": challenge_top(challenge_id=challenge.pk)["top"],
        "interval": settings.LIVE_ROOM_INTERVAL,
    }
