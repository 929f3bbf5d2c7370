"""The commitment a daily challenge publishes before its day: a SHA-256 that fixes its deal.

The SHA-256, in lower-case hex, of ``piramide-seed-v1:<preset>:<seed>`` (the first challenges) or
``piramide-seed-v2:<preset>:<seed>:<salt>`` (every challenge since, with a secret 128-bit salt).
The schemes, and how to check one: docs/formats.md, *Checking a challenge*.
"""

from __future__ import annotations

import hashlib

from .deal import SEED_LIMIT
from .rules import get_rules

SCHEME_V1 = "piramide-seed-v1"
SCHEME_V2 = "piramide-seed-v2"
SALT_BYTES = 16
SALT_HEX_DIGITS = 2 * SALT_BYTES
_HEX = frozenset("0123456789abcdef")


class CommitmentError(ValueError):
    """A salt, commitment, preset or seed that cannot be part of a commitment."""


def _hex(text: str, digits: int, what: str) -> str:
    lowered = text.strip().lower()
    if len(lowered) != digits or not set(lowered) <= _HEX:
        raise CommitmentError(f"{what} is {digits} hex digits (0-9, a-f), not {text!r}")
    return lowered


def parse_salt(text: str) -> str:
    """A salt in its one written form, lower-case hex; either case is read."""
    return _hex(text, SALT_HEX_DIGITS, "a salt")


def parse_commitment(text: str) -> str:
    """A commitment in its one written form, lower-case hex; either case is read."""
    return _hex(text, 64, "a commitment")


def commitment_scheme(salt: str | None) -> str:
    """The scheme of a commitment: v1 without a salt, v2 with one."""
    return SCHEME_V1 if salt is None else SCHEME_V2


def commitment_preimage(preset: str, seed: int, salt: str | None = None) -> str:
    """The exact text whose SHA-256 is the commitment: v1 without a salt, v2 with one."""
    get_rules(preset)  # an unknown preset raises UnknownPresetError, a ValueError
    if not 0 <= seed < SEED_LIMIT:
        raise CommitmentError(f"a seed is a whole number from 0 to {SEED_LIMIT - 1}, not {seed}")
    if salt is None:
        return f"{SCHEME_V1}:{preset}:{seed}"
    return f"{SCHEME_V2}:{preset}:{seed}:{parse_salt(salt)}"


def seed_commitment(preset: str, seed: int, salt: str | None = None) -> str:
    """The commitment: SHA-256 of the preimage, as 64 lower-case hex digits."""
    return hashlib.sha256(commitment_preimage(preset, seed, salt).encode("ascii")).hexdigest()


def commitment_matches(commitment: str, preset: str, seed: int, salt: str | None = None) -> bool:
    """True when ``commitment`` is the commitment of this preset, seed and salt."""
    return parse_commitment(commitment) == seed_commitment(preset, seed, salt)
