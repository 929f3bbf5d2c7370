import datetime as dt

import pytest
from django.db import IntegrityError

from games.models import Game
from games.services import game_practice_start, game_ranked_start, game_resign
from plumbing.errors import DealSecret, NotAllowed
from tests.factories import end_the_day, make_challenge

pytestmark = pytest.mark.django_db


def test_the_first_start_creates_the_ranked_game(player):
    challenge = make_challenge()
    play, created = game_ranked_start(challenge_id=challenge.pk, player=player)
    assert created and play.game.ranked and play.game.move_count == 0


def test_a_second_start_resumes_the_same_ranked_game(player):
    challenge = make_challenge()
    first, _ = game_ranked_start(challenge_id=challenge.pk, player=player)
    second, created = game_ranked_start(challenge_id=challenge.pk, player=player)
    assert not created and second.game.pk == first.game.pk
    assert Game.objects.filter(ranked=True).count() == 1


def test_the_database_refuses_a_second_ranked_game(player):
    challenge = make_challenge()
    Game.objects.create(challenge=challenge, player=player, ranked=True)
    with pytest.raises(IntegrityError):
        Game.objects.create(challenge=challenge, player=player, ranked=True)


def test_a_challenge_not_yet_open_cannot_be_started(player, today):
    challenge = make_challenge(date=today + dt.timedelta(days=1))
    with pytest.raises(NotAllowed, match="not open yet"):
        game_ranked_start(challenge_id=challenge.pk, player=player)
    with pytest.raises(DealSecret, match="practice opens when"):
        game_practice_start(challenge_id=challenge.pk, player=player)


def test_a_past_challenge_has_no_new_ranked_game_but_practice(player, today):
    challenge = make_challenge(date=today - dt.timedelta(days=1))
    with pytest.raises(NotAllowed, match="over"):
        game_ranked_start(challenge_id=challenge.pk, player=player)
    assert game_practice_start(challenge_id=challenge.pk, player=player).game.ranked is False


def test_practice_on_todays_challenge_waits_for_the_day_to_end_even_after_the_ranked_game(player):
    """Practice has undo and hints: a ranked game resigned at once would otherwise open the whole deal."""
    challenge = make_challenge()
    with pytest.raises(DealSecret):
        game_practice_start(challenge_id=challenge.pk, player=player)
    ranked, _ = game_ranked_start(challenge_id=challenge.pk, player=player)
    game_resign(game_id=ranked.game.pk, player=player)
    with pytest.raises(DealSecret) as refused:
        game_practice_start(challenge_id=challenge.pk, player=player)
    assert refused.value.extra["opens_at"].endswith("Z")
    assert not Game.objects.filter(ranked=False).exists(), "nothing half-done"
    end_the_day(challenge)
    first = game_practice_start(challenge_id=challenge.pk, player=player)
    second = game_practice_start(challenge_id=challenge.pk, player=player)
    assert first.game.pk != second.game.pk
