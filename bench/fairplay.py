"""Fair-play detection measured: simulated days of honest players and four kinds of cheater, each
finished ranked game scored with ``fairplay.signals.assess``, and per kind the share flagged.

    .venv/bin/python bench/fairplay.py [--honest 250] [--cheaters 60] [--days 8] [--seed 1]
                                       [--preset classic] [--regulars] [--newcomers 0.05] [--dump FILE]

Each day deals one challenge, found as the service finds one (``games.services._find_winnable``:
the solver proves the deal winnable, then finds its par), from seeds a ``random.Random(--seed)``
draws and with ``SOLVE_LIMIT_S`` for each search; its winning line and par line are the
``solver_lines`` every game of the day is scored against.  (A search cut short by the time limit
rejects a deal, so a machine busy enough to slow the solver may deal other days for one seed.)

Honest players (``--honest`` a day).  Each decides from ``Game.visible()`` alone (``choose_move``
is handed that dict and nothing else, so it cannot read a face-down or undrawn card): it scores
every legal move (a king or a pair scores by how many pyramid cards it frees, pairs with pyramid
cards above stock-and-waste pairs, a draw low, a recycle lower), adds per-player noise (a skill
drawn per player: a Gumbel term of scale 0.2 to 1.6 on each score, and a chance of 0 to 25% of
overlooking each possible removal), and plays the best; it resigns with a per-player chance of
0 to 1% before each move after the tenth, and with 0 to 30% at the start of its last pass.
Think times: per player a median drawn log-uniformly from 1.2 s to 6 s and a sigma uniformly from
0.5 to 0.7; each think time is log-normal around that median with that sigma, one in 40 has a
pause of 10 to 120 s added (uniform), and the first move also takes 5 to 30 s of reading the deal.
Start times: 15% in the morning (7-9 h), 20% at midday (12-14 h), 45% in the evening (18-23 h),
20% any time from 6 to 24 h.  Addresses and device cookies: every account has a device of its
own; 10% of players live in households of two or three accounts on one address (in 60% of them
the members play in one sitting, each starting within 0 to 15 minutes of the previous one's
finish, otherwise at their own times); when a day has 50 or more honest players, 25 of them
share an office's address and start during office hours (9 to 17 h); the rest have an address
each.  Newcomers: each honest player's account is one made that day, playing its first game, with a
chance of ``--newcomers`` (5%; drawn from a generator of its own, so the share changes nobody's
game); what ``signals.after_scout`` reads of a linked account is the same of a newcomer as of a
throwaway, so a household whose newcomer plays first pays for it.  With ``--regulars`` every honest
account is an old one.

Cheaters (``--cheaters`` of each kind, spread over the days):

- ``throwaway-same-address``: a new account (made that day; this is its only game) draws through
  the whole stock (in classic that shows every card; on forty, where drawing is refused while a
  removal is there, it takes the first removal offered, so it plays the forced game and may win),
  then resigns; 0.5 to 10 minutes later the main account, from the same address but
  another device cookie (a private window), plays the solver's par line or winning line (even
  odds) with an honest player's think times.
- ``shared-device``: the same, the two accounts on two addresses (home and mobile data) sharing
  one device cookie.
- ``solver-bot``: one account, no links, plays the solver's winning or par line at a machine's
  pace: per bot a pace drawn uniformly from 0.3 to 1.5 s, each think time that pace times a
  uniform 0.9 to 1.1.
- ``copy-line``: one account copies move for move the best line of the honest games finished by
  21 h (a win with the most points, or on a day nobody has won, the most points), told out of band
  by its player (the knowledge rule shows nobody another's cards), from another address and
  device, starting 1 to 180 minutes (log-uniform) after that player finished, with an honest
  player's think times.  All the day's copiers copy that one line, as a leaked top line would be.
  Reported apart: copies of rare lines, which fewer than ``COMMON_LINE`` (1 in 100) of the day's
  honest players played themselves (the source aside), and which the target counts; and copies of
  common lines, which one game repeating cannot be told from an honest player's coincidence.

Regulars (``--regulars``; without it every day has players of its own, so no habit can show).
The same accounts come back every day of the run: ``--honest / 0.8`` honest accounts, each with
its temper, think times, address, device cookie and group (office, household or single, drawn as
above, once), a window of the day it plays in (drawn once from the start-time mix above; the
office's from its hours), and a chance of playing a given day drawn from 0.7 to 0.9
(``PLAY_CHANCE``), so a day has about ``--honest`` of them; a household that plays in one sitting
does so every day it plays.  The copiers are ``--cheaters / --days / 0.8`` accounts, each with its
address, device cookie and pace, each playing a day with a chance drawn from 0.7 to 0.9, at a time
as above; each day a copier plays it copies that day's top line, as above.  The other cheater
kinds are new accounts every day, as without ``--regulars``.  With ``--regulars`` the copy-line
target counts every copy, of rare lines or common: the habit is there to catch them all.

Every ranked game is scored when it finishes, against the day's games started by then, each as the
server had it at that moment (a game still going has its moves so far and no finish), with
``address_accounts`` counted from those games, as ``assess`` does, and, for a game that repeats
another's line, its ``population`` from the other players' games finished by the time the first
one it repeats did (``signals.population_cutoff``), as ``fairplay.services`` reads it from the
database.  Then ``line_habit`` across the days (``habits``), as ``fairplay.services`` reads it:
in the order games finish, each game's account's games of the ``HABIT_DAYS`` days up to it (the
preset's last ``HABIT_DAYS`` challenges: every day of a run is one of its preset), each a
hit or not as it was at its own finish (``signals.top_line_hit``), with its day's top share as it
stood then; a habit found raises the account's earlier hits to it (``services.habit_spread``).
Printed per kind: games, share flagged (at the end of the run, earlier hits raised; for copies
also when they finished), median, 1st and 99th percentile of the suspicion, and how often each signal fired
(above 0); the noise of the honest players whose games ``line_habit`` scored above 0 (a strong
player has a low one); then whether the targets of issue 39 hold (every cheater kind >= 95% flagged, honest
players <= 1%) and the time taken.  It prints figures; it asserts nothing.  ``--dump FILE``
writes each game's facts (its player's temper, whether it won, repeated an earlier line, was the
top so far, was a hit, and its final ``line_habit``), a JSON object a line, for studying
discriminators.
"""

from __future__ import annotations

import argparse
import bisect
import datetime as dt
import math
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import django

from fairplay import signals
from fairplay.signals import PlayRecord, assess
from games.engine import PRESETS, Game, Outcome, deal_from_seed, get_rules, parse_move

SOLVE_LIMIT_S = 2.0
HONEST = "honest"
CHEATER_KINDS = ("throwaway-same-address", "shared-device", "solver-bot", "copy-line")
#: Not a kind that is measured: the accounts the first two kinds burn to learn the deal.
THROWAWAY = "(throwaway accounts)"
MAX_MOVES = 400
#: A copied line that at least this share of the day's honest players played themselves (its source
#: aside) is common: one game repeating it is no evidence (docs/fairplay.md, *Measured*).
COMMON_LINE = 0.01
#: ``--regulars``: the chance an honest account or a copier plays a given day, drawn per account.
PLAY_CHANCE = (0.7, 0.9)
PLAY_CHANCE_MEAN = sum(PLAY_CHANCE) / 2
#: The share of honest players (without ``--regulars``) whose account was made that day, playing its
#: first game: a newcomer, who is to a linked account what a throwaway is (``signals.after_scout``).
NEWCOMERS = 0.05
EPOCH = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)


# ------------------------------------------------------------------ the deals


@dataclass(frozen=True)
class DayDeal:
    seed: int
    winning: tuple[str, ...]
    par: tuple[str, ...]


def winnable_deals(preset: str, days: int, rng: random.Random) -> list[DayDeal]:
    """The days' deals, found as the service finds a day's deal (``games.services._find_winnable``),
    from seeds this run's generator draws and with ``SOLVE_LIMIT_S`` a search."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "piramide_site.settings.local")
    django.setup()
    from games.models import SEED_BOUND
    from games.services import _find_winnable

    deals: list[DayDeal] = []
    while len(deals) < days:
        found = _find_winnable(preset, draw=lambda: rng.randrange(SEED_BOUND), time_limit=SOLVE_LIMIT_S)
        if found is not None:
            seed, fields = found
            deals.append(DayDeal(seed, tuple(fields["solver_line"].split()), tuple(fields["par_line"].split())))
    return deals


# ------------------------------------------------------------------ the honest player


@dataclass(frozen=True)
class Temper:
    """What makes one honest player unlike another."""

    noise: float
    overlook: float
    quit_per_move: float
    quit_last_pass: float
    think_median: float
    think_sigma: float

    @classmethod
    def draw(cls, rng: random.Random) -> Temper:
        return cls(
            noise=rng.uniform(0.2, 1.6),
            overlook=rng.uniform(0.0, 0.25),
            quit_per_move=rng.uniform(0.0, 0.01),
            quit_last_pass=rng.uniform(0.0, 0.3),
            think_median=math.exp(rng.uniform(math.log(1.2), math.log(6.0))),
            think_sigma=rng.uniform(0.5, 0.7),
        )


def _newly_free(rows: list[list[Any]], taken: set[tuple[int, int]]) -> int:
    """How many pyramid cards become free when the cards at ``taken`` (0-based row, col) leave."""
    count = 0
    for r, row in enumerate(rows[:-1]):
        for c, cell in enumerate(row):
            if cell is None or cell["free"] or (r, c) in taken:
                continue
            below = rows[r + 1]
            if all(below[c + d] is None or (r + 1, c + d) in taken for d in (0, 1)):
                count += 1
    return count


def move_value(view: dict[str, Any], move: str) -> float:
    """How much a plain player likes ``move`` in the position ``view`` shows."""
    if move == "D":
        return 0.3
    if move == "R":
        return 0.1
    if move[0] in "BT":
        return -1.0
    taken = {(int(r) - 1, int(c) - 1) for r, c in (part.split(".") for part in move.split("+") if "." in part)}
    if not taken:
        return 0.6  # a pair of stock and waste cards: frees nothing
    return 1.5 + 0.5 * len(taken) + 1.2 * _newly_free(view["rows"], taken)


def choose_move(view: dict[str, Any], temper: Temper, rng: random.Random) -> str | None:
    """The honest player's next move, or None to resign; ``view`` is ``Game.visible()``, all it knows."""
    legal: list[str] = view["legal_moves"]
    if not legal:
        return None
    if view["moves"] >= 10 and rng.random() < temper.quit_per_move:
        return None
    if view["recycles_left"] == 0 and view["stock"]["count"] > 0 and not view["waste"] and view["moves"] > 0:
        if rng.random() < temper.quit_last_pass:
            return None
    seen = [m for m in legal if m in ("D", "R") or m[0] in "BT" or rng.random() >= temper.overlook]
    if not seen:
        seen = legal
    return max(seen, key=lambda m: move_value(view, m) - temper.noise * math.log(-math.log(rng.random() or 1e-12)))


def play_honest(
    deal_game: Game, temper: Temper, rng: random.Random, chooser: Callable[..., str | None] = choose_move
) -> tuple[str, ...]:
    """The moves an honest player makes; the chooser sees only ``visible()``."""
    game = deal_game
    while game.outcome is Outcome.IN_PROGRESS and len(game.moves) < MAX_MOVES:
        move = chooser(game.visible(), temper, rng)
        if move is None:
            break
        game = game.apply(parse_move(move))
    return tuple(str(m) for m in game.moves)


def human_thinks(count: int, median: float, sigma: float, rng: random.Random) -> list[float]:
    times = []
    for number in range(count):
        seconds = median * math.exp(rng.gauss(0.0, sigma))
        if rng.random() < 1 / 40:
            seconds += rng.uniform(10, 120)
        if number == 0:
            seconds += rng.uniform(5, 30)
        times.append(seconds)
    return times


def human_pace(rng: random.Random) -> tuple[float, float]:
    return math.exp(rng.uniform(math.log(1.2), math.log(6.0))), rng.uniform(0.5, 0.7)


# ------------------------------------------------------------------ one day


@dataclass
class World:
    rng: random.Random
    #: Draws which honest players are newcomers (``NEWCOMERS``), apart from ``rng`` so that a seed
    #: deals the same days and plays the same games whatever the share.
    newcomers: random.Random = field(default_factory=lambda: random.Random(0))
    newcomer_share: float = NEWCOMERS
    next_id: int = 1
    next_address: int = 1

    def new_id(self) -> int:
        self.next_id += 1
        return self.next_id

    def address(self) -> str:
        self.next_address += 1
        return f"198.51.{self.next_address // 250}.{self.next_address % 250}"

    def device(self) -> str:
        return f"dev-{self.rng.getrandbits(48):012x}"


def record(
    world: World,
    start: dt.datetime,
    moves: tuple[str, ...],
    thinks: list[float],
    address: str,
    device: str,
    player_id: int | None = None,
    newcomer: bool = False,
) -> PlayRecord:
    times, now = [], start
    for seconds in thinks:
        now += dt.timedelta(seconds=seconds)
        times.append(now)
    finished = now + dt.timedelta(seconds=world.rng.uniform(1, 20)) if not times else times[-1]
    game_id = world.new_id()
    return PlayRecord(
        game_id,
        game_id if player_id is None else player_id,
        start,
        finished,
        moves,
        tuple(times),
        address,
        device,
        newcomer=newcomer,
    )


def start_time(day: dt.datetime, rng: random.Random) -> dt.datetime:
    window = rng.choices([(7, 9), (12, 14), (18, 23), (6, 24)], weights=[15, 20, 45, 20])[0]
    return day + dt.timedelta(hours=rng.uniform(*window))


@dataclass
class DayPlays:
    records: list[PlayRecord]
    kinds: dict[int, str]
    groups: dict[int, str]


def simulate_day(
    world: World, preset: str, deal: DayDeal, day: dt.datetime, honest: int, cheaters: dict[str, int]
) -> DayPlays:
    rng = world.rng
    start_game = Game.start(deal_from_seed(get_rules(preset), deal.seed))
    plays = DayPlays([], {}, {})

    def honest_game(start: dt.datetime, address: str, group: str) -> PlayRecord:
        temper = Temper.draw(rng)
        moves = play_honest(start_game, temper, rng)
        rec = record(
            world,
            start,
            moves,
            human_thinks(len(moves), temper.think_median, temper.think_sigma, rng),
            address,
            world.device(),
            newcomer=world.newcomers.random() < world.newcomer_share,
        )
        plays.records.append(rec)
        plays.kinds[rec.game_id], plays.groups[rec.game_id] = HONEST, group
        return rec

    left = honest
    if honest >= 50:
        office = world.address()
        for _ in range(25):
            hour = rng.uniform(12, 13) if rng.random() < 0.3 else rng.uniform(9, 17)
            honest_game(day + dt.timedelta(hours=hour), office, "office")
        left -= 25
    households = round(left * 0.1 / 2.5)
    for _ in range(households):
        size = min(left, rng.choice((2, 3)))
        address, together, start = world.address(), rng.random() < 0.6, start_time(day, rng)
        for _ in range(size):
            rec = honest_game(start, address, "household")
            start = rec.finished_at + dt.timedelta(minutes=rng.uniform(0, 15)) if together else start_time(day, rng)
        left -= size
    for _ in range(max(0, left)):
        honest_game(start_time(day, rng), world.address(), "single")

    for kind, count in cheaters.items():
        for _ in range(count):
            cheat(world, kind, deal, start_game, day, plays)
    return plays


@dataclass(frozen=True)
class Regular:
    """An account that comes back (``--regulars``): who it is stays the same every day of the run."""

    player_id: int
    address: str
    device: str
    #: single, household or office; for a household, its number and whether it plays in one sitting
    group: str
    #: The chance it plays a given day, and when in the day it plays (hours).
    chance: float
    window: tuple[float, float]
    temper: Temper | None = None
    household: int = 0
    together: bool = False
    #: A copier's pace (median, sigma): copiers copy, so they need no temper.
    pace: tuple[float, float] = (0.0, 0.0)


def regulars_draw(world: World, honest: int, copiers: int) -> tuple[list[Regular], list[Regular]]:
    """The run's honest accounts and copiers.  So that a day has ``honest`` honest players on average,
    there are ``honest / PLAY_CHANCE_MEAN`` of them, each playing a day with a chance of its own; the
    office's 25 and the households' share are as a day of ``simulate_day`` has them."""
    rng = world.rng
    accounts = round(honest / PLAY_CHANCE_MEAN)

    def chance() -> float:
        return rng.uniform(*PLAY_CHANCE)

    def window() -> tuple[float, float]:
        return rng.choices([(7, 9), (12, 14), (18, 23), (6, 24)], weights=[15, 20, 45, 20])[0]

    found: list[Regular] = []
    left = accounts
    if honest >= 50:
        office = world.address()
        for _ in range(25):
            hours = (12, 13) if rng.random() < 0.3 else (9, 17)
            found.append(Regular(world.new_id(), office, world.device(), "office", chance(), hours, Temper.draw(rng)))
        left -= 25
    for number in range(1, round(left * 0.1 / 2.5) + 1):
        size, address, together, hours = rng.choice((2, 3)), world.address(), rng.random() < 0.6, window()
        for _ in range(size):
            found.append(
                Regular(
                    world.new_id(),
                    address,
                    world.device(),
                    "household",
                    chance(),
                    hours,
                    Temper.draw(rng),
                    number,
                    together,
                )
            )
        left -= size
    for _ in range(max(0, left)):
        found.append(
            Regular(world.new_id(), world.address(), world.device(), "single", chance(), window(), Temper.draw(rng))
        )
    copying = [
        Regular(world.new_id(), world.address(), world.device(), "copier", chance(), (6, 24), pace=human_pace(rng))
        for _ in range(copiers)
    ]
    return found, copying


def simulate_regular_day(
    world: World,
    preset: str,
    deal: DayDeal,
    day: dt.datetime,
    regulars: list[Regular],
    copiers: list[Regular],
    cheaters: dict[str, int],
) -> DayPlays:
    """A day of ``--regulars``: each honest account plays with its chance, at a time in its window,
    with its temper; a household that plays in one sitting plays one after another; each copier
    that plays copies the day's top line.  The other cheater kinds are new accounts each day."""
    rng = world.rng
    start_game = Game.start(deal_from_seed(get_rules(preset), deal.seed))
    plays = DayPlays([], {}, {})
    sitting: dict[int, dt.datetime] = {}
    for regular in regulars:
        if rng.random() >= regular.chance or regular.temper is None:
            continue
        start = day + dt.timedelta(hours=rng.uniform(*regular.window))
        if regular.together and regular.household in sitting:
            start = sitting[regular.household] + dt.timedelta(minutes=rng.uniform(0, 15))
        temper = regular.temper
        moves = play_honest(start_game, temper, rng)
        rec = record(
            world,
            start,
            moves,
            human_thinks(len(moves), temper.think_median, temper.think_sigma, rng),
            regular.address,
            regular.device,
            regular.player_id,
        )
        if regular.together:
            sitting[regular.household] = rec.finished_at
        plays.records.append(rec)
        plays.kinds[rec.game_id], plays.groups[rec.game_id] = HONEST, regular.group
    for kind, count in cheaters.items():
        if kind == "copy-line":
            continue
        for _ in range(count):
            cheat(world, kind, deal, start_game, day, plays)
    for copier in copiers:
        if rng.random() < copier.chance:
            cheat(world, "copy-line", deal, start_game, day, plays, copier)
    return plays


def cheat(
    world: World,
    kind: str,
    deal: DayDeal,
    start_game: Game,
    day: dt.datetime,
    plays: DayPlays,
    copier: Regular | None = None,
) -> None:
    rng = world.rng
    line = deal.par if rng.random() < 0.5 else deal.winning
    if kind == "solver-bot":
        pace = rng.uniform(0.3, 1.5)
        thinks = [pace * rng.uniform(0.9, 1.1) for _ in line]
        rec = record(world, start_time(day, rng), line, thinks, world.address(), world.device())
    elif kind == "copy-line":
        finished = [
            r
            for r in plays.records
            if plays.kinds[r.game_id] == HONEST and r.finished_at < day + dt.timedelta(hours=21)
        ]
        # a winner's line, or on a day nobody has won by then the best-scoring line
        scores = {r.game_id: _final(start_game, r.moves) for r in finished}
        best = max((scores[r.game_id] for r in finished), default=(False, 0))
        source = rng.choice([r for r in finished if scores[r.game_id] == best])
        start = source.finished_at + dt.timedelta(minutes=math.exp(rng.uniform(0, math.log(180))))
        if copier is None:
            rec = record(
                world,
                start,
                source.moves,
                human_thinks(len(source.moves), *human_pace(rng), rng),
                world.address(),
                world.device(),
            )
        else:
            rec = record(
                world,
                start,
                source.moves,
                human_thinks(len(source.moves), *copier.pace, rng),
                copier.address,
                copier.device,
                copier.player_id,
            )
        # a line that honest players often play themselves cannot be told from their coincidence
        honest = [r for r in plays.records if plays.kinds[r.game_id] == HONEST]
        found = sum(1 for r in honest if r is not source and repeats(r.moves, source.moves)) / len(honest)
        plays.groups[rec.game_id] = "rare" if found < COMMON_LINE else "common"
    else:
        address, device = world.address(), world.device()
        throwaway = record(
            world,
            start_time(day, rng),
            learn_the_deal(start_game),
            human_thinks(len(learn_the_deal(start_game)), rng.uniform(0.5, 1.5), 0.5, rng),
            address,
            device,
            newcomer=True,
        )
        plays.records.append(throwaway)
        plays.kinds[throwaway.game_id] = THROWAWAY
        if kind == "throwaway-same-address":
            device = world.device()
        else:
            address = world.address()
        start = throwaway.finished_at + dt.timedelta(minutes=rng.uniform(0.5, 10))
        rec = record(world, start, line, human_thinks(len(line), *human_pace(rng), rng), address, device)
    plays.records.append(rec)
    plays.kinds[rec.game_id] = kind


def repeats(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Whether two lines are one, as ``signals.copied_games`` compares them."""
    return signals.common_prefix(a, b) >= signals.COPY_SHARE * max(len(a), len(b)) > 0


@lru_cache(maxsize=64)
def learn_the_deal(start_game: Game) -> tuple[str, ...]:
    """A throwaway's game: draw through the stock (removing only when drawing is refused), then resign."""
    game = start_game
    while game.outcome is Outcome.IN_PROGRESS and game.stock:
        legal = game.legal_moves()
        game = game.apply(next((m for m in legal if str(m) == "D"), legal[0]))
    return tuple(str(m) for m in game.moves)


def _final(start_game: Game, moves: tuple[str, ...]) -> tuple[bool, int]:
    """Whether ``moves`` won, and their score."""
    game = Game.replay(start_game.deal, [parse_move(m) for m in moves])
    return game.outcome is Outcome.WON, game.score


# ------------------------------------------------------------------ scoring


def as_seen_at(other: PlayRecord, moment: dt.datetime) -> PlayRecord:
    """``other`` as the server had it at ``moment``: a game still going has no finish yet."""
    if other.finished_at is not None and other.finished_at <= moment:
        return other
    kept = sum(1 for t in other.move_times if t <= moment)
    return replace(other, finished_at=None, moves=other.moves[:kept], move_times=other.move_times[:kept])


def score_day(
    plays: DayPlays, deal: DayDeal, preset: str, hits: dict[int, bool], facts: dict[int, dict[str, Any]] | None = None
) -> list[tuple[PlayRecord, signals.Assessment]]:
    """Every game of the day assessed at its finish; ``hits`` gets whether each was a top-line hit
    (``signals.top_line_hit``), which ``habits`` reads across days."""
    lines = (deal.winning, deal.par)
    cards = deal_from_seed(get_rules(preset), deal.seed)
    start_game = Game.start(cards)
    ended = {}
    for play in plays.records:
        won, points = _final(start_game, play.moves)
        ended[play.game_id] = replace(play, won=won, score=points)
    scored = []
    for play in ended.values():
        moment = play.finished_at
        others = [as_seen_at(o, moment) for o in ended.values() if o.game_id != play.game_id and o.started_at <= moment]
        until = signals.population_cutoff(play, others, cards)
        population = (
            None
            if until is None
            else signals.population_of(
                play.moves,
                (
                    (o.moves, o.score)
                    for o in others
                    if o.finished_at is not None and o.finished_at <= until and o.player_id != play.player_id
                ),
            )
        )
        scored.append((play, assess(play, others, solver_lines=lines, deal=cards, population=population)))
        hits[play.game_id] = signals.top_line_hit(play, others)
        if facts is not None:
            finished = [o for o in others if o.finished_at is not None and o.player_id != play.player_id]
            reps = signals.copied_games(play, others)
            best = max((o.score or 0 for o in finished), default=None)
            scores = sorted(o.score or 0 for o in finished)
            facts[play.game_id] = {
                "won": play.won,
                "score": play.score,
                "moves": len(play.moves),
                "finished": len(finished),
                "reps": len({o.player_id for o in reps}),
                "rep_before_start": any(o.finished_at is not None and o.finished_at <= play.started_at for o in reps),
                "rep_gap_min": min(
                    ((play.started_at - o.finished_at).total_seconds() / 60 for o in reps if o.finished_at is not None),
                    default=None,
                ),
                "top": best is not None and (play.score or 0) >= best,
                "rep_top": any((o.score or 0) == best for o in reps),
                "pays": play.won or (bool(scores) and (play.score or 0) >= scores[int(0.9 * (len(scores) - 1))]),
                "hour": (play.finished_at - EPOCH).total_seconds() / 3600 % 24 if play.finished_at else None,
            }
    return scored


def habits(
    days: list[list[tuple[PlayRecord, signals.Assessment]]], hits: dict[int, bool]
) -> tuple[dict[int, signals.Assessment], dict[int, signals.Assessment]]:
    """``line_habit`` across the run's days, as ``fairplay.services`` reads it: in the order games
    finish, each game's account's games of the ``HABIT_DAYS`` days (the preset's challenges) up to it
    (finished by then), with
    each day's top share as it stood then; the signal joins the game's assessment, and the account's
    earlier hits in those days are raised to it (``services.habit_spread``).  Returns every game's
    assessment at the end of the run, and as it was when the game finished."""
    final: dict[int, signals.Assessment] = {}
    day_of: dict[int, int] = {}
    tops: list[tuple[list[dt.datetime], list[float]]] = []
    for number, scored in enumerate(days):
        ended = sorted((play.finished_at, play.score or 0) for play, _ in scored if play.moves and play.finished_at)
        top, at_top, shares = None, 0, []
        for count, (_, score) in enumerate(ended, start=1):
            if top is None or score > top:
                top, at_top = score, 0
            at_top += score == top
            shares.append(at_top / count)
        tops.append(([at for at, _ in ended], shares))
        for play, found in scored:
            final[play.game_id], day_of[play.game_id] = found, number

    def share(number: int, moment: dt.datetime) -> float:
        finishes, shares = tops[number]
        seen = bisect.bisect_right(finishes, moment)
        return shares[seen - 1] if seen else 0.0

    games = sorted((play for scored in days for play, _ in scored if play.finished_at), key=lambda p: p.finished_at)
    mine: dict[int, list[PlayRecord]] = {}
    at_finish = {}
    for play in games:
        moment, number = play.finished_at, day_of[play.game_id]
        history = mine.setdefault(play.player_id, [])
        history.append(play)
        window = [g for g in history if day_of[g.game_id] > number - signals.HABIT_DAYS]
        habit = [
            signals.HabitDay(
                g.game_id,
                (EPOCH + dt.timedelta(days=day_of[g.game_id])).date(),
                hits[g.game_id],
                share(day_of[g.game_id], moment),
            )
            for g in window
        ]
        value = signals.line_habit(play.game_id, habit)
        if value > 0:
            for day in habit:
                if day.hit and final[day.game_id].signals["line_habit"] < value:
                    final[day.game_id] = signals.with_signal(final[day.game_id], "line_habit", value)
        at_finish[play.game_id] = final[play.game_id]
    return final, at_finish


# ------------------------------------------------------------------ the report


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(share * len(ordered)) - 1))]


def report(rows: dict[str, list[signals.Assessment]]) -> list[str]:
    names = list(signals.WEIGHTS)
    out = [
        f"{'kind':<26} {'games':>6} {'flagged':>8} {'median':>7} {'p1':>6} {'p99':>6}   signals fired (share of games)"
    ]
    for kind, found in rows.items():
        if not found:
            out.append(f"{kind:<26} {0:>6}")
            continue
        suspicion = [a.suspicion for a in found]
        flagged = sum(a.flagged for a in found) / len(found)
        fired = [
            f"{name} {sum(a.signals[name] > 0 for a in found) / len(found):.0%}"
            for name in names
            if any(a.signals[name] > 0 for a in found)
        ]
        out.append(
            f"{kind:<26} {len(found):>6} {flagged:>8.2%} {statistics.median(suspicion):>7.3f} "
            f"{percentile(suspicion, 0.01):>6.3f} {percentile(suspicion, 0.99):>6.3f}   {', '.join(fired) or '-'}"
        )
    return out


def run(args: argparse.Namespace) -> list[str]:
    began = time.perf_counter()
    rng = random.Random(args.seed)
    deals = winnable_deals(args.preset, args.days, rng)
    solved = time.perf_counter()
    world = World(rng, random.Random(f"newcomers-{args.seed}"), args.newcomers)
    per_day = {
        kind: [args.cheaters // args.days + (day < args.cheaters % args.days) for day in range(args.days)]
        for kind in CHEATER_KINDS
    }
    days = []
    regulars: list[Regular] = []
    copiers: list[Regular] = []
    if args.regulars:
        regulars, copiers = regulars_draw(world, args.honest, round(args.cheaters / args.days / PLAY_CHANCE_MEAN))
    for number, deal in enumerate(deals):
        day = EPOCH + dt.timedelta(days=number)
        counts = {kind: counts[number] for kind, counts in per_day.items()}
        if args.regulars:
            days.append((simulate_regular_day(world, args.preset, deal, day, regulars, copiers, counts), deal))
        else:
            days.append((simulate_day(world, args.preset, deal, day, args.honest, counts), deal))
    played = time.perf_counter()
    rows: dict[str, list[signals.Assessment]] = {HONEST: [], "  single": [], "  household": [], "  office": []}
    for kind in CHEATER_KINDS:
        rows[kind] = []
        if kind == "copy-line":
            rows["  of rare lines"] = []
            rows["  of common lines"] = []
            rows["  flagged at their finish"] = []
    rows[THROWAWAY] = []
    wins = honest = 0
    facts: dict[int, dict[str, Any]] = {}
    tempers = {r.player_id: r.temper for r in regulars}
    hits: dict[int, bool] = {}
    assessed = [score_day(plays, deal, args.preset, hits, facts if args.dump else None) for plays, deal in days]
    final, at_finish = habits(assessed, hits)
    dump = []
    strong = []
    for number, ((plays, deal), scored_day) in enumerate(zip(days, assessed)):
        for play, _ in scored_day:
            found = final[play.game_id]
            kind = plays.kinds[play.game_id]
            if args.dump:
                temper = tempers.get(play.player_id)
                dump.append(
                    {
                        "day": number,
                        "player": play.player_id,
                        "kind": kind,
                        "group": plays.groups.get(play.game_id),
                        "noise": temper and temper.noise,
                        "overlook": temper and temper.overlook,
                        "flagged": found.flagged,
                        "hit": hits[play.game_id],
                        "habit": found.signals["line_habit"],
                        **facts[play.game_id],
                    }
                )
            rows[kind].append(found)
            if kind == "copy-line":
                rows[f"  of {plays.groups[play.game_id]} lines"].append(found)
                rows["  flagged at their finish"].append(at_finish[play.game_id])
            if kind == HONEST:
                rows["  " + plays.groups[play.game_id]].append(found)
                honest += 1
                wins += _final(Game.start(deal_from_seed(get_rules(args.preset), deal.seed)), play.moves)[0]
                if found.signals["line_habit"] > 0:
                    temper = tempers.get(play.player_id)
                    strong.append(temper.noise if temper else None)
    scored = time.perf_counter()
    if args.dump:
        import json

        Path(args.dump).write_text("\n".join(json.dumps(row) for row in dump))
    out = [
        f"fairplay bench: preset {args.preset}, {args.days} days, {args.honest} honest players a day, "
        f"{args.cheaters} cheaters of each kind, seed {args.seed}, newcomers {args.newcomers:.0%}",
        f"THRESHOLD {signals.THRESHOLD}, WEIGHTS {signals.WEIGHTS}",
        f"honest players won {wins / max(1, honest):.0%} of their games; "
        f"median line lengths: winning {statistics.median(len(d.winning) for d in deals)}, "
        f"par {statistics.median(len(d.par) for d in deals)}",
        "",
        *report(rows),
        "",
    ]
    # one game repeating a line that honest players often play is no evidence, so the copy-line
    # target counts copies of rare lines (docs/fairplay.md, *Measured*)
    measured = {kind: rows[kind] for kind in CHEATER_KINDS}
    # (with --regulars the habit is there to catch every copy, rare line or common: all of them count)
    if not args.regulars:
        measured["copy-line"] = rows["  of rare lines"]
    cheater_rates = {kind: sum(a.flagged for a in found) / len(found) for kind, found in measured.items() if found}
    honest_rate = sum(a.flagged for a in rows[HONEST]) / max(1, len(rows[HONEST]))
    lowest = min(cheater_rates.values(), default=0.0)
    weakest = ", ".join(kind for kind, rate in cheater_rates.items() if rate == lowest)
    unmeasured = [kind for kind, found in measured.items() if not found]
    if strong:
        noises = sorted(f"{n:.2f}" for n in strong if n is not None)
        out.append(
            f"line_habit above 0 on honest games: {len(strong)}, their players' noise {', '.join(noises)} "
            f"(drawn from 0.2 to 1.6; low is strong)"
        )
    else:
        out.append("line_habit above 0 on honest games: none")
    out.append(
        f"target every cheater kind >= 95% flagged (copies: {'all' if args.regulars else 'of rare lines'}): "
        f"{'yes' if all(r >= 0.95 for r in cheater_rates.values()) else 'NO'} (lowest {lowest:.1%}: {weakest})"
        + (f"; nothing to measure for {', '.join(unmeasured)}" if unmeasured else "")
    )
    out.append(f"target honest players <= 1% flagged: {'yes' if honest_rate <= 0.01 else 'NO'} ({honest_rate:.2%})")
    out.append(
        f"time: {scored - began:.1f} s (solver {solved - began:.1f} s, play {played - solved:.1f} s, "
        f"scoring {scored - played:.1f} s)"
    )
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("--honest", type=int, default=250, help="honest players a day")
    parser.add_argument("--cheaters", type=int, default=60, help="cheaters of each kind, over all the days")
    parser.add_argument("--days", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--preset", default="classic", choices=list(PRESETS))
    parser.add_argument(
        "--regulars",
        action="store_true",
        help="the same honest accounts and copiers come back every day (a habit can show)",
    )
    parser.add_argument(
        "--newcomers",
        type=float,
        default=NEWCOMERS,
        help="the share of honest players (without --regulars) whose account is that day's",
    )
    parser.add_argument("--dump", help="write each game's facts to this file, a JSON object a line")
    args = parser.parse_args(argv)
    print("\n".join(run(args)), flush=True)


if __name__ == "__main__":
    main()
