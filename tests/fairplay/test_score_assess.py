"""Each finished ranked game is assessed once its score commits (fairplay/services.py ``score_assess``,
through ``score_assess_task``), and the verdict follows the standing rules."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any
from unittest import mock

import pytest
from django.utils import timezone

from fairplay.models import Assessment
from fairplay.services import score_assess, score_clear, scores_unassessed
from fairplay.tasks import scores_assess_missing_task
from games.engine import Game as EngineGame
from games.engine.solver import solve
from games.models import DailyChallenge, Game, Move
from games.services import game_move_make, game_ranked_start, game_resign
from leaderboard.models import Score
from plumbing.device import Origin
from tests.factories import BIG_WINNABLE, end_the_day, make_challenge, make_player

pytestmark = pytest.mark.django_db(transaction=True)


def play_line(challenge: Any, player: Any, line: list[str], origin: Origin | None = None) -> Score:
    game = game_ranked_start(challenge_id=challenge.pk, player=player, origin=origin)[0].game
    for seen, move in enumerate(line):
        game_move_make(game_id=game.pk, player=player, move=move, seen=seen)
    game.refresh_from_db()
    if not game.is_finished:
        game_resign(game_id=game.pk, player=player)
    return Score.objects.get(game=game)


def test_a_finished_ranked_game_is_assessed_once_its_score_commits() -> None:
    challenge = make_challenge()
    score = play_line(challenge, make_player("ann"), ["D", "D"], Origin("203.0.113.5", "a" * 32))
    assessment = Assessment.objects.get(score=score)
    assert not assessment.flagged and score.standing == "good"
    assert set(assessment.signals) >= {"device_link", "address_link", "solver_line", "copied_line", "fast", "steady"}
    assert score.game.start_address == "203.0.113.5" and score.game.start_device == "a" * 32


def test_the_solvers_line_played_by_an_established_account_alone_is_not_enough_but_linked_it_is() -> None:
    challenge = make_challenge(seed=BIG_WINNABLE)
    line = [str(m) for m in solve(EngineGame.start(challenge.deal), time_limit=5).line]
    here = Origin("198.51.100.20", "b" * 32)
    play_line(challenge, make_player("first"), ["D"], Origin("198.51.100.20", "c" * 32))
    score = play_line(challenge, make_player("second"), line, here)
    score.refresh_from_db()
    assessment = Assessment.objects.get(score=score)
    assert assessment.linked == {str(Score.objects.get(player__username="first").player_id): "address"}
    assert assessment.flagged and score.standing == "review"


def test_a_score_staff_cleared_is_not_sent_back_to_review() -> None:
    challenge = make_challenge(seed=BIG_WINNABLE)
    line = [str(m) for m in solve(EngineGame.start(challenge.deal), time_limit=5).line]
    play_line(challenge, make_player("first"), ["D"], Origin("198.51.100.21", ""))
    score = play_line(challenge, make_player("second"), line, Origin("198.51.100.21", ""))
    score.refresh_from_db()
    assert score.standing == "review"
    score_clear(score_id=score.pk, actor=make_player("staffer", is_staff=True))
    assert score_assess(score_id=score.pk).flagged
    score.refresh_from_db()
    assert (score.standing, score.standing_reason) == ("good", "cleared")


def test_scores_whose_assessment_was_lost_are_assessed_by_the_hourly_sweep() -> None:
    challenge = make_challenge()
    score = play_line(challenge, make_player("ann"), ["D"])
    Assessment.objects.all().delete()
    assert scores_unassessed() == [], "a score of the last minutes may still have its task queued"
    Score.objects.filter(pk=score.pk).update(finished_at=timezone.now() - dt.timedelta(hours=1))
    assert scores_unassessed() == [score.pk]
    assert scores_assess_missing_task() == 1
    assert Assessment.objects.filter(score=score).exists()


def test_the_lines_of_a_challenge_stay_secret_and_are_found_once() -> None:
    challenge = make_challenge(seed=BIG_WINNABLE)
    play_line(challenge, make_player("ann"), ["D"])
    challenge.refresh_from_db()
    assert challenge.solver_line and challenge.par_line
    from rest_framework.test import APIClient

    body = APIClient().get(f"/api/challenges/{challenge.pk}/").content.decode()
    assert challenge.solver_line not in body and challenge.par_line not in body
    end_the_day(challenge)
    body = APIClient().get(f"/api/challenges/{challenge.pk}/").content.decode()
    assert challenge.solver_line not in body, "never sent: the deal itself is public by then"


def _copy_among(players: int, *, agree: int) -> Assessment:
    """A winning line played first by one player, then copied by another, on a day ``players``
    others played before them: each of those agreeing with it for its first ``agree`` moves."""
    challenge = make_challenge(seed=BIG_WINNABLE)
    line = [str(m) for m in solve(EngineGame.start(challenge.deal), time_limit=5).line]
    earlier = timezone.now() - dt.timedelta(hours=1)
    for n in range(players):
        other = make_player(f"p{n}")
        game = Game.objects.create(
            challenge=challenge,
            player=other,
            ranked=True,
            outcome=Game.Outcome.RESIGNED,
            move_count=agree + 1,
            score=0,
            finished_at=earlier,
        )
        moves = [*line[:agree], "R" if line[agree] != "R" else "D"]
        Move.objects.bulk_create(Move(game=game, number=i, notation=text) for i, text in enumerate(moves, start=1))
    play_line(challenge, make_player("source"), line)
    # only the line's first two moves are choices: its decisions alone would never call it a copy
    choices = [True, True] + [False] * (len(line) - 2)
    with mock.patch("fairplay.signals.decisions", return_value=choices):
        copy = play_line(challenge, make_player("copier"), line)
    return Assessment.objects.get(score=copy)


def test_a_winning_copy_of_choices_few_players_made_is_sent_to_review() -> None:
    found = _copy_among(60, agree=0)
    assert found.signals["copied_line"] == 1.0 and found.flagged
    assert found.score.standing == "review"


def test_a_winning_line_most_players_chose_is_no_copy() -> None:
    assert _copy_among(60, agree=2).signals["copied_line"] == 0.0


def _win_after(first: Any, first_line: Callable[[list[str]], list[str]]) -> Assessment:
    """``first`` plays ``first_line`` (of the deal's winning line) and gives up; then an established account wins the deal from the
    same address on another device, at a person's pace, on a deal whose solver lines offer no
    decision to follow (as on some forty days): only the link and what ``first`` was can tell."""
    challenge = make_challenge(seed=BIG_WINNABLE)
    line = [str(m) for m in solve(EngineGame.start(challenge.deal), time_limit=5).line]
    DailyChallenge.objects.filter(pk=challenge.pk).update(solver_line=line[0], par_line=line[0])
    challenge.refresh_from_db()
    play_line(challenge, first, first_line(line), Origin("198.51.100.30", "c" * 32))
    score = play_line(challenge, make_player("main"), line, Origin("198.51.100.30", "d" * 32))
    game = score.game
    moves, at = list(Move.objects.filter(game=game).order_by("number")), game.started_at + dt.timedelta(seconds=20)
    for number, move in enumerate(moves):
        at += dt.timedelta(seconds=2 + number * 7 % 5)
        move.created_at = at
    Move.objects.bulk_update(moves, ["created_at"])
    Game.objects.filter(pk=game.pk).update(finished_at=at)
    assert game.outcome == Game.Outcome.WON
    found = score_assess(score_id=score.pk)
    assert found is not None and found.signals["solver_line"] == 0.0 and found.signals["fast"] == 0.0
    assert found.signals["address_link"] == 1.0 and found.signals["after_linked"] == 1.0
    return found


def test_a_win_after_a_linked_account_made_that_day_for_one_look_is_sent_to_review() -> None:
    found = _win_after(make_player("scout", date_joined=timezone.now()), lambda line: ["D", "D", "D"])
    assert found.signals["after_scout"] == 1.0 and found.flagged
    assert Score.objects.get(pk=found.score_id).standing == "review"


def test_a_win_after_a_household_members_real_game_given_up_is_not() -> None:
    """The member has played other days: whatever their game was, it was no throwaway's."""
    found = _win_after(make_player("partner"), lambda line: line[:12])
    assert found.signals["after_scout"] == 0.0 and not found.flagged
