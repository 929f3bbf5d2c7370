"""The fair-play queue's pages in the admin (the browser test, tests/browser/test_admin.py, drives them)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import timezone

from fairplay.models import Assessment
from fairplay.signals import WEIGHTS
from games.models import Game, Move
from leaderboard.models import Score
from tests.factories import make_challenge, make_player

pytestmark = pytest.mark.django_db


def test_a_score_in_review_shows_its_signals_linked_accounts_and_a_replay() -> None:
    challenge = make_challenge()
    suspect, friend = make_player("suspect", display_name="Suspect"), make_player("friend", display_name="Friend")
    staff = make_player("moderator", is_staff=True, is_superuser=True)
    game = Game.objects.create(
        challenge=challenge,
        player=suspect,
        ranked=True,
        outcome="resigned",
        move_count=2,
        version=2,
        finished_at=timezone.now(),
    )
    Move.objects.bulk_create([Move(game=game, number=1, notation="D"), Move(game=game, number=2, notation="D")])
    score = Score.objects.create(
        player=suspect,
        challenge=challenge,
        game=game,
        date=challenge.date,
        preset="classic",
        points=0,
        moves=2,
        won=False,
        finished_at=game.finished_at,
        standing="review",
        standing_reason="signals",
    )
    Assessment.objects.create(
        score=score,
        suspicion=1.75,
        flagged=True,
        linked={str(friend.pk): "device"},
        signals={"device_link": 1.0, "solver_line": 0.5},
    )
    client = Client(raise_request_exception=True)
    client.force_login(staff)
    queue = client.get("/admin/fairplay/scoreinreview/").content.decode()
    assert "Suspect" in queue and "1.75" in queue and "device_link 1.00" in queue
    page = client.get(f"/admin/fairplay/scoreinreview/{score.pk}/change/").content.decode()
    assert '<table class="fairplay-signals">' in page
    weight = WEIGHTS["device_link"]
    assert f"<td>device_link</td><td>{weight}</td><td>1.00</td><td>{weight:.2f}</td>" in page
    assert "Friend</a> (device)" in page
    assert page.count("<details>") == 3 and "stock" in page
