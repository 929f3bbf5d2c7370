"""Events leave once, after the commit, from games/events.py; every payload matches its schema."""

from __future__ import annotations

import jsonschema
import pytest
from django.db import transaction

from games import events
from games.engine import Game as EngineGame
from games.engine.solver import solve
from games.models import Move
from games.services import game_move_make, game_move_undo, game_practice_start, game_ranked_start, game_resign
from plumbing.errors import StaleMove
from races.pool import race_pool_fill
from races.services import race_create, race_join, race_leave, race_move_make, race_rematch, race_resign, race_start
from tests.factories import BIG_WINNABLE, end_the_day, make_challenge, make_player
from tests.sockets import cards_in

pytestmark = pytest.mark.django_db


@pytest.fixture
def sent(monkeypatch):
    """What would have gone to the channel layer, in order: (group, event)."""
    log: list[tuple[str, dict]] = []
    monkeypatch.setattr(events, "_send_now", lambda sends: log.extend(sends))
    return log


@pytest.fixture
def challenge():
    return make_challenge(preset="classic")


def line_of(deal):
    return [str(move) for move in solve(EngineGame.start(deal), time_limit=10).line]


def validate(event):
    jsonschema.validate(event, events.SCHEMAS[(event["type"], event["v"])])


def test_every_event_of_a_played_day_matches_its_schema(
    sent, challenge, player, other_player, django_capture_on_commit_callbacks, settings
):
    settings.RACE_COUNTDOWN_MIN = 0
    line = line_of(challenge.deal)
    with django_capture_on_commit_callbacks(execute=True):
        game = game_ranked_start(challenge_id=challenge.pk, player=player)[0].game
        for seen, move in enumerate(line):
            game_move_make(game_id=game.pk, player=player, move=move, seen=seen)
        other = game_ranked_start(challenge_id=challenge.pk, player=other_player)[0].game
        game_resign(game_id=other.pk, player=other_player)
        end_the_day(challenge)  # practice opens once the day is over
        practice = game_practice_start(challenge_id=challenge.pk, player=player).game
        game_move_make(game_id=practice.pk, player=player, move=line[0], seen=0)
        game_move_undo(game_id=practice.pk, player=player, seen=1)
        race = race_create(host=player, preset="classic", seed=BIG_WINNABLE)  # never the daily deal
        race_join(code=race.code, player=other_player)
        carol = make_player("carol")
        race_join(code=race.code, player=carol)
        race_leave(code=race.code, player=carol)
        race_start(code=race.code, player=player, countdown=0)
        race_move_make(code=race.code, player=player, move=line_of(race.deal)[0], seen=0)
        race_resign(code=race.code, player=player)
        race_resign(code=race.code, player=other_player)
        race_pool_fill(preset="classic", size=1)  # the rematch deals a fresh pooled deal
        race_rematch(code=race.code, player=other_player)
    kinds = {event["type"] for _, event in sent}
    assert kinds == {name for name, _ in events.SCHEMAS}, "every event type is exercised"
    for _, event in sent:
        validate(event)


def test_summary_groups_and_the_room_never_receive_a_card(sent, challenge, player, django_capture_on_commit_callbacks):
    line = line_of(challenge.deal)
    with django_capture_on_commit_callbacks(execute=True):
        game = game_ranked_start(challenge_id=challenge.pk, player=player)[0].game
        for seen, move in enumerate(line):
            game_move_make(game_id=game.pk, player=player, move=move, seen=seen)
    private = events.game_group(game.pk, full=True)
    public = [event for group, event in sent if group != private]
    assert public and all(not cards_in(event) for event in public)
    assert any(cards_in(event) for group, event in sent if group == private)


def test_a_move_is_published_once_and_only_after_the_commit(
    sent, challenge, player, django_capture_on_commit_callbacks
):
    game = game_ranked_start(challenge_id=challenge.pk, player=player)[0].game
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        game_move_make(game_id=game.pk, player=player, move="D", seen=0)
    assert sent == [], "nothing leaves before the commit"
    for callback in callbacks:
        callback()
    made = [event for _, event in sent if event["type"] == "game.move_made"]
    progress = [group for group, event in sent if event["type"] == "game.progress"]
    assert len(made) == 1 and made[0]["version"] == 1
    assert progress == [events.game_group(game.pk, full=False), events.challenge_group(challenge.pk)]


def test_a_rolled_back_move_publishes_nothing(sent, challenge, player, django_capture_on_commit_callbacks):
    game = game_ranked_start(challenge_id=challenge.pk, player=player)[0].game
    with django_capture_on_commit_callbacks(execute=True):
        try:
            with transaction.atomic():
                game_move_make(game_id=game.pk, player=player, move="D", seen=0)
                raise RuntimeError("the request failed after the move")
        except RuntimeError:
            pass
    assert sent == []
    assert not Move.objects.filter(game=game).exists()


def test_a_refused_move_publishes_nothing(sent, challenge, player, django_capture_on_commit_callbacks):
    game = game_ranked_start(challenge_id=challenge.pk, player=player)[0].game
    with django_capture_on_commit_callbacks(execute=True):
        with pytest.raises(StaleMove):
            game_move_make(game_id=game.pk, player=player, move="D", seen=5)
    assert sent == []


def test_a_transport_that_fails_loses_the_event_not_the_move(
    challenge, player, monkeypatch, django_capture_on_commit_callbacks, caplog
):
    def broken(groups):
        raise ConnectionError("Redis is down")

    monkeypatch.setattr(events, "_send_elsewhere", broken)
    game = game_ranked_start(challenge_id=challenge.pk, player=player)[0].game
    with django_capture_on_commit_callbacks(execute=True):
        play = game_move_make(game_id=game.pk, player=player, move="D", seen=0)
    assert play.game.move_count == 1 and Move.objects.filter(game=game).count() == 1
    assert "could not publish game.move_made" in caplog.text


def test_the_challenge_room_hears_ranked_games_only(sent, challenge, player, django_capture_on_commit_callbacks):
    ranked = game_ranked_start(challenge_id=challenge.pk, player=player)[0].game
    game_resign(game_id=ranked.pk, player=player)
    end_the_day(challenge)  # practice opens once the day is over
    sent.clear()
    with django_capture_on_commit_callbacks(execute=True):
        practice = game_practice_start(challenge_id=challenge.pk, player=player).game
        game_move_make(game_id=practice.pk, player=player, move="D", seen=0)
    assert sent and all(group != events.challenge_group(challenge.pk) for group, _ in sent)


def test_a_second_player_in_a_room_is_counted(sent, challenge, django_capture_on_commit_callbacks):
    for name in ("p1", "p2"):
        with django_capture_on_commit_callbacks(execute=True):
            game_ranked_start(challenge_id=challenge.pk, player=make_player(name))
    stats = [event for _, event in sent if event["type"] == "challenge.stats"]
    assert [event["players"] for event in stats] == [1, 2]


def test_a_move_made_on_the_loop_is_encoded_exactly_as_the_threaded_path_encodes_it(challenge, player):
    """The loop's events and answer splice the game view's text in, encoded once: byte for byte
    what encoding each message whole gives."""
    from games import live_moves
    from games.consumers import _reply
    from games.services import Play
    from plumbing import jsontext

    line = line_of(challenge.deal)
    ranked = game_ranked_start(challenge_id=challenge.pk, player=player)[0].game
    plays = [game_move_make(game_id=ranked.pk, player=player, move=line[0], seen=0)]
    game_resign(game_id=ranked.pk, player=player)
    end_the_day(challenge)  # practice opens once the day is over
    practice = game_practice_start(challenge_id=challenge.pk, player=player).game
    plays.append(game_move_make(game_id=practice.pk, player=player, move=line[0], seen=0))
    for play in plays:
        view_text, sends = events.move_made_from_loop(game=play.game, state=play.state)
        assert sends == [
            (group, events.encode(event)) for group, event in events._move_made_sends(play.game, play.state)
        ]
        made = live_moves.LoopMove(Play(play.game, play.state), view_text, sends)
        for ref in (None, 'a "quoted" ref'):
            assert made.answer(ref) == jsontext.dumps(_reply(play, ref))
