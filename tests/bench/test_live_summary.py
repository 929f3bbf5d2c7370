"""bench/live.py's summary: each target as the median over the runs of the six rounds, each run's
ratio taken against its own echo (``--repeat``)."""

from __future__ import annotations

from typing import Any

from bench import live


def run(
    echo_p50: float, live_p50: float, write_p50: float, echo_rate: float, live_rate: float
) -> dict[str, dict[str, Any]]:
    """One run's six rounds, with only the figures the summary reads."""
    return {
        "echo": {"rtt_p50_ms": echo_p50},
        "live": {"rtt_p50_ms": live_p50, "rtt_p99_ms": 10.0, "fanout_p99_ms": 20.0},
        "write": {"rtt_p50_ms": write_p50},
        "echo saturated": {"per_second": echo_rate},
        "live saturated": {"per_second": live_rate},
        "write saturated": {"per_second": 5000.0},
    }


def test_a_run_has_a_figure_for_each_round():
    assert set(run(1, 1, 1, 1, 1)) == {key for key, *_ in live.ROUNDS}


def test_one_run_prints_its_own_figures_without_a_range(capsys):
    live.summary([run(0.5, 2.0, 0.8, 10_000, 1_500)], spectators=200)
    out = capsys.readouterr().out
    assert "as a multiple of the echo's: 4.00x (target <= 2x)" in out
    assert "2.60x the echo's" in out  # the floor: (0.5 + 0.8) / 0.5
    assert "as a share of the echo's: 15% (target >= 25%)" in out
    assert "median" not in out


def test_each_run_is_set_against_its_own_echo_and_the_median_is_taken(capsys):
    # run by run the shares are 10%, 20% and 15%: the median is 15%, not the share of the medians
    # (1,500 / 10,000) nor that of the sums
    runs = [run(0.5, 2.0, 0.8, 10_000, 1_000), run(0.4, 2.0, 0.8, 5_000, 1_000), run(0.6, 1.8, 0.8, 20_000, 3_000)]
    live.summary(runs, spectators=200)
    out = capsys.readouterr().out
    assert "as a share of the echo's: 15% (median of 3 runs, 10% to 20%)" in out
    assert "as a multiple of the echo's: 4.00x (median of 3 runs, 3.00x to 5.00x)" in out
