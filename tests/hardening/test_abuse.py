"""Abuse over HTTP: sign-in lockout, per-user and per-address move limits, and the shared counters
themselves (atomic under threads, in memory without Redis and in Redis with it)."""

from __future__ import annotations

from functools import partial
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts import signin
from accounts.models import User
from games.models import Game, Move
from games.services import game_ranked_start
from plumbing import limits
from tests.concurrency import at_once
from tests.factories import make_challenge, make_player

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-pass-phrase-42"


def csrf_client(address: str = "10.0.0.1") -> APIClient:
    client = APIClient(enforce_csrf_checks=True, HTTP_ACCEPT_LANGUAGE="en", REMOTE_ADDR=address)
    token = client.get("/api/auth/csrf/").json()["csrf_token"]
    client.credentials(HTTP_X_CSRFTOKEN=token)
    return client


def sign_in(client: APIClient, username: str, password: str) -> Any:
    return client.post("/api/auth/signin/", {"username": username, "password": password}, format="json")


# ----------------------------------------------------------------- sign-in


def test_five_failed_sign_ins_refuse_that_name_from_that_address_only(settings):
    settings.SIGNIN_FAILURES_PER_USER_IP = "5/15min"
    make_player("alice")
    client = csrf_client()
    for _ in range(5):
        response = sign_in(client, "alice", "wrong-guess")
        assert response.status_code == 400 and response.json()["message"] == "wrong username or password"
    locked = sign_in(client, "Alice", PASSWORD)  # any case of the name counts
    assert locked.status_code == 429, locked.json()
    body = locked.json()
    assert body["error"] == "throttled" and body["limit"] == "user_address" and 800 < body["retry_after"] <= 900
    assert "sessionid" not in locked.cookies
    # From another address the owner signs in: the refusal is this name from that address only.
    assert sign_in(csrf_client("10.0.0.2"), "alice", PASSWORD).status_code == 200
    # Other accounts are not affected.
    make_player("bob")
    assert sign_in(client, "bob", PASSWORD).status_code == 200


def test_the_site_and_admin_sign_in_pages_share_the_limit(settings):
    settings.SIGNIN_FAILURES_PER_USER_IP = "3/15min"
    make_player("alice", is_staff=True)
    client = Client(HTTP_ACCEPT_LANGUAGE="en", REMOTE_ADDR="10.0.0.1")
    for _ in range(3):
        page = client.post("/signin/", {"username": "alice", "password": "nope"})
        assert page.status_code == 200 and "_auth_user_id" not in client.session
    assert client.post("/signin/", {"username": "alice", "password": PASSWORD}).status_code == 200
    assert "_auth_user_id" not in client.session
    client.post("/admin/login/", {"username": "alice", "password": PASSWORD, "next": "/admin/"})
    assert "_auth_user_id" not in client.session
    assert sign_in(csrf_client("10.0.0.1"), "alice", PASSWORD).status_code == 429


def test_a_success_before_the_limit_clears_the_count(settings):
    settings.SIGNIN_FAILURES_PER_USER_IP = "3/15min"
    make_player("alice")
    client = csrf_client()
    for _ in range(2):
        assert sign_in(client, "alice", "nope").status_code == 400
    assert sign_in(client, "alice", PASSWORD).status_code == 200
    client = csrf_client()
    for _ in range(2):
        assert sign_in(client, "alice", "nope").status_code == 400
    assert sign_in(client, "alice", PASSWORD).status_code == 200


def test_many_failures_from_one_address_lock_that_address_for_every_name(settings):
    settings.SIGNIN_FAILURES_PER_IP = "4/15min"
    for name in ("alice", "bob", "carol", "dave", "erin"):
        make_player(name)
    guesser = csrf_client("10.9.9.9")
    for name in ("alice", "bob", "carol", "dave"):
        assert sign_in(guesser, name, "nope").status_code == 400
    assert sign_in(guesser, "erin", PASSWORD).status_code == 429
    assert sign_in(csrf_client("10.1.1.1"), "erin", PASSWORD).status_code == 200


# ----------------------------------------------------------------- moves


@pytest.fixture
def two_games(today):
    challenge = make_challenge(preset="classic", date=today)
    alice, bob = make_player("alice"), make_player("bob")
    return [(player, game_ranked_start(challenge_id=challenge.pk, player=player)[0].game) for player in (alice, bob)]


def play(player: Any, game: Game, count: int, address: str) -> list[int]:
    client = APIClient(REMOTE_ADDR=address)
    client.force_login(player)
    codes = []
    for _ in range(count):
        game.refresh_from_db()
        response = client.post(f"/api/games/{game.pk}/moves/", {"move": "D", "seen": game.move_count}, format="json")
        codes.append(response.status_code)
        if response.status_code == 429:
            assert response.json()["error"] == "throttled" and response.json()["retry_after"] > 0
    return codes


def test_moves_are_limited_per_user_across_addresses(settings, two_games):
    settings.LIMITS_HTTP = {"moves": {"user": "4/min", "ip": "1000/min"}}
    (alice, game), _ = two_games
    assert play(alice, game, 3, "10.0.0.1") + play(alice, game, 3, "10.0.0.2") == [200] * 4 + [429] * 2
    assert Move.objects.filter(game=game).count() == 4


def test_moves_are_limited_per_address_across_users(settings, two_games):
    settings.LIMITS_HTTP = {"moves": {"user": "1000/min", "ip": "5/min"}}
    (alice, game_a), (bob, game_b) = two_games
    assert play(alice, game_a, 3, "10.0.0.7") + play(bob, game_b, 3, "10.0.0.7") == [200] * 5 + [429]
    assert play(bob, game_b, 1, "10.0.0.8") == [200]


def test_the_user_rate_counts_every_api_request_of_a_signed_in_player(throttle_rates, two_games):
    throttle_rates(user="3/min")
    (alice, game), (bob, _) = two_games
    client = APIClient(REMOTE_ADDR="10.0.0.3")
    client.force_login(alice)
    paths = ["/api/challenges/today/", f"/api/games/{game.pk}/", "/api/challenges/today/", "/api/challenges/today/"]
    codes = [client.get(path).status_code for path in paths]
    assert codes == [200, 200, 200, 429]
    other = APIClient(REMOTE_ADDR="10.0.0.3")
    other.force_login(bob)
    assert other.get("/api/challenges/today/").status_code == 200, "a user's rate is the user's own"


def test_the_anonymous_rate_counts_per_address(throttle_rates):
    throttle_rates(anon="2/min")
    first, second = APIClient(REMOTE_ADDR="10.0.0.4"), APIClient(REMOTE_ADDR="10.0.0.5")
    assert [first.get("/api/challenges/today/").status_code for _ in range(3)] == [200, 200, 429]
    refused = first.get("/api/challenges/today/")
    assert refused.json()["error"] == "throttled" and 0 < int(refused["Retry-After"]) <= 60
    assert second.get("/api/challenges/today/").status_code == 200


def test_every_rate_of_a_request_is_counted_in_one_step(settings, two_games, monkeypatch):
    (alice, game), _ = two_games
    steps: list[list[str]] = []
    counted = limits.hits
    monkeypatch.setattr(limits, "hits", lambda names, rates: steps.append(names) or counted(names, rates))
    client = APIClient(REMOTE_ADDR="10.0.0.6")
    client.force_login(alice)
    assert client.post(f"/api/games/{game.pk}/moves/", {"move": "D", "seen": 0}, format="json").status_code == 200
    assert len(steps) == 1
    kinds = [name.split(":", 2)[2] for name in steps[0]]
    assert kinds == [
        f"http:all:user:{alice.pk}",
        f"http:moves:client:user:{alice.pk}",
        f"http:moves:user:{alice.pk}",
        "http:moves:ip:10.0.0.6",
    ]


# ----------------------------------------------------------------- the counters


def hammer(name: str, rate: limits.Rate, threads: int = 20) -> list[bool]:
    results = at_once([lambda: limits.hits([name], [rate]).allowed] * threads)
    assert all(isinstance(result, bool) for result in results), results
    return results


def test_without_redis_the_counters_live_in_memory_and_hold_under_threads(settings):
    settings.REDIS_URL = ""
    results = hammer(limits.key("test", "memory"), limits.Rate.parse("7/min"))
    assert results.count(True) == 7 and len(results) == 20


def test_with_redis_the_counters_are_atomic_across_clients(redis_url, settings):
    name = limits.key("test", "redis")
    results = hammer(name, limits.Rate.parse("7/min"))
    assert results.count(True) == 7
    import redis

    client = redis.Redis.from_url(redis_url)
    assert int(client.get(name)) == 20 and 0 < client.pttl(name) <= 60_000
    assert not limits.memory.windows, "nothing fell back to memory"


def test_while_redis_is_down_the_limits_hold_in_memory(settings, caplog):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens there
    limits._last_warning = 0.0
    verdicts = [limits.hits([limits.key("test", "down")], [limits.Rate.parse("2/min")]).allowed for _ in range(3)]
    assert verdicts == [True, True, False]
    assert "kept in memory" in caplog.text


def test_rates_read_like_drf_rates():
    assert limits.Rate.parse("240/min") == limits.Rate(240, 60)
    assert limits.Rate.parse("5/15min") == limits.Rate(5, 900)
    with pytest.raises(ValueError):
        limits.Rate.parse("lots")


def test_a_locked_account_is_not_revealed_as_existing(settings):
    """Unknown names lock the same way, so the 429 tells a guesser nothing about who exists."""
    settings.SIGNIN_FAILURES_PER_USER_IP = "2/15min"
    client = csrf_client()
    for _ in range(2):
        assert sign_in(client, "nobody-here", "x").status_code == 400
    assert sign_in(client, "nobody-here", "x").status_code == 429
    assert not User.objects.filter(username="nobody-here").exists()


@pytest.mark.django_db(transaction=True)
def test_twenty_guesses_at_once_get_only_as_many_checks_as_the_limits(settings, monkeypatch):
    """Counted before the check, atomically: a burst from twenty addresses gets the name's free
    attempts and the one that starts its delay, not twenty checks; the owner, from an address
    she signed in from before, is not kept waiting."""
    settings.SIGNIN_FAILURES_PER_USER = "5/15min"
    monkeypatch.setattr(signin, "FIRST_DELAY", 20.0)  # the burst stays within the first delay, however slow the machine
    make_player("alice")
    home = csrf_client("10.0.2.1")
    assert sign_in(home, "alice", PASSWORD).status_code == 200
    clients = [csrf_client(f"10.0.1.{i}") for i in range(20)]
    codes = [
        response.status_code
        for response in at_once([partial(sign_in, client, "alice", "wrong-guess") for client in clients])
    ]
    assert sorted(codes) == [400] * 5 + [429] * 15
    assert sign_in(csrf_client("10.0.2.1"), "alice", PASSWORD).status_code == 200
