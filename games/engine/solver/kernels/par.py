"""The par search's clearing question (``parbound.Perfect``) compiled by Numba, with the two
upper bounds it asks (``RelaxedMax`` and ``StackMax``), for classic, one-pass, egyptian, forty-open
and double.

``KernelPerfect`` makes the stops of the pure-Python classes, in the same order.  Design:
docs/solver.md, *The clearing search compiled*.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numba import njit, types
from numba.typed import Dict

from ..budget import Budget
from ..codes import LOST, WON
from ..position import DRAW_KIND, NO_CARD, RECYCLE_KIND, REMOVE, STOCK_REF, Position, SolverMove
from .relax import (
    BY_VALUE,
    FULL,
    KING,
    PAIR_SUM,
    PER_WORD,
    RELATED,
    SCALARS,
    SIZE,
    VALUES,
    WIDTH,
    WORDS,
    _free_bits,
    _present_values,
    table_array,
)
from .search import _bits, top_removals

if TYPE_CHECKING:
    from ..parbound import Perfect

#: more rows of the table array: the row masks, and this module's scalars
ROW_MASKS, PAR = 6, 7
#: places in the PAR row: how many rows; whether outside cards pair among themselves (the bag
#: relaxation) and whether the stock top plays; the recycles allowed; whether a line must clear
#: the pyramid (else it keeps the apex alone); the pyramid a line ends with at best; the stack
#: bound's step cap and its steps in the question at hand; the largest loss asked so far
ROWS, PAIRS, STOCK_TOP, RECYCLES, CLEARS, GOAL, EFFORT, STEPS, MOST_LOSS, LEFT, SPENT, BACKWARDS, ENDS_FROZEN = range(
    13
)
#: answers: ``LOST`` and ``WON`` as the kernel's, a question still open, a try out of stops
OPEN, ABANDONED = -1, -3
#: a pointer beyond every stop (``Perfect._covered_from``)
NEVER = 1 << 30
#: a stretch's frame: its pyramid, how many outside cards, how many on the waste, recycles used,
#: the loss allowed, the kings and the bag of the others among the outside cards, its stops, the
#: stop and the move being tried, then the outside sequence's key words and (from ``SEQ``) values
F_REMOVED, F_N, F_P, F_R, F_LOSS, F_KINGS, F_BAG, F_STOPS, F_STOP, F_MOVE = range(10)
F_WORDS = 10
SEQ = F_WORDS + WORDS
#: a stop's row: its pointer, recycles used, the loss it allows, how many steps lead to it, its moves
S_P, S_R, S_ALLOWED, S_MADE, S_COUNT = range(5)
#: a relaxed question's frame: (pyramid, bag, ceiling, best so far, moves, moves tried)
R_REMOVED, R_BAG, R_CEILING, R_BEST, R_COUNT, R_NEXT = range(6)
#: a stack question's frame: (pyramid, waste length, bag, goal, kings, waste bag, best, moves, tried)
T_REMOVED, T_WASTE, T_BAG, T_GOAL, T_KINGS, T_WASTE_BAG, T_BEST, T_COUNT, T_NEXT = range(9)
#: far below or above any figure; no answer waiting to be taken in
LOW, HIGH, NONE = -(1 << 40), 1 << 40, -(1 << 41)

PAIR_KEY = types.UniTuple(types.int64, 2)  # type: ignore[no-untyped-call]
STACK_KEY = types.UniTuple(types.int64, 2 + WORDS)  # type: ignore[no-untyped-call]
FAILED_KEY = types.UniTuple(types.int64, 3 + WORDS)  # type: ignore[no-untyped-call]


@njit(cache=True)
def _rows_emptied(tab: np.ndarray, removed: int, after: int) -> int:
    count = 0
    for k in range(tab[PAR, ROWS]):
        mask = tab[ROW_MASKS, k]
        if after & mask == mask and removed & mask != mask:
            count += 1
    return count


@njit(cache=True)
def _leftover(tab: np.ndarray, bag: int) -> int:
    """``RelaxedMax.leftover``: the cards the bag can pair among itself."""
    if not tab[PAR, PAIRS]:
        return 0
    pair_sum = tab[SCALARS, PAIR_SUM]
    total = 0
    for a in range(1, pair_sum // 2 + 1):
        b = pair_sum - a
        ca = bag >> 4 * a & 15
        if ca:
            if a == b:
                total += ca & ~1
            else:
                cb = bag >> 4 * b & 15
                total += 2 * min(ca, cb)
    return total


@njit(cache=True)
def _ceiling(tab: np.ndarray, removed: int, bag: int) -> int:
    """``RelaxedMax.ceiling``: within each pair of values, at most twice the rarer side goes."""
    present = tab[SCALARS, FULL] & ~removed
    king, pair_sum = tab[SCALARS, KING], tab[SCALARS, PAIR_SUM]
    base = 0
    for k in range(tab[PAR, ROWS]):
        if tab[ROW_MASKS, k] & present:
            base += 1
    pyramid = 0
    for i in range(tab[SCALARS, SIZE]):
        if present >> i & 1:
            if tab[VALUES, i] == king:
                base += 1
            else:
                pyramid += 1 << 4 * tab[VALUES, i]
    both = pyramid + bag
    outside_pairs = tab[PAR, PAIRS]
    total = base
    for a in range(1, pair_sum // 2 + 1):
        b = pair_sum - a
        ca = both >> 4 * a & 15
        if not ca:
            continue
        if a == b:
            cards = ca & ~1
            if not outside_pairs:
                cards = min(cards, 2 * (pyramid >> 4 * a & 15))
        else:
            cb = both >> 4 * b & 15
            cards = 2 * min(ca, cb)
            if not outside_pairs:
                cards = min(cards, 2 * ((pyramid >> 4 * a & 15) + (pyramid >> 4 * b & 15)))
        total += cards
    return total


@njit(cache=True)
def _king_move(tab: np.ndarray, removed: int, free_bits: int) -> int:
    """``RelaxedMax.moves``' first move: the pyramid once the first free king has gone (-1: none),
    not where that empties a pyramid that must keep its apex."""
    full = tab[SCALARS, FULL]
    clears = tab[PAR, CLEARS]
    for i in range(tab[SCALARS, SIZE]):
        if free_bits >> i & 1 and tab[VALUES, i] == tab[SCALARS, KING]:
            after = removed | 1 << i
            if clears or after != full:
                return after
    return -1


@njit(cache=True)
def _relaxed_open(
    tab: np.ndarray, memo: Dict, frames: np.ndarray, moves: np.ndarray, removed: int, bag: int, depth: int
) -> int:
    """``RelaxedMax.value`` of (``removed``, ``bag``) if known at once, else ``OPEN`` with its frame
    at ``frames[depth]`` and its moves (pyramid, gain, bag) at ``moves[depth]``."""
    known: int = memo.get((removed, bag), -1)
    if known >= 0:
        return known
    full = tab[SCALARS, FULL]
    if removed == full:
        known = _leftover(tab, bag)
        memo[(removed, bag)] = known
        return known
    king, pair_sum, clears = tab[SCALARS, KING], tab[SCALARS, PAIR_SUM], tab[PAR, CLEARS]
    free_bits = _free_bits(tab, removed)
    frame = frames[depth]
    mine = moves[depth]
    after = _king_move(tab, removed, free_bits)
    if after >= 0:
        # in the relaxed game nothing ends early: a free king may as well go at once
        mine[0, 0], mine[0, 1], mine[0, 2] = after, 1 + _rows_emptied(tab, removed, after), bag
        frame[R_REMOVED], frame[R_BAG], frame[R_CEILING], frame[R_BEST] = removed, bag, HIGH, LOW
        frame[R_COUNT], frame[R_NEXT] = 1, 0
        return OPEN
    ceiling = _ceiling(tab, removed, bag)
    if not clears:
        # the apex stays, so its row is never emptied (nor, if it is a king, does that king go)
        ceiling -= 1 + (tab[VALUES, 0] == king)
    best = _leftover(tab, bag)
    if best >= ceiling:
        memo[(removed, bag)] = best
        return best
    count = 0
    for i in range(tab[SCALARS, SIZE]):
        if not free_bits >> i & 1:
            continue
        w = pair_sum - tab[VALUES, i]
        for j in range(i + 1, tab[SCALARS, SIZE]):
            if free_bits >> j & 1 and tab[VALUES, j] == w:
                after = removed | 1 << i | 1 << j
                if after == full and not clears:
                    continue
                mine[count, 0], mine[count, 1], mine[count, 2] = after, 2 + _rows_emptied(tab, removed, after), bag
                count += 1
        if 0 < w < 16 and bag >> 4 * w & 15:
            after = removed | 1 << i
            if after == full and not clears:
                continue
            mine[count, 0], mine[count, 1] = after, 2 + _rows_emptied(tab, removed, after)
            mine[count, 2] = bag - (1 << 4 * w)
            count += 1
    if not count:
        memo[(removed, bag)] = best
        return best
    frame[R_REMOVED], frame[R_BAG], frame[R_CEILING], frame[R_BEST] = removed, bag, ceiling, best
    frame[R_COUNT], frame[R_NEXT] = count, 0
    return OPEN


@njit(cache=True)
def _relaxed(tab: np.ndarray, memo: Dict, frames: np.ndarray, moves: np.ndarray, removed: int, bag: int) -> int:
    """``RelaxedMax.value``: at most how many units could still come (bag kings left out)."""
    answer = _relaxed_open(tab, memo, frames, moves, removed, bag, 0)
    if answer != OPEN:
        return answer
    depth = 0
    child = -1
    while True:
        frame = frames[depth]
        done = False
        if child >= 0:
            found = moves[depth, frame[R_NEXT] - 1, 1] + child
            child = -1
            if found > frame[R_BEST]:
                frame[R_BEST] = found
                done = found >= frame[R_CEILING]
        if not done and frame[R_NEXT] < frame[R_COUNT]:
            k = frame[R_NEXT]
            frame[R_NEXT] = k + 1
            answer = _relaxed_open(tab, memo, frames, moves, moves[depth, k, 0], moves[depth, k, 2], depth + 1)
            if answer == OPEN:
                depth += 1
            else:
                child = answer
            continue
        value: int = frame[R_BEST]
        memo[(frame[R_REMOVED], frame[R_BAG])] = value
        if depth == 0:
            return value
        depth -= 1
        child = value


@njit(cache=True)
def _relaxed_bound(
    tab: np.ndarray, rmemo: Dict, rwork: tuple[np.ndarray, np.ndarray], removed: int, kings: int, bag: int, goal: int
) -> int:
    """``StackMax._ceiling``: the bag relaxation of the same cards; past a ``goal`` (``HIGH``: none)
    the quick ceiling is enough when it already falls short of it."""
    known: int = rmemo.get((removed, bag), -1)
    if known >= 0:
        return kings + known
    if goal != HIGH:
        quick = kings + _ceiling(tab, removed, bag)
        if quick < goal:
            return quick
    return kings + _relaxed(tab, rmemo, rwork[0], rwork[1], removed, bag)


@njit(cache=True)
def _waste_words(words: np.ndarray, length: int, out: np.ndarray) -> None:
    """The key words of the waste's first ``length`` cards, from the words of a longer one."""
    for t in range(WORDS):
        keep = length - PER_WORD * t
        if keep >= PER_WORD:
            out[t] = words[t]
        elif keep <= 0:
            out[t] = 0
        else:
            out[t] = words[t] & ((1 << 4 * keep) - 1)


@njit(cache=True)
def _stack_known(smemo: Dict, removed: int, bag: int, key: np.ndarray) -> int:
    """The stack bound's memo entry (answer, doubled, plus whether a line reaches it), or ``LOW``."""
    known: int = smemo.get((removed, bag, key[0], key[1], key[2], key[3]), LOW)
    return known


@njit(cache=True)
def _stack_open(
    tab: np.ndarray,
    memos: tuple[Dict, Dict],
    rwork: tuple[np.ndarray, np.ndarray],
    swork: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    waste: np.ndarray,
    removed: int,
    length: int,
    bag: int,
    goal: int,
    kings: int,
    waste_bag: int,
    depth: int,
) -> int:
    """``StackMax._value`` of a question (the waste: ``waste[:length]``) if answered at once, else
    ``OPEN`` with its frame and options (gain, pyramid, waste length, bag, waste bag) at ``depth``;
    ``LOW`` once the question has taken more than ``EFFORT`` steps."""
    rmemo, smemo = memos
    frames, options, words, key = swork
    _waste_words(words, length, key)
    known = _stack_known(smemo, removed, bag, key)
    if known != LOW:
        answer, reached = known >> 1, known & 1
        if answer >= goal if reached else answer < goal:
            return answer
    tab[PAR, STEPS] += 1
    if tab[PAR, STEPS] > tab[PAR, EFFORT]:
        return LOW
    king = tab[SCALARS, KING]
    frame = frames[depth]
    mine = options[depth]
    frame[T_REMOVED], frame[T_WASTE], frame[T_BAG], frame[T_GOAL] = removed, length, bag, goal
    frame[T_KINGS], frame[T_WASTE_BAG], frame[T_BEST], frame[T_NEXT] = kings, waste_bag, LOW, 0
    top = waste[length - 1] if length else 0
    if top == king:
        mine[0, 0], mine[0, 1], mine[0, 2], mine[0, 3], mine[0, 4] = 1, removed, length - 1, bag, waste_bag
        # (a frame's kings serve only its options: here the one option has a king fewer)
        frame[T_KINGS] = kings - 1
        frame[T_COUNT] = 1
        return OPEN
    free_bits = _free_bits(tab, removed)
    after = _king_move(tab, removed, free_bits)
    if after >= 0:
        mine[0, 0], mine[0, 1], mine[0, 2], mine[0, 3] = 1 + _rows_emptied(tab, removed, after), after, length, bag
        mine[0, 4] = waste_bag
        frame[T_COUNT] = 1
        return OPEN
    found = _relaxed_bound(tab, rmemo, rwork, removed, kings, waste_bag + bag, goal)
    if found >= goal:
        if not length:
            # the stack game with an empty waste is the bag relaxation itself
            found = _relaxed(tab, rmemo, rwork[0], rwork[1], removed, bag)
            smemo[(removed, bag, key[0], key[1], key[2], key[3])] = found << 1 | (1 if found >= goal else 0)
            return found
        # a first figure some line reaches: the bag relaxation on the stock alone if it is known,
        # else the stock's pairs among themselves (the options below play the rest out)
        best: int = rmemo.get((removed, bag), -1)
        if best < 0:
            best = _leftover(tab, bag)
        frame[T_BEST] = best
        if best < goal:
            frame[T_COUNT] = _stack_options(tab, mine, waste, removed, length, bag, waste_bag, free_bits)
            return OPEN
        found = best
    smemo[(removed, bag, key[0], key[1], key[2], key[3])] = found << 1 | (1 if found >= goal else 0)
    return found


@njit(cache=True)
def _stack_options(
    tab: np.ndarray,
    mine: np.ndarray,
    waste: np.ndarray,
    removed: int,
    length: int,
    bag: int,
    waste_bag: int,
    free_bits: int,
) -> int:
    """``StackMax._search``'s options, in its order: (gain, pyramid, waste length, bag, waste bag)."""
    full, king, pair_sum = tab[SCALARS, FULL], tab[SCALARS, KING], tab[SCALARS, PAIR_SUM]
    clears = tab[PAR, CLEARS]
    top = waste[length - 1]
    below = waste_bag - (1 << 4 * top) if top != king else waste_bag
    count = 0
    w = pair_sum - top
    if tab[PAR, PAIRS] and 0 < w < 16 and bag >> 4 * w & 15:
        mine[0, 0], mine[0, 1], mine[0, 2], mine[0, 3], mine[0, 4] = 2, removed, length - 1, bag - (1 << 4 * w), below
        count = 1
    size = tab[SCALARS, SIZE]
    for i in range(size):
        if not free_bits >> i & 1:
            continue
        w = pair_sum - tab[VALUES, i]
        for j in range(i + 1, size):
            if free_bits >> j & 1 and tab[VALUES, j] == w:
                after = removed | 1 << i | 1 << j
                if after == full and not clears:
                    continue
                mine[count, 0], mine[count, 1], mine[count, 2] = 2 + _rows_emptied(tab, removed, after), after, length
                mine[count, 3], mine[count, 4] = bag, waste_bag
                count += 1
        after = removed | 1 << i
        if after == full and not clears:
            continue
        gain = 2 + _rows_emptied(tab, removed, after)
        if top == w:
            mine[count, 0], mine[count, 1], mine[count, 2], mine[count, 3], mine[count, 4] = (
                gain,
                after,
                length - 1,
                bag,
                below,
            )
            count += 1
        if 0 < w < 16 and bag >> 4 * w & 15:
            mine[count, 0], mine[count, 1], mine[count, 2] = gain, after, length
            mine[count, 3], mine[count, 4] = bag - (1 << 4 * w), waste_bag
            count += 1
    return count


@njit(cache=True)
def _stack(
    tab: np.ndarray,
    memos: tuple[Dict, Dict],
    rwork: tuple[np.ndarray, np.ndarray],
    swork: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    waste: np.ndarray,
    removed: int,
    bag: int,
    goal: int,
    kings: int,
    waste_bag: int,
) -> int:
    """``StackMax.value`` of the waste ``waste`` (its key words in ``swork[2]``; ``kings`` and
    ``waste_bag``: its kings and the bag of its other values) and the stock's bag ``bag``."""
    rmemo, smemo = memos
    frames, options, words, key = swork
    tab[PAR, STEPS] = 0
    answer = _stack_open(tab, memos, rwork, swork, waste, removed, len(waste), bag, goal, kings, waste_bag, 0)
    if answer != OPEN:
        return _relaxed_bound(tab, rmemo, rwork, removed, kings, waste_bag + bag, HIGH) if answer == LOW else answer
    depth = 0
    child = NONE
    while True:
        frame = frames[depth]
        if child != NONE:
            found = options[depth, frame[T_NEXT] - 1, 0] + child
            child = NONE
            if found > frame[T_BEST]:
                frame[T_BEST] = found
        if frame[T_BEST] < frame[T_GOAL] and frame[T_NEXT] < frame[T_COUNT]:
            k = frame[T_NEXT]
            frame[T_NEXT] = k + 1
            move = options[depth, k]
            answer = _stack_open(
                tab,
                memos,
                rwork,
                swork,
                waste,
                move[1],
                move[2],
                move[3],
                frame[T_GOAL] - move[0],
                frame[T_KINGS],
                move[4],
                depth + 1,
            )
            if answer == LOW:
                # given up: the bag relaxation of the same cards bounds the value too
                return _relaxed_bound(tab, rmemo, rwork, removed, kings, waste_bag + bag, HIGH)
            if answer == OPEN:
                depth += 1
            else:
                child = answer
            continue
        value: int = frame[T_BEST]
        _waste_words(words, frame[T_WASTE], key)
        reached = 1 if value >= frame[T_GOAL] else 0
        smemo[(frame[T_REMOVED], frame[T_BAG], key[0], key[1], key[2], key[3])] = value << 1 | reached
        if depth == 0:
            return value
        depth -= 1
        child = value


# ---------------------------------------------------------------------------- the clearing search


@njit(cache=True)
def _pack(seq: np.ndarray, lo: int, hi: int, words: np.ndarray) -> None:
    """``seq[lo:hi]`` packed into key words, fifteen values a word."""
    words[:] = 0
    for k in range(lo, hi):
        t = k - lo
        words[t // PER_WORD] |= seq[k] << 4 * (t % PER_WORD)


@njit(cache=True)
def _failed_key(removed: int, words: np.ndarray, used: int, allowed: int) -> tuple[int, int, int, int, int, int, int]:
    return (removed, words[0], words[1], words[2], words[3], used, allowed)


@njit(cache=True)
def _covered_from(tab: np.ndarray, failed: Dict, removed: int, words: np.ndarray, recycles: int, loss: int) -> int:
    """``Perfect._covered_from``: the lowest pointer of a pass (``recycles`` used, ``loss`` allowed)
    from which a failure of the same pyramid and outside sequence covers its stops (``NEVER``: none).
    Under (pyramid, words, -1, -1): whether the sequence has failures at all."""
    if _failed_key(removed, words, -1, -1) not in failed:
        return NEVER
    lowest = NEVER
    for used in range(recycles + 1):
        for allowed in range(loss, tab[PAR, MOST_LOSS] + 1):
            known: int = failed.get(_failed_key(removed, words, used, allowed), -1)
            if known < 0:
                continue
            if used < recycles and allowed - (recycles - used) >= loss:
                return 0
            lowest = min(lowest, known)
    return lowest


@njit(cache=True)
def _fail(failed: Dict, frame: np.ndarray) -> None:
    """``Perfect._search``'s record of a stretch that failed: (recycles used, loss) -> the lowest pointer."""
    words = frame[F_WORDS : F_WORDS + WORDS]
    removed = frame[F_REMOVED]
    key = _failed_key(removed, words, frame[F_R], frame[F_LOSS])
    pointer = frame[F_P] << 1
    known: int = failed.get(key, -1)
    if known < 0 or pointer < known:
        failed[key] = pointer
    failed[_failed_key(removed, words, -1, -1)] = 1


@njit(cache=True)
def _lonely(tab: np.ndarray, lonely_memo: Dict, removed: int, bag: int) -> int:
    """``Perfect._lonely`` (remembered by pyramid and bag): -1 if the pyramid is frozen, else the
    free places whose card has one card left that could ever take it (where the pyramid must be cleared)."""
    if (removed, bag) in lonely_memo:
        known: int = lonely_memo[(removed, bag)]
        return known
    king, pair_sum = tab[SCALARS, KING], tab[SCALARS, PAIR_SUM]
    free_bits = _free_bits(tab, removed)
    present = tab[SCALARS, FULL] & ~removed
    clears = tab[PAR, CLEARS]
    frozen = True
    lonely = 0
    for i in range(tab[SCALARS, SIZE]):
        if not free_bits >> i & 1:
            continue
        v = tab[VALUES, i]
        if v == king:
            frozen = False
            continue
        w = pair_sum - v
        outside = bag >> 4 * w & 15 if 0 < w < 16 else 0
        pyramid = tab[BY_VALUE, w] if 0 <= w < WIDTH else 0
        if outside or pyramid & free_bits & ~(1 << i):
            frozen = False
        if clears and outside + _bits(pyramid & present & ~tab[RELATED, i]) == 1:
            lonely |= 1 << i
    answer = -1 if frozen else lonely
    lonely_memo[(removed, bag)] = answer
    return answer


@njit(cache=True)
def _pyramid_units(tab: np.ndarray, removed: int) -> int:
    """``Perfect.units`` of a pyramid: its cards and rows (the apex and its row left out where the
    pyramid cannot be cleared)."""
    present = tab[SCALARS, FULL] & ~removed
    units = _bits(present)
    for k in range(tab[PAR, ROWS]):
        if tab[ROW_MASKS, k] & present:
            units += 1
    return units if tab[PAR, CLEARS] else units - 2


@njit(cache=True)
def _kings_and_bag(tab: np.ndarray, seq: np.ndarray, lo: int, hi: int) -> tuple[int, int]:
    king = tab[SCALARS, KING]
    kings = bag = 0
    for k in range(lo, hi):
        if seq[k] == king:
            kings += 1
        else:
            bag += 1 << 4 * seq[k]
    return kings, bag


@njit(cache=True)
def _stack_hopeless(
    tab: np.ndarray,
    memos: tuple[Dict, Dict],
    rwork: tuple[np.ndarray, np.ndarray],
    swork: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    seq: np.ndarray,
    p: int,
    removed: int,
    loss: int,
    least: int,
    stock_kings: int,
    stock_bag: int,
    waste_kings: int,
    waste_bag: int,
) -> bool:
    """``Perfect._stack_hopeless`` of the stop with the waste ``seq[:p]`` and the stock ``seq[p:]``."""
    smemo = memos[1]
    words = swork[2]
    _pack(seq, 0, p, words)
    known = _stack_known(smemo, removed, stock_bag, words)
    if known != LOW:
        answer, reached = known >> 1, known & 1
        if answer >= least - stock_kings if reached else answer < least - stock_kings:
            # answered before (the test below only finds sooner what the stack bound finds too)
            return not reached
    king, pair_sum = tab[SCALARS, KING], tab[SCALARS, PAIR_SUM]
    pyramid = _present_values(tab, removed)
    pairs = tab[PAR, PAIRS]
    for depth in range(p - 1, -1, -1):
        v = seq[depth]
        if v == king:
            continue
        w = pair_sum - v
        if not (pyramid >> w & 1 or pairs and _bag_has(stock_bag, w)):
            # it never leaves, nor does any card under it
            if depth + 1 > loss:
                return True
            break
    found = _stack(tab, memos, rwork, swork, seq[:p], removed, stock_bag, least - stock_kings, waste_kings, waste_bag)
    return stock_kings + found < least


@njit(cache=True)
def _bag_has(bag: int, w: int) -> bool:
    return 0 < w < 16 and bag >> 4 * w & 15 != 0


@njit(cache=True)
def _forced(tab: np.ndarray, removed: int, moves: np.ndarray, count: int, lonely: int) -> int:
    """``Perfect._forced``: the move every line may make first (its index), or -1."""
    full = tab[SCALARS, FULL]
    clears = tab[PAR, CLEARS]
    for k in range(count):
        a, b = moves[k, 0], moves[k, 1]
        if b == NO_CARD and (a < 0 or clears and removed | 1 << a != full):
            return k
    if not clears or lonely == 0:
        return -1
    for k in range(count):
        a, b = moves[k, 0], moves[k, 1]
        if b == NO_CARD:
            continue
        mine = (1 << a if a >= 0 else 0) | (1 << b if b >= 0 else 0)
        if mine & lonely and removed | mine != full:
            return k
    return -1


@njit(cache=True)
def _outside_first(moves: np.ndarray, count: int) -> None:
    """A stable sort of the moves: those taking two outside cards first, then one, then none."""
    for k in range(1, count):
        a, b = moves[k, 0], moves[k, 1]
        key = -(a < 0) - (b < 0)
        m = k
        while m > 0 and -(moves[m - 1, 0] < 0) - (moves[m - 1, 1] < 0) > key:
            moves[m, 0], moves[m, 1] = moves[m - 1, 0], moves[m - 1, 1]
            m -= 1
        moves[m, 0], moves[m, 1] = a, b


@njit(cache=True)
def _enter(
    tab: np.ndarray,
    memos: tuple[Dict, Dict, Dict, Dict],
    rwork: tuple[np.ndarray, np.ndarray],
    swork: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    work: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    depth: int,
    removed: int,
    source: np.ndarray,
    n: int,
    p: int,
    r: int,
    loss: int,
    skip: int,
    also: int,
    kings: int,
    bag: int,
) -> int:
    """``Perfect._search`` up to its children: the stretch from (``removed``, the outside cards
    ``source[:n]`` but those at ``skip`` and ``also``, ``p`` of them on the waste before those,
    ``r`` recycles used, ``loss`` allowed; ``kings`` -1: its outside cards' kings and bag not
    known yet).  ``WON``, ``LOST`` (failures recorded), ``ABANDONED``, or ``OPEN`` with its frame,
    stops and moves at ``depth``."""
    rmemo, smemo, failed, lonely_memo = memos
    frames, stops, stop_moves, order, steps = work
    frame = frames[depth]
    seq = frame[SEQ:]
    m = 0
    waste = p
    for k in range(n):
        if k == skip or k == also:
            if k < p:
                waste -= 1
        else:
            seq[m] = source[k]
            m += 1
    n, p = m, waste
    words = frame[F_WORDS : F_WORDS + WORDS]
    _pack(seq, 0, n, words)
    # the pointer from which this pass's stops are covered by a failure already known
    covered = _covered_from(tab, failed, removed, words, r, loss)
    if p << 1 >= covered:
        return LOST
    frame[F_REMOVED], frame[F_N], frame[F_P], frame[F_R], frame[F_LOSS] = removed, n, p, r, loss
    # ``Perfect._walk``: every stop of the stretch has the same pyramid and outside cards
    if removed == tab[PAR, GOAL] and n <= loss:
        # the apex alone is left (the pyramid cannot be cleared), and few enough outside cards
        return WON
    if kings < 0:
        kings, bag = _kings_and_bag(tab, seq, 0, n)
    frame[F_KINGS], frame[F_BAG] = kings, bag
    lonely = _lonely(tab, lonely_memo, removed, bag)
    if lonely < 0:
        if tab[PAR, ENDS_FROZEN] or removed != tab[PAR, GOAL]:
            # the game ends here, or a pyramid that never changes again never reaches the goal
            _fail(failed, frame)
            return LOST
        # the apex alone is left and frozen, where play goes on: outside cards may still pair
        lonely = 0
    units = _pyramid_units(tab, removed) + n
    known: int = rmemo.get((removed, bag), -1)
    if known < 0 and kings + _ceiling(tab, removed, bag) < units - loss:
        _fail(failed, frame)
        return LOST
    general = kings + (known if known >= 0 else _relaxed(tab, rmemo, rwork[0], rwork[1], removed, bag))
    recycles = tab[PAR, RECYCLES]
    king = tab[SCALARS, KING]
    stock_top, pairs = tab[PAR, STOCK_TOP] != 0, tab[PAR, PAIRS] != 0
    # the stock's kings and bag, once the stack bound is asked for (kept up to date along the stretch)
    stock_known = False
    stock_kings = stock_bag = 0
    count = made = 0
    first = True
    while True:
        tab[PAR, SPENT] += 1
        tab[PAR, LEFT] -= 1
        if tab[PAR, LEFT] == 0:
            return ABANDONED
        least = units - loss
        if general < least:
            break
        if p and not (loss and r < recycles and general - 1 >= least):
            # no recycle a line could still pay for: the waste is a stack for good
            if not stock_known:
                stock_kings, stock_bag = _kings_and_bag(tab, seq, p, n)
                stock_known = True
            if _stack_hopeless(
                tab,
                (rmemo, smemo),
                rwork,
                swork,
                seq,
                p,
                removed,
                loss,
                least,
                stock_kings,
                stock_bag,
                kings - stock_kings,
                bag - stock_bag,
            ):
                break
        moves = stop_moves[depth, count]
        stock = seq[p] if stock_top and p < n else 0
        # (just after a draw where the stock top plays, the waste top's removals were made at the stop before)
        again = not first and stock_top and steps[depth, made - 1] == DRAW_KIND
        options = top_removals(tab, removed, stock, seq[p - 1] if p else 0, first, again, pairs, moves)
        forced = _forced(tab, removed, moves, options, lonely) if options else -1
        if forced >= 0:
            # every such line from here, later stops included, may make it first
            moves[0, 0], moves[0, 1] = moves[forced, 0], moves[forced, 1]
            stops[depth, count, S_P], stops[depth, count, S_R], stops[depth, count, S_ALLOWED] = p, r, loss
            stops[depth, count, S_MADE], stops[depth, count, S_COUNT] = made, 1
            count += 1
            break
        if options:
            if options > 1:
                _outside_first(moves, options)
            stops[depth, count, S_P], stops[depth, count, S_R], stops[depth, count, S_ALLOWED] = p, r, loss
            stops[depth, count, S_MADE], stops[depth, count, S_COUNT] = made, options
            count += 1
        first = False
        if p < n:
            steps[depth, made] = DRAW_KIND
            made += 1
            if stock_known:
                # the stock's top card goes onto the waste
                if seq[p] == king:
                    stock_kings -= 1
                else:
                    stock_bag -= 1 << 4 * seq[p]
            p += 1
        elif loss and r < recycles and p:
            steps[depth, made] = RECYCLE_KIND
            made += 1
            r += 1
            p = 0
            loss -= 1
            stock_known = False
            covered = _covered_from(tab, failed, removed, words, r, loss)
        else:
            break
        if covered != NEVER and p << 1 >= covered:
            break
    if not count:
        _fail(failed, frame)
        return LOST
    mine = order[depth]
    for k in range(count):
        mine[k] = k
    if tab[PAR, BACKWARDS]:
        # each pass's later stops first: by recycles used, then by steps made, more first (stable)
        for k in range(1, count):
            s = mine[k]
            m = k
            while m > 0 and (
                stops[depth, mine[m - 1], S_R] > stops[depth, s, S_R]
                or stops[depth, mine[m - 1], S_R] == stops[depth, s, S_R]
                and stops[depth, mine[m - 1], S_MADE] < stops[depth, s, S_MADE]
            ):
                mine[m] = mine[m - 1]
                m -= 1
            mine[m] = s
    frame[F_STOPS], frame[F_STOP], frame[F_MOVE] = count, 0, 0
    return OPEN


@njit(cache=True)
def _line(work: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray], depth: int, line: np.ndarray) -> int:
    """The line of the stretches open up to ``depth``: each one's steps to its stop, then the move
    being tried there.  Its length."""
    frames, stops, stop_moves, order, steps = work
    t = 0
    for d in range(depth + 1):
        s = order[d, frames[d, F_STOP]]
        for k in range(stops[d, s, S_MADE]):
            line[t, 0], line[t, 1], line[t, 2] = steps[d, k], 0, 0
            t += 1
        move = stop_moves[d, s, frames[d, F_MOVE] - 1]
        line[t, 0], line[t, 1], line[t, 2] = REMOVE, move[0], move[1]
        t += 1
    return t


@njit(cache=True)
def _possible(
    tab: np.ndarray,
    rmemo: Dict,
    smemo: Dict,
    failed: Dict,
    lonely: Dict,
    relaxed_frames: np.ndarray,
    relaxed_moves: np.ndarray,
    stack_frames: np.ndarray,
    stack_options: np.ndarray,
    stack_words: np.ndarray,
    stack_key: np.ndarray,
    frames: np.ndarray,
    stops: np.ndarray,
    stop_moves: np.ndarray,
    order: np.ndarray,
    steps: np.ndarray,
    line: np.ndarray,
    removed: int,
    outside: bytes,
    p: int,
    r: int,
    loss: int,
) -> tuple[int, int]:
    """One try of ``Perfect.possible`` (``tab[PAR]``: its stops and its order): ``WON``, ``LOST`` or
    ``ABANDONED``, and the length of the line written into ``line``.  (The memos and arrays one by
    one: the dispatcher reads the type of a tuple of them far more slowly.)"""
    memos = (rmemo, smemo, failed, lonely)
    rwork = (relaxed_frames, relaxed_moves)
    swork = (stack_frames, stack_options, stack_words, stack_key)
    work = (frames, stops, stop_moves, order, steps)
    full = tab[SCALARS, FULL]
    source = np.empty(len(outside), np.int64)
    for k in range(len(outside)):
        source[k] = outside[k]
    answer = _enter(tab, memos, rwork, swork, work, 0, removed, source, len(outside), p, r, loss, -1, -1, -1, 0)
    if answer != OPEN:
        return answer, 0
    depth = 0
    while True:
        frame = frames[depth]
        if frame[F_STOP] == frame[F_STOPS]:
            _fail(memos[2], frame)
            if depth == 0:
                return LOST, 0
            depth -= 1
            continue
        s = order[depth, frame[F_STOP]]
        k = frame[F_MOVE]
        if k == stops[depth, s, S_COUNT]:
            frame[F_STOP] += 1
            frame[F_MOVE] = 0
            continue
        frame[F_MOVE] = k + 1
        a, b = stop_moves[depth, s, k, 0], stop_moves[depth, s, k, 1]
        n, at = frame[F_N], stops[depth, s, S_P]
        seq = frame[SEQ : SEQ + n]
        child = frame[F_REMOVED]
        kings, bag = frame[F_KINGS], frame[F_BAG]
        skip = also = -1
        taken = 0
        for place in (a, b):
            if place >= 0:
                child |= 1 << place
            elif place != NO_CARD:
                index = at if place == STOCK_REF else at - 1
                if skip < 0:
                    skip = index
                else:
                    also = index
                taken += 1
                if seq[index] == tab[SCALARS, KING]:
                    kings -= 1
                else:
                    bag -= 1 << 4 * seq[index]
        allowed = stops[depth, s, S_ALLOWED]
        if child == full:
            # a line that keeps the apex never gets here
            if tab[PAR, CLEARS] and n - taken <= allowed:
                return WON, _line(work, depth, line)
            continue
        answer = _enter(
            tab,
            memos,
            rwork,
            swork,
            work,
            depth + 1,
            child,
            seq,
            n,
            at,
            stops[depth, s, S_R],
            allowed,
            skip,
            also,
            kings,
            bag,
        )
        if answer == OPEN:
            depth += 1
        elif answer == WON:
            return WON, _line(work, depth, line)
        elif answer == ABANDONED:
            return ABANDONED, 0


class KernelPerfect:
    """``Perfect``'s answers, its search compiled: made from the pure-Python ``Perfect`` (whose
    settings it takes; its ``units`` serves both) with memos of its own for the whole par search."""

    #: the stops a call into the kernel may make before it comes back for the budget's clock; a try
    #: without a cap goes on from the top, where the failures found meanwhile stay remembered
    CHUNK = 50_000

    def __init__(self, python: Perfect, budget: Budget) -> None:
        table = python.table
        self.python = python
        self.table = table
        self.budget = budget
        self.clears = python.clears
        self.line: list[SolverMove] = []
        size = table.size
        tab = table_array(table, PAR + 1)
        tab[SCALARS, SIZE], tab[SCALARS, FULL], tab[SCALARS, KING] = size, table.full, table.king
        tab[SCALARS, PAIR_SUM] = table.pair_sum
        tab[ROW_MASKS, : len(table.row_masks)] = table.row_masks
        tab[PAR, ROWS], tab[PAR, PAIRS], tab[PAR, STOCK_TOP] = (
            len(table.row_masks),
            table.stock_waste_pairs,
            table.stock_top,
        )
        tab[PAR, RECYCLES], tab[PAR, CLEARS], tab[PAR, GOAL] = table.recycles, self.clears, python.goal
        tab[PAR, EFFORT] = python.stack.effort
        tab[PAR, ENDS_FROZEN] = table.ends_when_frozen
        self.tab = tab
        self.memos = (
            Dict.empty(PAIR_KEY, types.int64),
            Dict.empty(STACK_KEY, types.int64),
            Dict.empty(FAILED_KEY, types.int64),
            Dict.empty(PAIR_KEY, types.int64),
        )
        outside = table.rules.stock_size
        deep = size + outside + 2
        self.rwork = (np.zeros((size + 2, 6), np.int64), np.zeros((size + 2, WIDTH, 3), np.int64))
        self.swork = (
            np.zeros((deep, 9), np.int64),
            np.zeros((deep, WIDTH, 5), np.int64),
            np.zeros(WORDS, np.int64),
            np.zeros(WORDS, np.int64),
        )
        #: a stretch has a stop at most at each pointer of each pass
        most = (table.recycles + 1) * (outside + 1) + 1
        self.work = (
            np.zeros((deep, SEQ + WIDTH), np.int64),
            np.zeros((deep, most, 5), np.int64),
            np.zeros((deep, most, WIDTH, 2), np.int64),
            np.zeros((deep, most), np.int64),
            np.zeros((deep, most), np.int64),
        )
        self.buffer = np.zeros((deep * (most + 1), 3), np.int64)
        #: the most stops the stretches open at once can have made
        self.reopened = deep * most

    def units(self, position: Position) -> int:
        return self.python.units(position)

    def possible(self, position: Position, loss: int) -> bool:
        """``Perfect.possible``: whether such a line exists; when it does, ``line`` is one."""
        removed, stock, waste, _, recycles = position[:5]
        tab = self.tab
        tab[PAR, MOST_LOSS] = max(int(tab[PAR, MOST_LOSS]), loss)
        outside = bytes(waste + stock)
        for backwards, cap in self.python.TRIES:
            chunk = cap if cap >= 0 else self.CHUNK
            budget = self.budget
            while True:
                # (no more stops than the node limit leaves: past it, ``spend_many`` ends the search)
                room = chunk if budget.node_limit is None else min(chunk, budget.node_limit - budget.nodes + 1)
                tab[PAR, BACKWARDS], tab[PAR, LEFT], tab[PAR, SPENT] = backwards, room, 0
                answer, length = _possible(
                    tab,
                    *self.memos,
                    *self.rwork,
                    *self.swork,
                    *self.work,
                    self.buffer,
                    removed,
                    outside,
                    len(waste),
                    recycles,
                    loss,
                )
                budget.spend_many(int(tab[PAR, SPENT]))
                if answer != ABANDONED:
                    self.line = [(int(kind), int(a), int(b)) for kind, a, b in self.buffer[:length].tolist()]
                    return answer == WON
                if cap >= 0:
                    break
                # going on from the top walks again the stretches still open when the call came back
                # (the finished ones are remembered): calls of more stops than those can ever make
                # always get further
                chunk = min(2 * chunk, max(self.CHUNK, self.reopened + 1))
        raise AssertionError("the last try has no cap")
