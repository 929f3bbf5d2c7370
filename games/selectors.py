"""Reads on challenges and games: what day it is, what a player may see, hints and reviews."""

from __future__ import annotations

import datetime as dt
import zoneinfo
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import connection
from django.utils import timezone

from games.engine import Game as EngineGame
from games.engine import Move as EngineMove
from games.engine import parse_move
from plumbing.errors import DealSecret, GameFinished, NotAllowed, NotFound, NotYours

from . import rotation
from .models import DailyChallenge, Game, Move


def challenge_time_zone() -> zoneinfo.ZoneInfo:
    return zoneinfo.ZoneInfo(settings.PIRAMIDE_TIME_ZONE)


def local_today(*, now: dt.datetime | None = None) -> dt.date:
    """Today's date in the configured zone: the same challenge day for every player on Earth."""
    return (now or timezone.now()).astimezone(challenge_time_zone()).date()


def challenge_day_start(date: dt.date) -> dt.datetime:
    """The instant a challenge day starts, in UTC."""
    return dt.datetime.combine(date, dt.time.min, tzinfo=challenge_time_zone()).astimezone(dt.UTC)


def challenge_day_end(challenge: DailyChallenge) -> dt.datetime:
    """The instant the challenge's day ends, in UTC (so that differences count real hours across DST)."""
    next_day = challenge.date + dt.timedelta(days=1)
    return dt.datetime.combine(next_day, dt.time.min, tzinfo=challenge_time_zone()).astimezone(dt.UTC)


def challenge_is_open(challenge: DailyChallenge, *, today: dt.date | None = None) -> bool:
    return challenge.date <= (today or local_today())


def challenge_is_over(challenge: DailyChallenge, *, today: dt.date | None = None) -> bool:
    """True once the day is over everywhere that counts: then its seed and deal are public."""
    return challenge.date < (today or local_today())


def require_deal_public(challenge: DailyChallenge, what: str) -> None:
    """The knowledge rule: until a challenge's day is over, nobody learns more of its deal than their
    own ranked game has shown them, so whatever would tell more (``what``) waits for the day's end."""
    if not challenge_is_over(challenge):
        opens_at = challenge_day_end(challenge)
        raise DealSecret(
            f"{what} opens when the {challenge.preset} challenge of {challenge.date} is over",
            opens_at=opens_at.isoformat().replace("+00:00", "Z"),
        )


def is_daily_deal(preset: str, seed: int) -> bool:
    """Whether a deal is, or is scheduled to be, a daily challenge's: races never deal one."""
    return DailyChallenge.objects.filter(preset=preset, seed=seed).exists()


def challenges_for_day(*, date: dt.date) -> list[DailyChallenge]:
    """The challenges of a day in the program's order (daily presets, then the variant of the
    day), then any other preset staff scheduled that day."""
    order = {preset: i for i, preset in enumerate(rotation.presets_on(date))}
    challenges = list(DailyChallenge.objects.filter(date=date))
    challenges.sort(key=lambda c: (order.get(c.preset, len(order)), c.preset))
    return challenges


def is_variant_of_the_day(challenge: DailyChallenge) -> bool:
    """Whether a challenge is its day's variant of the day (not one of the daily presets)."""
    return challenge.preset == rotation.variant_of_the_day(challenge.date)


#: How many days, today included, the public calendar shows: the days the beat keeps filled.
CALENDAR_DAYS = 14


def program_calendar(*, today: dt.date | None = None, days: int = CALENDAR_DAYS) -> list[dict[str, Any]]:
    """The program of the coming days, from the rotation alone: dates and presets, nothing of any
    deal (no seed, commitment, verdict or par), since a day's deals stay secret until it is over."""
    today = today or local_today()
    return [
        {
            "date": date,
            "presets": presets,
            "variant_of_the_day": rotation.variant_of_the_day(date),
        }
        for date, presets in rotation.program(start=today, days=days)
    ]


def challenge_get(*, challenge_id: int) -> DailyChallenge:
    challenge = DailyChallenge.objects.filter(pk=challenge_id).first()
    if challenge is None:
        raise NotFound(f"there is no challenge {challenge_id}")
    return challenge


def game_get_for_player(*, game_id: int, player: Any) -> Game:
    game = Game.objects.select_related("challenge").filter(pk=game_id).first()
    if game is None:
        raise NotFound(f"there is no game {game_id}")
    if game.player_id != player.pk:
        raise NotYours("this game belongs to another player")
    return game


def game_moves(game: Game) -> list[EngineMove]:
    return [parse_move(text) for text in game.moves.order_by("number").values_list("notation", flat=True)]


#: The notation of a game's moves after a number, in order.  Raw SQL, so that the event loop's own
#: connections (games/live_moves.py) send the same statement as ``game_moves_since``.
MOVES_SINCE_SQL = f"SELECT notation FROM {Move._meta.db_table} WHERE game_id = %s AND number > %s ORDER BY number"


def game_moves_since(game_id: int, number: int) -> list[str]:
    """The notation of the moves stored after the ``number``-th, in order."""
    with connection.cursor() as cursor:
        cursor.execute(MOVES_SINCE_SQL, [game_id, number])
        return [row[0] for row in cursor.fetchall()]


def game_engine_state(game: Game, *, locked: bool = False) -> EngineGame:
    """The position rebuilt from the deal and the stored move log, remembered by version (games/positions.py).

    A replayed position is remembered only when its log cannot have changed between reading the
    row and reading the moves: a ranked log only grows (a longer log fails the length check), a
    practice log can be undone, so it is remembered only when the caller holds the row locked.
    """
    from . import positions

    key = positions.key_of("game", game.pk, game.started_at, game.version, game.move_count)
    if (state := positions.recall(key)) is not None:
        return state
    steady = game.ranked or locked
    state = _caught_up(game, positions.recall_latest("game", game.pk)) if steady else None
    if state is None:
        # a row with no moves has an empty log: a new game's opening reads none
        state = EngineGame.replay(game.deal, game_moves(game) if game.move_count else [])
    if steady:
        positions.remember(key, state)
    return state


def _caught_up(game: Game, known: tuple[Any, EngineGame] | None) -> EngineGame | None:
    """An older remembered position brought up to the row by the moves stored since, or None.

    Only when nothing was undone in between: every change raises the version by one, a move
    adds one to the count and an undo takes one off, so equal rises of both mean moves only, and
    the log up to the remembered count is unchanged (another process or a REST request played
    on, say).  The caller reads a log that cannot change meanwhile (ranked, or the row locked).
    """
    if known is None:
        return None
    (_, _, created, version, moves), state = known
    added = game.move_count - moves
    if created != str(game.started_at) or added <= 0 or game.version - version != added:
        return None
    newer = game_moves_since(game.pk, moves)
    if len(newer) != added:
        return None
    for text in newer:
        state = state.apply(parse_move(text))
    return state


def game_view(game: Game, state: EngineGame | None = None) -> dict[str, Any]:
    """Everything a client may know of a game: its record and the engine's ``visible()`` view."""
    state = state or game_engine_state(game)
    visible = state.visible()
    if game.is_finished:
        visible["legal_moves"] = []
    return {
        "id": game.pk,
        "challenge": game.challenge_id,
        "ranked": game.ranked,
        "outcome": game.outcome,
        "moves": game.move_count,
        "score": game.score if game.score is not None else state.score,
        "started_at": game.started_at,
        "finished_at": game.finished_at,
        "state": visible,
    }


@dataclass(frozen=True)
class HintResult:
    verdict: str
    move: str | None


def game_hint(*, game: Game) -> HintResult:
    """A solver hint for a practice game: the next move of a winning line, if one is found in time.

    Asked once per position (games/solving.py): the answer is cached under the deal and the moves
    that reached it, and the search runs in a solver process within the player's and the site's caps.
    """
    from . import solver_jobs, solving

    if game.ranked:
        raise NotAllowed("ranked games have no hints: start a practice game for that")
    require_deal_public(game.challenge, "a hint")
    if game.is_finished:
        raise GameFinished("the game is over")
    # the game's own rules version (its deal carries it, and so does the cached answer's key:
    # from version 3 egyptian's two top waste cards pair, which changes what can be won)
    deal, moves = game.deal, [str(move) for move in game_moves(game)]
    answer = solving.answered(
        "hint",
        solver_jobs.hint_job,
        game.challenge.preset,
        deal,
        moves,
        player_id=game.player_id,
        time_limit=settings.PIRAMIDE_HINT_TIME_LIMIT,
        verdict="verdict",
    )
    return HintResult(answer["verdict"], answer["move"])


@dataclass(frozen=True)
class ReviewResult:
    start_verdict: str
    point_of_no_return: int | None
    #: Empty until the challenge's day is over: a winning line tells cards the player never saw.
    line: list[str]
    seconds: float
    #: When the line opens (the end of the challenge's day), or None once it has.
    line_opens_at: dt.datetime | None


def game_review(*, game: Game) -> ReviewResult:
    """Where a finished game was lost: the move after which the deal could no longer be won.

    Before the challenge's day is over only the move number is told, never the line (the
    knowledge rule): the number names a position the player saw, the line shows cards they did
    not.  The search runs once per deal and move log (games/solving.py); the cached answer keeps
    the line, and the rule is applied to every answer, cached or not.
    """
    from . import solver_jobs, solving

    if not game.is_finished:
        raise NotAllowed("a review is for a finished game: finish or resign it first")
    deal, moves = game.deal, [str(move) for move in game_moves(game)]
    answer = solving.answered(
        "review",
        solver_jobs.review_job,
        game.challenge.preset,
        deal,
        moves,
        player_id=game.player_id,
        time_limit=settings.PIRAMIDE_REVIEW_TIME_LIMIT,
        verdict="start_verdict",
    )
    public = challenge_is_over(game.challenge)
    return ReviewResult(
        answer["start_verdict"],
        answer["point_of_no_return"],
        list(answer["line"]) if public else [],
        answer["seconds"],
        None if public else challenge_day_end(game.challenge),
    )
