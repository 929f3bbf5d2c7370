"""The per-process memory of positions: only whole, unchangeable logs, and the move path uses it."""

from __future__ import annotations

from unittest import mock

import pytest

from games import positions
from games.engine import Game as EngineGame
from games.models import Game, Move
from games.selectors import game_engine_state
from games.services import (
    game_move_make,
    game_move_undo,
    game_opened,
    game_practice_start,
    game_ranked_start,
    game_resign,
    moves_missed_since,
)
from plumbing.errors import NotYours, StaleMove
from tests.factories import end_the_day, make_challenge


@pytest.fixture(autouse=True)
def empty_memory():
    positions.forget_all()
    yield
    positions.forget_all()


@pytest.fixture
def drawn(player, django_capture_on_commit_callbacks):
    """A ranked classic game after its first move, a draw, stored by this process (which remembers
    the position it left)."""
    game = game_ranked_start(challenge_id=make_challenge(preset="classic").pk, player=player)[0].game
    with django_capture_on_commit_callbacks(execute=True):
        return game_move_make(game_id=game.pk, player=player, move="D", seen=0)


def test_a_position_is_kept_only_under_its_own_move_count():
    state = EngineGame.from_seed("classic", 1).apply(EngineGame.from_seed("classic", 1).legal_moves()[0])
    positions.remember(positions.key_of("game", 1, "t", 1, 2), state)
    assert positions.recall(positions.key_of("game", 1, "t", 1, 2)) is None
    positions.remember(positions.key_of("game", 1, "t", 1, 1), state)
    assert positions.recall(positions.key_of("game", 1, "t", 1, 1)) is state
    assert positions.recall(positions.key_of("game", 1, "other creation", 1, 1)) is None
    assert positions.recall(positions.key_of("game", 1, "t", 3, 1)) is None, "another version is another position"


def test_an_older_version_never_replaces_a_newer_hint():
    positions.hint_set("game", 1, positions.Hint(5, 5, None))
    positions.hint_set("game", 1, positions.Hint(4, 4, None))
    assert positions.hint("game", 1).version == 5
    positions.hint_drop("game", 1)
    assert positions.hint("game", 1) is None


def test_the_oldest_positions_leave_first(monkeypatch):
    monkeypatch.setattr(positions, "CAPACITY", 2)
    state = EngineGame.from_seed("classic", 1)
    for pk in (1, 2, 3):
        positions.remember(positions.key_of("game", pk, "t", 0, 0), state)
    assert positions.recall(positions.key_of("game", 1, "t", 0, 0)) is None
    assert positions.recall(positions.key_of("game", 3, "t", 0, 0)) is state


@pytest.mark.django_db
def test_a_ranked_move_after_a_committed_move_does_not_replay_the_log(player, drawn):
    game, first = drawn.game, drawn
    with mock.patch.object(EngineGame, "replay", side_effect=AssertionError("replayed")):
        second = game_move_make(game_id=game.pk, player=player, move=str(first.state.legal_moves()[0]), seen=1)
    assert second.game.move_count == 2


@pytest.mark.django_db
def test_a_move_after_a_committed_move_writes_without_reading_the_game(
    player, django_capture_on_commit_callbacks, drawn
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    game, first = drawn.game, drawn
    with CaptureQueriesContext(connection) as queries, django_capture_on_commit_callbacks(execute=True):
        second = game_move_make(game_id=game.pk, player=player, move=str(first.state.legal_moves()[0]), seen=1)
    statements = [
        q["sql"] for q in queries.captured_queries if not q["sql"].upper().startswith(("SAVEPOINT", "RELEASE"))
    ]
    assert [sql.split()[0].upper() for sql in statements] == ["UPDATE", "INSERT"], statements
    stored = Game.objects.get(pk=game.pk)
    assert (stored.move_count, stored.version) == (2, 2) == (second.game.move_count, second.game.version)
    assert list(stored.moves.values_list("number", flat=True)) == [1, 2]


def _practice(player):
    """A classic challenge and a practice game of it (practice opens once the day is over)."""
    challenge = make_challenge(preset="classic")
    ranked = game_ranked_start(challenge_id=challenge.pk, player=player)[0].game
    game_resign(game_id=ranked.pk, player=player)
    end_the_day(challenge)
    return challenge, game_practice_start(challenge_id=challenge.pk, player=player).game


@pytest.mark.django_db
def test_a_practice_undo_gives_the_position_a_new_version(player, django_capture_on_commit_callbacks):
    challenge, game = _practice(player)
    start = EngineGame.start(challenge.deal)
    first, other = str(start.legal_moves()[0]), str(start.legal_moves()[-1])
    assert first != other
    with django_capture_on_commit_callbacks(execute=True):
        game_move_make(game_id=game.pk, player=player, move=first, seen=0)
        game_move_undo(game_id=game.pk, player=player, seen=1)
        redone = game_move_make(game_id=game.pk, player=player, move=other, seen=0)
    assert redone.game.version == 3 and redone.game.move_count == 1
    stored = Game.objects.get(pk=game.pk)
    assert (stored.move_count, stored.version) == (1, 3)
    assert str(game_engine_state(stored).moves[-1]) == str(start.apply(start.legal_moves()[-1]).moves[-1])


def _opened(game_id, player):
    """What a socket does when the game's owner opens it: read the row and the position, then tell the service."""
    from games.live import live_game_get

    game = live_game_get(game_id=game_id)
    state = game_engine_state(game)
    return game, state


@pytest.mark.django_db
def test_the_first_move_after_the_owner_opens_a_practice_game_writes_without_reading_it(
    player, django_capture_on_commit_callbacks
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    challenge, game = _practice(player)
    game_opened(*_opened(game.pk, player))
    assert positions.hint("game", game.pk).version == 0
    with CaptureQueriesContext(connection) as queries, django_capture_on_commit_callbacks(execute=True):
        first = game_move_make(game_id=game.pk, player=player, move="D", seen=0)
    statements = [
        q["sql"] for q in queries.captured_queries if not q["sql"].upper().startswith(("SAVEPOINT", "RELEASE"))
    ]
    assert [sql.split()[0].upper() for sql in statements] == ["UPDATE", "INSERT"], statements
    assert (first.game.move_count, first.game.version) == (1, 1)


@pytest.mark.django_db
def test_a_practice_game_changed_while_it_was_read_is_not_remembered(player, django_capture_on_commit_callbacks):
    challenge, game = _practice(player)
    with django_capture_on_commit_callbacks(execute=True):
        game_move_make(game_id=game.pk, player=player, move="D", seen=0)
    positions.forget_all()
    read, state = _opened(game.pk, player)
    # Another process undoes the draw and plays another move between this process's reads.
    Game.objects.filter(pk=game.pk).update(version=3)
    game_opened(read, state)
    assert positions.hint("game", game.pk) is None
    assert positions.recall_latest("game", game.pk) is None


@pytest.mark.django_db
def test_a_finished_game_opened_by_its_owner_leaves_no_hint(player):
    challenge = make_challenge(preset="classic")
    game = game_ranked_start(challenge_id=challenge.pk, player=player)[0].game
    game_resign(game_id=game.pk, player=player)
    game_opened(*_opened(game.pk, player))
    assert positions.hint("game", game.pk) is None


@pytest.mark.django_db
def test_a_move_from_an_out_of_date_hint_takes_the_locked_path(player, drawn):
    game, first = drawn.game, drawn
    # Another process stores the next move: this process's hint still says version 1.
    second_move = str(first.state.legal_moves()[0])
    Move.objects.create(game=game, number=2, notation=str(first.state.apply(first.state.legal_moves()[0]).moves[-1]))
    Game.objects.filter(pk=game.pk).update(move_count=2, version=2)
    with pytest.raises(StaleMove):
        game_move_make(game_id=game.pk, player=player, move=second_move, seen=1)
    assert positions.hint("game", game.pk) is None
    assert Move.objects.filter(game=game).count() == 2


@pytest.mark.django_db
def test_a_ranked_game_moved_on_elsewhere_reads_only_the_missed_moves_and_writes(
    player, django_capture_on_commit_callbacks, drawn
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    game = drawn.game
    second = _play_elsewhere(game, 1)
    third = str(second.legal_moves()[0])
    with CaptureQueriesContext(connection) as queries, django_capture_on_commit_callbacks(execute=True):
        played = game_move_make(game_id=game.pk, player=player, move=third, seen=2)
    statements = [
        q["sql"] for q in queries.captured_queries if not q["sql"].upper().startswith(("SAVEPOINT", "RELEASE"))
    ]
    assert statements[0].upper().startswith("SELECT NOTATION FROM") and "FOR UPDATE" not in " ".join(statements).upper()
    assert [sql.split()[0].upper() for sql in statements[1:]] == ["UPDATE", "INSERT"], statements
    assert (played.game.move_count, played.game.version) == (3, 3)
    assert [str(m) for m in played.state.moves] == [str(m) for m in second.apply(second.legal_moves()[0]).moves]
    stored = Game.objects.get(pk=game.pk)
    assert (stored.move_count, stored.version) == (3, 3)
    assert list(stored.moves.order_by("number").values_list("notation", flat=True)) == [
        str(m) for m in played.state.moves
    ]
    assert positions.hint("game", game.pk).moves == 3


@pytest.mark.django_db
def test_a_move_from_beyond_the_stored_log_is_stale_after_the_catch_up(player, drawn):
    game = drawn.game
    second = _play_elsewhere(game, 1)
    with pytest.raises(StaleMove):
        game_move_make(game_id=game.pk, player=player, move=str(second.legal_moves()[0]), seen=3)
    assert Move.objects.filter(game=game).count() == 2


@pytest.mark.django_db
def test_a_practice_game_moved_on_elsewhere_takes_the_locked_path(player, django_capture_on_commit_callbacks):
    challenge, game = _practice(player)
    with django_capture_on_commit_callbacks(execute=True):
        game_move_make(game_id=game.pk, player=player, move="D", seen=0)
    # Elsewhere: an undo and another move would leave the count alone; only the locked path reads that right.
    assert moves_missed_since(game.pk, player, 2) is None
    second = _play_elsewhere(game, 1)
    with django_capture_on_commit_callbacks(execute=True):
        played = game_move_make(game_id=game.pk, player=player, move=str(second.legal_moves()[0]), seen=2)
    assert played.game.move_count == 3 and Move.objects.filter(game=game).count() == 3


@pytest.mark.django_db
def test_the_hint_never_lets_another_player_move(player, other_player, drawn):
    game, first = drawn.game, drawn
    with pytest.raises(NotYours):
        game_move_make(game_id=game.pk, player=other_player, move=str(first.state.legal_moves()[0]), seen=1)
    assert Move.objects.filter(game=game).count() == 1


def _play_elsewhere(game, count):
    """Moves stored as another process would store them: this process's memory does not hear of them."""
    state = game_engine_state(Game.objects.get(pk=game.pk), locked=True)
    row = Game.objects.get(pk=game.pk)
    for _ in range(count):
        move = state.legal_moves()[0]
        state = state.apply(move)
        row.move_count += 1
        row.version += 1
        Move.objects.create(game=row, number=row.move_count, notation=str(move))
    row.save(update_fields=["move_count", "version"])
    return state


@pytest.mark.django_db
def test_a_game_moved_on_elsewhere_is_caught_up_from_the_remembered_position(player, drawn):
    game = drawn.game
    memory = dict(positions._positions)
    expected = _play_elsewhere(game, 3)
    positions._positions.clear()
    positions._positions.update(memory)  # what this process knew before the other one played on
    row = Game.objects.select_related("challenge").get(pk=game.pk)
    with mock.patch.object(EngineGame, "replay", side_effect=AssertionError("replayed")):
        state = game_engine_state(row, locked=True)
    assert state.moves == expected.moves and state.removed == expected.removed and state.score == expected.score
    assert positions.recall(positions.key_of("game", game.pk, row.started_at, 4, 4)) is state


@pytest.mark.django_db
def test_a_game_with_an_undo_since_the_remembered_position_is_replayed(player, django_capture_on_commit_callbacks):
    _, practice = _practice(player)
    with django_capture_on_commit_callbacks(execute=True):
        game_move_make(game_id=practice.pk, player=player, move="D", seen=0)
        game_move_make(game_id=practice.pk, player=player, move="D", seen=1)
    memory = dict(positions._positions)
    with django_capture_on_commit_callbacks(execute=True):
        game_move_undo(game_id=practice.pk, player=player, seen=2)
    expected = _play_elsewhere(practice, 2)  # version 2 -> 3 (undo) -> 5; moves 2 -> 1 -> 3
    positions._positions.clear()
    positions._positions.update(memory)
    row = Game.objects.select_related("challenge").get(pk=practice.pk)
    assert (row.version, row.move_count) == (5, 3)
    state = game_engine_state(row, locked=True)
    assert state.moves == expected.moves and state.removed == expected.removed
