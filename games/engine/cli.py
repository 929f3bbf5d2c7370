"""``python -m games.engine``: deal, play, random games and commitment checks from the command line.

Bad input ends with exit status 2 and one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable, Sequence

from .arguments import UsageError, _Parser, add_rules_version, deal_from_args, preset_arg, seed_arg
from .board import render
from .cards import NotationError
from .commitment import (
    CommitmentError,
    commitment_preimage,
    commitment_scheme,
    parse_commitment,
    parse_salt,
    seed_commitment,
)
from .deal import deal_from_seed
from .game import Game, IllegalMoveError, Outcome
from .moves import parse_moves
from .record import GameRecord
from .rules import PRESETS, RULES_VERSION, Rules, get_rules
from .solver import cli as solver_cli


def salt_arg(text: str) -> str:
    try:
        return parse_salt(text)
    except CommitmentError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def commitment_arg(text: str) -> str:
    try:
        return parse_commitment(text)
    except CommitmentError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _deal(args: argparse.Namespace) -> int:
    print(deal_from_seed(args.preset, args.seed))
    return 0


def _play(args: argparse.Namespace) -> int:
    deal = deal_from_args(args.preset, args.deal, args.seed)
    game = Game.start(deal)
    for number, move in enumerate(parse_moves(args.moves), start=1):
        try:
            game = game.apply(move)
        except IllegalMoveError as error:
            print(render(game.visible()))
            raise UsageError(f"move {number} ({move}) is illegal: {error}") from None
    print(render(game.visible()))
    print(f"outcome: {game.outcome.value} ({game.outcome_reason})")
    if game.outcome is Outcome.IN_PROGRESS and not game.pyramid_clearable:
        print("the pyramid can no longer be cleared: resign to keep the score, or play on for more points")
    print(f"score: {game.score}")
    return 0


def _random(args: argparse.Namespace) -> int:
    game = Game.start(deal_from_seed(args.preset, args.seed))
    chooser = random.Random(args.seed)
    while game.outcome is Outcome.IN_PROGRESS:
        game = game.apply(chooser.choice(game.legal_moves()))
    print(GameRecord.of(game), end="")
    print(f"# {game.outcome.value}: {game.outcome_reason}; score {game.score}")
    return 0


def _verify_commitment(args: argparse.Namespace) -> int:
    rules: Rules = args.preset
    digest = seed_commitment(rules.name, args.seed, args.salt)
    print(f"scheme: {commitment_scheme(args.salt)}")
    print(f"preimage: {commitment_preimage(rules.name, args.seed, args.salt)}")
    print(f"sha-256: {digest}")
    if digest == args.commitment:
        print("match: yes, the commitment is the SHA-256 of this preimage")
    else:
        print(f"match: NO, the commitment is {args.commitment}")
        if args.salt is None:
            print("(without --salt this checks the v1 scheme; a challenge with a salt needs --salt)")
    print(f"deal: {deal_from_seed(rules, args.seed)}")
    return 0 if digest == args.commitment else 1


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m games.engine", description="Piramide's rules engine and solver")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    presets = ", ".join(PRESETS)

    deal = commands.add_parser("deal", help="print the deal of a preset and seed")
    deal.add_argument("preset", type=preset_arg, help=presets)
    deal.add_argument("seed", type=seed_arg)
    deal.set_defaults(handler=_deal)

    play = commands.add_parser("play", help="play moves on a deal and print the board, outcome and score")
    play.add_argument("preset", type=preset_arg, help=presets)
    play.add_argument("--deal", help="the deal line (docs/formats.md)")
    play.add_argument("--seed", type=seed_arg, help="or the seed of the deal")
    play.add_argument("--moves", default="", help="moves separated by spaces, as 'D 7.1+S R'")
    add_rules_version(play)
    play.set_defaults(handler=_play)

    rnd = commands.add_parser("random", help="play a random legal game and print its record")
    rnd.add_argument("preset", type=preset_arg, help=presets)
    rnd.add_argument("seed", type=seed_arg)
    add_rules_version(rnd)
    rnd.set_defaults(handler=_random)

    verify = commands.add_parser(
        "verify-commitment",
        help="check a challenge's commitment against its revealed seed (and salt); exit status 1 if it does not match",
    )
    verify.add_argument("--preset", type=preset_arg, required=True, help=presets)
    verify.add_argument("--seed", type=seed_arg, required=True)
    verify.add_argument(
        "--salt", type=salt_arg, help="the revealed salt, 32 hex digits; leave it out for a v1 challenge"
    )
    verify.add_argument("commitment", type=commitment_arg, help="the published commitment, 64 hex digits")
    verify.set_defaults(handler=_verify_commitment)

    # the solver's: solve, hint and review
    solver_cli.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        if getattr(args, "rules_version", RULES_VERSION) != RULES_VERSION:
            args.preset = get_rules(args.preset.name, args.rules_version)
        handler: Callable[[argparse.Namespace], int] = args.handler
        return handler(args)
    except (UsageError, NotationError, IllegalMoveError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
