"""What the engine's command line shares between its modules (``cli`` and ``solver.cli``): the
parser that turns bad input into one line and exit status 2, and the arguments both take."""

from __future__ import annotations

import argparse
from typing import NoReturn

from .deal import SEED_LIMIT, Deal, deal_from_seed, parse_deal
from .rules import RULES_VERSION, RULES_VERSIONS, Rules, UnknownPresetError, get_rules


class UsageError(Exception):
    """Bad input from the command line: printed as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def preset_arg(text: str) -> Rules:
    try:
        return get_rules(text)
    except UnknownPresetError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def add_rules_version(parser: argparse.ArgumentParser) -> None:
    """``--rules-version N``: play or replay under the rules of an earlier version (docs/rules.md)."""
    parser.add_argument(
        "--rules-version",
        type=int,
        choices=RULES_VERSIONS,
        default=RULES_VERSION,
        help=f"the rules version to play under (default {RULES_VERSION}, the current one)",
    )


def seed_arg(text: str) -> int:
    try:
        seed = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a seed: write a whole number from 0 to {SEED_LIMIT - 1}"
        ) from None
    if not 0 <= seed < SEED_LIMIT:
        raise argparse.ArgumentTypeError(f"a seed runs from 0 to {SEED_LIMIT - 1}, not {seed}")
    return seed


def deal_from_args(rules: Rules, deal_text: str | None, seed: int | None) -> Deal:
    if (deal_text is None) == (seed is None):
        raise UsageError("give the deal either as --deal TEXT or as --seed N")
    if deal_text is not None:
        return parse_deal(rules, deal_text)
    assert seed is not None
    return deal_from_seed(rules, seed)
