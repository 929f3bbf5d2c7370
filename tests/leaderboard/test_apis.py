import datetime as dt

import pytest

from tests.factories import make_challenge, make_player

from .conftest import add_score

pytestmark = pytest.mark.django_db


def test_a_challenge_board_with_my_rank(player_api, player, store):
    challenge = make_challenge(date=dt.date(2026, 6, 1))
    add_score(challenge, make_player("zed", display_name="Zed"), 500, 40)
    add_score(challenge, player, 300, 40)
    body = player_api.get(f"/api/leaderboards/challenges/{challenge.pk}/").json()
    assert body["total"] == 2 and body["my_rank"] == 2
    assert [e["display_name"] for e in body["entries"]] == ["Zed", "Alice"]
    around = player_api.get(f"/api/leaderboards/challenges/{challenge.pk}/?around=me&radius=0").json()
    assert around["my_rank"] == 2 and [e["rank"] for e in around["entries"]] == [2]


def test_a_past_week_is_chosen_by_date(api, player, store):
    challenge = make_challenge(date=dt.date(2026, 6, 3))
    add_score(challenge, player, 300, 40)
    body = api.get("/api/leaderboards/weeks/classic/?date=2026-06-07").json()
    assert body["board"] == "week:classic:2026-W23" and body["entries"][0]["points"] == 300
    assert api.get("/api/leaderboards/weeks/classic/?date=2026-06-08").json()["total"] == 0


def test_bad_leaderboard_requests_get_readable_errors(api, player):
    assert api.get("/api/leaderboards/all-time/spider/").status_code == 404
    assert api.get("/api/leaderboards/challenges/999999/").status_code == 404
    bad = api.get("/api/leaderboards/all-time/classic/?limit=1000")
    assert bad.status_code == 400 and "limit" in bad.json()["message"]
    signed_out = api.get("/api/leaderboards/all-time/classic/?around=me")
    assert signed_out.status_code == 403 and signed_out.json()["message"] == "sign in to see your own rank"
    assert api.get("/api/leaderboards/weeks/classic/?date=yesterday").status_code == 400


def test_the_following_view_of_each_board(player_api, player, other_player, store):
    from accounts.models import Follow

    challenge = make_challenge(date=dt.date(2026, 6, 3))
    Follow.objects.create(follower=player, followed=other_player)
    add_score(challenge, make_player("zed", display_name="Zed"), 900, 40)
    add_score(challenge, other_player, 500, 40)
    add_score(challenge, player, 300, 40)
    urls = [
        f"/api/leaderboards/challenges/{challenge.pk}/",
        f"/api/leaderboards/weeks/classic/?date={challenge.date}",
        "/api/leaderboards/all-time/classic/",
    ]
    for url in urls:
        sep = "&" if "?" in url else "?"
        everyone = player_api.get(url).json()
        assert everyone["view"] == "everyone" and everyone["my_rank"] == 3 and everyone["me"]["rank"] == 3
        body = player_api.get(f"{url}{sep}view=following").json()
        assert body["view"] == "following" and body["total"] == 2 and body["my_rank"] == 2
        assert [(e["rank"], e["display_name"]) for e in body["entries"]] == [(1, "Bob"), (2, "Alice")]
        assert body["me"]["display_name"] == "Alice"
        around = player_api.get(f"{url}{sep}view=following&around=me&radius=0").json()
        assert [(e["rank"], e["display_name"]) for e in around["entries"]] == [(2, "Alice")]


def test_the_following_view_needs_a_signed_in_player(api, player):
    challenge = make_challenge(date=dt.date(2026, 6, 1))
    response = api.get(f"/api/leaderboards/challenges/{challenge.pk}/?view=following")
    assert response.status_code == 403
    assert response.json() == {
        "error": "not_authenticated",
        "message": "sign in to see the boards of the players you follow",
    }
    assert api.get("/api/leaderboards/all-time/classic/?view=friends").status_code == 400


@pytest.mark.parametrize("day", ["9999-12-31", "0001-01-01", "1999-06-01"])
def test_a_week_far_from_any_challenge_is_a_clear_400(api, store, day):
    make_challenge(date=dt.date(2026, 6, 1))
    response = api.get(f"/api/leaderboards/weeks/classic/?date={day}")
    assert response.status_code == 400, response.content
    assert response.json()["error"] == "invalid" and "date" in response.json()["message"]


def test_weeks_after_this_one_are_refused_and_this_one_is_answered(api, store):
    from games.selectors import local_today

    today = local_today()
    make_challenge(date=today)
    assert api.get(f"/api/leaderboards/weeks/classic/?date={today + dt.timedelta(days=7)}").status_code == 400
    sunday = today + dt.timedelta(days=6 - today.weekday())
    assert api.get(f"/api/leaderboards/weeks/classic/?date={sunday}").status_code == 200
    assert api.get(f"/api/leaderboards/weeks/classic/?date={today}").status_code == 200


def test_refused_weeks_leave_no_redis_key(api, redis_ranks):
    make_challenge(date=dt.date(2026, 6, 1))
    before = set(redis_ranks.client.scan_iter(match=f"{redis_ranks.prefix}*"))
    for year in range(1000, 1030):
        assert api.get(f"/api/leaderboards/weeks/classic/?date={year}-03-03").status_code == 400
    assert set(redis_ranks.client.scan_iter(match=f"{redis_ranks.prefix}*")) == before
