import datetime as dt
from unittest import mock

import pytest

from games.engine.commitment import commitment_matches
from games.models import DailyChallenge
from games.services import challenge_replace_with_winnable, challenge_verify, game_ranked_start
from plumbing.errors import Conflict
from tests.factories import UNWINNABLE, WINNABLE, make_challenge

pytestmark = pytest.mark.django_db


def pending(preset, seed, **fields):
    return make_challenge(preset=preset, seed=seed, status="pending", verdict="", **fields)


@pytest.mark.parametrize("preset", ["classic", "forty"])
def test_a_winnable_deal_gets_its_verdict_line_and_par(preset):
    challenge = challenge_verify(challenge_id=pending(preset, WINNABLE[preset]).pk)
    assert challenge.status == DailyChallenge.Status.DONE
    assert challenge.verdict == DailyChallenge.Verdict.WINNABLE
    assert challenge.line_length > 0 and challenge.par > 0
    assert challenge.verify_seconds >= 0 and challenge.verified_at is not None


def test_an_unwinnable_deal_is_done_with_that_verdict():
    challenge = challenge_verify(challenge_id=pending("classic", UNWINNABLE["classic"]).pk)
    assert (challenge.status, challenge.verdict, challenge.par) == ("done", "unwinnable", None)


def test_running_out_of_time_leaves_the_status_unknown(settings):
    settings.PIRAMIDE_SOLVE_TIME_LIMIT = 0.0
    challenge = challenge_verify(challenge_id=pending("classic", 4).pk)  # a slow deal to refute
    assert challenge.status in {"unknown", "done"}
    if challenge.status == "unknown":
        assert challenge.verdict == "unknown"


def test_a_solver_crash_marks_the_verification_failed():
    challenge = pending("classic", 1)
    with mock.patch("games.engine.solver.solve", side_effect=RuntimeError("boom")):
        result = challenge_verify(challenge_id=challenge.pk)
    assert result.status == "failed" and "boom" in result.verify_error


def test_verifying_twice_gives_the_same_result():
    challenge = pending("classic", 1)
    first = challenge_verify(challenge_id=challenge.pk)
    second = challenge_verify(challenge_id=challenge.pk)
    assert (first.verdict, first.line_length, first.par) == (second.verdict, second.line_length, second.par)


def test_a_missing_challenge_is_ignored():
    assert challenge_verify(challenge_id=123456) is None


def test_replacing_draws_seeds_until_one_is_winnable():
    challenge = pending("classic", UNWINNABLE["classic"], date=dt.date(2030, 5, 5))
    seeds = iter([UNWINNABLE["classic"], WINNABLE["classic"]])
    with mock.patch("games.services.draw_seed", side_effect=lambda: next(seeds)):
        replaced = challenge_replace_with_winnable(challenge_id=challenge.pk)
    assert replaced.seed == WINNABLE["classic"] and replaced.verdict == "winnable" and replaced.status == "done"
    assert commitment_matches(replaced.seed_commitment, "classic", replaced.seed, replaced.salt)


def test_replacing_a_v1_challenge_commits_to_the_new_seed_under_v2():
    challenge = pending("classic", UNWINNABLE["classic"], date=dt.date(2030, 5, 5), commitment_version=1)
    with mock.patch("games.services.draw_seed", return_value=WINNABLE["classic"]):
        replaced = challenge_replace_with_winnable(challenge_id=challenge.pk)
    replaced.refresh_from_db()
    assert replaced.commitment_version == 2 and len(replaced.salt) == 32
    assert commitment_matches(replaced.seed_commitment, "classic", WINNABLE["classic"], replaced.salt)


def test_replacing_is_refused_once_someone_has_played(player):
    challenge = make_challenge()
    game_ranked_start(challenge_id=challenge.pk, player=player)
    with pytest.raises(Conflict, match="has games"):
        challenge_replace_with_winnable(challenge_id=challenge.pk)


def test_replacing_gives_up_after_the_configured_attempts(settings):
    settings.PIRAMIDE_WINNABLE_ATTEMPTS = 2
    challenge = pending("classic", UNWINNABLE["classic"], date=dt.date(2030, 5, 5))
    with mock.patch("games.services.draw_seed", return_value=UNWINNABLE["classic"]):
        result = challenge_replace_with_winnable(challenge_id=challenge.pk)
    assert result.status == "failed" and result.seed == UNWINNABLE["classic"]
