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


@pytest.mark.parametrize(
    "preset", ["classic", "one-pass", "egyptian", "forty", "forty-open", "forty-house", "double", "unlimited"]
)
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


SALT = "00112233445566778899aabbccddeeff"
#: printf '%s' 'piramide-seed-v1:classic:42' | sha256sum
V1_CLASSIC_42 = "5f6e566f746331b2eec7ad3a8c91e624c5924875a6b61982cc8270659cc1b96a"
#: printf '%s' 'piramide-seed-v2:classic:42:00112233445566778899aabbccddeeff' | sha256sum
V2_CLASSIC_42 = "c2a31b74acb60a6ea2b416ee266d450dc191e891f860284dfd9f8aec317ae0a8"


def lines(result: subprocess.CompletedProcess[str]) -> dict[str, str]:
    return dict(line.split(": ", 1) for line in result.stdout.splitlines() if ": " in line)


@pytest.mark.parametrize(
    ("salt", "commitment", "scheme"),
    [((), V1_CLASSIC_42, "piramide-seed-v1"), (("--salt", SALT), V2_CLASSIC_42, "piramide-seed-v2")],
)
def test_verify_commitment_says_it_matches_prints_the_deal_and_exits_0(
    salt: tuple[str, ...], commitment: str, scheme: str
) -> None:
    result = run("verify-commitment", "--preset", "classic", "--seed", "42", *salt, commitment)
    assert result.returncode == 0, result.stderr
    printed = lines(result)
    assert printed["scheme"] == scheme and printed["sha-256"] == commitment
    assert printed["match"].startswith("yes")
    assert printed["deal"] == str(deal_from_seed(get_rules("classic"), 42))


def test_verify_commitment_reads_upper_case_hex() -> None:
    result = run(
        "verify-commitment", "--preset", "classic", "--seed", "42", "--salt", SALT.upper(), V2_CLASSIC_42.upper()
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert lines(result)["preimage"] == f"piramide-seed-v2:classic:42:{SALT}"


@pytest.mark.parametrize(
    "args",
    [
        ("--preset", "classic", "--seed", "43", "--salt", SALT),
        ("--preset", "classic", "--seed", "42", "--salt", SALT[:-1] + "0"),
        ("--preset", "one-pass", "--seed", "42", "--salt", SALT),
        ("--preset", "classic", "--seed", "42"),
    ],
    ids=["seed", "salt", "preset", "no-salt"],
)
def test_verify_commitment_of_a_tampered_seed_salt_or_preset_says_no_and_exits_1(args: tuple[str, ...]) -> None:
    result = run("verify-commitment", *args, V2_CLASSIC_42)
    assert result.returncode == 1, result.stdout + result.stderr
    assert lines(result)["match"] == f"NO, the commitment is {V2_CLASSIC_42}"
    assert result.stderr == ""


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (
            ("--preset", "classic", "--seed", "42", "--salt", "xyz" * 10 + "ab", V2_CLASSIC_42),
            "a salt is 32 hex digits",
        ),
        (("--preset", "classic", "--seed", "42", "--salt", SALT[:-2], V2_CLASSIC_42), "a salt is 32 hex digits"),
        (("--preset", "pyramid", "--seed", "42", V1_CLASSIC_42), "unknown preset 'pyramid'"),
        (("--preset", "classic", "--seed", str(2**64), V1_CLASSIC_42), "seed runs from 0"),
        (("--preset", "classic", "--seed", "-1", V1_CLASSIC_42), "seed runs from 0"),
        (("--preset", "classic", "--seed", "forty-two", V1_CLASSIC_42), "is not a seed"),
        (("--preset", "classic", "--seed", "42", V1_CLASSIC_42[:-1]), "a commitment is 64 hex digits"),
        (("--preset", "classic", "--seed", "42"), "required: commitment"),
        (("--seed", "42", V1_CLASSIC_42), "required: --preset"),
    ],
)
def test_verify_commitment_bad_input_exits_2_with_one_clear_line(args: tuple[str, ...], says: str) -> None:
    result = run("verify-commitment", *args)
    assert result.returncode == 2, result.stdout
    assert result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert says in result.stderr and "Traceback" not in result.stderr


def documented_sessions() -> list[tuple[str, str]]:
    """Each ``$ command`` of docs/formats.md's "Checking a challenge" and the output printed under it."""
    text = (ROOT / "docs" / "formats.md").read_text(encoding="utf-8")
    section = text.split("## Checking a challenge", 1)[1].split("\n## ", 1)[0]
    sessions: list[tuple[str, str]] = []
    for block in section.split("```")[1::2]:
        for chunk in block.strip("\n").split("$ ")[1:]:
            command, _, output = chunk.partition("\n")
            sessions.append((command, output))
    return sessions


def test_the_documented_check_runs_as_printed() -> None:
    sessions = documented_sessions()
    assert len(sessions) == 3
    for command, output in sessions:
        if command.startswith("python "):
            command = f"{sys.executable} {command.removeprefix('python ')}"
        result = subprocess.run(["bash", "-c", command], cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, result.stderr
        assert result.stdout.rstrip("\n") == output.rstrip("\n"), command
