"""The stack relaxation (rule 6) and the bag relaxation (rule 4) it asks, and the final card's
count (rule 8), compiled by Numba.

Imported only by ``solver_kernel`` (which see), once a search has use for it: importing Numba and
loading the compiled code from its cache takes about half a second, compiling it (once per
installation, into ``__pycache__``) some seconds.  Numba does not cache recursive functions, so
both searches keep their frames in arrays and walk them in a loop.  A waste is an array of values,
bottom first; in a memo key it is packed fifteen values to a word.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.typed import Dict

from .solver_kernel import CLEARABLE, GAVE_UP, LOST, WON
from .solver_position import Table

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
#: bag relaxation; one dictionary for both, since each one passed to the kernel costs about a
#: microsecond a call
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
    # ``solver_relax.buried_alone``
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


class Compiled:
    """One search's compiled stack relaxation: the deal's table as an array, the two memos (for
    the whole solve) and the frames."""

    def __init__(self, table: Table, reach: int, bag_reach: int, unbury: bool, effort: int) -> None:
        size = table.size
        tab = np.zeros((6, WIDTH), np.int64)
        tab[VALUES, :size] = table.values
        tab[MATES, :size] = table.mates
        tab[COVER, :size] = table.cover
        tab[RELATED, :size] = table.related
        for v, mask in table.by_value.items():
            tab[BY_VALUE, v] = mask
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



# ---------------------------------------------------------------------------------------------
# The last pass's own search (``LastPass``): ``WinSearch._search`` of a last-pass position, with the
# segment relaxation (rule 7) it asks, where only the waste top plays beside the pyramid

#: more places in the SCALARS row: the final card's value (rule 8; 0: not asked), the segment
#: relaxation's steps, and the last number given to a tail of segments
FINAL, SEGMENT_STEPS, TAILS = 9, 10, 11
#: what keeps the keys of the one memo apart: the stack relaxation's hold a packed waste in their
#: third place (never 0) and words (never negative) after it, the bag relaxation's zeros
SEGMENT_MARK, TAIL_MARK, STRETCH_MARK = -1, -2, -3
#: in a stretch's key, the waste's buried cards (``solver_search.WALL``): a nibble no value takes
WALL_NIBBLE = 15
#: a stretch's frame: its position (pyramid, outside cards, how many of them lie on the waste, the
#: usable bag), the code its key had in the memo before and its key, its code and offset, what
#: ``WinSearch._walk`` carries from one stop to the next, its moves, and from ``SEQ`` on the
#: outside cards' values
(
    L_REMOVED, L_N, L_P, L_BAG, L_COVERED, L_KEY, _L_KEY1, _L_KEY2, _L_KEY3, L_CODE, L_OFF, L_FIRST,
    L_STOCK_BAG, L_WASTE_BAG, L_LAST_DEAD, L_FINAL_PLACE, L_FINAL_DEAD, L_BURIED_BAG, L_BURIED_DEAD,
    L_DRAWS, L_COUNT, L_NEXT, L_FORCED, L_NEEDY, SEQ,
) = range(25)
#: ``solver_position``'s names for the places of a move, and its kinds
WASTE_TOP, NO_CARD, REMOVE_KIND, DRAW_KIND = -2, -100, 0, 1


@njit(cache=True)
def _bits(mask: int) -> int:
    count = 0
    while mask:
        mask &= mask - 1
        count += 1
    return count


@njit(cache=True)
def _outside_bag(tab: np.ndarray, seq: np.ndarray, lo: int, hi: int) -> int:
    """``WinSearch.outside_bag`` of ``seq[lo:hi]``: kings left out."""
    king = tab[SCALARS, KING]
    bag = 0
    for k in range(lo, hi):
        if seq[k] != king:
            bag += 1 << 4 * seq[k]
    return bag


@njit(cache=True)
def _any_dead(tab: np.ndarray, removed: int, bag: int) -> bool:
    present = tab[SCALARS, FULL] & ~removed
    for v in range(1, tab[SCALARS, KING] + 1):
        if tab[BY_VALUE, v] & present and _dead(tab, removed, bag, v):
            return True
    return False


@njit(cache=True)
def _segments(tab: np.ndarray, removed: int, seq: np.ndarray, lo: int, p: int, n: int, out: np.ndarray) -> int:
    """``SegmentRelaxation.segments`` of the waste ``seq[lo:p]`` above its buried cards and the stock
    ``seq[p:n]``: the bags into ``out``, and how many they are."""
    values = _present_values(tab, removed)
    king, pair_sum = tab[SCALARS, KING], tab[SCALARS, PAIR_SUM]
    count = current = 0
    for k in range(lo, n):
        v = seq[k]
        if v == king:
            continue
        if values >> pair_sum - v & 1:
            current += 1 << 4 * v
        elif k >= p and (current or count == 0):
            # a wall: the segment so far ends
            out[count] = current
            count += 1
            current = 0
    if current or count == 0:
        out[count] = current
        count += 1
    return count


@njit(cache=True)
def _segment_open(
    tab: np.ndarray,
    memo: Dict,
    work: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    removed: int,
    j: int,
    bag: int,
    depth: int,
) -> int:
    """``SegmentRelaxation._clearable`` of (``removed``, segment ``j`` holding ``bag``), and its
    ``_search`` up to its moves: the answer if known at once (``GAVE_UP`` past the step cap), else
    ``OPEN`` with the frame at ``frames[depth]`` (removed, j, bag, moves, moves tried) and its moves
    (removed, j, bag) at ``options[depth]``; ``work`` is (frames, options, the bag relaxation's,
    the segments' bags, the numbers of their tails, the sums of their tails)."""
    frames, options, bag_work, segments, tails, rests = work
    full = tab[SCALARS, FULL]
    if removed == full:
        return CLEARABLE
    key = (removed, bag, 0, tails[j], SEGMENT_MARK, 0)
    known: int = memo.get(key, -1)
    if known >= 0:
        return known
    tab[SCALARS, SEGMENT_STEPS] += 1
    if tab[SCALARS, SEGMENT_STEPS] > tab[SCALARS, EFFORT]:
        return GAVE_UP
    rest = rests[j]
    if not _bag_clearable(tab, memo, bag_work, removed, bag + rest):
        memo[key] = LOST
        return LOST
    king, pair_sum = tab[SCALARS, KING], tab[SCALARS, PAIR_SUM]
    free_bits = _free_bits(tab, removed)
    present = full & ~removed
    mine = options[depth]
    count = 0
    forced = False
    for i in range(tab[SCALARS, SIZE]):
        if not free_bits >> i & 1:
            continue
        v = tab[VALUES, i]
        if v == king:
            mine[0, 0], mine[0, 1], mine[0, 2] = removed | 1 << i, j, bag
            forced = True
            break
        shift = 4 * (pair_sum - v)
        in_bag = bag >> shift & 15
        if in_bag and not rest >> shift & 15 and not tab[MATES, i] & present:
            # only this segment's cards can take this one, and they are all alike
            mine[0, 0], mine[0, 1], mine[0, 2] = removed | 1 << i, j, bag - (1 << shift)
            forced = True
            break
        fellows = tab[MATES, i] & free_bits & -(2 << i)
        while fellows:
            low = fellows & -fellows
            mine[count, 0], mine[count, 1], mine[count, 2] = removed | 1 << i | low, j, bag
            count += 1
            fellows ^= low
        if in_bag:
            mine[count, 0], mine[count, 1], mine[count, 2] = removed | 1 << i, j, bag - (1 << shift)
            count += 1
    if forced:
        count = 1
    elif j + 1 < len(rests):
        # draw the next wall: what this segment still holds is lost
        mine[count, 0], mine[count, 1], mine[count, 2] = removed, j + 1, segments[j + 1]
        count += 1
    if not count:
        memo[key] = LOST
        return LOST
    frame = frames[depth]
    frame[0], frame[1], frame[2], frame[3], frame[4] = removed, j, bag, count, 0
    return OPEN


@njit(cache=True)
def _segment_clearable(
    tab: np.ndarray,
    memo: Dict,
    frames: np.ndarray,
    options: np.ndarray,
    bag_work: np.ndarray,
    segments: np.ndarray,
    tails: np.ndarray,
    rests: np.ndarray,
    removed: int,
) -> bool:
    """``SegmentRelaxation.clearable`` of ``segments`` (the bags, the current one first).  A tail
    of segments is known by a number (the same tail, the same number, for the whole solve: the
    memo keeps (first bag, number of the rest) -> number), so that a memo key has a fixed size."""
    count = len(segments)
    if count < 2:
        # no wall: the bag relaxation, asked already
        return True
    tab[SCALARS, SEGMENT_STEPS] = 0
    tails[count - 1] = rests[count - 1] = 0
    for j in range(count - 2, -1, -1):
        key = (segments[j + 1], tails[j + 1], 0, 0, TAIL_MARK, 0)
        number: int = memo.get(key, -1)
        if number < 0:
            tab[SCALARS, TAILS] += 1
            number = tab[SCALARS, TAILS]
            memo[key] = number
        tails[j] = number
        rests[j] = rests[j + 1] + segments[j + 1]
    work = (frames, options, bag_work, segments, tails[:count], rests[:count])
    answer = _segment_open(tab, memo, work, removed, 0, segments[0], 0)
    if answer != OPEN:
        return answer != LOST
    depth = 0
    while True:
        if answer == GAVE_UP:
            # answered "clearable"; the frames still open leave no answer
            return True
        frame = frames[depth]
        if answer == CLEARABLE or frame[4] == frame[3]:
            known = CLEARABLE if answer == CLEARABLE else LOST
            memo[(frame[0], frame[2], 0, tails[frame[1]], SEGMENT_MARK, 0)] = known
            if depth == 0:
                return known == CLEARABLE
            depth -= 1
            answer = known if known == CLEARABLE else OPEN
            continue
        k = frame[4]
        frame[4] = k + 1
        move = options[depth, k]
        answer = _segment_open(tab, memo, work, move[0], move[1], move[2], depth + 1)
        if answer == LOST:
            answer = OPEN
        elif answer == OPEN:
            depth += 1


@njit(cache=True)
def _needs(tab: np.ndarray, removed: int, needy: np.ndarray, room: np.ndarray) -> int:
    """``FinalCard._pyramid`` into ``needy`` (partner value, cards) and ``room``; the rows of ``needy``."""
    king, pair_sum = tab[SCALARS, KING], tab[SCALARS, PAIR_SUM]
    present = tab[SCALARS, FULL] & ~removed & ~1
    wanted = np.zeros(king + 1, np.int64)
    for i in range(1, tab[SCALARS, SIZE]):
        if present >> i & 1 and tab[VALUES, i] != king and not tab[MATES, i] & present:
            wanted[pair_sum - tab[VALUES, i]] += 1
    rows = 0
    for w in range(king + 1):
        if wanted[w]:
            needy[rows, 0], needy[rows, 1] = w, wanted[w]
            rows += 1
        room[w] = _bits(tab[BY_VALUE, pair_sum - w] & present)
    return rows


@njit(cache=True)
def _enter(
    tab: np.ndarray, memo: Dict, frame: np.ndarray, removed: int, source: np.ndarray | bytes, n: int, p: int, skip: int, bag: int
) -> int:
    """``WinSearch._search``'s look at the memo for the last-pass position (``removed``, the outside
    cards ``source[:n]`` but the one at ``skip``, ``p`` of them on the waste): ``LOST`` if a stretch
    from there or before was searched, else ``OPEN`` with the stretch's frame filled in."""
    seq = frame[SEQ:]
    m = 0
    for k in range(n):
        if k != skip:
            seq[m] = source[k]
            m += 1
    if skip >= 0:
        p -= 1
    dead = _buried_alone(tab, removed, seq[:p]) if p else 0
    # the key leaves the buried cards out, a wall in their place (``WinSearch._key``)
    frame[L_KEY : L_KEY + WORDS] = 0
    t = 0
    if dead:
        frame[L_KEY] = WALL_NIBBLE
        t = 1
    for k in range(dead, m):
        frame[L_KEY + t // PER_WORD] |= seq[k] << 4 * (t % PER_WORD)
        t += 1
    code = p - dead + (1 if dead else 0)
    covered: int = memo.get((removed, frame[L_KEY], frame[L_KEY + 1], frame[L_KEY + 2], frame[L_KEY + 3], STRETCH_MARK), -1)
    if covered >= 0 and covered <= code:
        return LOST
    frame[L_REMOVED], frame[L_N], frame[L_P], frame[L_BAG], frame[L_COVERED] = removed, m, p, bag, covered
    frame[L_CODE], frame[L_OFF], frame[L_FIRST], frame[L_STOCK_BAG] = code, p - code, 1, -1
    frame[L_LAST_DEAD] = frame[L_FINAL_PLACE] = frame[L_FINAL_DEAD] = -1
    frame[L_BURIED_BAG] = frame[L_BURIED_DEAD] = frame[L_DRAWS] = frame[L_FORCED] = 0
    frame[L_NEEDY] = -1
    return OPEN


@njit(cache=True)
def _stop(
    tab: np.ndarray,
    memo: Dict,
    stack_work: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    segment_work: tuple[np.ndarray, np.ndarray, np.ndarray],
    frame: np.ndarray,
    moves: np.ndarray,
    needy: np.ndarray,
    room: np.ndarray,
) -> int:
    """One stop of a last-pass stretch (``WinSearch._walk``): ``LOST`` if its tests end the stretch
    here, else ``OPEN`` with its moves in ``moves``, in the order they are tried."""
    frames, options, bag_work, question = stack_work
    removed, n, p, bag = frame[L_REMOVED], frame[L_N], frame[L_P], frame[L_BAG]
    seq = frame[SEQ : SEQ + n]
    king, pair_sum = tab[SCALARS, KING], tab[SCALARS, PAIR_SUM]
    last_dead = frame[L_LAST_DEAD]
    dead = 0
    if p:
        dead = _buried_alone(tab, removed, seq[:p])
        if dead and dead != last_dead:
            usable = _outside_bag(tab, seq, dead, n)
            if usable != bag:
                bag = frame[L_BAG] = usable
                if _any_dead(tab, removed, bag) or not _bag_clearable(tab, memo, bag_work, removed, bag):
                    return LOST
    final = tab[SCALARS, FINAL]
    if final and (dead != frame[L_FINAL_DEAD] or frame[L_FINAL_PLACE] < p - dead):
        if frame[L_NEEDY] < 0:
            frame[L_NEEDY] = _needs(tab, removed, needy, room)
        frame[L_FINAL_PLACE] = _last_pass(seq[dead:], p - dead, final, king, needy[: frame[L_NEEDY]], room)
        if frame[L_FINAL_PLACE] < 0:
            return LOST
        frame[L_FINAL_DEAD] = dead
    if dead != last_dead:
        segments, tails, rests = segment_work
        count = _segments(tab, removed, seq, dead, p, n, segments)
        # (the segment relaxation walks its frames in the stack relaxation's arrays, idle meanwhile)
        if not _segment_clearable(tab, memo, frames, options, bag_work, segments[:count], tails, rests, removed):
            return LOST
    if p:
        if frame[L_STOCK_BAG] < 0:
            frame[L_STOCK_BAG] = _outside_bag(tab, seq, p, n)
            frame[L_WASTE_BAG] = _outside_bag(tab, seq, 0, p)
        if dead != frame[L_BURIED_DEAD]:
            frame[L_BURIED_BAG], frame[L_BURIED_DEAD] = _outside_bag(tab, seq, 0, dead), dead
        question[0] = removed
        question[1] = frame[L_STOCK_BAG] & _useful_nibbles(tab, removed)
        question[2] = frame[L_WASTE_BAG] - frame[L_BURIED_BAG]
        if _stack(tab, memo, frames, options, bag_work, question, seq[dead:p], False) == LOST:
            return LOST
    frame[L_LAST_DEAD] = dead
    # the removals: every one at the first stop, later only those of the waste top
    top = seq[p - 1] if p else 0
    free_bits = _free_bits(tab, removed)
    size = tab[SCALARS, SIZE]
    count = 0
    if frame[L_FIRST]:
        frame[L_FIRST] = 0
        for i in range(size):
            if not free_bits >> i & 1:
                continue
            v = tab[VALUES, i]
            if v == king:
                moves[count, 0], moves[count, 1] = i, NO_CARD
                count += 1
                continue
            for j in range(i + 1, size):
                if free_bits >> j & 1 and tab[VALUES, j] == pair_sum - v:
                    moves[count, 0], moves[count, 1] = i, j
                    count += 1
            if top == pair_sum - v:
                moves[count, 0], moves[count, 1] = i, WASTE_TOP
                count += 1
        if top == king:
            moves[count, 0], moves[count, 1] = WASTE_TOP, NO_CARD
            count += 1
    elif top == king:
        moves[count, 0], moves[count, 1] = WASTE_TOP, NO_CARD
        count += 1
    elif top:
        for i in range(size):
            if free_bits >> i & 1 and tab[VALUES, i] == pair_sum - top:
                moves[count, 0], moves[count, 1] = i, WASTE_TOP
                count += 1
    # ``forced_move``: a king, or a pair one of whose pyramid cards has no other possible partner
    forced = -1
    for k in range(count):
        a, b = moves[k, 0], moves[k, 1]
        if b == NO_CARD:
            forced = k
            break
        for place in (a, b):
            if place >= 0:
                w = pair_sum - tab[VALUES, place]
                if (bag >> 4 * w & 15) + _bits(tab[MATES, place] & ~removed) == 1:
                    forced = k
                    break
        if forced >= 0:
            break
    if forced >= 0:
        moves[0, 0], moves[0, 1] = moves[forced, 0], moves[forced, 1]
        count = 1
        frame[L_FORCED] = 1
    else:
        # the lowest pyramid card first (``lowest_first``): a stable sort on the higher place
        for k in range(1, count):
            a, b = moves[k, 0], moves[k, 1]
            high = max(a, b)
            m = k
            while m > 0 and max(moves[m - 1, 0], moves[m - 1, 1]) < high:
                moves[m, 0], moves[m, 1] = moves[m - 1, 0], moves[m - 1, 1]
                m -= 1
            moves[m, 0], moves[m, 1] = a, b
    frame[L_COUNT], frame[L_NEXT] = count, 0
    return OPEN


@njit(cache=True)
def _last_pass_search(
    tab: np.ndarray,
    memo: Dict,
    frames: np.ndarray,
    options: np.ndarray,
    bag_work: np.ndarray,
    question: np.ndarray,
    segment_bags: np.ndarray,
    stretches: np.ndarray,
    moves: np.ndarray,
    needy: np.ndarray,
    room: np.ndarray,
    line: np.ndarray,
    removed: int,
    outside: bytes,
    p: int,
    bag: int,
    limit: int,
) -> tuple[int, int, int]:
    """``WinSearch._search`` of the last-pass position (``removed``, the outside cards ``outside``,
    ``p`` of them on the waste), with ``bag`` its usable outside values: (``WON``, ``LOST`` or
    ``GAVE_UP`` after ``limit`` stops; the stops made; the length of the winning line written into
    ``line``, draws and removals as (kind, a, b)).  A depth-first search over the stretches' frames
    (Numba does not cache recursive functions); a stretch searched to the end enters its code in the
    memo, so that a search given up leaves only finished answers behind."""
    stack_work = (frames, options, bag_work, question)
    segment_work = (segment_bags[0], segment_bags[1], segment_bags[2])
    full, king, pair_sum = tab[SCALARS, FULL], tab[SCALARS, KING], tab[SCALARS, PAIR_SUM]
    stops = 0
    if _enter(tab, memo, stretches[0], removed, outside, len(outside), p, -1, bag) == LOST:
        return LOST, 0, 0
    depth = 0
    fresh = True
    while True:
        frame = stretches[depth]
        lost = False
        if fresh:
            fresh = False
            stops += 1
            if stops > limit:
                return GAVE_UP, stops, 0
            lost = _stop(tab, memo, stack_work, segment_work, frame, moves[depth], needy[depth], room[depth]) == LOST
        if not lost:
            k = frame[L_NEXT]
            if k < frame[L_COUNT]:
                frame[L_NEXT] = k + 1
                a, b = moves[depth, k, 0], moves[depth, k, 1]
                n, p = frame[L_N], frame[L_P]
                seq = frame[SEQ : SEQ + n]
                child = frame[L_REMOVED]
                skip = -1
                if a >= 0:
                    child |= 1 << a
                if b >= 0:
                    child |= 1 << b
                if a == WASTE_TOP or b == WASTE_TOP:
                    skip = p - 1
                if child == full:
                    # the line: each stretch's draws, then the move that left it
                    t = 0
                    for d in range(depth + 1):
                        for _ in range(stretches[d, L_DRAWS]):
                            line[t, 0], line[t, 1], line[t, 2] = DRAW_KIND, 0, 0
                            t += 1
                        taken = stretches[d, L_NEXT] - 1
                        line[t, 0], line[t, 1], line[t, 2] = REMOVE_KIND, moves[d, taken, 0], moves[d, taken, 1]
                        t += 1
                    return WON, stops, t
                child_bag = frame[L_BAG]
                if b != NO_CARD:
                    # ``WinSearch._try``: the bag after the pair, the dead-card tests, the bag relaxation
                    v = tab[VALUES, a] if a >= 0 else seq[p - 1]
                    w = pair_sum - v
                    if a < 0:
                        child_bag -= 1 << 4 * v
                    if b < 0:
                        child_bag -= 1 << 4 * w
                    if (
                        not child_bag >> 4 * w & 15
                        and _dead(tab, child, child_bag, v)
                        or not child_bag >> 4 * v & 15
                        and _dead(tab, child, child_bag, w)
                    ):
                        continue
                    if not _bag_clearable(tab, memo, bag_work, child, child_bag):
                        continue
                if _enter(tab, memo, stretches[depth + 1], child, seq, n, p, skip, child_bag) == OPEN:
                    depth += 1
                    fresh = True
                continue
            if not frame[L_FORCED] and frame[L_P] < frame[L_N]:
                # draw, unless an earlier stretch from this key already stood at the next pointer
                p = frame[L_P]
                u = frame[SEQ + p]
                if frame[L_STOCK_BAG] >= 0 and u != king:
                    frame[L_STOCK_BAG] -= 1 << 4 * u
                    frame[L_WASTE_BAG] += 1 << 4 * u
                frame[L_P] = p + 1
                frame[L_DRAWS] += 1
                if not (frame[L_COVERED] >= 0 and p + 1 - frame[L_OFF] >= frame[L_COVERED]):
                    fresh = True
                    continue
        # this stretch is lost: its code goes into the memo
        memo[(frame[L_REMOVED], frame[L_KEY], frame[L_KEY + 1], frame[L_KEY + 2], frame[L_KEY + 3], STRETCH_MARK)] = frame[L_CODE]
        if depth == 0:
            return LOST, stops, 0
        depth -= 1


class LastPass:
    """One search's last pass compiled (``_last_pass_search``): it shares the compiled stack
    relaxation's table, memo and arrays, and keeps in that memo the stretches it has searched to the
    end, for the whole solve."""

    def __init__(self, compiled: Compiled, final: int) -> None:
        self.compiled = compiled
        tab = compiled.tab
        tab[SCALARS, FINAL] = final
        size = tab[SCALARS, SIZE]
        # a stretch's child has a card fewer: no deeper than the cards in play
        depth = size + WIDTH + 1
        self.stretches = np.zeros((depth, SEQ + WIDTH), np.int64)
        self.moves = np.zeros((depth, WIDTH, 2), np.int64)
        self.needy = np.zeros((depth, 16, 2), np.int64)
        self.room = np.zeros((depth, 16), np.int64)
        #: the segments' bags, their tails' numbers and their tails' sums
        self.segment_bags = np.zeros((3, WIDTH + 1), np.int64)
        #: a line: at most a draw and a removal a card
        self.line = np.zeros((2 * (size + WIDTH) + 2, 3), np.int64)

    def search(self, removed: int, outside: bytes, on_waste: int, bag: int, limit: int) -> tuple[int, int, list[tuple[int, int, int]]]:
        """(``WON``, ``LOST`` or ``GAVE_UP``; the stops made; the winning line)."""
        c = self.compiled
        answer, stops, length = _last_pass_search(
            c.tab, c.memo, c.frames, c.options, c.bag_work, c.question, self.segment_bags, self.stretches,
            self.moves, self.needy, self.room, self.line, removed, outside, on_waste, bag, limit,
        )
        line = [(int(kind), int(a), int(b)) for kind, a, b in self.line[:length].tolist()] if answer == WON else []
        return int(answer), int(stops), line
