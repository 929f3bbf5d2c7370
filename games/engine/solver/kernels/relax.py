"""The stack relaxation (rule 6) and the bag relaxation (rule 4) it asks, and the final card's
count (rule 8), compiled by Numba; ``StackKernel`` puts them behind ``relax.StackRelaxation``'s
questions.

Imported only at run time, once a search has use for it.  Design and figures: docs/solver.md,
*The compiled kernel*.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.typed import Dict

from ..codes import CLEARABLE, GAVE_UP, LOST
from ..position import Table
from ..relax import StackRelaxation

#: rows of the table array (one entry per pyramid place, or per value for BY_VALUE)
VALUES, MATES, COVER, RELATED, BY_VALUE, SCALARS = range(6)
#: places in the SCALARS row
SIZE, FULL, KING, PAIR_SUM, REACH, BAG_REACH, UNBURY, EFFORT, STEPS = range(9)
WIDTH = 64
#: a question whose frame is open: its moves are still being tried
OPEN = -1
#: in a frame of the stack relaxation: where the memo key and the waste begin
FRAME_KEY, FRAME_WASTE = 3, 9
#: waste values packed per key word (four bits each), and key words for the longest waste (59 cards)
PER_WORD, WORDS = 15, 4
#: the memo's keys: (removed, bag, the waste's words) for the stack relaxation, whose waste is never
#: empty there (values start at 1: the first word is not 0), and (removed, bag, 0, 0, 0, 0) for the
#: bag relaxation; one dictionary for both (and for ``kernels.search``'s keys, told apart by
#: marks), since each one passed to the kernel costs about a microsecond a call
KEY = types.UniTuple(types.int64, 2 + WORDS)  # type: ignore[no-untyped-call]


@njit(cache=True)
def _present_values(tab: np.ndarray, removed: int) -> int:
    known = 0
    for i in range(tab[SCALARS, SIZE]):
        if not removed >> i & 1:
            known |= 1 << tab[VALUES, i]
    return known


@njit(cache=True)
def _useful_nibbles(tab: np.ndarray, removed: int) -> int:
    values = _present_values(tab, removed)
    pair_sum, king = tab[SCALARS, PAIR_SUM], tab[SCALARS, KING]
    useful = 0
    for v in range(1, king):
        w = pair_sum - v
        if 0 <= w < WIDTH and values >> w & 1:
            useful |= 15 << 4 * v
    return useful


@njit(cache=True)
def _free_bits(tab: np.ndarray, removed: int) -> int:
    present = tab[SCALARS, FULL] & ~removed
    bits = 0
    for i in range(tab[SCALARS, SIZE]):
        if present >> i & 1 and not tab[COVER, i] & present:
            bits |= 1 << i
    return bits


@njit(cache=True)
def _dead(tab: np.ndarray, removed: int, bag: int, v: int) -> bool:
    # ``Relaxation.dead``
    w = tab[SCALARS, PAIR_SUM] - v
    if v == tab[SCALARS, KING] or bag >> 4 * w & 15:
        return False
    present = tab[SCALARS, FULL] & ~removed
    partners = tab[BY_VALUE, w] & present if 0 <= w < WIDTH else 0
    cards = tab[BY_VALUE, v] & present
    while cards:
        low = cards & -cards
        cards ^= low
        if not partners & ~tab[RELATED, _index(low)]:
            return True
    return False


@njit(cache=True)
def _put(row: np.ndarray, a: int, b: int, c: int, d: int, e: int) -> None:
    """A move into a frame's row: (removed, bag, waste bag or the pair's value, depth or its partner, depth)."""
    row[0], row[1], row[2], row[3], row[4] = a, b, c, d, e


@njit(cache=True)
def _index(bit: int) -> int:
    i = 0
    while bit > 1:
        bit >>= 1
        i += 1
    return i


@njit(cache=True)
def _bag_open(tab: np.ndarray, memo: Dict, work: np.ndarray, removed: int, bag: int, v: int, w: int, depth: int) -> int:
    """Ask the bag relaxation of (``removed``, ``bag``), reached by taking a pair of values ``v``
    and ``w`` (``v`` 0: not by a pair): its answer if known at once (``Relaxation._after``'s
    dead-card test, the memo, forced moves), else ``OPEN`` with its frame at ``work[depth]``: row 0
    (removed, bag, bag kept, moves, moves tried), then its moves (removed, bag, v, w)."""
    full = tab[SCALARS, FULL]
    if v and removed != full and (_dead(tab, removed, bag, v) or _dead(tab, removed, bag, w)):
        return LOST
    known: int = memo.get((removed, bag, 0, 0, 0, 0), -1)
    if known >= 0:
        return known
    useful = bag & _useful_nibbles(tab, removed)
    if useful != bag:
        known = memo.get((removed, useful, 0, 0, 0, 0), -1)
        if known >= 0:
            memo[(removed, bag, 0, 0, 0, 0)] = known
            return known
    if removed == full:
        memo[(removed, bag, 0, 0, 0, 0)] = memo[(removed, useful, 0, 0, 0, 0)] = CLEARABLE
        return CLEARABLE
    king, pair_sum = tab[SCALARS, KING], tab[SCALARS, PAIR_SUM]
    free_bits = _free_bits(tab, removed)
    present = full & ~removed
    mine = work[depth, 1:]
    count = 0
    forced = False
    for i in range(tab[SCALARS, SIZE]):
        if not free_bits >> i & 1:
            continue
        v = tab[VALUES, i]
        w = pair_sum - v
        # (``Relaxation._search``'s forced moves: the only move tried)
        if v == king:
            _put(mine[0], removed | 1 << i, useful, 0, 0, 0)
            forced = True
            break
        in_bag = useful >> 4 * w & 15
        mates = tab[MATES, i] & present
        if in_bag and not mates:
            _put(mine[0], removed | 1 << i, useful - (1 << 4 * w), v, w, 0)
            forced = True
            break
        if mates & mates - 1 == 0 and free_bits & mates:
            _put(mine[0], removed | 1 << i | mates, useful, v, w, 0)
            forced = True
            break
        fellows = mates & free_bits & -(2 << i)
        while fellows:
            low = fellows & -fellows
            _put(mine[count], removed | 1 << i | low, useful, v, w, 0)
            count += 1
            fellows ^= low
        if in_bag and not mates & free_bits:
            _put(mine[count], removed | 1 << i, useful - (1 << 4 * w), v, w, 0)
            count += 1
    if forced:
        count = 1
    if not count:
        memo[(removed, bag, 0, 0, 0, 0)] = memo[(removed, useful, 0, 0, 0, 0)] = LOST
        return LOST
    frame = work[depth, 0]
    frame[0], frame[1], frame[2], frame[3], frame[4] = removed, bag, useful, count, 0
    return OPEN


@njit(cache=True)
def _bag_clearable(tab: np.ndarray, memo: Dict, work: np.ndarray, removed: int, bag: int) -> bool:
    """``Relaxation.clearable``: a depth-first search over the frames (Numba does not cache
    recursive functions), each frame's moves tried in turn until one clears."""
    answer = _bag_open(tab, memo, work, removed, bag, 0, 0, 0)
    if answer != OPEN:
        return answer == CLEARABLE
    depth = 0
    while True:
        frame = work[depth, 0]
        if answer == CLEARABLE or frame[4] == frame[3]:
            # this frame is answered: one move cleared, or none of them did
            known = CLEARABLE if answer == CLEARABLE else LOST
            memo[(frame[0], frame[1], 0, 0, 0, 0)] = memo[(frame[0], frame[2], 0, 0, 0, 0)] = known
            if depth == 0:
                return known == CLEARABLE
            depth -= 1
            answer = known if known == CLEARABLE else OPEN
            continue
        k = frame[4]
        frame[4] = k + 1
        move = work[depth, 1 + k]
        answer = _bag_open(tab, memo, work, move[0], move[1], move[2], move[3], depth + 1)
        if answer == LOST:
            answer = OPEN
        elif answer == OPEN:
            depth += 1


@njit(cache=True)
def _buried_alone(tab: np.ndarray, removed: int, waste: np.ndarray) -> int:
    # ``relax.buried_alone``
    king, pair_sum = tab[SCALARS, KING], tab[SCALARS, PAIR_SUM]
    values = _present_values(tab, removed)
    limit = 0
    present = tab[SCALARS, FULL] & ~removed
    for i in range(tab[SCALARS, SIZE]):
        if present >> i & 1 and tab[VALUES, i] != king:
            limit += 1
    depth = 0
    for index in range(len(waste) - 1, -1, -1):
        v = waste[index]
        if v != king:
            depth += 1
            w = pair_sum - v
            if depth > limit or not (0 < v < king and 0 <= w < WIDTH and values >> w & 1):
                return index + 1
    return 0


@njit(cache=True)
def _key(removed: int, waste: np.ndarray, bag: int) -> tuple[int, int, int, int, int, int]:
    words = np.zeros(WORDS, np.int64)
    for k in range(len(waste)):
        words[k // PER_WORD] |= waste[k] << 4 * (k % PER_WORD)
    return (removed, bag, words[0], words[1], words[2], words[3])


@njit(cache=True)
def _stack_open(
    tab: np.ndarray,
    memo: Dict,
    work: tuple[np.ndarray, np.ndarray, np.ndarray],
    move: np.ndarray,
    source: np.ndarray | bytes,
    n: int,
    prelude: bool,
    depth: int,
) -> int:
    """Ask the stack relaxation of the position ``move`` leads to: (removed, bag, waste bag, and the
    depths ``d`` and ``e`` from the top of the waste ``source[:n]`` of the cards it takes, 1 the top
    and 0 none): ``StackRelaxation._clearable`` (``prelude``) or ``_known``, and ``_search`` up to
    its moves.  Its answer if known at once, else ``OPEN`` with its frame at ``frames[depth]`` (the
    waste's length, its moves, the moves tried, the memo key, the waste) and its moves, in the same
    form as ``move``, at ``options[depth]``; ``work`` is (frames, options, the bag relaxation's)."""
    frames, options, bag_work = work
    removed, bag, waste_bag, d, e = move[0], move[1], move[2], move[3], move[4]
    full, king, pair_sum = tab[SCALARS, FULL], tab[SCALARS, KING], tab[SCALARS, PAIR_SUM]
    reach, bag_reach = tab[SCALARS, REACH], tab[SCALARS, BAG_REACH]
    waste = frames[depth, FRAME_WASTE:]
    m = 0
    for j in range(n):
        if j != n - d and j != n - e:
            waste[m] = source[j]
            m += 1
    if prelude:
        if removed == full:
            return CLEARABLE
        if tab[SCALARS, UNBURY]:
            dead = _buried_alone(tab, removed, waste[:m])
            if dead:
                for k in range(dead):
                    if waste[k] != king:
                        waste_bag -= 1 << 4 * waste[k]
                for k in range(dead, m):
                    waste[k - dead] = waste[k]
                m -= dead
            bag &= _useful_nibbles(tab, removed)
    if m == 0:
        return CLEARABLE if _bag_clearable(tab, memo, bag_work, removed, bag) else LOST
    key = _key(removed, waste[:m], bag)
    known: int = memo.get(key, -1)
    if known >= 0:
        return known
    # ``_search``
    tab[SCALARS, STEPS] += 1
    if tab[SCALARS, STEPS] > tab[SCALARS, EFFORT]:
        return GAVE_UP
    if not _bag_clearable(tab, memo, bag_work, removed, bag + waste_bag):
        memo[key] = LOST
        return LOST
    top = waste[m - 1]
    mine = options[depth]
    # (the moves tried after the others wait in the second half)
    later = mine[WIDTH:]
    count = late = 0
    forced = False
    if top == king:
        _put(mine[0], removed, bag, waste_bag, 1, 0)
        forced = True
    elif (
        reach == 1
        and not _present_values(tab, removed) >> pair_sum - top & 1
        and not (bag_reach and bag >> 4 * (pair_sum - top) & 15)
    ):
        # the top never leaves, and nothing under it comes back: the bag alone is left
        known = CLEARABLE if _bag_clearable(tab, memo, bag_work, removed, bag) else LOST
        memo[key] = known
        return known
    else:
        below = waste_bag - (1 << 4 * top)
        free_bits = _free_bits(tab, removed)
        present = full & ~removed
        top_taken = False
        for i in range(tab[SCALARS, SIZE]):
            if not free_bits >> i & 1:
                continue
            v = tab[VALUES, i]
            if v == king:
                _put(mine[0], removed | 1 << i, bag, waste_bag, 0, 0)
                forced = True
                break
            w = pair_sum - v
            shift = 4 * w
            in_bag = bag >> shift & 15
            in_waste = waste_bag >> shift & 15
            mates = tab[MATES, i] & present
            if in_bag and not in_waste and not mates:
                _put(mine[0], removed | 1 << i, bag - (1 << shift), waste_bag, 0, 0)
                forced = True
                break
            if not mates and in_waste == 1 and top == w:
                _put(mine[0], removed | 1 << i, bag, below, 1, 0)
                forced = True
                break
            if not in_waste and mates & mates - 1 == 0 and free_bits & mates and (not in_bag or bag_reach):
                _put(mine[0], removed | 1 << i | mates, bag, waste_bag, 0, 0)
                forced = True
                break
            fellows = mates & free_bits & -(2 << i)
            while fellows:
                low = fellows & -fellows
                _put(later[late], removed | 1 << i | low, bag, waste_bag, 0, 0)
                late += 1
                fellows ^= low
            if top == w:
                _put(mine[count], removed | 1 << i, bag, below, 1, 0)
                count += 1
                top_taken = True
            elif in_bag and not (bag_reach and mates & free_bits):
                _put(later[late], removed | 1 << i, bag - (1 << shift), waste_bag, 0, 0)
                late += 1
        if not forced:
            if bag_reach:
                for d in range(1 + top_taken, min(bag_reach, m) + 1):
                    u = waste[m - d]
                    if u != king and bag >> 4 * (pair_sum - u) & 15:
                        _put(mine[count], removed, bag - (1 << 4 * (pair_sum - u)), waste_bag - (1 << 4 * u), d, 0)
                        count += 1
            if reach > 1:
                for d in range(1, min(reach, m) + 1):
                    u = waste[m - d]
                    for e in range(d + 1, min(reach, m) + 1):
                        if waste[m - e] + u == pair_sum:
                            _put(mine[count], removed, bag, waste_bag - (1 << 4 * u) - (1 << 4 * waste[m - e]), d, e)
                            count += 1
            # the moves that dig into the waste first, then the others
            for k in range(late):
                mine[count + k] = later[k]
            count += late
    if forced:
        count = 1
    if not count:
        memo[key] = LOST
        return LOST
    frame = frames[depth]
    frame[0], frame[1], frame[2] = m, count, 0
    for k in range(2 + WORDS):
        frame[FRAME_KEY + k] = key[k]
    return OPEN


@njit(cache=True)
def _stack(
    tab: np.ndarray,
    memo: Dict,
    frames: np.ndarray,
    options: np.ndarray,
    bag_work: np.ndarray,
    question: np.ndarray,
    waste: bytes | np.ndarray,
    prelude: bool,
) -> int:
    """``StackRelaxation``'s question (``question``: removed, bag, waste bag, 0, 0): a depth-first
    search over the frames (Numba does not cache recursive functions), each frame's moves tried in
    turn until one clears.  A question given up leaves no answer for the frames still open, as the
    exception does there.  (The arrays come apart: a tuple of them costs tens of microseconds to
    pass in from Python, nothing between compiled functions.)"""
    work = (frames, options, bag_work)
    tab[SCALARS, STEPS] = 0
    answer = _stack_open(tab, memo, work, question, waste, len(waste), prelude, 0)
    if answer != OPEN:
        return answer
    depth = 0
    while True:
        if answer == GAVE_UP:
            return GAVE_UP
        if answer == CLEARABLE or frames[depth, 2] == frames[depth, 1]:
            known = CLEARABLE if answer == CLEARABLE else LOST
            key = frames[depth, FRAME_KEY:]
            memo[(key[0], key[1], key[2], key[3], key[4], key[5])] = known
            if depth == 0:
                return known
            depth -= 1
            answer = known if known == CLEARABLE else OPEN
            continue
        k = frames[depth, 2]
        frames[depth, 2] = k + 1
        answer = _stack_open(
            tab, memo, work, options[depth, k], frames[depth, FRAME_WASTE:], frames[depth, 0], True, depth + 1
        )
        if answer == LOST:
            answer = OPEN
        elif answer == OPEN:
            depth += 1


@njit(cache=True)
def _remember(memo: Dict, keys: np.ndarray, known: np.ndarray) -> None:
    # (here rather than from the interpreter, whose stores into a typed dictionary compile on first use)
    for row in range(len(known)):
        key = keys[row]
        memo[(key[0], key[1], key[2], key[3], key[4], key[5])] = known[row]


def table_array(table: Table, rows: int) -> np.ndarray:
    """The deal's table as the kernels read it: ``rows`` rows of ``WIDTH``, the first five filled in
    (``VALUES`` to ``BY_VALUE``), the rest for the caller's scalars."""
    size = table.size
    tab = np.zeros((rows, WIDTH), np.int64)
    tab[VALUES, :size] = table.values
    tab[MATES, :size] = table.mates
    tab[COVER, :size] = table.cover
    tab[RELATED, :size] = table.related
    for v, mask in table.by_value.items():
        tab[BY_VALUE, v] = mask
    return tab


class Compiled:
    """One search's compiled stack relaxation: the deal's table as an array, the two memos (for
    the whole solve) and the frames."""

    def __init__(self, table: Table, reach: int, bag_reach: int, unbury: bool, effort: int) -> None:
        size = table.size
        tab = table_array(table, 6)
        tab[SCALARS, : STEPS + 1] = (size, table.full, table.king, table.pair_sum, reach, bag_reach, unbury, effort, 0)
        self.tab = tab
        self.memo = Dict.empty(KEY, types.int64)
        # a question takes a card at each level, so neither search goes deeper than the cards in play
        # (at most 59 outside ones); a stack frame holds at most 63 moves (nine free cards: 36 pairs
        # among them, nine with stock cards, nine with the waste top, three stock cards on waste cards,
        # six waste pairs), the second half of its rows waiting room for the moves tried last
        depth = size + WIDTH + 1
        self.frames = np.zeros((depth, FRAME_WASTE + WIDTH), np.int64)
        self.options = np.zeros((depth, 2 * WIDTH, 5), np.int64)
        self.bag_work = np.zeros((size + 2, WIDTH + 1, 5), np.int64)
        #: the question asked, as a move from it: (removed, bag, waste bag, 0, 0)
        self.question = np.zeros(5, np.int64)

    def ask(self, removed: int, waste: tuple[int, ...], bag: int, waste_bag: int, prelude: bool) -> int:
        """``LOST``, ``CLEARABLE`` or ``GAVE_UP``: ``_stack``'s answer."""
        question = self.question
        question[0], question[1], question[2] = removed, bag, waste_bag
        # (the waste as bytes, which the kernel reads in place: a third of the cost of a new array)
        return _stack(self.tab, self.memo, self.frames, self.options, self.bag_work, question, bytes(waste), prelude)

    def remember(self, answers: dict[tuple[int, tuple[int, ...], int], bool]) -> None:
        """Enter the answers of the pure-Python class's memo (the same questions, the same answers)."""
        keys = np.zeros((len(answers), 2 + WORDS), np.int64)
        known = np.zeros(len(answers), np.int64)
        for row, ((removed, waste, bag), clearable) in enumerate(answers.items()):
            keys[row, 0], keys[row, 1] = removed, bag
            for k, v in enumerate(waste):
                keys[row, 2 + k // PER_WORD] |= v << 4 * (k % PER_WORD)
            known[row] = CLEARABLE if clearable else LOST
        _remember(self.memo, keys, known)


@njit(cache=True)
def _last_pass(
    sequence: bytes | np.ndarray, drawn_at: int, final: int, king: int, needy: np.ndarray, room: np.ndarray
) -> int:
    """``FinalCard.last_pass`` and ``FinalCard._possible``, over ``sequence`` (the waste above its
    buried cards, then the stock) whose first ``drawn_at`` cards are on the waste."""
    n = len(sequence)
    drawn = np.zeros(king + 1, np.int64)
    for index in range(n):
        if sequence[index] != final:
            continue
        # the values that play before a candidate still in the stock (one bit a value is enough:
        # ``_possible`` only asks whether a value is among them)
        before = 0
        if index >= drawn_at:
            for k in range(index):
                if sequence[k] != king:
                    before |= 1 << 4 * sequence[k]
        reach = max(index, drawn_at - 1)
        possible = True
        for row in range(len(needy)):
            w, cards = needy[row, 0], needy[row, 1]
            if before >> 4 * w & 15:
                continue
            place, found = index, 0
            for j in range(index + 1, n):
                if sequence[j] == w:
                    found += 1
                    place = j
                    if found == cards:
                        break
            if found < cards:
                possible = False
                break
            reach = max(reach, place)
        if possible and reach != index:
            drawn[:] = 0
            for j in range(index + 1, reach + 1):
                u = sequence[j]
                if u != king:
                    drawn[u] += 1
                    if drawn[u] > room[u]:
                        possible = False
                        break
        if possible:
            return index
    return -1


class FinalCount:
    """``FinalCard.last_pass`` compiled: the same answers (rule 8).  ``FinalCard`` asks it with
    its own reading of the pyramid, which is kept here as arrays."""

    def __init__(self, king: int) -> None:
        self.king = king
        #: by pyramid: ``FinalCard._pyramid``'s answer as arrays
        self._arrays: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def last_pass(
        self,
        final: int,
        removed: int,
        live: tuple[int, ...],
        stock: tuple[int, ...],
        pyramid: tuple[tuple[tuple[int, int, int], ...], tuple[int, ...]],
    ) -> int:
        arrays = self._arrays.get(removed)
        if arrays is None:
            needy, room = pyramid
            arrays = self._arrays[removed] = (
                np.array([(w, cards) for w, cards, _ in needy], np.int64).reshape(-1, 2),
                np.array(room, np.int64),
            )
        return int(_last_pass(bytes(live + stock), len(live), final, self.king, *arrays))


def warm_final_count() -> None:
    """Load ``_last_pass`` (whatever the apex of the deal at hand)."""
    _last_pass(bytes((1, 12)), 1, 12, 13, np.array([[1, 1]], np.int64), np.zeros(14, np.int64))


class StackKernel:
    """``StackRelaxation``'s answers, its search compiled (``kernels.relax``): made from the
    pure-Python class, whose settings it takes and whose memo it starts from."""

    def __init__(self, python: StackRelaxation) -> None:
        self.table = python.table
        self.relaxation = python.relaxation
        self.unbury = python.unbury
        self.compiled = Compiled(python.table, python.reach, python.bag_reach, python.unbury, python.effort)
        self.compiled.remember(python.memo)
        #: the answers known on this side, so that asking again does not cross into the kernel (a
        #: call costs a microsecond or two); every one of them is in the kernel's memo too
        self.memo = dict(python.memo)

    def clearable(self, removed: int, waste: tuple[int, ...], bag: int, waste_bag: int, unburied: bool = False) -> bool:
        """``StackRelaxation.clearable``."""
        table = self.table
        if unburied and self.unbury:
            bag &= table.useful_nibbles(removed)
            prelude = False
        else:
            if removed == table.full:
                return True
            prelude = self.unbury
        if not prelude:
            if not waste:
                return self.relaxation.clearable(removed, bag)
            known = self.memo.get((removed, waste, bag))
            if known is not None:
                return known
        answer = self.compiled.ask(removed, waste, bag, waste_bag, prelude)
        if answer == GAVE_UP:
            return True
        if not prelude:
            self.memo[removed, waste, bag] = answer == CLEARABLE
        return answer == CLEARABLE
