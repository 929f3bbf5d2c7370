"""Writes on leaderboards: record a finished ranked game's score, keep the rank store in step."""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING

from games.engine import score_moves
from piramide_site.after_commit import Job, later

from .boards import Board, boards_of
from .models import Score
from .ranks import rank_store

if TYPE_CHECKING:
    from games.engine import Move
    from games.models import Game


def score_record(*, game: Game, moves: list[Move], won: bool) -> Score:
    """Store the score of a finished ranked game, recomputed from its move log alone.

    Runs inside the caller's transaction, which holds the game row (select_for_update); the
    unique constraint on (player, challenge) refuses a second score whatever happens.  The rank
    store is updated only after the commit, and on a server after the player is answered
    (``piramide_site.after_commit``).
    """
    challenge = game.challenge
    score = Score.objects.create(
        player_id=game.player_id,
        challenge=challenge,
        game=game,
        date=challenge.date,
        preset=challenge.preset,
        points=score_moves(moves),
        moves=len(moves),
        won=won,
        finished_at=game.finished_at,
    )
    later(*rank_store_copy(score))
    return score


def rank_store_copy(score: Score) -> tuple[Hashable, Job]:
    """The after-commit job (``piramide_site.after_commit``) that copies a stored score's entries
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
