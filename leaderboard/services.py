"""Writes on leaderboards: record a finished ranked game's score, keep the rank store in step."""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any

from django.contrib.auth import get_user_model
from django.db import transaction

from games.engine import get_rules, score_moves
from games.selectors import challenge_day_start, local_today
from games.services import RankedEnd
from plumbing.after_commit import Job, later

from .boards import Board, boards_of
from .models import Score, Standing, StandingReason
from .ranks import rank_store

if TYPE_CHECKING:
    from accounts.models import User
    from games.engine import Move
    from games.models import Game


def standing_at_write(
    *, marked: bool, joined: dt.datetime, verified: bool, day_start: dt.datetime, guest: bool = False
) -> tuple[str, str]:
    """The standing and reason a score is written with (docs/fairplay.md, *Standing*): excluded for
    an account staff marked, provisional for a guest's, for one made on the challenge's day or
    later, then for one whose e-mail address is not verified, else good."""
    if marked:
        return Standing.EXCLUDED, StandingReason.ACCOUNT_MARKED
    if guest:
        return Standing.PROVISIONAL, StandingReason.GUEST
    if joined >= day_start:
        return Standing.PROVISIONAL, StandingReason.NEW_ACCOUNT
    if not verified:
        return Standing.PROVISIONAL, StandingReason.EMAIL_UNVERIFIED
    return Standing.GOOD, StandingReason.NONE


#: What "verified" is in SQL, over the player's row ``u`` (``User.email_verified``).
_UNVERIFIED_SQL = "(u.email_verified_at IS NULL OR u.email = '')"

#: ``standing_at_write`` as SQL, for ``_SCORE_AT_END_SQL``: over the player's row ``u``, with the
#: challenge day's start as the one parameter of each expression.
STANDING_AT_WRITE_SQL = (
    f"CASE WHEN u.marked THEN '{Standing.EXCLUDED.value}' WHEN u.guest THEN '{Standing.PROVISIONAL.value}' "
    f"WHEN u.date_joined >= %s THEN '{Standing.PROVISIONAL.value}' WHEN {_UNVERIFIED_SQL} THEN '{Standing.PROVISIONAL.value}' "
    f"ELSE '{Standing.GOOD.value}' END"
)
STANDING_REASON_AT_WRITE_SQL = (
    f"CASE WHEN u.marked THEN '{StandingReason.ACCOUNT_MARKED.value}' WHEN u.guest THEN '{StandingReason.GUEST.value}' "
    f"WHEN u.date_joined >= %s THEN '{StandingReason.NEW_ACCOUNT.value}' WHEN {_UNVERIFIED_SQL} "
    f"THEN '{StandingReason.EMAIL_UNVERIFIED.value}' ELSE '' END"
)


#: The Score row of a ranked game that the server's loop ends with one statement (a move, the game's
#: end and its score: games/services.py ``HintedMove.end_sql``, whose last CTE this is): the row
#: ``score_record`` writes on the locked path, over ``moved``, the CTE that returns the ended game's
#: id, with ``score_at_end_args``' parameters.
_SCORE_AT_END_SQL = f"""scored AS (
    INSERT INTO {Score._meta.db_table}
        (player_id, challenge_id, game_id, date, preset, points, moves, won, finished_at, standing, standing_reason)
    SELECT u.id, %s, moved.id, %s, %s, %s, %s, %s, %s, {STANDING_AT_WRITE_SQL}, {STANDING_REASON_AT_WRITE_SQL}
    FROM moved, {get_user_model()._meta.db_table} u WHERE u.id = %s
    RETURNING id
)"""


def score_at_end_args(
    *,
    player_id: int | None,
    challenge_id: int,
    date: dt.date,
    preset: str,
    points: int,
    moves: int,
    won: bool,
    finished_at: dt.datetime,
    day_start: dt.datetime,
) -> list[Any]:
    """The parameters of ``_SCORE_AT_END_SQL``; ``day_start``: the challenge day's start."""
    return [challenge_id, date, preset, points, moves, won, finished_at, day_start, day_start, player_id]


def score_at_end_jobs(
    *, score_id: int, player_id: int, challenge_id: int, date: dt.date, preset: str
) -> list[tuple[Hashable, Job]]:
    """The after-commit jobs of a Score that ``_SCORE_AT_END_SQL`` wrote (``score_written_jobs``),
    from what the statement was given."""
    score = Score(pk=score_id, player_id=player_id, challenge_id=challenge_id, date=date, preset=preset)
    return score_written_jobs(score)


#: What the loop's statement that ends a ranked game writes of its score (``games.services.RANKED_END``).
SCORE_AT_END = RankedEnd(cte=_SCORE_AT_END_SQL, args=score_at_end_args, jobs=score_at_end_jobs)


def score_record(*, game: Game, moves: list[Move], won: bool) -> Score:
    """Store the score of a finished ranked game, recomputed from its move log alone.

    Runs inside the caller's transaction, which holds the game row (select_for_update); the
    unique constraint on (player, challenge) refuses a second score whatever happens.  The rank
    store is updated only after the commit, and on a server after the player is answered
    (``plumbing.after_commit``).
    """
    assert game.player_id is not None and game.finished_at is not None, "a score is its player's finished game's"
    challenge = game.challenge
    player = (
        get_user_model()
        .objects.only("marked", "date_joined", "email", "email_verified_at", "guest")
        .get(pk=game.player_id)
    )
    standing, reason = standing_at_write(
        marked=player.marked,
        joined=player.date_joined,
        verified=player.email_verified,
        day_start=challenge_day_start(challenge.date),
        guest=player.guest,
    )
    score = Score.objects.create(
        player_id=game.player_id,
        challenge=challenge,
        game=game,
        date=challenge.date,
        preset=challenge.preset,
        points=score_moves(moves, get_rules(challenge.preset, game.rules_version)),
        moves=len(moves),
        won=won,
        finished_at=game.finished_at,
        standing=standing,
        standing_reason=reason,
    )
    for job in score_written_jobs(score):
        later(*job)
    return score


#: Called with a new score's id once it has committed and its player has been answered: the apps
#: that follow scores register here in their ``AppConfig.ready`` (fair play assesses each one),
#: so that leaderboard needs to import none of them.
SCORE_WRITTEN: list[Callable[[int], None]] = []


def score_written_jobs(score: Score) -> list[tuple[Hashable, Job]]:
    """The after-commit jobs (``plumbing.after_commit``) of a newly written score, whichever
    path wrote it: its entries into the rank store, then whatever ``SCORE_WRITTEN`` asks for."""
    jobs = [rank_store_copy(score)]
    score_id = score.pk
    for follower in SCORE_WRITTEN:
        jobs.append(((follower, score_id), functools.partial(follower, score_id)))
    return jobs


def scores_standing_set(*, score_ids: list[int], standing: str, reason: str) -> int:
    """Change the standing of scores; every board they count on follows once the change commits.

    Locks the score rows.  The rank store takes the players' entries off those boards and copies
    them again from Postgres (``entries_replaced``): a sum can shrink, and an entry can go.
    """
    with transaction.atomic():
        scores = list(Score.objects.select_for_update().filter(pk__in=score_ids).order_by("pk"))
        changed = [s for s in scores if (s.standing, s.standing_reason) != (standing, reason)]
        if not changed:
            return 0
        Score.objects.filter(pk__in=[s.pk for s in changed]).update(standing=standing, standing_reason=reason)
        players: dict[Board, set[int]] = {}
        for score in changed:
            for board in boards_of(score):
                players.setdefault(board, set()).add(score.player_id)

        def replace() -> None:
            store = rank_store()
            for board, ids in players.items():
                store.entries_replaced(board, sorted(ids))

        later(("standing", tuple(s.pk for s in changed)), replace)
    return len(changed)


def scores_claim(*, game_ids: list[int], player_id: int) -> int:
    """The scores of guest games kept by the player who signed up or in
    (``games.services.guest_games_claim``): each becomes ``player_id``'s, and a guest's provisional
    standing becomes the one the player would have been written with; a standing fair play or staff gave stays.  Every board follows
    once the change commits, and fair play assesses the scores again under their new owner.

    Locks the score rows; returns how many changed hands.
    """
    with transaction.atomic():
        scores = list(
            Score.objects.select_for_update().select_related("challenge").filter(game_id__in=game_ids).order_by("pk")
        )
        if not scores:
            return 0  # games kept before they ended
        player = (
            get_user_model()
            .objects.only("marked", "date_joined", "email", "email_verified_at", "guest")
            .get(pk=player_id)
        )
        players: dict[Board, set[int]] = {}
        for score in scores:
            for board in boards_of(score):
                players.setdefault(board, set()).update((score.player_id, player_id))
            if score.standing_reason == StandingReason.GUEST:
                score.standing, score.standing_reason = standing_at_write(
                    marked=player.marked,
                    joined=player.date_joined,
                    verified=player.email_verified,
                    day_start=challenge_day_start(score.challenge.date),
                    guest=player.guest,
                )
            score.player_id = player_id
            score.save(update_fields=["player", "standing", "standing_reason"])

        def replace() -> None:
            store = rank_store()
            for board, ids in players.items():
                store.entries_replaced(board, sorted(ids))

        later(("claim", tuple(s.pk for s in scores)), replace)
        for score in scores:
            for key, job in score_written_jobs(score)[1:]:  # the boards are replaced above
                later(key, job)
    return len(scores)


def scores_email_verified(*, player_id: int) -> int:
    """The player verified their e-mail address: their scores held provisional for that reason alone
    rank now, on the days not yet over (a day already over keeps its boards as they were).  Every
    board they count on follows once the change commits (``scores_standing_set``)."""
    waiting = Score.objects.filter(
        player_id=player_id,
        standing=Standing.PROVISIONAL,
        standing_reason=StandingReason.EMAIL_UNVERIFIED,
        challenge__date__gte=local_today(),
    )
    ids = list(waiting.values_list("pk", flat=True))
    return scores_standing_set(score_ids=ids, standing=Standing.GOOD, reason=StandingReason.NONE) if ids else 0


def scores_player_verified(player: User) -> None:
    """``player`` verified their e-mail address (``accounts.verification.EMAIL_VERIFIED``):
    ``scores_email_verified``."""
    scores_email_verified(player_id=player.pk)


def scores_player_leaving(player: User) -> None:
    """Before ``player``'s account is deleted (``accounts.services.ACCOUNT_LEAVING``): its scores
    leave Postgres now, and every board they counted on once the deletion commits.

    Locks the rows of its scores.
    """
    scores = list(Score.objects.select_for_update().filter(player_id=player.pk))
    boards: set[Board] = {board for score in scores for board in boards_of(score)}
    Score.objects.filter(pk__in=[s.pk for s in scores]).delete()
    player_id = player.pk

    def boards_follow() -> None:
        store = rank_store()
        for board in boards:
            store.entries_replaced(board, [player_id])

    later(("account-deleted", player_id), boards_follow)


def rank_store_copy(score: Score) -> tuple[Hashable, Job]:
    """The after-commit job (``plumbing.after_commit``) that copies a stored score's entries
    into the rank store, under its key."""
    boards = boards_of(score)
    player_id = score.player_id
    return ("rank-store", score.pk), lambda: leaderboard_entries_refresh(boards=boards, player_ids=[player_id])


def leaderboard_entries_refresh(*, boards: list[Board], player_ids: list[int]) -> None:
    """Copy players' entries from Postgres into the rank store; reads only, no lock needed."""
    store = rank_store()
    for board in boards:
        store.entries_changed(board, player_ids)


def leaderboards_invalidate() -> int:
    """Unmark every board in the rank store, so each is rebuilt from Postgres on its next read.

    For after an outage during which updates may have been missed; locks nothing.
    """
    store = rank_store()
    primary = getattr(store, "primary", None)
    if primary is None:
        return 0
    keys = list(primary.client.scan_iter(match=f"{primary.prefix}:*:built", count=1000))
    if keys:
        primary.client.delete(*keys)
    return len(keys)
