"""Every write on challenges and games.  Each service says which row it locks.

The solver runs outside any transaction (it may take seconds); its results are written in a
short transaction that checks the challenge still has the seed that was solved.
"""

from __future__ import annotations

import datetime as dt
import functools
import logging
import secrets
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, NamedTuple

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from games.engine import (
    RULES_VERSION,
    IllegalMoveError,
    NotationError,
    Outcome,
    deal_from_seed,
    get_rules,
    parse_move,
    score_moves,
)
from games.engine import Game as EngineGame
from games.engine import Move as EngineMove
from games.engine.rules import UnknownPresetError
from plumbing import metrics
from plumbing.after_commit import Job
from plumbing.device import Origin
from plumbing.errors import (
    BadRequest,
    Conflict,
    GameFinished,
    IllegalMove,
    NotAllowed,
    NotFound,
    NotYours,
    StaleMove,
)
from plumbing.internals import cache_related, in_atomic_block
from plumbing.tasks import delay_after_commit

from . import events, positions, rotation
from .models import SEED_BOUND, DailyChallenge, Game, Move, commitment_fields
from .selectors import (
    challenge_day_start,
    game_engine_state,
    game_moves,
    game_moves_since,
    local_today,
    require_deal_public,
)

log = logging.getLogger(__name__)

#: What writes a ranked game's score as the game ends, inside the ending transaction, which holds the
#: game row: leaderboard's ``score_record``, registered in its ``AppConfig.ready`` so that games
#: imports no app above it.  Called with ``game``, ``moves`` and ``won``; an IntegrityError is a
#: second score for the player and challenge.
SCORE_RECORD: list[Callable[..., object]] = []

#: What follows guest games kept by the player who signed up or in, inside the claim's transaction:
#: leaderboard's ``scores_claim`` (their scores change hands), registered as ``SCORE_RECORD`` is.
#: Called with ``game_ids`` and ``player_id``.
GAMES_CLAIMED: list[Callable[..., object]] = []


@dataclass(frozen=True)
class RankedEnd:
    """What the server's loop writes besides the game and its move when a move ends a ranked game, in
    the same statement (``HintedMove.end_sql``): its Score row, as ``SCORE_RECORD`` writes it on the
    locked path.  Given by leaderboard (``leaderboard.services.SCORE_AT_END``) in ``RANKED_END``."""

    #: a CTE named ``scored``, over ``moved`` (the ended game's id), that returns the row's id
    cte: str
    #: its parameters, from ``player_id``, ``challenge_id``, ``date``, ``preset``, ``points``,
    #: ``moves``, ``won``, ``finished_at`` and ``day_start`` (the challenge day's start)
    args: Callable[..., list[Any]]
    #: the after-commit jobs of the row it wrote, from ``score_id``, ``player_id``,
    #: ``challenge_id``, ``date`` and ``preset``
    jobs: Callable[..., list[tuple[Hashable, Job]]]


#: The ``RankedEnd`` leaderboard registers in its ``AppConfig.ready``; without one, a ranked game's
#: end takes the locked path.
RANKED_END: list[RankedEnd] = []

# ----------------------------------------------------------------- verification


def draw_seed() -> int:
    """A fresh secret seed: from the OS's randomness, never from the date."""
    return secrets.randbelow(SEED_BOUND)


def _verify_deal(
    preset: str, seed: int, rules_version: int = RULES_VERSION, *, time_limit: float | None = None
) -> dict[str, Any]:
    """Solve a deal and, if winnable, find its par under ``rules_version``: the fields a verification
    writes.  Each search gets ``time_limit`` seconds (``PIRAMIDE_SOLVE_TIME_LIMIT`` unless given)."""
    from games.engine.solver import Verdict, solve, solve_par

    limit = settings.PIRAMIDE_SOLVE_TIME_LIMIT if time_limit is None else time_limit
    started = time.monotonic()
    game = EngineGame.start(deal_from_seed(get_rules(preset, rules_version), seed))
    solution = solve(game, time_limit=limit)
    fields: dict[str, Any] = {
        "verdict": solution.verdict.value,
        "line_length": None,
        "par": None,
        "par_exact": False,
        "solver_states": solution.states,
    }
    if solution.verdict is Verdict.WINNABLE:
        fields["line_length"] = len(solution.line)
        par = solve_par(game, time_limit=limit)
        fields.update(par=par.score, par_exact=par.exact, solver_states=solution.states + par.states)
        fields.update(solver_line=" ".join(map(str, solution.line)), par_line=" ".join(map(str, par.line)))
    decided = solution.verdict in (Verdict.WINNABLE, Verdict.UNWINNABLE)
    fields.update(
        status=DailyChallenge.Status.DONE if decided else DailyChallenge.Status.UNKNOWN,
        verify_seconds=round(time.monotonic() - started, 3),
        verify_error="",
        verified_at=timezone.now(),
    )
    metrics.solver_searched("verify", fields["verify_seconds"])
    return fields


def _find_winnable(
    preset: str, *, draw: Callable[[], int] | None = None, time_limit: float | None = None
) -> tuple[int, dict[str, Any]] | None:
    """A seed the solver proves winnable, with its verification's fields, or None after
    ``PIRAMIDE_WINNABLE_ATTEMPTS`` seeds from ``draw`` (a secret one each by default; bench/fairplay.py
    draws them from its seeded generator, to deal the same days again)."""
    for _ in range(settings.PIRAMIDE_WINNABLE_ATTEMPTS):
        seed = draw() if draw is not None else draw_seed()
        fields = _verify_deal(preset, seed, time_limit=time_limit)
        if fields["verdict"] == DailyChallenge.Verdict.WINNABLE:
            return seed, fields
    return None


def _enqueue_verification(challenge_id: int) -> None:
    delay_after_commit("games.tasks.challenge_verify_task", challenge_id)


def _enqueue_replacement(challenge_id: int) -> None:
    delay_after_commit("games.tasks.challenge_replace_task", challenge_id)


def challenge_schedule(*, date: dt.date, preset: str, seed: int | None = None) -> DailyChallenge:
    """Schedule a challenge and, after the commit, enqueue its verification (a seed given) or the
    search for a winnable deal that replaces the drawn one (no seed given: a drawn deal is
    proven winnable, as the automatic fill's are).

    Locks nothing: the unique constraint on (date, preset) refuses a second one.
    """
    try:
        get_rules(preset)
    except UnknownPresetError as error:
        raise BadRequest(str(error)) from None
    drawn = seed is None
    if seed is None:
        seed = draw_seed()
    if not 0 <= seed < SEED_BOUND:
        raise BadRequest(f"a seed is a whole number from 0 to {SEED_BOUND - 1}")
    try:
        with transaction.atomic():
            challenge = DailyChallenge.objects.create(
                date=date, preset=preset, seed=seed, **commitment_fields(preset, seed)
            )
            if drawn:
                _enqueue_replacement(challenge.pk)
            else:
                _enqueue_verification(challenge.pk)
    except IntegrityError:
        raise Conflict(f"a {preset} challenge is already scheduled for {date}") from None
    return challenge


def challenge_verification_request(*, challenge_id: int) -> DailyChallenge:
    """Mark a challenge pending and enqueue its verification after commit; locks the challenge."""
    with transaction.atomic():
        challenge = DailyChallenge.objects.select_for_update().filter(pk=challenge_id).first()
        if challenge is None:
            raise NotFound(f"there is no challenge {challenge_id}")
        challenge.status, challenge.verify_requested_at = DailyChallenge.Status.PENDING, timezone.now()
        challenge.save(update_fields=["status", "verify_requested_at"])
        _enqueue_verification(challenge.pk)
    return challenge


def verification_stuck_after() -> float:
    """Seconds after which a pending or running verification has been lost: longer than the
    broker takes to hand back the task of a vanished worker, plus the longest a task may run."""
    from celery import current_app

    # the project's Celery app, current since the project package loaded it
    conf = current_app.conf
    visibility = float((conf.broker_transport_options or {}).get("visibility_timeout", 3600))
    return visibility + float(conf.task_time_limit or 0)


def challenges_requeue_stuck(*, now: dt.datetime | None = None) -> list[int]:
    """Enqueue again the verifications left pending or running for longer than any task can take.

    A task lost with the broker (Redis flushed or replaced) never comes back, and one whose
    worker died comes back only after the broker's visibility timeout: past both, the challenge
    is stuck.  Verifying twice is harmless (challenge_verify), so the cut-off only saves work.
    Locks the stuck challenges, skipping any another worker holds.
    """
    now = now or timezone.now()
    cutoff = now - dt.timedelta(seconds=verification_stuck_after())
    stuck_statuses = (DailyChallenge.Status.PENDING, DailyChallenge.Status.RUNNING)
    with transaction.atomic():
        stuck = list(
            DailyChallenge.objects.select_for_update(skip_locked=True).filter(
                status__in=stuck_statuses, verify_requested_at__lt=cutoff
            )
        )
        for challenge in stuck:
            log.warning(
                "challenge %s has been %s since %s: verifying it again",
                challenge.pk,
                challenge.status,
                challenge.verify_requested_at,
            )
            challenge.status, challenge.verify_requested_at = DailyChallenge.Status.PENDING, now
            challenge.save(update_fields=["status", "verify_requested_at"])
            _enqueue_verification(challenge.pk)
    return [challenge.pk for challenge in stuck]


def challenge_verify(*, challenge_id: int) -> DailyChallenge | None:
    """Run the solver on a challenge and store verdict, line length, par, status and time.

    Safe to run twice, or again after a worker died midway: it marks the challenge running
    (locking it briefly), solves with no lock held, then locks it again and writes the result
    only if the seed is still the one it solved.
    """
    with transaction.atomic():
        challenge = DailyChallenge.objects.select_for_update().filter(pk=challenge_id).first()
        if challenge is None:
            log.warning("challenge %s is gone; nothing to verify", challenge_id)
            return None
        challenge.status, challenge.verify_requested_at = DailyChallenge.Status.RUNNING, timezone.now()
        challenge.save(update_fields=["status", "verify_requested_at"])
        preset, seed, rules_version = challenge.preset, challenge.seed, challenge.rules_version
    try:
        fields = _verify_deal(preset, seed, rules_version)
    except Exception as error:  # the solver's failure is the verification's result
        log.exception("verification of challenge %s failed", challenge_id)
        fields = {"status": DailyChallenge.Status.FAILED, "verify_error": f"{type(error).__name__}: {error}"[:2000]}
    with transaction.atomic():
        challenge = DailyChallenge.objects.select_for_update().get(pk=challenge_id)
        if challenge.seed != seed or challenge.rules_version != rules_version:
            return challenge  # replaced meanwhile: that replacement brought its own results
        for name, value in fields.items():
            setattr(challenge, name, value)
        challenge.save()
    return challenge


def challenge_replace_with_winnable(*, challenge_id: int) -> DailyChallenge:
    """Give a challenge a new seed the solver proves winnable; refused once anyone has played it.

    Draws and solves seeds with no lock held, then locks the challenge to swap the seed in.
    """
    challenge = DailyChallenge.objects.filter(pk=challenge_id).first()
    if challenge is None:
        raise NotFound(f"there is no challenge {challenge_id}")
    if challenge.games.exists():
        raise Conflict(f"{challenge} has games already: its deal can no longer change")
    found = _find_winnable(challenge.preset)
    with transaction.atomic():
        challenge = DailyChallenge.objects.select_for_update().get(pk=challenge_id)
        if found is None:
            challenge.status = DailyChallenge.Status.FAILED
            challenge.verify_error = f"no winnable deal in {settings.PIRAMIDE_WINNABLE_ATTEMPTS} seeds"
            challenge.save(update_fields=["status", "verify_error"])
            return challenge
        if challenge.games.exists():
            raise Conflict(f"{challenge} has games already: its deal can no longer change")
        seed, fields = found
        challenge.seed = seed
        # A new seed needs a new commitment anyway: it takes the current scheme and a fresh salt,
        # whatever scheme the replaced one used; nobody has played it, so it takes the current rules too.
        fields = {**fields, **commitment_fields(challenge.preset, seed), "rules_version": RULES_VERSION}
        for name, value in fields.items():
            setattr(challenge, name, value)
        challenge.save()
    return challenge


def challenges_missing(
    *, today: dt.date | None = None, days: int | None = None, presets: list[str] | None = None
) -> list[tuple[dt.date, str]]:
    """The (date, preset) pairs of the next ``days`` days that have no challenge yet; reads only.

    Without ``presets``, each day's program (games/rotation.py: the daily presets and the variant
    of the day); with them, those presets every day.
    """
    today = today or local_today()
    days = settings.PIRAMIDE_FILL_DAYS if days is None else days
    if presets is None:
        wanted = [(date, preset) for date, on in rotation.program(start=today, days=days) for preset in on]
    else:
        wanted = [(today + dt.timedelta(days=offset), preset) for offset in range(days) for preset in presets]
    existing = set(
        DailyChallenge.objects.filter(date__gte=today, date__lt=today + dt.timedelta(days=days)).values_list(
            "date", "preset"
        )
    )
    return [pair for pair in wanted if pair not in existing]


def challenge_fill(*, date: dt.date, preset: str) -> DailyChallenge | None:
    """Create the challenge of (date, preset) with a deal the solver proves winnable, unless one exists.

    Solves with no lock held; get_or_create on the unique (date, preset) then lets exactly one of
    two racing workers create it (the other gets the winner's row back).  None when no winnable
    seed turned up in PIRAMIDE_WINNABLE_ATTEMPTS tries: the next run tries again.
    """
    if DailyChallenge.objects.filter(date=date, preset=preset).exists():
        return None
    found = _find_winnable(preset)
    if found is None:
        log.error("no winnable %s deal found for %s", preset, date)
        return None
    seed, fields = found
    challenge, created = DailyChallenge.objects.get_or_create(
        date=date, preset=preset, defaults={"seed": seed, **commitment_fields(preset, seed), **fields}
    )
    return challenge if created else None


def challenges_fill(
    *, today: dt.date | None = None, days: int | None = None, presets: list[str] | None = None
) -> list[DailyChallenge]:
    """Make sure each of the next ``days`` days has a winnable challenge for every preset of its
    program (or of ``presets``, every day).

    Idempotent and safe to run in two workers at once (see challenge_fill).
    """
    created = []
    for date, preset in challenges_missing(today=today, days=days, presets=presets):
        challenge = challenge_fill(date=date, preset=preset)
        if challenge is not None:
            created.append(challenge)
    return created


# ----------------------------------------------------------------- play


@dataclass(frozen=True)
class Play:
    """A game row and its engine state after a service call: what the API answers with."""

    game: Game
    state: EngineGame


def game_ranked_start(*, challenge_id: int, player: Any, origin: Origin | None = None) -> tuple[Play, bool]:
    """Start the player's one ranked game on a challenge, or resume it; True when it is new.

    Locks nothing: the partial unique constraint (challenge, player, ranked) lets only one in,
    and get_or_create returns the winner's game to a racing second start.  A new game keeps its
    ``origin`` (address and device cookie) for the fair-play signals.
    """
    challenge = DailyChallenge.objects.filter(pk=challenge_id).first()
    if challenge is None:
        raise NotFound(f"there is no challenge {challenge_id}")
    existing = Game.objects.filter(challenge=challenge, player=player, ranked=True).first()
    if existing is not None:
        return Play(existing, game_engine_state(existing)), False
    today = local_today()
    if challenge.date > today:
        raise NotAllowed(f"the {challenge.preset} challenge of {challenge.date} is not open yet")
    if challenge.date < today:
        raise NotAllowed(f"the {challenge.preset} challenge of {challenge.date} is over: start a practice game")
    where: dict[str, Any] = {"start_address": origin.address, "start_device": origin.device} if origin else {}
    # every ranked game of a challenge plays under the rules its verdict and par were found under
    where = {**where, "rules_version": challenge.rules_version}
    game, created = Game.objects.get_or_create(challenge=challenge, player=player, ranked=True, defaults=where)
    if created:
        events.publish_game_started(game=game)
    return Play(game, game_engine_state(game)), created


@dataclass(frozen=True)
class GuestClaim:
    """What signing up or in kept of a guest's ranked games: ``kept`` are the player's now;
    ``left`` stayed with the guest, their challenge already having a ranked game of the player's."""

    kept: list[Game]
    left: list[Game]


def guest_games_claim(*, guest: Any, player: Any) -> GuestClaim:
    """The guest's ranked games of challenges whose day is not over become ``player``'s, each where
    the player has no ranked game of that challenge yet; their scores follow (``scores_claim``:
    standing as the player's own, boards, fair play).  ``guest`` may be ``player`` itself, a guest
    who signed up: its games stay, its scores take the standing of the account it became.

    Locks the games moved; each one's version rises, so a move planned from what any process
    remembered of it as the guest's is refused (games/positions.py).
    """
    today = local_today()
    games = Game.objects.filter(player_id=guest.pk, ranked=True, challenge__date__gte=today).order_by("pk")
    kept: list[Game] = []
    left: list[Game] = []
    with transaction.atomic():
        for game in games.select_for_update(of=("self",)).select_related("challenge"):
            if guest.pk != player.pk:
                taken = Game.objects.filter(challenge_id=game.challenge_id, player_id=player.pk, ranked=True).exists()
                if taken:
                    left.append(game)
                    continue
                game.player_id, game.version = player.pk, game.version + 1
                try:
                    with transaction.atomic():
                        game.save(update_fields=["player", "version"])
                except IntegrityError:  # the player started that challenge meanwhile
                    game.player_id = guest.pk
                    left.append(game)
                    continue
            kept.append(game)
        if kept:
            for claimed in GAMES_CLAIMED:
                claimed(game_ids=[game.pk for game in kept], player_id=player.pk)

        def forget() -> None:
            for game in kept:
                positions.hint_drop("game", game.pk)

        transaction.on_commit(forget)
    return GuestClaim(kept, left)


def game_practice_start(*, challenge_id: int, player: Any) -> Play:
    """Start an unranked game of a challenge's deal, once its day is over.

    Not before, not even after the player's own ranked game: practice has undo and hints, and
    draws through a stock the ranked game may never have reached (the knowledge rule,
    ``selectors.require_deal_public``).  Locks nothing; practice games are unlimited.
    """
    challenge = DailyChallenge.objects.filter(pk=challenge_id).first()
    if challenge is None:
        raise NotFound(f"there is no challenge {challenge_id}")
    require_deal_public(challenge, "practice")
    game = Game.objects.create(challenge=challenge, player=player, ranked=False, rules_version=challenge.rules_version)
    return Play(game, game_engine_state(game))


def _locked_game(game_id: int, player: Any, *, after_its_day: bool = False) -> Game:
    # of=("self",): lock the game row only; a plain FOR UPDATE would also lock the joined challenge
    # row, and every move of the day would queue behind every other move on that one row.
    game = Game.objects.select_for_update(of=("self",)).select_related("challenge").filter(pk=game_id).first()
    if game is None:
        raise NotFound(f"there is no game {game_id}")
    if game.player_id != player.pk:
        raise NotYours("this game belongs to another player")
    if game.is_finished:
        raise GameFinished(f"the game is over ({game.outcome}): no more moves")
    today = local_today()
    if game.challenge.date > today:
        raise NotAllowed("this challenge is not open yet")
    if game.ranked and game.challenge.date < today and not after_its_day:
        raise NotAllowed("the challenge day is over: its ranked games are closed")
    return game


def _check_seen(game: Game, seen: int) -> None:
    if seen != game.move_count:
        raise StaleMove(
            f"the game has {game.move_count} moves and you have seen {seen}: reload the game and try again",
            moves=game.move_count,
        )


def _finish(game: Game, outcome: str, moves: list[Any]) -> None:
    game.outcome = outcome
    game.finished_at = timezone.now()
    game.score = score_moves(moves, get_rules(game.challenge.preset, game.rules_version))
    game.save(update_fields=["outcome", "finished_at", "score", "move_count", "version"])
    # a game of a deleted account (accounts.services.user_delete) ends with no score: nobody to rank
    if game.ranked and game.player_id is not None:
        try:
            with transaction.atomic():
                for record in SCORE_RECORD:
                    record(game=game, moves=moves, won=outcome == Game.Outcome.WON)
        except IntegrityError:
            # the caller's transaction is rolled back with this: the game stays as it was
            raise Conflict(
                "a score of yours on this challenge is already recorded: this game cannot end with another"
            ) from None


def finished_outcome(state: EngineGame) -> str:
    """The game row's outcome for a position the engine ended (won, or lost: no move left)."""
    return Game.Outcome.WON if state.outcome is Outcome.WON else Game.Outcome.LOST


def move_parse(text: str) -> EngineMove:
    """A move sent by a client, or IllegalMove saying what is wrong with its notation."""
    try:
        return parse_move(text.strip())
    except NotationError as error:
        raise IllegalMove(str(error)) from None


def move_apply(state: EngineGame, move: EngineMove) -> EngineGame:
    """The engine's next position, or IllegalMove with the engine's reason; shared by games and races."""
    try:
        return state.apply(move)
    except IllegalMoveError as error:
        raise IllegalMove(str(error)) from None


@dataclass(frozen=True)
class GameFacts:
    """What never changes about a game: kept with its version hint (games/positions.py)."""

    player_id: int | None
    challenge_id: int
    ranked: bool
    started_at: dt.datetime
    challenge_date: dt.date
    preset: str


def _remember_committed(game: Game, state: EngineGame) -> None:
    """After the commit: the position under its version, and the version as this process's hint."""
    if game.is_finished:
        positions.hint_drop("game", game.pk)
    else:
        challenge = game.challenge
        facts = GameFacts(
            game.player_id, game.challenge_id, game.ranked, game.started_at, challenge.date, challenge.preset
        )
        positions.hint_set("game", game.pk, positions.Hint(game.version, game.move_count, facts))
    positions.remember(positions.key_of("game", game.pk, game.started_at, game.version, game.move_count), state)


def game_opened(game: Game, state: EngineGame) -> None:
    """Its owner opened a game in progress (a socket): this process remembers the position and the
    version, so that the first move takes the hint path instead of the locked one.

    A practice log may be undone between the read of the row and the read of its moves; the row
    still at the version it was read at, after the moves were read, shows that the moves are that
    version's (versions only rise).  A ranked log only grows: a longer one is not remembered under
    the row's move count (``positions.remember``).
    """
    if game.is_finished:
        return
    if not game.ranked and not Game.objects.filter(pk=game.pk, version=game.version).exists():
        return
    _remember_committed(game, state)


def _move_write(plan: HintedMove, now: dt.datetime) -> bool:
    """Store a planned move if the game is still at its version with that many moves and in progress.

    One conditional UPDATE of the game row (which takes its row lock, as the locked path does) and
    the INSERT of the move, atomically: on Postgres a single statement, so a move costs one round
    trip and one commit.  False when the row had moved on (another tab, process or request): then
    nothing was written.
    """
    if connection.vendor == "postgresql" and not in_atomic_block(connection):
        with connection.cursor() as cursor:
            cursor.execute(MOVE_WRITE_SQL, plan.write_args(now))
            return cursor.rowcount == 1
    version, moves = plan.version, plan.seen
    with transaction.atomic():
        updated = Game.objects.filter(
            pk=plan.game_id, version=version, move_count=moves, outcome=Game.Outcome.IN_PROGRESS
        ).update(move_count=moves + 1, version=version + 1)
        if updated:
            Move.objects.create(
                game_id=plan.game_id, number=moves + 1, notation=str(plan.after.moves[-1]), created_at=now
            )
        return bool(updated)


MOVE_WRITE_SQL = f"""
WITH moved AS (
    UPDATE {Game._meta.db_table} SET move_count = %s, version = %s
    WHERE id = %s AND version = %s AND move_count = %s AND outcome = '{Game.Outcome.IN_PROGRESS.value}'
    RETURNING id
)
INSERT INTO {Move._meta.db_table} (game_id, number, notation, created_at)
SELECT id, %s, %s, %s FROM moved
"""


# The moves of several games at once, from the server's loop (games/live_moves.py): for each row
# of the arrays (game, version, moves, notation, time), what MOVE_WRITE_SQL does for one, in one
# statement (one commit); it returns the ids of the games it moved.  A row whose game moved on is
# left as MOVE_WRITE_SQL leaves it, and the others are written all the same.  No game may be in it
# twice: an UPDATE takes one of the rows that join a target row, and which is not said.
MOVES_WRITE_SQL = f"""
WITH batch AS (
    SELECT * FROM unnest(%s::bigint[], %s::integer[], %s::integer[], %s::varchar[], %s::timestamptz[])
        AS b(id, version, moves, notation, created_at)
), moved AS (
    UPDATE {Game._meta.db_table} AS g SET move_count = b.moves + 1, version = b.version + 1
    FROM batch AS b
    WHERE g.id = b.id AND g.version = b.version AND g.move_count = b.moves AND g.outcome = '{Game.Outcome.IN_PROGRESS.value}'
    RETURNING g.id, b.moves, b.notation, b.created_at
), stored AS (
    INSERT INTO {Move._meta.db_table} (game_id, number, notation, created_at)
    SELECT id, moves + 1, notation, created_at FROM moved
)
SELECT id FROM moved
"""


class MoveRow(NamedTuple):
    """One everyday move to store: its game, the version and move count it was made from, the move."""

    game_id: int
    version: int
    moves: int
    notation: str
    created_at: dt.datetime

    def args(self) -> list[Any]:
        """The parameters of ``MOVE_WRITE_SQL``."""
        moves = self.moves
        return [
            moves + 1,
            self.version + 1,
            self.game_id,
            self.version,
            moves,
            moves + 1,
            self.notation,
            self.created_at,
        ]

    @staticmethod
    def batch_args(rows: Sequence[MoveRow]) -> list[list[Any]]:
        """The parameters of ``MOVES_WRITE_SQL``: one array per column."""
        return [list(column) for column in zip(*rows)]


# A move that ends the game, from the server's loop (games/live_moves.py): the game row's end and
# score as ``_finish`` writes them, the move, and for a ranked game its Score row (``RANKED_END``),
# in one statement (one commit); it returns the Score's id (the game's for practice).  SQL, because
# the ORM cannot write three tables in one statement, and one statement is one round trip and one
# commit.  A second Score for the player and challenge breaks the unique constraint and writes
# nothing, as on the locked path.
_MOVE_END_HEAD = f"""
WITH moved AS (
    UPDATE {Game._meta.db_table} SET move_count = %s, version = %s, outcome = %s, finished_at = %s, score = %s
    WHERE id = %s AND version = %s AND move_count = %s AND outcome = '{Game.Outcome.IN_PROGRESS.value}'
    RETURNING id
), stored AS (
    INSERT INTO {Move._meta.db_table} (game_id, number, notation, created_at)
    SELECT id, %s, %s, %s FROM moved
)"""
MOVE_END_SQL = _MOVE_END_HEAD + "\nSELECT id FROM moved\n"


@functools.cache
def move_end_ranked_sql(scored: str) -> str:
    """``MOVE_END_SQL`` for a ranked game, with ``scored``, the CTE of its Score row (``RankedEnd``)."""
    return _MOVE_END_HEAD + ",\n" + scored + "\nSELECT id FROM scored\n"


@dataclass(frozen=True)
class HintedMove:
    """A move the hint path may write without reading the game: the write's arguments and what follows."""

    game_id: int
    player: Any
    facts: GameFacts
    version: int
    seen: int
    after: EngineGame

    @property
    def ends(self) -> bool:
        """The move ends the game (only planned from the server's loop: ``move_from_hint_plan``)."""
        return self.after.outcome is not Outcome.IN_PROGRESS

    @property
    def outcome(self) -> str:
        return finished_outcome(self.after)

    @cached_property
    def points(self) -> int:
        """The score of an ending move's game, from its log (``score_moves``, as ``_finish`` takes it)."""
        return score_moves(self.after.moves, self.after.rules)

    def write_row(self, now: dt.datetime) -> MoveRow:
        """The move as ``MOVES_WRITE_SQL`` takes it, among others."""
        return MoveRow(self.game_id, self.version, self.seen, str(self.after.moves[-1]), now)

    def write_args(self, now: dt.datetime) -> list[Any]:
        """The parameters of ``MOVE_WRITE_SQL``."""
        return self.write_row(now).args()

    def end_sql(self) -> str:
        return move_end_ranked_sql(RANKED_END[0].cte) if self.facts.ranked else MOVE_END_SQL

    def end_args(self, now: dt.datetime) -> list[Any]:
        """The parameters of ``end_sql()``: the game's end and score as ``_finish`` writes them."""
        moves, facts = self.seen, self.facts
        points = self.points
        args: list[Any] = [
            moves + 1,
            self.version + 1,
            self.outcome,
            now,
            points,
            self.game_id,
            self.version,
            moves,
            moves + 1,
            str(self.after.moves[-1]),
            now,
        ]
        if facts.ranked:
            args += RANKED_END[0].args(
                player_id=facts.player_id,
                challenge_id=facts.challenge_id,
                date=facts.challenge_date,
                preset=facts.preset,
                points=points,
                moves=moves + 1,
                won=self.outcome == Game.Outcome.WON,
                finished_at=now,
                day_start=challenge_day_start(facts.challenge_date),
            )
        return args

    def end_jobs(self, score_id: int) -> list[tuple[Hashable, Job]]:
        """The after-commit jobs of the Score a ranked end's statement wrote (``RankedEnd.jobs``)."""
        facts = self.facts
        return RANKED_END[0].jobs(
            score_id=score_id,
            player_id=facts.player_id,
            challenge_id=facts.challenge_id,
            date=facts.challenge_date,
            preset=facts.preset,
        )


def moves_missed_since(game_id: int, player: Any, seen: int) -> int | None:
    """How many moves this process saw committed on a ranked game that has moved on since (by
    another process, a REST request or another tab), when the moves stored after them can bring
    the remembered position up to ``seen``; None when there is nothing to catch up or it cannot be.

    A ranked log only grows while the game is in progress (no undo; an ending bumps the version
    but also ends the game), so the moves stored after the remembered ones are exactly what it
    missed, and the version rose by one with each.
    """
    known = positions.hint("game", game_id)
    if known is None or known.moves >= seen:
        return None
    facts: GameFacts = known.facts
    if not facts.ranked or facts.player_id != player.pk:
        return None
    return known.moves


def move_from_hint_plan(
    game_id: int, player: Any, parsed: EngineMove, seen: int, missed: Sequence[str] = (), *, ending: bool = False
) -> HintedMove | None:
    """The move checked against what this process remembers, reading nothing; None when it cannot be.

    Taken only for a move that keeps the game going, by its owner, on an open day, sent from the
    version this process last saw committed — or, for a ranked game, from that version followed
    by ``missed``, the moves stored since (``moves_missed_since``), read by the caller
    (``selectors.MOVES_SINCE_SQL``); with ``ending``, also a move that ends the game (the server's
    loop writes its end and score in one statement, ``HintedMove.end_sql``).  Anything else returns
    None, and the caller takes the locked path, which answers with the exact error.
    """
    known = positions.hint("game", game_id)
    if known is None or known.moves + len(missed) != seen:
        return None
    facts: GameFacts = known.facts
    if facts.player_id != player.pk or (missed and not facts.ranked):
        return None
    today = local_today()
    if facts.challenge_date > today or (facts.ranked and facts.challenge_date < today):
        return None
    state = positions.recall(positions.key_of("game", game_id, facts.started_at, known.version, known.moves))
    if state is None:
        return None
    try:
        for text in missed:
            state = state.apply(parse_move(text))
        after = state.apply(parsed)
    except (IllegalMoveError, NotationError):
        return None  # the locked path says why (or that the client is out of date)
    if after.outcome is not Outcome.IN_PROGRESS and (not ending or (facts.ranked and not RANKED_END)):
        return None  # an ending move scores the game: the locked path does that
    return HintedMove(game_id, player, facts, known.version + len(missed), seen, after)


def move_from_hint_play(plan: HintedMove, now: dt.datetime | None = None) -> Play:
    """The game row and position a planned move leaves once written (nothing is remembered yet);
    ``now``: the time an ending move's write gave the end."""
    facts = plan.facts
    ends = plan.ends
    game = Game(
        pk=plan.game_id,
        challenge_id=facts.challenge_id,
        player_id=facts.player_id,
        ranked=facts.ranked,
        outcome=plan.outcome if ends else Game.Outcome.IN_PROGRESS,
        move_count=plan.seen + 1,
        version=plan.version + 1,
        score=plan.points if ends else None,
        started_at=facts.started_at,
        finished_at=now if ends else None,
    )
    if getattr(plan.player, "display_name", None) is not None:
        cache_related(game, "player", plan.player)  # the owner: summaries need no query for the name
    return Play(game, plan.after)


def move_from_hint_written(
    plan: HintedMove,
    written: bool,
    after_commit: Callable[[Callable[[], None]], None] | None = None,
    play: Play | None = None,
) -> Play | None:
    """After the write of a planned move: its play (``play`` when the caller built it already, from
    ``move_from_hint_play``), or None (and the hint forgotten) when the row had moved on.

    The new position and version are remembered by ``after_commit`` (``transaction.on_commit`` on a
    thread; at once, the default, from the event loop, whose write commits by itself).
    """
    if not written:
        positions.hint_drop("game", plan.game_id)
        return None
    if play is None:
        play = move_from_hint_play(plan)
    game = play.game
    key = positions.key_of("game", game.pk, plan.facts.started_at, game.version, game.move_count)
    hint = positions.Hint(game.version, game.move_count, plan.facts)

    def remember() -> None:
        positions.remember(key, plan.after)
        if game.is_finished:
            positions.hint_drop("game", plan.game_id)
        else:
            positions.hint_set("game", plan.game_id, hint)

    (after_commit or (lambda call: call()))(remember)
    return play


def _move_from_hint(game_id: int, player: Any, parsed: EngineMove, seen: int) -> Play | None:
    """The move written with one conditional UPDATE + INSERT on this thread's connection, or None."""
    since = moves_missed_since(game_id, player, seen)
    missed = game_moves_since(game_id, since) if since is not None else []
    plan = move_from_hint_plan(game_id, player, parsed, seen, missed)
    if plan is None:
        return None
    try:
        written = _move_write(plan, timezone.now())
    except IntegrityError:
        written = False
    play = move_from_hint_written(plan, written, transaction.on_commit)
    if play is not None:
        events.publish_game_move_made(game=play.game, state=play.state)
    return play


def game_move_make(*, game_id: int, player: Any, move: str, seen: int) -> Play:
    """Apply one move, sent with the number of moves the client has seen.

    A stale or repeated move (``seen`` not the log's length) changes nothing; an illegal one
    neither.  When this process saw the game's latest version, the move is checked against the
    remembered position and written with one conditional UPDATE + INSERT that takes the game
    row's lock and succeeds only if the row is still at that version (``_move_from_hint``); a
    ranked game it saw some moves ago reads just the moves stored since, and does the same.
    Otherwise — and for a move that ends the game — it locks the game row, reads it and the
    position, and writes; a move that ends the game computes its score from the log and, for a
    ranked game, records it on the leaderboard in the same transaction.
    """
    started = time.perf_counter()
    play = _move_make(game_id, player, move_parse(move), seen)
    metrics.move_applied("service", play.state.deal.rules.name, time.perf_counter() - started)
    return play


def _move_make(game_id: int, player: Any, parsed: EngineMove, seen: int) -> Play:
    fast = _move_from_hint(game_id, player, parsed, seen)
    if fast is not None:
        return fast
    with transaction.atomic():
        game = _locked_game(game_id, player)
        _check_seen(game, seen)
        state = game_engine_state(game, locked=True)
        state = move_apply(state, parsed)
        game.move_count += 1
        game.version += 1
        Move.objects.create(game=game, number=game.move_count, notation=str(state.moves[-1]))
        if state.outcome is Outcome.IN_PROGRESS:
            game.save(update_fields=["move_count", "version"])
        else:
            outcome = finished_outcome(state)
            _finish(game, outcome, list(state.moves))
        transaction.on_commit(lambda: _remember_committed(game, state))
        events.publish_game_move_made(game=game, state=state)
    return Play(game, state)


def game_resign(*, game_id: int, player: Any) -> Play:
    """End a game now; its score is what the move log earned.  Locks the game row.

    A ranked game still open when its day ended can be resigned too, scored as
    ``games_close_expired`` would score it (the move log stopped at midnight), rather than
    waiting for that hourly task."""
    with transaction.atomic():
        game = _locked_game(game_id, player, after_its_day=True)
        state = _resign(game)
    return Play(game, state)


def _resign(game: Game) -> EngineGame:
    """Finish a locked game as resigned, for its player or for the closing task alike."""
    state = game_engine_state(game, locked=True)
    game.version += 1
    _finish(game, Game.Outcome.RESIGNED, list(state.moves))
    transaction.on_commit(lambda: positions.hint_drop("game", game.pk))
    events.publish_game_finished(game=game, state=state)
    return state


def game_move_undo(*, game_id: int, player: Any, seen: int) -> Play:
    """Take back the last move of a practice game; ranked games have no undo.  Locks the game row."""
    with transaction.atomic():
        game = _locked_game(game_id, player)
        if game.ranked:
            raise NotAllowed("ranked games have no undo")
        _check_seen(game, seen)
        if game.move_count == 0:
            raise BadRequest("there is no move to take back")
        Move.objects.filter(game=game, number=game.move_count).delete()
        game.move_count -= 1
        game.version += 1
        game.save(update_fields=["move_count", "version"])
        state = EngineGame.replay(game.deal, game_moves(game))
        transaction.on_commit(lambda: _remember_committed(game, state))
        events.publish_game_move_undone(game=game, state=state)
    return Play(game, state)


def games_player_leaving(player: Any) -> None:
    """Before ``player``'s account is deleted (``accounts.services.ACCOUNT_LEAVING``): its games
    stay, for the day's statistics, linked to nobody (no player, no address, no device), and those
    in progress end now, resigned with the points of their move log and no Score (nobody is left
    to rank), so that no room shows a game nobody plays as played.

    Locks the games in progress, one at a time after the others are unlinked.
    """
    games = Game.objects.filter(player_id=player.pk)
    playing = list(games.filter(outcome=Game.Outcome.IN_PROGRESS).values_list("pk", flat=True))
    games.update(player=None, start_address=None, start_device="")
    for game in (
        Game.objects.select_for_update(of=("self",))  # not the challenge row (see _locked_game)
        .select_related("challenge")
        .filter(pk__in=playing, outcome=Game.Outcome.IN_PROGRESS)
        .order_by("pk")
    ):
        _resign(game)


def games_close_expired(*, today: dt.date | None = None) -> int:
    """Resign every ranked game still open after its challenge day ended; returns how many.

    Its moves stop at midnight (``_locked_game``), so without this an abandoned game would never
    score.  Locks each game row in turn and re-checks it, so a run racing another changes nothing twice.
    """
    today = today or local_today()
    open_ids = Game.objects.filter(
        ranked=True, outcome=Game.Outcome.IN_PROGRESS, challenge__date__lt=today
    ).values_list("pk", flat=True)
    closed = 0
    for game_id in list(open_ids):
        with transaction.atomic():
            game = (
                Game.objects.select_for_update(of=("self",))  # not the challenge row (see _locked_game)
                .select_related("challenge")
                .filter(pk=game_id, outcome=Game.Outcome.IN_PROGRESS)
                .first()
            )
            if game is None:
                continue
            _resign(game)
            closed += 1
    return closed
