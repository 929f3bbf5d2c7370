"""Fair-play writes: assess a finished ranked game, and the staff's actions on scores and accounts.

Every change of a score's standing goes through ``leaderboard.services.scores_standing_set``, so
the boards (the Redis sorted sets included) follow it as soon as it commits; every staff action
writes one ``ModerationAction`` row in the same transaction.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import (
    BooleanField,
    Count,
    Exists,
    ExpressionWrapper,
    F,
    IntegerField,
    Min,
    OuterRef,
    Q,
    Subquery,
    Value,
)
from django.db.models.functions import Coalesce
from django.utils import timezone

from games.engine import Game as EngineGame
from games.models import DailyChallenge, Game, Move
from leaderboard.models import Score, Standing, StandingReason
from leaderboard.services import scores_standing_set
from plumbing.errors import BadRequest, NotFound

from . import signals
from .models import Assessment, ModerationAction

#: At most this many other games of a challenge are read to assess one (the linked ones first).
OTHERS_LIMIT = 200


def challenge_lines(challenge: DailyChallenge) -> list[list[str]]:
    """The solver's winning line and par line of a challenge's deal: kept by its verification, or
    found here once for a challenge verified before they were kept."""
    from games.engine.solver import solve, solve_par

    if not challenge.solver_line:
        game = EngineGame.start(challenge.deal)
        limit = settings.PIRAMIDE_SOLVE_TIME_LIMIT
        challenge.solver_line = " ".join(str(move) for move in solve(game, time_limit=limit).line)
        challenge.par_line = " ".join(str(move) for move in solve_par(game, time_limit=limit).line)
        lines = {"solver_line": challenge.solver_line, "par_line": challenge.par_line}
        DailyChallenge.objects.filter(pk=challenge.pk).update(**lines)
    return [line.split() for line in (challenge.solver_line, challenge.par_line) if line]


def play_records(games: list[Game]) -> dict[int, signals.PlayRecord]:
    """The games as the signals read them, with every move and when it was stored (one query); a game
    read with ``newcomer_marked`` says whether its account is a newcomer (``PlayRecord.newcomer``)."""
    moves: dict[int, list[tuple[str, Any]]] = {game.pk: [] for game in games}
    rows = Move.objects.filter(game_id__in=list(moves)).order_by("game_id", "number")
    for game_id, notation, created_at in rows.values_list("game_id", "notation", "created_at"):
        moves[game_id].append((notation, created_at))
    return {
        game.pk: signals.PlayRecord(
            game_id=game.pk,
            player_id=game.player_id,
            started_at=game.started_at,
            finished_at=game.finished_at,
            moves=tuple(notation for notation, _ in moves[game.pk]),
            move_times=tuple(at for _, at in moves[game.pk]),
            address=game.start_address,
            device=game.start_device or None,
            won=game.outcome == Game.Outcome.WON,
            score=game.score,
            newcomer=bool(getattr(game, "newcomer", False)),
        )
        for game in games
    }


def newcomer_marked(games: Any, challenge: DailyChallenge) -> Any:
    """``games`` (a queryset of the challenge's games), each marked ``newcomer``: its account was made
    on the challenge's day or later (a guest's too) and has no other ranked game, which is what a
    throwaway made to look at the deal is (``signals.after_scout``).  In the same query: the
    account's row by its key, and one look through the ``(player, challenge)`` index."""
    from games.selectors import challenge_day_start

    other = Game.objects.filter(player_id=OuterRef("player_id"), ranked=True).exclude(pk=OuterRef("pk"))
    new = Q(player__date_joined__gte=challenge_day_start(challenge.date)) & ~Exists(other)
    return games.annotate(newcomer=ExpressionWrapper(new, output_field=BooleanField()))


def challenge_population(game: Game, moves: Sequence[str], *, until: dt.datetime) -> signals.Population:
    """What the challenge's other players did along ``moves`` (``game``'s line) in their ranked games
    finished by ``until`` (``signals.population_cutoff``): one query over their Move rows, grouped by
    game, reading no move past the line's length.  Each game's agreement is the number of moves
    before its first that differs."""
    length = len(moves)
    same = Q(pk__in=[])
    for number, notation in enumerate(moves, start=1):
        same |= Q(moves__number=number, moves__notation=notation)
    within = Q(moves__number__lte=length)
    others = (
        Game.objects.filter(challenge_id=game.challenge_id, ranked=True, finished_at__lte=until, move_count__gt=0)
        .exclude(player_id=game.player_id)
        .annotate(first_other=Min("moves__number", filter=within & ~same), read=Count("moves", filter=within))
        .values_list("first_other", "read", "score")
    )
    agreeing = [0] * length
    games, scores = 0, []
    for first_other, read, score in others:
        games += 1
        if score is not None:
            scores.append(score)
        for k in range(first_other - 1 if first_other is not None else read):
            agreeing[k] += 1
    return signals.Population(games, tuple(agreeing), tuple(sorted(scores)))


def account_habit(game: Game) -> list[signals.HabitDay]:
    """The ``line_habit`` days of ``game``'s account as they stood when it finished: its ranked games
    of the preset's last ``signals.HABIT_DAYS`` challenges up to this one's (this one included:
    fourteen days of a daily preset, fourteen turns of a variant of the day), each with whether it
    was a hit (``signals.top_line_hit``, at its own finish) and its day's top share.

    One query, bounded by the account's games of those days (the ``(player, challenge)`` index);
    each of them looks at its own challenge's games (the ``(challenge, ...)`` indexes) and, for the
    few of the same length finished before it, at their Move rows up to the compared length
    (``(game, number)``).  A repeat is what ``signals.copied_games`` calls one for two lines of one
    length: the same moves up to ``COPY_SHARE`` of it."""
    if game.player_id is None or game.finished_at is None:
        return []
    challenge, at = game.challenge, game.finished_at
    same_move = Move.objects.filter(
        game_id=OuterRef(OuterRef("pk")), number=OuterRef("number"), notation=OuterRef("notation")
    )
    differing = Move.objects.filter(
        game_id=OuterRef(OuterRef("pk")), number__lte=OuterRef(OuterRef("compared"))
    ).filter(~Exists(same_move))
    others = Game.objects.filter(
        challenge_id=OuterRef("challenge_id"), ranked=True, finished_at__lte=OuterRef("finished_at")
    ).exclude(player_id=game.player_id)
    copies = others.filter(move_count=OuterRef("move_count")).filter(~Exists(differing))
    better = others.filter(score__gt=OuterRef("score"))
    day = Game.objects.filter(challenge_id=OuterRef("challenge_id"), ranked=True, move_count__gt=0, finished_at__lte=at)

    def count(games: Any) -> Subquery:
        return Subquery(games.order_by().values("challenge_id").annotate(n=Count("pk")).values("n")[:1])

    # the date of the preset's HABIT_DAYS-th challenge back, or of any before when it has had fewer
    turns = DailyChallenge.objects.filter(preset=challenge.preset, date__lte=challenge.date).order_by("-date")
    since = Coalesce(Subquery(turns.values("date")[signals.HABIT_DAYS - 1 : signals.HABIT_DAYS]), Value(dt.date.min))
    rows = (
        Game.objects.filter(
            player_id=game.player_id,
            ranked=True,
            challenge__preset=challenge.preset,
            challenge__date__gte=since,
            challenge__date__lte=challenge.date,
            finished_at__lte=at,
            move_count__gt=0,
        )
        .annotate(
            compared=ExpressionWrapper((F("move_count") * 95 + 99) / 100, output_field=IntegerField()),
            day_games=count(day),
            day_top=Subquery(day.order_by("-score").values("score")[:1]),
        )
        .annotate(at_top=count(day.filter(score=OuterRef("day_top"))), hit=Exists(copies) & ~Exists(better))
        .order_by("challenge__date")
        .values_list("pk", "challenge__date", "hit", "day_games", "at_top")
    )
    return [
        signals.HabitDay(pk, date, bool(hit), (at_top or 0) / day_games if day_games else 0.0)
        for pk, date, hit, day_games, at_top in rows
    ]


def habit_spread(game: Game, days: Sequence[signals.HabitDay], value: float) -> None:
    """A habit is the account's, not one game's: its earlier hits among ``days`` take ``game``'s
    ``line_habit`` (``value``) where theirs was lower, are summed again, and go to review as
    ``score_assess`` sends a score (their other signals stay as they were assessed)."""
    earlier = [day.game_id for day in days if day.hit and day.game_id != game.pk]
    for assessment in Assessment.objects.select_related("score").filter(score__game_id__in=earlier):
        if assessment.signals.get("line_habit", 0.0) >= value:
            continue
        found = signals.with_signal(signals.Assessment(assessment.signals, assessment.suspicion), "line_habit", value)
        assessment.signals, assessment.suspicion, assessment.flagged = found.signals, found.suspicion, found.flagged
        assessment.save(update_fields=["signals", "suspicion", "flagged", "assessed_at"])
        _review_if_flagged(assessment.score, found.flagged)


def _review_if_flagged(score: Score, flagged: bool) -> None:
    """Send a flagged score to review, unless staff cleared or excluded it, or it is excluded."""
    untouched = score.standing_reason not in (StandingReason.CLEARED, StandingReason.EXCLUDED)
    if flagged and untouched and score.standing in (Standing.GOOD, Standing.PROVISIONAL):
        scores_standing_set(score_ids=[score.pk], standing=Standing.REVIEW, reason=StandingReason.SIGNALS)


def score_assess(*, score_id: int) -> Assessment | None:
    """Score a finished ranked game's fair-play signals and keep them; above the threshold the score
    goes to review (not a score staff cleared or excluded, nor one already excluded).

    Reads the challenge's other ranked games that can matter: from the same address or device,
    and those with the same number of moves and points that finished before it (a copied line),
    each with whether its account is a newcomer (``newcomer_marked``, in the same query);
    and the account's games of the preset in the last days (``account_habit``): when they show a
    habit of winning with another's line, its earlier hits are raised to it too (``habit_spread``).
    Safe to run twice.
    """
    score = Score.objects.select_related("game", "challenge").filter(pk=score_id).first()
    if score is None:
        return None
    game = score.game
    same_origin = Q(pk__in=[])
    if game.start_address:
        same_origin |= Q(start_address=game.start_address)
    if game.start_device:
        same_origin |= Q(start_device=game.start_device)
    copied = Q(move_count=game.move_count, score=game.score, finished_at__lte=game.finished_at)
    ranked = newcomer_marked(
        Game.objects.filter(challenge_id=score.challenge_id, ranked=True).exclude(pk=game.pk), score.challenge
    )
    candidates = list(ranked.filter(same_origin)[:OTHERS_LIMIT])
    candidates += list(ranked.filter(copied).exclude(pk__in=[g.pk for g in candidates])[:OTHERS_LIMIT])
    address_accounts = None
    if game.start_address:
        address_accounts = (
            Game.objects.filter(challenge_id=score.challenge_id, ranked=True, start_address=game.start_address)
            .values("player_id")
            .distinct()
            .count()
        )
    records = play_records([game, *candidates])
    # the game's own rules decide what its moves did (docs/rules.md, "Rules versions")
    play, others, deal = records[game.pk], [records[g.pk] for g in candidates], game.deal
    # the day's choices along this line matter only to a game that repeats another's, where rarity counts
    until = signals.population_cutoff(play, others, deal)
    population = challenge_population(game, play.moves, until=until) if until is not None else None
    habit = account_habit(game)
    result = signals.assess(
        play,
        others,
        solver_lines=challenge_lines(score.challenge),
        address_accounts=address_accounts,
        deal=deal,
        population=population,
        habit=habit,
    )
    assessment, _ = Assessment.objects.update_or_create(
        score=score,
        defaults={
            "suspicion": result.suspicion,
            "signals": result.signals,
            "linked": {str(player): how for player, how in result.linked.items()},
            "flagged": result.flagged,
        },
    )
    _review_if_flagged(score, result.flagged)
    if result.signals["line_habit"] > 0:
        habit_spread(game, habit, result.signals["line_habit"])
    return assessment


def scores_unassessed(*, older_than: dt.timedelta = dt.timedelta(minutes=5), limit: int = 5000) -> list[int]:
    """Ranked scores written a while ago that have no assessment yet (their task was lost)."""
    cutoff = timezone.now() - older_than
    missing = Score.objects.filter(assessment__isnull=True, finished_at__lt=cutoff).order_by("finished_at")
    return list(missing.values_list("pk", flat=True)[:limit])


# ----------------------------------------------------------------- staff actions


def _score_for_action(score_id: int) -> Score:
    score = Score.objects.select_related("player").filter(pk=score_id).first()
    if score is None:
        raise NotFound(f"there is no score {score_id}")
    return score


def score_clear(*, score_id: int, actor: Any, note: str = "") -> ModerationAction:
    """Staff cleared a score in review (or excluded by mistake): it ranks again.  Locks the score."""
    with transaction.atomic():
        score = _score_for_action(score_id)
        if score.player.marked:
            raise BadRequest("the account is marked: every score of it stays excluded")
        before = {str(score.pk): score.standing}
        scores_standing_set(score_ids=[score.pk], standing=Standing.GOOD, reason=StandingReason.CLEARED)
        return ModerationAction.objects.create(
            kind=ModerationAction.Kind.CLEAR, actor=actor, score=score, account=score.player, before=before, note=note
        )


def score_exclude(*, score_id: int, actor: Any, note: str = "") -> ModerationAction:
    """Staff excluded a score: kept, never ranked, shown to its player as excluded.  Locks the score."""
    with transaction.atomic():
        score = _score_for_action(score_id)
        before = {str(score.pk): score.standing}
        scores_standing_set(score_ids=[score.pk], standing=Standing.EXCLUDED, reason=StandingReason.EXCLUDED)
        return ModerationAction.objects.create(
            kind=ModerationAction.Kind.EXCLUDE, actor=actor, score=score, account=score.player, before=before, note=note
        )


def account_mark(*, account_id: int, actor: Any, note: str = "") -> ModerationAction:
    """Staff marked an account: every score of it, past and to come, leaves every board.

    Locks the account's row and its scores; the scores it finishes later are written excluded
    (``leaderboard.services.standing_at_write``).
    """
    with transaction.atomic():
        account = get_user_model().objects.select_for_update().filter(pk=account_id).first()
        if account is None:
            raise NotFound(f"there is no account {account_id}")
        if account.is_staff:
            raise BadRequest("staff accounts are not marked here: take away their staff status first")
        account.marked = True
        account.save(update_fields=["marked"])
        scores = list(Score.objects.filter(player=account).values_list("pk", "standing"))
        scores_standing_set(
            score_ids=[pk for pk, _ in scores], standing=Standing.EXCLUDED, reason=StandingReason.ACCOUNT_MARKED
        )
        return ModerationAction.objects.create(
            kind=ModerationAction.Kind.MARK,
            actor=actor,
            account=account,
            before={str(pk): standing for pk, standing in scores},
            note=note,
        )
