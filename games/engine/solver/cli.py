"""The solver's sub-commands of ``python -m games.engine``: solve, hint and review.

``solve PRESET --deals FILE`` reads one deal per line (the first tab-separated field, so a
``.tsv`` with more columns works too; blank lines and ``#`` comments are skipped) and prints one
tab-separated line per deal: line number, verdict, moves in the winning line, seconds, states.
Bad input ends with exit status 2 and one line on stderr, as for every other sub-command.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..arguments import UsageError, _Parser, add_rules_version, deal_from_args, preset_arg, seed_arg
from ..cards import NotationError
from ..deal import Deal, parse_deal
from ..game import Game, IllegalMoveError
from ..moves import format_moves, parse_moves
from ..rules import PRESETS, Rules
from . import Verdict, hint, review, solve, solve_par


def limit_arg(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not seconds > 0:
        raise argparse.ArgumentTypeError(f"a time limit is a positive number of seconds, not {text}")
    return seconds


def _game(args: argparse.Namespace) -> Game:
    deal = deal_from_args(args.preset, args.deal, args.seed)
    try:
        return Game.replay(deal, parse_moves(getattr(args, "moves", "") or ""))
    except IllegalMoveError as error:
        raise UsageError(f"the moves do not replay: {error}") from None


def _solve(args: argparse.Namespace) -> int:
    if args.deals is not None:
        if args.deal is not None or args.seed is not None or args.par or args.json:
            raise UsageError("--deals FILE solves a batch: it takes no --deal, --seed, --par or --json")
        return _solve_batch(args.preset, args.deals, args.limit_s)
    game = _game(args)
    solution = solve(game, time_limit=args.limit_s)
    report: dict[str, Any] = {
        "verdict": solution.verdict.value,
        "line": format_moves(solution.line),
        "moves": len(solution.line),
        "states": solution.states,
        "seconds": round(solution.seconds, 6),
    }
    if args.par:
        par = solve_par(game, time_limit=args.limit_s)
        report["par"] = {
            "score": par.score,
            "exact": par.exact,
            "line": format_moves(par.line),
            "states": par.states,
            "seconds": round(par.seconds, 6),
        }
    if args.json:
        print(json.dumps(report))
        return 0
    print(f"verdict: {report['verdict']}")
    if solution.verdict is Verdict.WINNABLE:
        print(f"line ({report['moves']} moves): {report['line']}")
    print(f"states: {solution.states} · seconds: {solution.seconds:.4f}")
    if args.par:
        par_report = report["par"]
        bound = "" if par_report["exact"] else " (a lower bound: the time limit ran out)"
        print(f"par: {par_report['score']}{bound}")
        print(f"par line: {par_report['line']}")
    return 0


def _deal_lines(rules: Rules, path: Path) -> Iterator[tuple[int, Deal]]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror}") from None
    for number, line in enumerate(text.splitlines(), start=1):
        field = line.split("\t", 1)[0].strip()
        if not field or field.startswith("#"):
            continue
        try:
            yield number, parse_deal(rules, field)
        except NotationError as error:
            raise UsageError(f"{path} line {number}: {error}") from None


def _solve_batch(rules: Rules, path: Path, limit: float | None) -> int:
    deals = list(_deal_lines(rules, path))
    for number, deal in deals:
        solution = solve(Game.start(deal), time_limit=limit)
        moves = str(len(solution.line)) if solution.verdict is Verdict.WINNABLE else "-"
        print(f"{number}\t{solution.verdict.value}\t{moves}\t{solution.seconds:.6f}\t{solution.states}", flush=True)
    return 0


def _hint(args: argparse.Namespace) -> int:
    game = _game(args)
    answer = hint(game, time_limit=args.limit_s)
    if answer.move is not None:
        print(f"hint: {answer.move}")
    elif answer.verdict is Verdict.WINNABLE:
        print("hint: none needed, the game is won")
    elif answer.verdict is Verdict.UNWINNABLE:
        print("hint: none, the game can no longer be won")
    else:
        print("hint: unknown, the time limit ran out")
    return 0


def _review(args: argparse.Namespace) -> int:
    deal = deal_from_args(args.preset, args.deal, args.seed)
    moves = parse_moves(args.moves)
    try:
        result = review(deal, moves, time_limit=args.limit_s)
    except IllegalMoveError as error:
        raise UsageError(f"the moves do not replay: {error}") from None
    print(f"the deal was {result.start_verdict.value} at the start")
    if result.point_of_no_return is not None:
        number = result.point_of_no_return
        print(f"point of no return: move {number} ({moves[number - 1]}); the deal could be won until then")
        print(f"a winning line from just before it: {format_moves(result.line)}")
    elif result.start_verdict is Verdict.WINNABLE and result.line:
        print(f"the game can still be won: {format_moves(result.line)}")
    elif result.start_verdict is Verdict.WINNABLE:
        print("the game was won")
    print(f"states: {result.states} · seconds: {result.seconds:.4f}")
    return 0


def _deal_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("preset", type=preset_arg, help=", ".join(PRESETS))
    add_rules_version(parser)
    parser.add_argument("--deal", help="the deal line (docs/formats.md)")
    parser.add_argument("--seed", type=seed_arg, help="or the seed of the deal")
    parser.add_argument(
        "--limit-s", type=limit_arg, default=None, metavar="S", help="give up (unknown) after S seconds"
    )


def register(commands: argparse._SubParsersAction[_Parser]) -> None:
    solve_parser = commands.add_parser("solve", help="is a deal winnable: verdict, winning line, par")
    _deal_args(solve_parser)
    solve_parser.add_argument("--deals", type=Path, metavar="FILE", help="solve every deal of FILE, one a line")
    solve_parser.add_argument("--par", action="store_true", help="also the best score any play reaches")
    solve_parser.add_argument("--json", action="store_true", help="print one JSON object")
    solve_parser.set_defaults(handler=_solve)

    hint_parser = commands.add_parser("hint", help="the next move of a winning line after MOVES")
    _deal_args(hint_parser)
    hint_parser.add_argument("--moves", default="", help="the moves played so far")
    hint_parser.set_defaults(handler=_hint)

    review_parser = commands.add_parser("review", help="the move after which a game could no longer be won")
    _deal_args(review_parser)
    review_parser.add_argument("--moves", required=True, help="the moves of the game")
    review_parser.set_defaults(handler=_review)
