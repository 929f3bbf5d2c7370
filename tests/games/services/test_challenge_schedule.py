import datetime as dt

import pytest

from games.engine.commitment import commitment_matches
from games.models import DailyChallenge
from games.services import challenge_schedule
from plumbing.errors import BadRequest, Conflict

pytestmark = pytest.mark.django_db


def test_scheduling_draws_a_secret_seed_and_commits_to_it(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        challenge = challenge_schedule(date=dt.date(2030, 1, 1), preset="classic")
    assert 0 <= challenge.seed < 2**63
    assert challenge.commitment_version == 2 and len(challenge.salt) == 32
    assert commitment_matches(challenge.seed_commitment, "classic", challenge.seed, challenge.salt)
    challenge.refresh_from_db()
    assert commitment_matches(challenge.seed_commitment, "classic", challenge.seed, challenge.salt), "as stored"
    assert challenge.status == DailyChallenge.Status.PENDING
    assert len(callbacks) == 1, "the search for a winnable deal is enqueued once, after the commit"


def test_seeds_are_not_derived_from_the_date():
    seeds = {challenge_schedule(date=dt.date(2030, 1, 1), preset=preset).seed for preset in ("classic", "forty")}
    seeds |= {challenge_schedule(date=dt.date(2030, 1, 2), preset="classic").seed}
    assert len(seeds) == 3


def test_every_challenge_gets_its_own_salt():
    challenges = [challenge_schedule(date=dt.date(2030, 1, day), preset="classic", seed=1) for day in (1, 2, 3)]
    assert len({challenge.salt for challenge in challenges}) == 3
    assert len({challenge.seed_commitment for challenge in challenges}) == 3, "one seed, three commitments"


def test_saving_runs_the_verification_after_commit(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        challenge = challenge_schedule(date=dt.date(2030, 1, 1), preset="classic", seed=1)
    challenge.refresh_from_db()
    assert challenge.status == DailyChallenge.Status.DONE
    assert challenge.verdict == DailyChallenge.Verdict.WINNABLE
    assert challenge.line_length and challenge.par is not None and challenge.verify_seconds is not None


def test_a_second_challenge_for_the_same_date_and_preset_is_refused():
    challenge_schedule(date=dt.date(2030, 1, 1), preset="classic")
    with pytest.raises(Conflict, match="already scheduled"):
        challenge_schedule(date=dt.date(2030, 1, 1), preset="classic")
    assert DailyChallenge.objects.count() == 1


def test_an_unknown_preset_is_refused():
    with pytest.raises(BadRequest, match="unknown preset"):
        challenge_schedule(date=dt.date(2030, 1, 1), preset="spider")
