"""The command line as a user runs it: a real process, its exit status and its output."""

import subprocess
import sys
from pathlib import Path

import pytest

from games.engine.deal import deal_from_seed
from games.engine.rules import get_rules

ROOT = Path(__file__).resolve().parents[3]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "games.engine", *args], cwd=ROOT, capture_output=True, text=True, timeout=120
    )


def test_deal_prints_the_seeded_deal_line() -> None:
    result = run("deal", "double", "12")
    assert result.returncode == 0
    assert result.stdout.strip() == str(deal_from_seed(get_rules("double"), 12))


def test_play_prints_board_outcome_and_score() -> None:
    result = run("play", "classic", "--seed", "1", "--moves", "7.3+7.4 D")
    assert result.returncode == 0, result.stderr
    assert "outcome: in_progress" in result.stdout and "score: 20" in result.stdout


def test_play_stops_at_the_first_illegal_move_and_names_it() -> None:
    deal = str(deal_from_seed(get_rules("classic"), 1))
    result = run("play", "classic", "--deal", deal, "--moves", "7.3+7.4 7.1+7.2 D")
    assert result.returncode == 2
    assert result.stderr.strip() == "error: move 2 (7.1+7.2) is illegal: 2♦ + 7♦ is 9, not 13"
    assert "score 20" in result.stdout


@pytest.mark.parametrize("preset", ["classic", "one-pass", "egyptian", "forty", "forty-open", "forty-house", "double"])
def test_random_plays_a_whole_game_whose_record_replays(preset: str) -> None:
    result = run("random", preset, "5")
    assert result.returncode == 0, result.stderr
    record, _, summary = result.stdout.rpartition("# ")
    assert summary.startswith(("won", "lost"))
    from games.engine.record import parse_record

    game = parse_record(record).replay()
    assert f"score {game.score}" in summary and game.outcome.value in summary


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("deal", "classic", "-1"), "seed runs from 0"),
        (("deal", "classic", "abc"), "is not a seed"),
        (("deal", "pyramid", "1"), "unknown preset 'pyramid'"),
        (("play", "classic", "--deal", "Ah Kd"), "a classic deal has 52 cards"),
        (("play", "classic", "--seed", "1", "--moves", "7.1+"), "move 1:"),
        (("play", "forty", "--deal", " ".join(["8s"] * 40)), "8s"),
        (("play", "classic"), "give the deal either as --deal TEXT or as --seed N"),
        ((), "required"),
    ],
)
def test_bad_input_exits_2_with_one_clear_line(args: tuple[str, ...], says: str) -> None:
    result = run(*args)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert says in result.stderr and "Traceback" not in result.stderr
