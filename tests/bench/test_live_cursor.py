"""bench/live.py's players across rounds: each live round opens with every player on a game stored
part-played, so that every round, not only the first, finds games at every stage and sees them end."""

from __future__ import annotations

from bench import live


def test_each_round_opens_on_its_own_opener_then_fresh_games_follow():
    cursor = live.Cursor(games=[21, 22, 23], openers=[11, 12])
    cursor.begin()
    assert [cursor.take(), cursor.take()] == [11, 21]
    cursor.begin()  # the next round: 21 was left unfinished by the clock, and stays so
    assert [cursor.take(), cursor.take()] == [12, 22]


def test_without_an_opener_a_round_goes_on_with_fresh_games_until_they_run_out():
    cursor = live.Cursor(games=[21], openers=[11])
    cursor.begin()
    assert cursor.take() == 11
    cursor.begin()
    assert [cursor.take(), cursor.take()] == [21, None]
