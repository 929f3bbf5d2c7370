"""The solver's sub-commands as a user runs them: a real process, its exit status and its output."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from games.engine.deal import deal_from_seed
from games.engine.game import Game, Outcome
from games.engine.moves import parse_moves
from games.engine.rules import get_rules

ROOT = Path(__file__).resolve().parents[3]
CLASSIC_1 = str(deal_from_seed(get_rules("classic"), 1))


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "games.engine", *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


def test_solve_prints_the_verdict_and_a_line_the_engine_wins_with() -> None:
    result = run("solve", "classic", "--deal", CLASSIC_1)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("verdict: winnable\n")
    line = result.stdout.splitlines()[1].split(": ", 1)[1]
    deal = deal_from_seed(get_rules("classic"), 1)
    assert Game.replay(deal, parse_moves(line)).outcome is Outcome.WON


def test_solve_json_with_par_carries_every_field() -> None:
    result = run("solve", "forty-open", "--seed", "2", "--par", "--json", "--limit-s", "60")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert set(report) == {"verdict", "line", "moves", "states", "seconds", "par"}
    assert set(report["par"]) == {"score", "exact", "line", "states", "seconds"}
    deal = deal_from_seed(get_rules("forty-open"), 2)
    assert Game.replay(deal, parse_moves(report["par"]["line"])).score == report["par"]["score"]


def test_batch_solve_prints_one_tab_separated_line_per_deal(tmp_path: Path) -> None:
    rules = get_rules("classic")
    deals = tmp_path / "deals.txt"
    deals.write_text(f"# two deals\n{deal_from_seed(rules, 1)}\n\n{deal_from_seed(rules, 0)}\tignored column\n")
    result = run("solve", "classic", "--deals", str(deals))
    assert result.returncode == 0, result.stderr
    rows = [line.split("\t") for line in result.stdout.splitlines()]
    assert [row[0] for row in rows] == ["2", "4"]
    assert rows[0][1] == "winnable" and int(rows[0][2]) > 0
    assert rows[1][1] in {"winnable", "unwinnable"}
    assert all(len(row) == 5 and float(row[3]) >= 0 and int(row[4]) >= 0 for row in rows)


def test_hint_names_a_legal_move_after_the_moves_played() -> None:
    result = run("hint", "classic", "--seed", "1", "--moves", "D")
    assert result.returncode == 0, result.stderr
    move = parse_moves(result.stdout.split(": ", 1)[1])[0]
    game = Game.replay(deal_from_seed(get_rules("classic"), 1), parse_moves("D"))
    assert move in game.legal_moves()


def test_review_names_the_point_of_no_return_of_a_lost_game() -> None:
    rules = get_rules("classic")
    deal = deal_from_seed(rules, 1)
    game = Game.start(deal)
    while game.outcome is Outcome.IN_PROGRESS:
        moves = game.legal_moves()
        game = game.apply(moves[-1])  # draws and recycles come last: the stock runs out unused
    result = run("review", "classic", "--seed", "1", "--moves", " ".join(str(move) for move in game.moves))
    assert result.returncode == 0, result.stderr
    assert "the deal was winnable at the start" in result.stdout
    assert "point of no return: move " in result.stdout


def test_bad_input_exits_2_with_one_line() -> None:
    cases = [
        ("solve", "classic", "--deal", "Ah 2c"),
        ("solve", "nonsense", "--seed", "1"),
        ("solve", "classic", "--deals", "/no/such/file"),
        ("solve", "classic", "--seed", "1", "--limit-s", "-3"),
        ("hint", "classic", "--seed", "1", "--moves", "R"),
        ("review", "classic", "--seed", "1", "--moves", "7.1+7.1"),
        ("solve", "classic"),
    ]
    for args in cases:
        result = run(*args)
        assert result.returncode == 2, args
        assert result.stdout == ""
        assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, (args, result.stderr)
