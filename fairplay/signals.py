"""The signals of fair play: how much a finished ranked game looks like one its player did not play
alone.  Pure functions over what the server saw (addresses, device cookies, move times, the lines
played), so the Celery task and ``bench/fairplay.py`` score games the same way.

Each signal is a number from 0 to 1 with a weight; the sum of weighted signals is the game's
suspicion, and a game at or above ``THRESHOLD`` goes to review.  The weights and thresholds are
the ones ``bench/fairplay.py`` measured (docs/fairplay.md, *Detection*).
"""

from __future__ import annotations

import bisect
import datetime as dt
import functools
import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from games.engine import Deal

#: Suspicion at or above this sends a score to review.
THRESHOLD = 1.0

#: An address that more accounts than this played the same challenge from is shared (a school, an
#: office, a carrier's NAT): a link through it says nothing.
SHARED_ADDRESS_ACCOUNTS = 3
#: A finish this soon after a linked account's finish counts as "right after".
AFTER_LINKED = dt.timedelta(minutes=30)
#: Think times: a median below FAST_LOW seconds is inhumanly fast (1), above FAST_HIGH human (0).
FAST_LOW, FAST_HIGH = 0.45, 0.9
#: Think times: a coefficient of variation below STEADY_LOW is machine-steady (1), above STEADY_HIGH human (0).
#: Weighed to send a game to review on its own: of 200,000 honest games drawn from bench/fairplay.py's
#: model of people, the steadiest came to 0.1296 and one in a hundred below 0.294 (docs/fairplay.md, *Timing*).
STEADY_LOW, STEADY_HIGH = 0.12, 0.2
#: Timing signals need this many think times to say anything.
TIMING_MIN_MOVES = 12
#: Line signals count *decisions* (``decisions``): the moves of a line that chose between
#: removals, or drew while a removal was there.  A forced move tells nothing, and honest players
#: of a forced deal find the same line (bench/fairplay.py: on a classic deal a tenth of honest
#: games repeat an earlier game whole).
#: The solver's line: the share of its decisions the game followed from its first move, below
#: SOLVER_LOW nothing (0), at SOLVER_HIGH and above everything (1); a solver line with fewer than
#: SOLVER_MIN_DECISIONS decisions is not compared.
SOLVER_LOW, SOLVER_HIGH = 0.5, 0.9
SOLVER_MIN_DECISIONS = 3
#: Another player's line: the two games the same for at least COPY_SHARE of the longer one (a
#: short game's opening, followed by a longer game, is no copy), and scored by the decisions
#: followed, below COPY_LOW nothing (0), at COPY_HIGH and above everything (1).  Copying a line of
#: fewer decisions gains nothing over playing it: an honest player finds it too.  Forty-card deals
#: (``COPY_FORTY``) need more: honest players of them repeat one another more (bench/fairplay.py).
COPY_SHARE = 0.95
COPY_LOW, COPY_HIGH = 6, 9
COPY_FORTY = (9, 12)
#: Another player's line, by how rare its choices are on the day (``rarity``): the share of the
#: challenge's players who made every choice this game made, itself counted, at or below RARE_ALL
#: everything (1), at or above RARE_NONE nothing (0).  Only a copy that pays is scored this way:
#: the game won, or scored at least as much as PAYS_SHARE of the population's games (``pays``).
#: Not on forty-card deals: their honest winners gather on a few lines, and at every rarity honest
#: repeats come as often as copies (bench/fairplay.py; docs/fairplay.md, *Measured*).
RARE_ALL, RARE_NONE = 0.04, 0.08
PAYS_SHARE = 0.9
#: An account's habit of winning with another's line (``line_habit``), read over its ranked games of
#: the same preset in its last HABIT_DAYS challenges up to this game's (days of a daily preset, turns
#: of a variant of the day, which comes back every few days).  A game of it is a *hit*
#: (``top_line_hit``) when it repeats, as ``copied_games`` compares lines, a line of the same length
#: another account finished before it, and scored at least as much as every game other accounts had
#: finished by then: the day's top line so far, which is what a leaked line is.  Each day is weighed
#: by how many of its players reached the day's top score (its *top share* ``p``): a hit adds
#: log(HABIT_COPY / p), a game that is no hit log((1 - HABIT_COPY) / (1 - p)), the log of how much
#: likelier that day is from an account that copies the top line on HABIT_COPY of its days than from
#: one that reaches it as often as the day's players did.  ``p`` is taken between HABIT_FLOOR and
#: HABIT_CAP (a single day never says much).  The sum scores from 0 at HABIT_LOW to 1 at HABIT_HIGH,
#: only on a game that is a hit itself, and only with HABIT_MIN_HITS hits or more.
#: bench/fairplay.py ``--regulars`` measured the bounds (docs/fairplay.md, *Measured*).
HABIT_DAYS = 14
HABIT_COPY = 0.95
HABIT_FLOOR, HABIT_CAP = 0.05, 0.9
HABIT_MIN_HITS = 2
HABIT_LOW, HABIT_HIGH = 3.5, 4.0

WEIGHTS = {
    "device_link": 0.6,
    "address_link": 0.45,
    "after_linked": 0.3,
    "fast": 0.55,
    "steady": 1.0,
    "solver_line": 0.75,
    "copied_line": 1.0,
    "line_habit": 1.0,
    "after_scout": 0.3,
}


@dataclass(frozen=True)
class PlayRecord:
    """One ranked game of a challenge as the server saw it."""

    game_id: int
    player_id: int | None
    started_at: dt.datetime
    finished_at: dt.datetime | None
    #: The moves, in the engine's notation, and when each was stored.
    moves: tuple[str, ...]
    move_times: tuple[dt.datetime, ...]
    address: str | None = None
    device: str | None = None
    #: How the game ended: won, and its points (None while it goes on).
    won: bool = False
    score: int | None = None
    #: The account was made on the challenge's day or later (a guest's included) and this is its only
    #: ranked game: what a throwaway made to look at the deal is (``after_scout``).
    newcomer: bool = False


@dataclass(frozen=True)
class Population:
    """What the challenge's other players did, as far as one game's line is concerned: their ranked
    games with at least one move that finished by the time the first game this one repeats did
    (``games``; ``population_cutoff``), how many of them played the same first ``k + 1`` moves as
    this game (``agreeing[k]``), and their scores.  ``population_of`` makes one from
    lines; ``fairplay.services.challenge_population`` from the database.

    Only the games up to the first repeat: the later ones may hold more copies of the same line,
    and a line copied ten times would look common."""

    games: int = 0
    agreeing: tuple[int, ...] = ()
    #: The points of those games, lowest first (a game without points is left out).
    scores: tuple[int, ...] = ()


@dataclass(frozen=True)
class HabitDay:
    """One of an account's ranked games as ``line_habit`` reads it: whether it was a hit
    (``top_line_hit``, at its finish), and its day's top share when the habit is read (the share of
    the challenge's finished ranked games with a move that reached the top score of them)."""

    game_id: int
    day: dt.date
    hit: bool
    top_share: float


@dataclass(frozen=True)
class Assessment:
    signals: dict[str, float]
    suspicion: float
    #: Other accounts this one is linked to on the challenge, with how (device, address).
    linked: dict[int, str] = field(default_factory=dict)

    @property
    def flagged(self) -> bool:
        return self.suspicion >= THRESHOLD


def think_times(play: PlayRecord) -> list[float]:
    """Seconds before each move: from the start to the first, then between moves."""
    times = [play.started_at, *play.move_times]
    return [(b - a).total_seconds() for a, b in zip(times, times[1:])]


def _ramp_down(value: float, low: float, high: float) -> float:
    """1 at or below ``low``, 0 at or above ``high``, straight in between."""
    if value <= low:
        return 1.0
    if value >= high:
        return 0.0
    return (high - value) / (high - low)


def _ramp_up(value: float, low: float, high: float) -> float:
    return 1.0 - _ramp_down(value, low, high)


#: Moves a hand repeats in rhythm (draw, redeal, return three): people tap through a stock as
#: steadily as a machine does, so only the time before a removal, which is finding a pair, is timed.
TAPS = frozenset({"D", "R", "T"})


def timing_signals(play: PlayRecord) -> dict[str, float]:
    """Faster or steadier think times before removals than people show (bench/fairplay.py measures both)."""
    # the first think time includes reading the deal, and a player's long pauses are theirs: only
    # the removals in between, without the slowest tenth, say how a hand moves
    gaps = [gap for gap, move in zip(think_times(play)[1:], play.moves[1:]) if move not in TAPS]
    if len(gaps) < TIMING_MIN_MOVES:
        return {"fast": 0.0, "steady": 0.0}
    gaps = sorted(gaps)[: max(TIMING_MIN_MOVES, int(len(gaps) * 0.9))]
    median = statistics.median(gaps)
    mean = statistics.fmean(gaps)
    spread = statistics.pstdev(gaps) / mean if mean > 0 else 0.0
    return {"fast": _ramp_down(median, FAST_LOW, FAST_HIGH), "steady": _ramp_down(spread, STEADY_LOW, STEADY_HIGH)}


def common_prefix(a: Sequence[str], b: Sequence[str]) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def decisions(deal: Deal | None, line: Sequence[str]) -> list[bool]:
    """``line_decisions`` for any sequence of moves."""
    return list(line_decisions(deal, tuple(line)))


@functools.lru_cache(maxsize=1024)
def line_decisions(deal: Deal | None, line: tuple[str, ...]) -> tuple[bool, ...]:
    """For each move of a line, whether it was a decision: the position offered two removals or
    more, or the move drew (or turned the waste) while a removal was there to take.  Taking the
    one removal there is, or drawing when nothing can be removed, is what anyone does.  Without
    the deal, every move counts as one; a move the deal refuses ends the line.  Remembered: every
    game of a challenge is compared with the same solver lines."""
    if deal is None:
        return (True,) * len(line)
    from games.engine import Game, IllegalMoveError, NotationError, parse_move

    state = Game.start(deal)
    found: list[bool] = []
    for text in line:
        removals = sum(str(move) not in ("D", "R") for move in state.legal_moves())
        found.append(removals >= 2 or (removals == 1 and text in ("D", "R")))
        try:
            state = state.apply(parse_move(text))
        except (IllegalMoveError, NotationError):
            break
    return tuple(found)


def solver_share(moves: Sequence[str], line: Sequence[str], choices: Sequence[bool]) -> float:
    """How much of the solver's ``line`` (``choices``: its decisions) the game followed from the start,
    counted in decisions, scored 0 to 1."""
    total = sum(choices)
    if total < SOLVER_MIN_DECISIONS:
        return 0.0
    followed = sum(choices[: common_prefix(moves, line)])
    return _ramp_up(followed / total, SOLVER_LOW, SOLVER_HIGH)


def _forty_cards(deal: Deal | None) -> bool:
    return deal is not None and len(deal.pyramid) + len(deal.stock) == 40


def copy_bounds(deal: Deal | None) -> tuple[int, int]:
    """The decisions a copied line needs (``COPY_LOW``, ``COPY_HIGH``) for this deal."""
    return COPY_FORTY if _forty_cards(deal) else (COPY_LOW, COPY_HIGH)


def rare_bounds(deal: Deal | None) -> tuple[float, float] | None:
    """How rare a copied line's choices must be (``RARE_ALL``, ``RARE_NONE``) on this deal; None
    where rarity tells nothing (forty-card deals)."""
    return None if _forty_cards(deal) else (RARE_ALL, RARE_NONE)


def copy_share(
    moves: Sequence[str], line: Sequence[str], choices: Sequence[bool], bounds: tuple[int, int] = (COPY_LOW, COPY_HIGH)
) -> float:
    """Whether the game copies another player's ``line`` (``choices``: its decisions), scored 0 to 1
    by the decisions copied, between ``bounds``."""
    shared = common_prefix(moves, line)
    if not line or shared < COPY_SHARE * max(len(line), len(moves)):
        return 0.0
    return _ramp_up(sum(choices[:shared]), *bounds)


def population_cutoff(play: PlayRecord, others: Iterable[PlayRecord], deal: Deal | None) -> dt.datetime | None:
    """When the first game this one repeats finished (``copied_games``): the games finished by then
    are its ``Population``.  None when it repeats none, or on a deal where rarity tells nothing
    (``rare_bounds``): no population is needed then."""
    if rare_bounds(deal) is None:
        return None
    return min((other.finished_at for other in copied_games(play, others) if other.finished_at), default=None)


def population_of(moves: Sequence[str], others: Iterable[tuple[Sequence[str], int | None]]) -> Population:
    """The ``Population`` of a game whose line is ``moves`` among other finished games, given as
    (line, score) pairs; a game of no move is no player's choice and is left out."""
    agreeing = [0] * len(moves)
    games, scores = 0, []
    for line, score in others:
        if not line:
            continue
        games += 1
        if score is not None:
            scores.append(score)
        for k in range(common_prefix(moves, line)):
            agreeing[k] += 1
    return Population(games, tuple(agreeing), tuple(sorted(scores)))


def rarity(moves: Sequence[str], line: Sequence[str], choices: Sequence[bool], population: Population) -> float:
    """How rare, on the day, the choices are that this game shares with another player's ``line``
    (``choices``: the line's decisions): the share of players who made them all, this game counted.

    Each decision's share is the players who chose as this game did among those who reached it, and
    the product of those shares along the line is the share that made every choice up to the last
    decision the two games share: (agreeing there + 1) / (games + 1).  1.0 when they share no
    decision."""
    shared = min(common_prefix(moves, line), len(choices), len(population.agreeing))
    last = max((k for k in range(shared) if choices[k]), default=None)
    if last is None:
        return 1.0
    return (population.agreeing[last] + 1) / (population.games + 1)


def pays(play: PlayRecord, population: Population) -> bool:
    """Whether a copy of this game's line was worth making: it won, or scored at least as much as
    ``PAYS_SHARE`` of the population's games."""
    if play.won:
        return True
    if play.score is None or not population.scores:
        return False
    return bisect.bisect_right(population.scores, play.score) >= PAYS_SHARE * len(population.scores)


def copied_games(play: PlayRecord, others: Iterable[PlayRecord]) -> list[PlayRecord]:
    """Other accounts' games, finished before this one, that this game repeats: the same for at least
    ``COPY_SHARE`` of the longer of the two."""
    return [
        other
        for other in others
        if other.player_id != play.player_id
        and other.finished_at is not None
        and (play.finished_at is None or other.finished_at <= play.finished_at)
        and common_prefix(play.moves, other.moves) >= COPY_SHARE * max(len(other.moves), len(play.moves)) > 0
    ]


def top_line_hit(play: PlayRecord, others: Iterable[PlayRecord]) -> bool:
    """Whether ``play`` repeats a line of its length that another account finished before it (as
    ``copied_games`` compares lines), scoring at least as much as every game other accounts had
    finished by then: a win, or the best so far, with the day's top line."""
    finished = [
        other
        for other in others
        if other.player_id != play.player_id
        and other.finished_at is not None
        and play.finished_at is not None
        and other.finished_at <= play.finished_at
    ]
    score = play.score or 0
    if any((other.score or 0) > score for other in finished):
        return False
    return any(len(other.moves) == len(play.moves) for other in copied_games(play, finished))


def habit_evidence(days: Iterable[HabitDay]) -> float:
    """How much likelier an account's days are from one that copies the day's top line than from
    one that reaches it as the day's players do: the natural log of the ratio (``HABIT_COPY``)."""
    total = 0.0
    for day in days:
        share = min(max(day.top_share, HABIT_FLOOR), HABIT_CAP)
        total += math.log(HABIT_COPY / share) if day.hit else math.log((1 - HABIT_COPY) / (1 - share))
    return total


def line_habit(game_id: int, days: Sequence[HabitDay]) -> float:
    """The ``line_habit`` signal of game ``game_id`` among its account's ``days`` (itself included):
    0 unless that game is a hit and there are ``HABIT_MIN_HITS`` hits, else scored by
    ``habit_evidence`` from ``HABIT_LOW`` to ``HABIT_HIGH``."""
    if not any(day.game_id == game_id and day.hit for day in days):
        return 0.0
    if sum(day.hit for day in days) < HABIT_MIN_HITS:
        return 0.0
    return _ramp_up(habit_evidence(days), HABIT_LOW, HABIT_HIGH)


def with_signal(found: Assessment, name: str, value: float) -> Assessment:
    """``found`` with one signal set to ``value``, its suspicion summed again."""
    values = {**found.signals, name: value}
    suspicion = sum(WEIGHTS[key] * value for key, value in values.items() if key in WEIGHTS)
    return Assessment(values, round(suspicion, 4), found.linked)


def links(play: PlayRecord, others: Iterable[PlayRecord], accounts_by_address: dict[str, int]) -> dict[int, str]:
    """Other accounts of the challenge that share this game's device cookie, or its address when the
    address is not shared by many, and that started the challenge before this game finished."""
    found: dict[int, str] = {}
    for other in others:
        # a deleted account's games link nobody: their address and device were cleared with it
        if other.player_id is None or other.player_id == play.player_id or other.game_id == play.game_id:
            continue
        if play.finished_at is not None and other.started_at > play.finished_at:
            continue
        if play.device and other.device == play.device:
            found[other.player_id] = "device"
        elif (
            play.address
            and other.address == play.address
            and accounts_by_address.get(play.address, 0) <= SHARED_ADDRESS_ACCOUNTS
            and other.player_id not in found
        ):
            found[other.player_id] = "address"
    return found


def assess(
    play: PlayRecord,
    others: Sequence[PlayRecord],
    *,
    solver_lines: Sequence[Sequence[str]] = (),
    address_accounts: int | None = None,
    deal: Deal | None = None,
    population: Population | None = None,
    habit: Sequence[HabitDay] = (),
) -> Assessment:
    """Score one finished ranked game against other ranked games of its challenge.

    ``others`` are the challenge's other ranked games that can matter (any account, finished or
    not): those from the same address or device, and those that could have been copied;
    ``solver_lines`` the solver's winning and par lines of the deal; ``address_accounts`` how many
    accounts played the challenge from this game's address (counted from ``others`` if None);
    ``deal`` the challenge's deal, which says where a line offered a choice (``decisions``);
    ``population`` what the challenge's other players chose along this game's line (``rarity``;
    without it, or when the game's line did not pay, a copy is scored by its decisions alone);
    ``habit`` the account's ranked games of the preset's last ``HABIT_DAYS`` challenges, this one
    included (``line_habit``; none, no habit).
    """
    if address_accounts is None:
        address_accounts = len({r.player_id for r in (play, *others) if play.address and r.address == play.address})
    linked = links(play, others, {play.address: address_accounts} if play.address else {})
    by_player = {other.player_id: other for other in others}
    signals = {name: 0.0 for name in WEIGHTS}
    if linked:
        signals["device_link"] = 1.0 if "device" in linked.values() else 0.0
        signals["address_link"] = 1.0 if "address" in linked.values() else 0.0
        if play.finished_at is not None:
            for player_id in linked:
                other = by_player[player_id].finished_at
                if other is not None and dt.timedelta(0) <= play.finished_at - other <= AFTER_LINKED:
                    signals["after_linked"] = 1.0
        # a linked account made that day to play this deal once, before this game, was a scout; and
        # nobody scouts a deal to lose it.  A household member who has played other days is no scout
        # (docs/fairplay.md, *Measured*)
        signals["after_scout"] = float(
            play.won and any(by_player[p].newcomer and by_player[p].started_at < play.started_at for p in linked)
        )
    signals.update(timing_signals(play))
    signals["solver_line"] = max(
        (solver_share(play.moves, line, line_decisions(deal, tuple(line))) for line in solver_lines), default=0.0
    )
    earlier = [other.moves for other in copied_games(play, others)]
    bounds = copy_bounds(deal)
    # nobody copies a line to lose with it: a losing line shared is what stuck players share
    if population is not None and not pays(play, population):
        earlier = []
    rare = rare_bounds(deal)
    for line in earlier:
        choices = decisions(deal, line)
        value = copy_share(play.moves, line, choices, bounds)
        if population is not None and rare is not None:
            value = max(value, _ramp_down(rarity(play.moves, line, choices, population), *rare))
        signals["copied_line"] = max(signals["copied_line"], value)
    signals["line_habit"] = line_habit(play.game_id, habit)
    suspicion = sum(WEIGHTS[name] * value for name, value in signals.items())
    return Assessment(signals, round(suspicion, 4), linked)
