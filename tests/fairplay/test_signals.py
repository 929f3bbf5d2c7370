"""The fair-play signals (fairplay/signals.py) on hand-made records: each fires on what it names,
and stays quiet on what people do."""

from __future__ import annotations

import datetime as dt
import math
import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairplay.signals import (
    HABIT_COPY,
    HABIT_FLOOR,
    HABIT_HIGH,
    RARE_ALL,
    THRESHOLD,
    WEIGHTS,
    HabitDay,
    PlayRecord,
    Population,
    assess,
    copy_share,
    decisions,
    habit_evidence,
    line_habit,
    population_of,
    rarity,
    solver_share,
    think_times,
    timing_signals,
    top_line_hit,
)
from games.engine import Game, deal_from_seed, get_rules

T0 = dt.datetime(2026, 12, 6, 9, 0, tzinfo=dt.UTC)
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
    won: bool = False,
    score: int | None = None,
) -> PlayRecord:
    times, at = [], start
    for gap in gaps:
        at += dt.timedelta(seconds=gap)
        times.append(at)
    return PlayRecord(
        game_id, player_id, start, times[-1], moves[: len(gaps)], tuple(times), address, device, won, score
    )


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
    pupils = [
        record(
            i,
            i,
            gaps=human_gaps(30, i),
            moves=tuple(f"p{i}-{j}" for j in range(30)),
            address="10.0.0.1",
            start=T0 + dt.timedelta(minutes=i),
        )
        for i in range(1, 26)
    ]
    for pupil in pupils[1:]:
        result = assess(pupil, [p for p in pupils if p is not pupil])
        assert result.linked == {} and not result.flagged


def test_throwaway_then_main_from_one_address_on_the_solvers_line_is_flagged() -> None:
    throwaway = record(1, 1, gaps=[1.0] * 5, moves=("D",) * 5, address="192.0.2.7", device="aaa")
    main = record(
        2,
        2,
        gaps=human_gaps(40, 3),
        start=throwaway.finished_at + dt.timedelta(seconds=20),
        address="192.0.2.7",
        device="bbb",
    )
    result = assess(main, [throwaway], solver_lines=[LINE])
    assert result.linked == {1: "address"}
    assert result.signals["address_link"] == 1.0 and result.signals["after_linked"] == 1.0
    assert result.signals["solver_line"] == 1.0
    assert result.flagged


def _after_linked_first(first: PlayRecord, *, won: bool = True) -> dict[str, float] | bool:
    """A game won (or not) from ``first``'s address on another device, right after ``first``, on a deal
    whose solver lines offer no decision to follow (as on some forty days): link and timing only."""
    main = record(
        2,
        2,
        gaps=human_gaps(40, 3),
        start=first.finished_at + dt.timedelta(minutes=2),
        address="192.0.2.7",
        device="bbb",
        won=won,
        score=400,
    )
    result = assess(main, [first], solver_lines=[LINE[:1]])
    assert result.signals["address_link"] == 1.0 and result.signals["after_linked"] == 1.0
    assert result.signals["solver_line"] == 0.0
    return {"after_scout": result.signals["after_scout"], "flagged": result.flagged}


def test_a_win_right_after_a_linked_account_made_that_day_for_this_one_game_is_flagged() -> None:
    scout = replace(record(1, 1, gaps=[1.0] * 30, moves=LINE[:30], address="192.0.2.7", device="aaa"), newcomer=True)
    assert _after_linked_first(scout) == {"after_scout": 1.0, "flagged": True}
    assert _after_linked_first(scout, won=False) == {"after_scout": 0.0, "flagged": False}, "nobody scouts to lose"


def test_a_win_right_after_a_household_members_real_game_is_not_flagged() -> None:
    """The member has played other days: whatever their game was, it was no throwaway's."""
    partner = record(1, 1, gaps=human_gaps(30, 9), moves=LINE[:30], address="192.0.2.7", device="aaa", score=120)
    assert _after_linked_first(partner) == {"after_scout": 0.0, "flagged": False}


def test_a_copy_of_an_earlier_players_line_is_flagged_and_the_original_is_not() -> None:
    original = record(1, 1, gaps=human_gaps(40, 1))
    copy = record(2, 2, gaps=human_gaps(40, 2), start=original.finished_at)
    assert assess(copy, [original]).signals["copied_line"] == 1.0
    assert assess(copy, [original]).flagged
    assert assess(original, [copy]).signals["copied_line"] == 0.0, "the copy finished later"


SCENARIO = st.fixed_dictionaries(
    {
        # a pace and each think time's part of it: machine-steady, human or anything between
        "pace": st.floats(min_value=0.1, max_value=8.0),
        "jitter": st.one_of(
            st.lists(st.floats(min_value=0.9, max_value=1.1), min_size=12, max_size=40),
            st.lists(st.floats(min_value=0.3, max_value=3.0), min_size=1, max_size=40),
        ),
        "others": st.lists(
            st.tuples(
                st.integers(min_value=0, max_value=40),  # moves in common with the game
                st.integers(min_value=-3600, max_value=3600),  # its start, seconds from the game's
                st.sampled_from([None, "192.0.2.1", "192.0.2.2"]),
                st.sampled_from([None, "dev-a", "dev-b"]),
            ),
            max_size=6,
        ),
        "address": st.sampled_from([None, "192.0.2.1"]),
        "device": st.sampled_from([None, "dev-a"]),
        "solver_prefix": st.integers(min_value=0, max_value=40),
        "won": st.booleans(),
        "agreeing": st.integers(min_value=0, max_value=300),
        "population": st.integers(min_value=0, max_value=300),
    }
)


def _scenario(case: dict) -> tuple[PlayRecord, list[PlayRecord], dict]:
    gaps = [case["pace"] * part for part in case["jitter"]]
    play = record(1, 1, gaps=gaps, address=case["address"], device=case["device"], won=case["won"], score=10)
    others = []
    for n, (common, offset, address, device) in enumerate(case["others"], start=2):
        moves = LINE[:common] + tuple(f"o{n}-{i}" for i in range(40 - common))
        others.append(
            record(
                n,
                n,
                gaps=human_gaps(40, n),
                moves=moves,
                start=T0 + dt.timedelta(seconds=offset),
                address=address,
                device=device,
            )
        )
    games = max(case["population"], case["agreeing"])
    population = Population(games, (case["agreeing"],) * len(play.moves), (10,))
    solver = LINE[: case["solver_prefix"]] + ("x",) * (40 - case["solver_prefix"])
    return play, others, {"solver_lines": [solver], "population": population}


@settings(max_examples=150, deadline=None, derandomize=True)
@given(SCENARIO)
def test_suspicion_is_the_weighted_sum_of_the_signals_assess_reports(case: dict) -> None:
    """The invariant the thresholds rest on, through ``assess`` itself: every signal from 0 to 1,
    suspicion their weighted sum, flagged exactly at the threshold."""
    play, others, extra = _scenario(case)
    result = assess(play, others, **extra)
    assert set(result.signals) == set(WEIGHTS)
    assert all(0.0 <= value <= 1.0 for value in result.signals.values()), result.signals
    assert result.suspicion == round(sum(WEIGHTS[name] * value for name, value in result.signals.items()), 4)
    assert result.flagged == (result.suspicion >= THRESHOLD)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(SCENARIO, st.integers(min_value=0, max_value=300))
def test_fewer_players_making_the_same_choices_never_lowers_suspicion(case: dict, fewer: int) -> None:
    """The rarer a repeated line's choices were on the day, the more a copy it looks."""
    play, others, extra = _scenario(case)
    common = assess(play, others, **extra)
    population = extra["population"]
    rarer = Population(population.games, tuple(max(0, n - fewer) for n in population.agreeing), population.scores)
    assert assess(play, others, **{**extra, "population": rarer}).suspicion >= common.suspicion


def test_population_counts_the_players_who_made_each_choice_of_a_line() -> None:
    line = ("a", "b", "c", "d")
    others = [(("a", "b", "c", "d"), 7), (("a", "b", "x"), 9), (("a", "y"), 3), (("z",), None), ((), 50)]
    assert population_of(line, others) == Population(games=4, agreeing=(3, 2, 1, 1), scores=(3, 7, 9)), (
        "a game of no move is no player's choice"
    )


def test_rarity_is_the_share_that_made_every_shared_choice_with_this_game_counted() -> None:
    line = ("a", "b", "c", "d")
    population = Population(games=99, agreeing=(60, 30, 3, 1))
    # the product of each decision's share telescopes to those who made them all, over everyone
    assert rarity(line, line, [True, True, True, True], population) == 2 / 100
    assert rarity(line, line, [True, True, False, False], population) == 31 / 100, "up to the last decision only"
    assert rarity(line, line[:3] + ("q",), [True, True, True, True], population) == 4 / 100, (
        "up to the last shared move"
    )
    assert rarity(line, line, [False] * 4, population) == 1.0, "a forced line is no rare choice"


def _copy_with_population(agreeing: int, games: int, *, won: bool = True, choices: int = 2) -> float:
    """The copied_line signal of a winning copy of a 40-move line of ``choices`` decisions that
    ``agreeing`` of ``games`` other players also played."""
    original = record(1, 1, gaps=human_gaps(40, 1), won=True, score=50)
    copy = record(2, 2, gaps=human_gaps(40, 2), start=original.finished_at, won=won, score=50 if won else 20)
    population = Population(games, (agreeing,) * 40, scores=(50,) * games)
    from unittest import mock

    with mock.patch("fairplay.signals.decisions", return_value=[True] * choices + [False] * (40 - choices)):
        return assess(copy, [original], population=population).signals["copied_line"]


def test_a_winning_copy_of_a_line_few_others_chose_is_a_copy_however_few_its_decisions() -> None:
    assert _copy_with_population(agreeing=1, games=199) == 1.0, "2 in 200 made these choices"
    assert _copy_with_population(agreeing=2, games=round(3 / RARE_ALL)) == 1.0


def test_a_copy_of_a_line_many_chose_is_scored_by_its_decisions_alone() -> None:
    assert _copy_with_population(agreeing=30, games=199) == 0.0, "one player in seven plays it"
    assert _copy_with_population(agreeing=1, games=10) == 0.0, "too few players yet to call it rare"


def test_a_copy_that_did_not_pay_is_scored_by_its_decisions_alone() -> None:
    """Nobody copies a line to lose with it: a repeated losing line is what stuck players share."""
    assert _copy_with_population(agreeing=1, games=199, won=False) == 0.0


def test_no_link_and_no_fast_hand_alone_sends_a_game_to_review() -> None:
    """A family on one computer, a fast hand: each alone is what honest players show too."""
    for name in ("device_link", "address_link", "after_linked", "fast"):
        assert WEIGHTS[name] < THRESHOLD, name


def test_a_machine_steady_cadence_alone_sends_a_game_to_review_at_any_pace() -> None:
    """A solver's line played at a slow machine's pace, on a day whose line offers no decision to
    follow: no link, not fast, only steady (a bot on one forty day in six went unflagged so)."""
    pace = [1.2 * (0.9 + 0.2 * ((i * 7) % 10) / 10) for i in range(40)]
    bot = assess(record(1, 1, gaps=pace), [])
    assert bot.signals["fast"] == 0.0 and bot.signals["steady"] == 1.0
    assert bot.flagged


def test_drawing_through_the_stock_in_rhythm_is_no_machine() -> None:
    """People tap Draw as steadily as a machine does: only the time before a removal is timed.
    A player who draws through the whole stock, removes a few pairs and gives up is no bot."""
    moves = tuple("D" if i % 8 else f"m{i}" for i in range(40))
    human = human_gaps(40, 3)
    gaps = [0.5 + 0.01 * (i % 3) if i % 8 else human[i] for i in range(40)]
    assessment = assess(record(1, 1, gaps=gaps, moves=moves), [])
    assert assessment.signals["steady"] == 0.0 and not assessment.flagged


def test_a_steady_hand_on_removals_is_timed_among_draws() -> None:
    moves = tuple("D" if i % 2 else f"m{i}" for i in range(60))
    gaps = [0.9 + 0.01 * (i % 3) for i in range(60)]
    assert timing_signals(record(1, 1, gaps=gaps, moves=moves))["steady"] == 1.0


def test_on_forty_card_deals_a_repeat_is_scored_by_its_decisions_alone() -> None:
    """Their honest winners gather on a few lines: a rare repeat is as often honest as copied."""
    deal = deal_from_seed(get_rules("forty"), 3)
    original = record(1, 1, gaps=human_gaps(40, 1), won=True, score=50)
    copy = record(2, 2, gaps=human_gaps(40, 2), start=original.finished_at, won=True, score=50)
    rare = Population(999, (1,) * 40, (50,) * 999)
    from unittest import mock

    with mock.patch("fairplay.signals.decisions", return_value=[True] * 2 + [False] * 38):
        assert assess(copy, [original], deal=deal, population=rare).signals["copied_line"] == 0.0
        classic = deal_from_seed(get_rules("classic"), 3)
        assert assess(copy, [original], deal=classic, population=rare).signals["copied_line"] == 1.0


# ----------------------------------------------------------------- line_habit


def _finished(
    game_id: int, player_id: int, minutes: int, *, moves: tuple[str, ...] = LINE, score: int = 400
) -> PlayRecord:
    """A won game of ``moves`` at a person's pace, started ``minutes`` after T0 (all take as long)."""
    start = T0 + dt.timedelta(minutes=minutes)
    return record(game_id, player_id, gaps=human_gaps(len(moves), 1), moves=moves, start=start, won=True, score=score)


def test_a_top_line_hit_repeats_a_line_another_account_finished_first_and_none_scored_more() -> None:
    source = _finished(1, 1, 0)
    copy = _finished(2, 2, 30)
    assert top_line_hit(copy, [source])
    assert not top_line_hit(source, [copy]), "the copy finished later"
    assert not top_line_hit(replace(copy, player_id=1), [source]), "one's own line is no one else's"
    better = _finished(3, 3, 10, moves=LINE[:39] + ("x",), score=500)
    assert not top_line_hit(copy, [source, better]), "another line scored more by then"
    assert top_line_hit(_finished(4, 4, 30, moves=LINE[:39] + ("y",)), [source]), "95% of the line is a repeat"
    assert not top_line_hit(_finished(5, 5, 30, moves=("y",) + LINE[1:]), [source])


def _days(*days: tuple[bool, float]) -> list[HabitDay]:
    return [HabitDay(n, dt.date(2026, 12, 1) + dt.timedelta(days=n), hit, share) for n, (hit, share) in enumerate(days)]


def test_habit_evidence_is_the_log_likelihood_ratio_of_copying_against_the_day() -> None:
    assert habit_evidence(_days((True, 0.25))) == pytest.approx(math.log(HABIT_COPY / 0.25))
    assert habit_evidence(_days((False, 0.25))) == pytest.approx(math.log((1 - HABIT_COPY) / 0.75))
    assert habit_evidence(_days((True, 0.001))) == pytest.approx(math.log(HABIT_COPY / HABIT_FLOOR))


def test_an_account_that_wins_with_the_day_s_top_line_day_after_day_has_the_habit() -> None:
    days = _days((True, 0.3), (True, 0.25), (True, 0.35), (True, 0.3))
    assert habit_evidence(days) >= HABIT_HIGH
    assert line_habit(3, days) == 1.0
    copy, source = _finished(3, 2, 30), _finished(1, 1, 0)
    assert assess(copy, [source], habit=days).flagged
    assert line_habit(3, days[:3] + [replace(days[3], hit=False)]) == 0.0, "only a game that is a hit itself"
    assert line_habit(0, days[:1]) == 0.0, "one day is no habit"


def test_a_strong_player_who_often_wins_with_common_lines_has_no_habit() -> None:
    # fourteen days, a win with the top line on six of them, on days many players found it
    days = _days(*[(n % 2 == 0 and n < 12, 0.35) for n in range(14)])
    assert sum(day.hit for day in days) == 6
    assert line_habit(10, days) == 0.0
    # every game a win with the top line, on days when half the players won with it
    assert line_habit(4, _days(*[(True, 0.5)] * 5)) == 0.0


def test_a_household_playing_one_after_another_is_not_flagged_by_its_habit() -> None:
    first = replace(_finished(1, 1, 0, moves=LINE[:30] + ("a",) * 10, score=300), address="192.0.2.7", device="d1")
    second = replace(_finished(2, 2, 20), address="192.0.2.7", device="d2")
    # the second account won with the top line on two days of five, both common on their day
    days = _days((True, 0.3), (False, 0.3), (False, 0.25), (True, 0.3), (False, 0.3))
    found = assess(second, [first], habit=days[:4] + [replace(days[4], hit=True, game_id=2)])
    assert found.signals["address_link"] == 1.0 and found.signals["after_linked"] == 1.0
    assert found.signals["line_habit"] == 0.0 and not found.flagged
    habit = _days(*[(True, 0.3)] * 4)
    assert assess(second, [first], habit=[*habit[:3], replace(habit[3], game_id=2)]).flagged, (
        "a household copying daily is"
    )
