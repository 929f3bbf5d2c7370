"""Race services: create with a winnable deal, join, start, play, and the table that closes a race."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from games.engine import Game as EngineGame
from games.engine.solver import Verdict, solve
from plumbing.errors import BadRequest, Conflict, GameFinished, IllegalMove, StaleMove
from races.models import Race, RaceEntry, RaceMove
from races.selectors import race_view
from races.services import (
    NotHost,
    NotMember,
    NotStarted,
    race_create,
    race_join,
    race_leave,
    race_move_make,
    race_rematch,
    race_resign,
    race_start,
)
from tests.factories import BIG_WINNABLE, make_player

from .conftest import SEED

pytestmark = pytest.mark.django_db


@pytest.fixture
def race(player, other_player):
    race = race_create(host=player, preset="classic", seed=SEED)
    race_join(code=race.code, player=other_player)
    return race


def started(race, player):
    race = race_start(code=race.code, player=player, countdown=0)
    return race


def test_a_new_race_deals_a_fresh_deal_the_solver_proved_winnable(player):
    from races.pool import race_pool_fill

    assert race_pool_fill(preset="classic", size=2) == 2
    race = race_create(host=player, preset="classic")
    assert len(race.code) == 10 and race.status == Race.Status.LOBBY
    assert solve(EngineGame.start(race.deal), time_limit=10).verdict is Verdict.WINNABLE
    assert list(race.entries.values_list("player_id", flat=True)) == [player.pk]
    other = race_create(host=player, preset="classic")
    assert (other.code, other.seed) != (race.code, race.seed)


def test_an_unknown_preset_is_refused(player):
    with pytest.raises(BadRequest, match="preset"):
        race_create(host=player, preset="hexagon", seed=1)


def test_joining_twice_changes_nothing_and_a_full_or_started_race_takes_no_one(race, player, settings):
    race.refresh_from_db()
    version = race.version
    race_join(code=race.code, player=player)
    race.refresh_from_db()
    assert race.version == version and race.entries.count() == 2
    settings.RACE_MAX_PLAYERS = 2
    with pytest.raises(Conflict, match="full"):
        race_join(code=race.code, player=make_player("carol"))
    settings.RACE_MAX_PLAYERS = 8
    started(race, player)
    with pytest.raises(Conflict, match="started"):
        race_join(code=race.code, player=make_player("dave"))


def test_only_the_host_starts_and_only_once(race, player, other_player):
    with pytest.raises(NotHost):
        race_start(code=race.code, player=other_player)
    with pytest.raises(BadRequest, match="countdown"):
        race_start(code=race.code, player=player, countdown=99)
    race = race_start(code=race.code, player=player, countdown=5)
    assert race.phase(timezone.now()) == "countdown"
    assert race.phase(timezone.now() + dt.timedelta(seconds=6)) == "running"
    with pytest.raises(Conflict):
        race_start(code=race.code, player=player)


def test_no_move_before_the_countdown_ends_nor_from_an_outsider(race, player):
    with pytest.raises(NotStarted):
        race_move_make(code=race.code, player=player, move="D", seen=0)
    race_start(code=race.code, player=player, countdown=5)
    with pytest.raises(NotStarted):
        race_move_make(code=race.code, player=player, move="D", seen=0)
    Race.objects.filter(pk=race.pk).update(starts_at=timezone.now())
    with pytest.raises(NotMember):
        race_move_make(code=race.code, player=make_player("eve"), move="D", seen=0)
    assert race_move_make(code=race.code, player=player, move="D", seen=0).entry.move_count == 1


def test_stale_and_illegal_race_moves_change_nothing(race, player, race_line):
    started(race, player)
    race_move_make(code=race.code, player=player, move=race_line[0], seen=0)
    with pytest.raises(StaleMove):
        race_move_make(code=race.code, player=player, move=race_line[1], seen=0)
    with pytest.raises(IllegalMove):
        race_move_make(code=race.code, player=player, move="1.1+S", seen=1)
    assert RaceMove.objects.filter(entry__race=race).count() == 1


def test_the_first_to_clear_the_pyramid_wins_and_closes_the_race(race, player, other_player, race_line):
    started(race, player)
    race_move_make(code=race.code, player=other_player, move=race_line[0], seen=0)
    for seen, move in enumerate(race_line):
        play = race_move_make(code=race.code, player=player, move=move, seen=seen)
    assert play.entry.outcome == RaceEntry.Outcome.WON
    race.refresh_from_db()
    assert race.status == Race.Status.FINISHED
    view = race_view(race)
    assert [row["player"]["id"] for row in view["results"]] == [player.pk, other_player.pk]
    assert [row["outcome"] for row in view["results"]] == ["won", "stopped"]
    assert view["seed"] == str(SEED)
    with pytest.raises(GameFinished):
        race_move_make(code=race.code, player=other_player, move=race_line[1], seen=1)


def test_when_everyone_gives_up_the_highest_score_wins(race, player, other_player, race_line):
    started(race, player)
    for seen, move in enumerate(race_line[:10]):
        race_move_make(code=race.code, player=other_player, move=move, seen=seen)
    race_resign(code=race.code, player=other_player)
    race.refresh_from_db()
    assert race.status == Race.Status.STARTED, "the race goes on while someone still plays"
    race_move_make(code=race.code, player=player, move=race_line[0], seen=0)
    race_resign(code=race.code, player=player)
    race.refresh_from_db()
    assert race.status == Race.Status.FINISHED
    results = race_view(race)["results"]
    assert results[0]["player"]["id"] == other_player.pk and results[0]["score"] > results[1]["score"]
    assert [row["place"] for row in results] == [1, 2]


def test_a_race_view_shows_summaries_and_keeps_the_seed_until_the_end(race, player, race_line):
    started(race, player)
    race_move_make(code=race.code, player=player, move=race_line[0], seen=0)
    view = race_view(race)
    assert view["seed"] is None and view["results"] is None
    assert view["players"][0]["summary"]["moves"] == 1
    assert "state" not in view["players"][0]["summary"]


def test_a_player_who_leaves_the_lobby_gives_up_the_seat(
    race, player, other_player, django_capture_on_commit_callbacks, monkeypatch
):
    from games import events

    sent = []
    monkeypatch.setattr(events, "_send_now", lambda sends: sent.extend(sends))
    before = Race.objects.get(pk=race.pk).version
    with django_capture_on_commit_callbacks(execute=True):
        left = race_leave(code=race.code, player=other_player)
    assert not RaceEntry.objects.filter(race=race, player=other_player).exists()
    assert left.version == before + 1 and left.host_id == player.pk
    (event,) = [event for _, event in sent]
    assert event["type"] == "race.player_left" and event["players"] == 1 and event["host"]["id"] == player.pk
    race_join(code=race.code, player=other_player)  # and may come back while the lobby lasts


def test_a_host_who_leaves_hands_the_room_on_and_the_last_one_out_closes_it(race, player, other_player):
    race_leave(code=race.code, player=player)
    race = Race.objects.get(pk=race.pk)
    assert race.host_id == other_player.pk and race.status == Race.Status.LOBBY
    with pytest.raises(NotHost):
        race_start(code=race.code, player=player, countdown=0)
    race_leave(code=race.code, player=other_player)
    race = Race.objects.get(pk=race.pk)
    assert race.status == Race.Status.FINISHED and not race.entries.exists()
    with pytest.raises(Conflict):
        race_join(code=race.code, player=player)


def test_leaving_a_running_race_gives_up_the_game(race, player, other_player):
    started(race, player)
    race_leave(code=race.code, player=other_player)
    entry = RaceEntry.objects.get(race=race, player=other_player)
    assert entry.outcome == RaceEntry.Outcome.RESIGNED
    assert Race.objects.get(pk=race.pk).status == Race.Status.STARTED, "the host still plays"
    race_leave(code=race.code, player=player)
    assert Race.objects.get(pk=race.pk).status == Race.Status.FINISHED


def test_only_a_member_leaves(race):
    with pytest.raises(NotMember):
        race_leave(code=race.code, player=make_player("carol"))


def test_a_lobby_nobody_starts_expires(race, player, settings):
    settings.RACE_LOBBY_SECONDS = 60
    Race.objects.filter(pk=race.pk).update(created_at=timezone.now() - dt.timedelta(seconds=61))
    race = Race.objects.get(pk=race.pk)
    view = race_view(race)
    assert view["status"] == "finished" and view["results"] == [] and view["seed"] == str(race.seed)
    with pytest.raises(Conflict):
        race_start(code=race.code, player=player, countdown=0)
    with pytest.raises(Conflict):
        race_join(code=race.code, player=make_player("carol"))
    with pytest.raises((NotStarted, GameFinished)):
        race_move_make(code=race.code, player=player, move="D", seen=0)


@pytest.mark.parametrize("when", ["today", "yesterday", "tomorrow"])
def test_a_race_never_deals_a_daily_deal(player, today, when):
    """A race shows its cards to all in it and reveals its seed at the end: a daily deal would leak."""
    from tests.factories import make_challenge

    date = today + dt.timedelta(days={"today": 0, "yesterday": -1, "tomorrow": 1}[when])
    make_challenge(date=date, preset="classic", seed=SEED)
    with pytest.raises(BadRequest, match="never deals the deal of a daily challenge"):
        race_create(host=player, preset="classic", seed=SEED)
    assert not Race.objects.exists()


def test_a_pool_fill_skips_the_daily_deals(player, today, monkeypatch):
    from races import pool
    from races.models import PooledDeal
    from tests.factories import BIG_WINNABLE, make_challenge

    make_challenge(date=today, preset="classic", seed=SEED)
    drawn = iter([SEED, SEED, BIG_WINNABLE])
    monkeypatch.setattr(pool, "draw_seed", lambda: next(drawn))
    assert pool.race_pool_fill(preset="classic", size=1) == 1
    assert list(PooledDeal.objects.values_list("seed", flat=True)) == [BIG_WINNABLE]
    race = race_create(host=player, preset="classic")
    assert race.seed == BIG_WINNABLE


def test_a_race_records_the_rules_version_and_its_games_replay_under_it():
    """docs/rules.md, "Rules versions": a race of version 1 (made before version 2) keeps the early end."""
    import random

    from games.engine import RULES_VERSION, deal_from_seed, get_rules
    from games.engine import Outcome as EngineOutcome
    from races.selectors import race_entry_state

    host = make_player()
    race = race_create(host=host, preset="classic", seed=13)
    assert race.rules_version == RULES_VERSION and race.deal.rules is get_rules("classic")
    old = Race.objects.create(code="old-rules", host=host, preset="classic", seed=13, rules_version=1)
    entry = RaceEntry.objects.create(race=old, player=host, pyramid_left=28)
    game = EngineGame.start(deal_from_seed(get_rules("classic", 1), 13))
    chooser = random.Random(13)
    while game.outcome is EngineOutcome.IN_PROGRESS:
        game = game.apply(chooser.choice(game.legal_moves()))
    RaceMove.objects.bulk_create(
        RaceMove(entry=entry, number=n, notation=str(move)) for n, move in enumerate(game.moves, start=1)
    )
    entry.move_count = len(game.moves)
    state = race_entry_state(old, entry)
    assert state.outcome is EngineOutcome.LOST and "can ever be removed" in state.outcome_reason
    assert state.score == game.score


def finished(race, player, other_player):
    started(race, player)
    race_resign(code=race.code, player=player)
    race_resign(code=race.code, player=other_player)
    race.refresh_from_db()
    assert race.status == Race.Status.FINISHED
    return race


def test_a_rematch_opens_one_new_race_of_the_preset_that_every_later_asker_joins(race, player, other_player, race_line):
    from races.models import PooledDeal

    PooledDeal.objects.create(preset="classic", seed=BIG_WINNABLE, line_length=1)
    finished(race, player, other_player)
    rematch = race_rematch(code=race.code, player=other_player)
    assert rematch.code != race.code and rematch.preset == race.preset and rematch.status == Race.Status.LOBBY
    assert rematch.host_id == other_player.pk and rematch.seed == BIG_WINNABLE
    race.refresh_from_db()
    assert race.rematch_id == rematch.pk and race_view(race)["rematch"] == rematch.code
    again = race_rematch(code=race.code, player=player)
    assert again.pk == rematch.pk, "the second asker joins the first one's rematch"
    assert sorted(rematch.entries.values_list("player_id", flat=True)) == sorted([player.pk, other_player.pk])
    assert race_rematch(code=race.code, player=player).pk == rematch.pk, "asking twice changes nothing"
    assert Race.objects.count() == 2


def test_only_a_player_of_a_race_that_is_over_asks_for_its_rematch(race, player, other_player):
    with pytest.raises(Conflict, match="not over"):
        race_rematch(code=race.code, player=player)
    finished(race, player, other_player)
    with pytest.raises(NotMember):
        race_rematch(code=race.code, player=make_player("carol"))
    race.refresh_from_db()
    assert race.rematch_id is None


def test_a_host_deleting_their_account_hands_the_race_over_and_takes_nobody_elses_game(race, player, other_player):
    """The account's deletion deletes the races it hosts (``Race.host``): the race, the opponent's
    entry and their moves went with it, mid-race.  Now the opponent hosts it and plays on."""
    from accounts.services import user_delete

    race = started(race, player)
    race_move_make(code=race.code, player=other_player, move="D", seen=0)
    race_move_make(code=race.code, player=player, move="D", seen=0)
    user_delete(user=player, password="a-long-pass-phrase-42")
    race = Race.objects.get(code=race.code)
    assert race.host_id == other_player.pk
    entry = RaceEntry.objects.get(race=race)
    assert entry.player_id == other_player.pk and RaceMove.objects.filter(entry=entry).count() == 1
    race_move_make(code=race.code, player=other_player, move="D", seen=1)
    assert race_view(race)["host"]["id"] == other_player.pk


def test_a_race_its_deleted_host_alone_was_in_goes_with_the_account(player):
    from accounts.services import user_delete

    race = race_create(host=player, preset="classic", seed=SEED)
    user_delete(user=player, password="a-long-pass-phrase-42")
    assert not Race.objects.filter(code=race.code).exists()


def deleted_hearing(player, django_capture_on_commit_callbacks, monkeypatch):
    """The race events published once ``player``'s account deletion commits."""
    from accounts.services import user_delete
    from games import events

    sent = []
    monkeypatch.setattr(events, "_send_now", lambda sends: sent.extend(sends))
    with django_capture_on_commit_callbacks(execute=True):
        user_delete(user=player, password="a-long-pass-phrase-42")
    return [event for _, event in sent if event["type"].startswith("race.")]


def test_a_host_deleting_their_account_in_the_lobby_tells_the_room_who_hosts_it_now(
    race, player, other_player, django_capture_on_commit_callbacks, monkeypatch
):
    """Found in Chromium: the friend's open page still listed the deleted host and waited for it
    to start the race; only a reload showed the friend the start."""
    (event,) = deleted_hearing(player, django_capture_on_commit_callbacks, monkeypatch)
    race.refresh_from_db()
    assert event["type"] == "race.player_left" and event["version"] == race.version
    assert event["player"]["id"] == player.pk and event["players"] == 1 and event["host"]["id"] == other_player.pk


def test_a_player_deleting_their_account_mid_race_leaves_it_as_the_others_hear(
    race, player, other_player, django_capture_on_commit_callbacks, monkeypatch
):
    race = started(race, player)
    (event,) = deleted_hearing(other_player, django_capture_on_commit_callbacks, monkeypatch)
    assert event["type"] == "race.player_left" and event["host"]["id"] == player.pk and event["players"] == 1
    assert [entry["player"]["id"] for entry in race_view(Race.objects.get(pk=race.pk))["players"]] == [player.pk]


def test_a_finished_race_hears_nothing_of_a_deleted_player_but_keeps_its_host(
    race, player, other_player, django_capture_on_commit_callbacks, monkeypatch
):
    race = started(race, player)
    race_leave(code=race.code, player=other_player)
    race_leave(code=race.code, player=player)  # both games over: the race is finished
    assert Race.objects.get(pk=race.pk).status == Race.Status.FINISHED
    assert deleted_hearing(player, django_capture_on_commit_callbacks, monkeypatch) == []
    assert Race.objects.get(pk=race.pk).host_id == other_player.pk
