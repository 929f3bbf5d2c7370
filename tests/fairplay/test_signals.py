"""The fair-play signals (fairplay/signals.py) on hand-made records: each fires on what it names,
and stays quiet on what people do."""

from __future__ import annotations

import datetime as dt
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from fairplay.signals import (
    THRESHOLD,
    WEIGHTS,
    PlayRecord,
    assess,
    copy_share,
    decisions,
    solver_share,
    think_times,
    timing_signals,
)
from games.engine import Game, deal_from_seed, get_rules

T0 = dt.datetime(2026, 12, 6, 9, 0, tzinfo=dt.timezone.utc)
LINE = tuple(f"m{i}" for i in range(40))


def record(
    game_id: int,
    player_id: int,
    *,
    gaps: list[float],
    moves: tuple[str, ...] = LINE,
    start: dt.datetime = T0,
    address: str | None = None,
    device: str | None = None,
) -> PlayRecord:
    times, at = [], start
    for gap in gaps:
        at += dt.timedelta(seconds=gap)
        times.append(at)
    return PlayRecord(game_id, player_id, start, times[-1], moves[: len(gaps)], tuple(times), address, device)


def human_gaps(n: int, seed: int) -> list[float]:
    rng = random.Random(seed)
    return [rng.lognormvariate(1.0, 0.6) for _ in range(n)]


def test_think_times_count_from_the_start_to_each_move() -> None:
    play = record(1, 1, gaps=[3.0, 1.5, 2.0])
    assert think_times(play) == [3.0, 1.5, 2.0]


def test_a_machine_steady_fast_hand_fires_both_timing_signals_and_a_human_one_neither() -> None:
    bot = timing_signals(record(1, 1, gaps=[0.4 + 0.01 * (i % 3) for i in range(40)]))
    human = timing_signals(record(2, 2, gaps=human_gaps(40, 7)))
    assert bot == {"fast": 1.0, "steady": 1.0}
    assert human == {"fast": 0.0, "steady": 0.0}


def test_a_short_game_says_nothing_by_its_timing() -> None:
    assert timing_signals(record(1, 1, gaps=[0.3] * 5)) == {"fast": 0.0, "steady": 0.0}


def test_following_the_solvers_line_fires_and_a_different_line_does_not() -> None:
    every = [True] * len(LINE)
    assert solver_share(LINE, LINE, every) == 1.0
    assert solver_share(("x", *LINE[1:]), LINE, every) == 0.0, "a different first move follows nothing"
    assert solver_share(LINE, LINE, [True] * 2 + [False] * 38) == 0.0, "a forced line says nothing"


def test_decisions_are_the_positions_that_offered_a_choice() -> None:
    deal = deal_from_seed(get_rules("forty"), 3)
    game = Game.start(deal)
    line = []
    for _ in range(12):
        move = game.legal_moves()[0]
        line.append(str(move))
        game = game.apply(move)
    replayed = Game.start(deal)
    expected = []
    for text in line:
        expected.append(len(replayed.legal_moves()) >= 2)
        replayed = replayed.apply(next(m for m in replayed.legal_moves() if str(m) == text))
    assert decisions(deal, line) == expected
    assert decisions(None, line) == [True] * 12
    assert decisions(deal, [*line[:3], "9.9+9.9", *line[3:]]) == expected[:4], "a refused move ends the line"


def test_a_copy_must_cover_nearly_both_games_and_counts_only_decisions() -> None:
    every = [True] * len(LINE)
    assert copy_share(LINE, LINE, every) == 1.0
    assert copy_share(LINE, LINE[:20], every) == 0.0, "a short game's opening followed by a longer game is no copy"
    assert copy_share(LINE, LINE, [False] * 34 + [True] * 6) == 0.0, "copying a forced line gains nothing"


def test_a_school_behind_one_address_links_nobody() -> None:
    pupils = [record(i, i, gaps=human_gaps(30, i), moves=tuple(f"p{i}-{j}" for j in range(30)), address="10.0.0.1",
                     start=T0 + dt.timedelta(minutes=i)) for i in range(1, 26)]
    for pupil in pupils[1:]:
        result = assess(pupil, [p for p in pupils if p is not pupil])
        assert result.linked == {} and not result.flagged


def test_throwaway_then_main_from_one_address_on_the_solvers_line_is_flagged() -> None:
    throwaway = record(1, 1, gaps=[1.0] * 5, moves=("D",) * 5, address="192.0.2.7", device="aaa")
    main = record(2, 2, gaps=human_gaps(40, 3), start=throwaway.finished_at + dt.timedelta(seconds=20), address="192.0.2.7", device="bbb")
    result = assess(main, [throwaway], solver_lines=[LINE])
    assert result.linked == {1: "address"}
    assert result.signals["address_link"] == 1.0 and result.signals["after_linked"] == 1.0
    assert result.signals["solver_line"] == 1.0
    assert result.flagged


def test_a_copy_of_an_earlier_players_line_is_flagged_and_the_original_is_not() -> None:
    original = record(1, 1, gaps=human_gaps(40, 1))
    copy = record(2, 2, gaps=human_gaps(40, 2), start=original.finished_at)
    assert assess(copy, [original]).signals["copied_line"] == 1.0
    assert assess(copy, [original]).flagged
    assert assess(original, [copy]).signals["copied_line"] == 0.0, "the copy finished later"


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.floats(min_value=0.0, max_value=1.0), min_size=len(WEIGHTS), max_size=len(WEIGHTS)))
def test_suspicion_is_the_weighted_sum_and_grows_with_every_signal(values: list[float]) -> None:
    """The invariant the thresholds rest on: no signal lowers suspicion."""
    total = sum(w * v for w, v in zip(WEIGHTS.values(), values))
    assert total >= 0
    for i in range(len(values)):
        raised = list(values)
        raised[i] = 1.0
        assert sum(w * v for w, v in zip(WEIGHTS.values(), raised)) >= total



def test_no_link_and_no_timing_signal_alone_sends_a_game_to_review() -> None:
    """A family on one computer, a fast hand: each alone is what honest players show too."""
    for name in ("device_link", "address_link", "after_linked", "fast", "steady"):
        assert WEIGHTS[name] < THRESHOLD, name
