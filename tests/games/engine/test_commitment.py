"""The commitment a challenge publishes: both schemes hash the documented text, and nothing else
(docs/formats.md, "Checking a challenge").  The expected digests were computed with sha256sum."""

import hashlib

import pytest

from games.engine.commitment import (
    CommitmentError,
    commitment_matches,
    commitment_preimage,
    commitment_scheme,
    parse_salt,
    seed_commitment,
)
from games.engine.rules import UnknownPresetError

SALT = "00112233445566778899aabbccddeeff"
#: printf '%s' 'piramide-seed-v1:classic:42' | sha256sum
V1_CLASSIC_42 = "5f6e566f746331b2eec7ad3a8c91e624c5924875a6b61982cc8270659cc1b96a"
#: printf '%s' 'piramide-seed-v2:classic:42:00112233445566778899aabbccddeeff' | sha256sum
V2_CLASSIC_42 = "c2a31b74acb60a6ea2b416ee266d450dc191e891f860284dfd9f8aec317ae0a8"


def test_v1_hashes_preset_and_seed_as_published_for_the_first_challenges() -> None:
    assert commitment_preimage("classic", 42) == "piramide-seed-v1:classic:42"
    assert seed_commitment("classic", 42) == V1_CLASSIC_42
    assert commitment_scheme(None) == "piramide-seed-v1"


def test_v2_hashes_preset_seed_and_salt() -> None:
    assert commitment_preimage("classic", 42, SALT) == f"piramide-seed-v2:classic:42:{SALT}"
    assert seed_commitment("classic", 42, SALT) == V2_CLASSIC_42
    assert commitment_scheme(SALT) == "piramide-seed-v2"


@pytest.mark.parametrize("seed", [0, 7, 2**63 - 1, 2**64 - 1])
@pytest.mark.parametrize("preset", ["forty", "double"])
def test_the_preimage_is_plain_ascii_with_the_seed_in_decimal(preset: str, seed: int) -> None:
    text = f"piramide-seed-v2:{preset}:{seed}:{SALT}"
    assert seed_commitment(preset, seed, SALT) == hashlib.sha256(text.encode("ascii")).hexdigest()


def test_a_salt_is_read_in_either_case_and_written_in_lower_case() -> None:
    assert parse_salt(SALT.upper()) == SALT
    assert seed_commitment("classic", 42, SALT.upper()) == V2_CLASSIC_42


def test_the_right_preset_seed_and_salt_match_both_schemes() -> None:
    assert commitment_matches(V1_CLASSIC_42, "classic", 42)
    assert commitment_matches(V2_CLASSIC_42, "classic", 42, SALT)
    assert commitment_matches(V2_CLASSIC_42.upper(), "classic", 42, SALT)


@pytest.mark.parametrize(
    ("preset", "seed", "salt"),
    [
        ("classic", 43, SALT),  # another seed
        ("classic", 42, SALT[:-1] + "0"),  # a salt with its last digit changed
        ("one-pass", 42, SALT),  # another preset
        ("classic", 42, None),  # the v1 scheme for a v2 commitment
    ],
)
def test_anything_tampered_does_not_match(preset: str, seed: int, salt: str | None) -> None:
    assert not commitment_matches(V2_CLASSIC_42, preset, seed, salt)


def test_a_salt_does_not_turn_a_v1_commitment_into_a_match() -> None:
    assert not commitment_matches(V1_CLASSIC_42, "classic", 42, SALT)


@pytest.mark.parametrize("salt", ["", "00", SALT + "0", SALT[:-1] + "g", " " * 32, "0x" + SALT[2:]])
def test_a_salt_that_is_not_32_hex_digits_is_refused(salt: str) -> None:
    with pytest.raises(CommitmentError, match="a salt is 32 hex digits"):
        seed_commitment("classic", 42, salt)


@pytest.mark.parametrize("seed", [-1, 2**64])
def test_a_seed_out_of_range_is_refused(seed: int) -> None:
    with pytest.raises(CommitmentError, match="a seed is a whole number from 0 to"):
        seed_commitment("classic", seed, SALT)


def test_an_unknown_preset_is_refused() -> None:
    with pytest.raises(UnknownPresetError):
        seed_commitment("pyramid", 42, SALT)


@pytest.mark.parametrize("commitment", ["", V1_CLASSIC_42[:-1], V1_CLASSIC_42 + "0", "z" * 64])
def test_a_commitment_that_is_not_64_hex_digits_is_refused(commitment: str) -> None:
    with pytest.raises(CommitmentError, match="a commitment is 64 hex digits"):
        commitment_matches(commitment, "classic", 42)
