"""The habit of winning with another's line, read from the database (fairplay/services.py
``account_habit``) and spread to the account's earlier copies (``habit_spread``), through
``score_assess`` as the Celery task runs it."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.utils import timezone

from fairplay.models import Assessment
from fairplay.services import account_habit, play_records, score_assess
from fairplay.signals import HABIT_DAYS, top_line_hit
from games.models import Game, Move
from games.selectors import local_today
from leaderboard.models import Score
from tests.factories import make_challenge, make_player

pytestmark = pytest.mark.django_db(transaction=True)

#: Days of the run: the copier's three, oldest first.
DAYS = 3


def ranked_game(
    challenge: Any, player: Any, line: list[str], finished_at: dt.datetime, *, won: bool, points: int
) -> Score:
    """A finished ranked game with its moves and score, as the move path leaves them.  Its lines are
    shorter than the timing signals read (``TIMING_MIN_MOVES``): only the lines matter here."""
    game = Game.objects.create(
        challenge=challenge,
        player=player,
        ranked=True,
        outcome=Game.Outcome.WON if won else Game.Outcome.RESIGNED,
        move_count=len(line),
        score=points,
        finished_at=finished_at,
    )
    Game.objects.filter(pk=game.pk).update(started_at=finished_at - dt.timedelta(minutes=10))
    game.refresh_from_db()
    Move.objects.bulk_create(Move(game=game, number=n, notation=text) for n, text in enumerate(line, start=1))
    return Score.objects.create(
        player=player,
        challenge=challenge,
        game=game,
        date=challenge.date,
        preset=challenge.preset,
        points=points,
        moves=len(line),
        won=won,
        finished_at=finished_at,
    )


def line(day: int, tag: str, length: int = 10) -> list[str]:
    return [f"{tag}{day}.{n}" for n in range(length)]


def a_run(copier_plays: str, *, others: int = 8, preset: str = "forty", every: int = 1) -> dict[str, list[Score]]:
    """``DAYS`` challenges of ``preset``, one each ``every`` days, each with a source who wins first
    with the day's top line, then ``others`` players on lines of their own that score less, then
    ``copier_plays``'s account: ``"copy"`` repeats the source's line, ``"first"`` wins first with its
    own line (a strong player who finds the line before anyone).  Every game is assessed as it
    finishes."""
    copier, scores = make_player("copier"), {"copier": [], "source": []}
    for day in range(DAYS):
        back = (DAYS - 1 - day) * every
        date = local_today() - dt.timedelta(days=back)
        challenge = make_challenge(date=date, preset=preset, solver_line="D", par_line="D")
        noon = timezone.now() - dt.timedelta(days=back, hours=2)
        order = []
        if copier_plays == "first":
            order.append((copier, line(day, "mine"), noon - dt.timedelta(minutes=30), True, 400))
        order.append((make_player(f"source{day}"), line(day, "top"), noon, True, 400))
        order += [
            (make_player(f"o{day}.{n}"), line(day, f"o{n}."), noon + dt.timedelta(minutes=n + 1), False, 200)
            for n in range(others)
        ]
        if copier_plays == "copy":
            order.append((copier, line(day, "top"), noon + dt.timedelta(minutes=45), True, 400))
        for player, moves, at, won, points in order:
            score = ranked_game(challenge, player, moves, at, won=won, points=points)
            score_assess(score_id=score.pk)
            if player == copier:
                scores["copier"].append(score)
            elif player.username.startswith("source"):
                scores["source"].append(score)
    return scores


def test_an_account_that_copies_the_day_s_top_line_every_day_goes_to_review_with_its_earlier_copies() -> None:
    scores = a_run("copy")
    last = Assessment.objects.get(score=scores["copier"][-1])
    assert last.signals["line_habit"] == 1.0 and last.flagged
    for score in scores["copier"]:
        score.refresh_from_db()
        assert score.standing == "review", "the habit is the account's: its earlier copies follow"
        assert Assessment.objects.get(score=score).signals["line_habit"] == 1.0
    first = scores["copier"][0]
    assert [day.hit for day in account_habit(first.game)] == [True], "read as it stood at that game's finish"
    for score in scores["source"]:
        score.refresh_from_db()
        assert score.standing == "good" and Assessment.objects.get(score=score).signals["line_habit"] == 0.0


def test_a_strong_player_who_wins_first_every_day_has_no_habit() -> None:
    scores = a_run("first")
    for score in scores["copier"]:
        score.refresh_from_db()
        assert score.standing == "good"
        assert Assessment.objects.get(score=score).signals["line_habit"] == 0.0
    assert [day.hit for day in account_habit(scores["copier"][-1].game)] == [False] * DAYS


def test_the_days_read_from_the_database_are_those_the_pure_function_reads(django_assert_num_queries: Any) -> None:
    scores = a_run("copy", others=3)
    game = Game.objects.select_related("challenge").get(pk=scores["copier"][-1].game_id)
    with django_assert_num_queries(1):
        days = account_habit(game)
    assert [day.day for day in days] == [local_today() - dt.timedelta(days=DAYS - 1 - n) for n in range(DAYS)]
    games = list(Game.objects.filter(challenge_id=game.challenge_id))
    records = play_records(games)
    expected = top_line_hit(records[game.pk], [r for pk, r in records.items() if pk != game.pk])
    assert days[-1].hit is expected is True
    assert days[-1].top_share == pytest.approx(2 / 5), "the source and the copy at the top, of five"
    # the preset's last HABIT_DAYS challenges are read, however far back; one before them is not
    Game.objects.filter(pk=scores["copier"][0].game_id).update(finished_at=game.finished_at)
    old = scores["copier"][0].challenge
    type(old).objects.filter(pk=old.pk).update(date=local_today() - dt.timedelta(days=60))
    assert len(account_habit(game)) == DAYS, "60 days back, and still one of the preset's last 14"
    for back in range(DAYS, HABIT_DAYS + 1):
        make_challenge(date=local_today() - dt.timedelta(days=back), preset="forty")
    assert len(account_habit(game)) == DAYS - 1


def test_a_variant_of_the_day_is_read_over_its_turns_not_the_calendar() -> None:
    """A variant comes back every few days (games/rotation.py): an account that copies its top line
    on each of three turns a week apart has the habit a daily preset's copier has in three days
    (read over fourteen calendar days, the first turn fell out and two hits were not enough)."""
    scores = a_run("copy", preset="egyptian", every=7)
    last = Assessment.objects.get(score=scores["copier"][-1])
    assert [day.hit for day in account_habit(scores["copier"][-1].game)] == [True] * DAYS
    assert last.signals["line_habit"] == 1.0 and last.flagged


def test_a_repeat_is_the_same_moves_for_95_percent_of_the_line() -> None:
    challenge = make_challenge(preset="forty", solver_line="D", par_line="D")
    at, top = timezone.now() - dt.timedelta(hours=1), line(0, "top", 20)
    ranked_game(challenge, make_player("src"), top, at, won=True, points=400)

    def hit(name: str, moves: list[str], minutes: int) -> bool:
        score = ranked_game(
            challenge, make_player(name), moves, at + dt.timedelta(minutes=minutes), won=True, points=400
        )
        return account_habit(score.game)[0].hit

    assert hit("near", [*top[:19], "other"], 5), "19 moves of 20 the same"
    assert not hit("off", [*top[:18], "other", "other"], 6), "18 of 20 are not 95%"
    assert not hit("first", ["other", *top[1:]], 7)


def test_a_repeat_of_a_line_another_has_beaten_by_then_is_no_hit() -> None:
    challenge = make_challenge(preset="forty", solver_line="D", par_line="D")
    at, top = timezone.now() - dt.timedelta(hours=1), line(0, "top")
    ranked_game(challenge, make_player("src"), top, at, won=True, points=400)
    early = ranked_game(challenge, make_player("early"), top, at + dt.timedelta(minutes=1), won=True, points=400)
    ranked_game(challenge, make_player("best"), line(0, "best"), at + dt.timedelta(minutes=2), won=True, points=450)
    late = ranked_game(challenge, make_player("late"), top, at + dt.timedelta(minutes=3), won=True, points=400)
    assert account_habit(early.game)[0].hit
    assert not account_habit(late.game)[0].hit
