"""Staff schedule challenges in the admin; saving enqueues the verification after the commit."""

import datetime as dt

import pytest

from games.engine.commitment import commitment_matches
from games.models import DailyChallenge
from tests.factories import UNWINNABLE, make_challenge, make_player

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client(client):
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"
    client.force_login(make_player("staff", is_staff=True, is_superuser=True))
    return client


def test_scheduling_draws_a_seed_and_verifies_it_after_commit(staff_client, django_capture_on_commit_callbacks):
    day = dt.date(2031, 2, 3)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = staff_client.post(
            "/admin/games/dailychallenge/add/", {"date": day.isoformat(), "preset": "classic", "seed": ""}
        )
    assert response.status_code == 302, response.content.decode()[:2000]
    challenge = DailyChallenge.objects.get(date=day, preset="classic")
    assert len(callbacks) == 1
    # a drawn deal is proven winnable, as the automatic fill's are
    assert challenge.status == "done" and challenge.verdict == "winnable"
    assert challenge.commitment_version == 2
    assert commitment_matches(challenge.seed_commitment, "classic", challenge.seed, challenge.salt)
    listing = staff_client.get("/admin/games/dailychallenge/").content.decode()
    for column in ("Status", "Verdict", "Par", "Games"):
        assert column in listing


def test_a_drawn_deal_that_is_unwinnable_is_replaced_by_a_winnable_one(
    staff_client, django_capture_on_commit_callbacks, monkeypatch
):
    from games import services

    draws = iter([UNWINNABLE["classic"]])
    real = services.draw_seed
    monkeypatch.setattr(services, "draw_seed", lambda: next(draws, None) or real())
    day = dt.date(2031, 2, 8)
    with django_capture_on_commit_callbacks(execute=True):
        response = staff_client.post(
            "/admin/games/dailychallenge/add/", {"date": day.isoformat(), "preset": "classic", "seed": ""}, follow=True
        )
    assert "the solver is looking for a winnable deal" in response.content.decode()
    challenge = DailyChallenge.objects.get(date=day)
    assert challenge.seed != UNWINNABLE["classic"] and challenge.verdict == "winnable"
    assert commitment_matches(challenge.seed_commitment, "classic", challenge.seed, challenge.salt)


def test_an_unwinnable_deal_ahead_is_said_at_the_top_of_the_list(staff_client):
    from games.selectors import local_today

    make_challenge(date=local_today() + dt.timedelta(days=3), seed=UNWINNABLE["classic"], verdict="unwinnable")
    make_challenge(date=local_today() - dt.timedelta(days=3), seed=UNWINNABLE["classic"], verdict="unwinnable")
    listing = staff_client.get("/admin/games/dailychallenge/").content.decode()
    assert listing.count("its deal is unwinnable") == 1 and "Replace with a winnable deal" in listing


def test_a_seed_can_be_entered(staff_client, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        staff_client.post("/admin/games/dailychallenge/add/", {"date": "2031-02-04", "preset": "classic", "seed": "1"})
    challenge = DailyChallenge.objects.get(date="2031-02-04")
    assert challenge.seed == 1 and challenge.verdict == "winnable"


def test_a_second_challenge_for_a_date_and_preset_is_a_form_error(staff_client):
    make_challenge(date=dt.date(2031, 2, 5))
    response = staff_client.post("/admin/games/dailychallenge/add/", {"date": "2031-02-05", "preset": "classic"})
    assert response.status_code == 200 and "already exists" in response.content.decode()
    assert DailyChallenge.objects.count() == 1


def test_reverify_action(staff_client, django_capture_on_commit_callbacks):
    challenge = make_challenge(date=dt.date(2031, 2, 6), status="failed", verdict="")
    with django_capture_on_commit_callbacks(execute=True):
        staff_client.post("/admin/games/dailychallenge/", {"action": "reverify", "_selected_action": [challenge.pk]})
    challenge.refresh_from_db()
    assert challenge.status == "done" and challenge.verdict == "winnable"


def test_the_warning_replaces_the_deal_in_one_click(staff_client, django_capture_on_commit_callbacks):
    import re

    from games.selectors import local_today

    challenge = make_challenge(
        date=local_today() + dt.timedelta(days=5), seed=UNWINNABLE["classic"], verdict="unwinnable"
    )
    listing = staff_client.get("/admin/games/dailychallenge/").content.decode()
    action = re.search(r'<form method="post" action="([^"]+)" class="replace-deal"', listing).group(1)
    assert action == f"/admin/games/dailychallenge/{challenge.pk}/replace/"
    assert staff_client.get(action).status_code == 405, "only a POST replaces"
    with django_capture_on_commit_callbacks(execute=True):
        answer = staff_client.post(action)
    assert answer.status_code == 302 and answer["Location"] == "/admin/games/dailychallenge/"
    challenge.refresh_from_db()
    assert challenge.verdict == "winnable" and challenge.seed != UNWINNABLE["classic"]
    assert "its deal is unwinnable" not in staff_client.get("/admin/games/dailychallenge/").content.decode()


def test_a_challenge_with_games_is_warned_of_without_a_button(staff_client):
    from games.selectors import local_today

    challenge = make_challenge(date=local_today(), seed=UNWINNABLE["classic"], verdict="unwinnable")
    from games.models import Game

    Game.objects.create(challenge=challenge, player=make_player("early"), ranked=True)
    listing = staff_client.get("/admin/games/dailychallenge/").content.decode()
    assert "its deal is unwinnable, and it has games already" in listing and "replace-deal" not in listing


def test_only_staff_who_may_change_challenges_replace_one(client, django_capture_on_commit_callbacks):
    challenge = make_challenge(date=dt.date(2031, 2, 8), seed=UNWINNABLE["classic"], verdict="unwinnable")
    client.force_login(make_player("viewer", is_staff=True))
    assert client.post(f"/admin/games/dailychallenge/{challenge.pk}/replace/").status_code == 403
    challenge.refresh_from_db()
    assert challenge.seed == UNWINNABLE["classic"]


def test_replace_with_a_winnable_deal_action(staff_client, django_capture_on_commit_callbacks):
    challenge = make_challenge(date=dt.date(2031, 2, 7), seed=UNWINNABLE["classic"], verdict="unwinnable")
    with django_capture_on_commit_callbacks(execute=True):
        staff_client.post(
            "/admin/games/dailychallenge/", {"action": "replace_with_winnable", "_selected_action": [challenge.pk]}
        )
    challenge.refresh_from_db()
    assert challenge.verdict == "winnable" and challenge.seed != UNWINNABLE["classic"]
