"""The winnability search itself compiled by Numba (``KernelSearch``): ``WinSearch._search`` of a
position and every stretch under it, where no card is held in play and draws run freely.

It makes the stops, the tests and the moves of the pure-Python search, asking the compiled
relaxations of ``kernels.relax``.  Where it runs, and how: docs/solver.md, *The compiled kernel*.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.typed import Dict

from ..codes import CLEARABLE, GAVE_UP, LOST, TOO_DEEP, WON
from .relax import (
    BY_VALUE,
    EFFORT,
    FULL,
    KING,
    MATES,
    OPEN,
    PAIR_SUM,
    PER_WORD,
    REACH,
    SCALARS,
    SIZE,
    VALUES,
    WIDTH,
    WORDS,
    Compiled,
    _bag_clearable,
    _buried_alone,
    _dead,
    _free_bits,
    _last_pass,
    _present_values,
    _stack,
    _useful_nibbles,
)

#: more places in the SCALARS row: the final card's value (rule 8; 0: not asked), the segment
#: relaxation's steps, the last number given to a tail of segments, the recycles the rules allow,
#: whether the stock top plays and whether stock and waste pair, whether this run shuffles its
#: removals, the state of the generator it shuffles with; under the house rules, whether put-backs
#: are allowed, the search's stops before this call, and the stops after which it asks the stack
#: relaxation (``WinSearch.HOUSE_STACK_AFTER``)
FINAL, SEGMENT_STEPS, TAILS, RECYCLES, STOCK_TOP, PAIRS, SHUFFLE, RANDOM, HOUSE, PUT_BACK, NODES, STACK_AFTER = range(
    9, 21
)
#: what keeps the keys of the one memo apart: the stack relaxation's hold a packed waste in their
#: third place (never 0) and words (never negative) after it, the bag relaxation's zeros
SEGMENT_MARK, TAIL_MARK, STRETCH_MARK = -1, -2, -3
#: in a stretch's key, the waste's buried cards (``search.WALL``): a nibble no value takes
WALL_NIBBLE = 15
#: a stretch's frame: its position (pyramid, outside cards, how many of them lie on the waste,
#: recycles used, the usable bag), the code its key had in the memo before, its key, its code and
#: offset, what ``WinSearch._walk`` carries from one stop to the next, its steps and moves, and
#: from ``SEQ`` on the outside cards' values (the waste bottom first, then the stock)
(
    F_REMOVED,
    F_N,
    F_P,
    F_R,
    F_BAG,
    F_COVERED,
    F_KEY,
    _F_KEY1,
    _F_KEY2,
    _F_KEY3,
    F_START,
    F_OFF,
    F_FIRST,
    F_JUST_DRAWN,
    F_STOCK_BAG,
    F_WASTE_BAG,
    F_LAST_DEAD,
    F_FINAL_PLACE,
    F_FINAL_DEAD,
    F_BURIED_BAG,
    F_BURIED_DEAD,
    F_STEPS,
    F_COUNT,
    F_NEXT,
    F_FORCED,
    F_NEEDY,
    SEQ,
) = range(27)
#: ``position``'s names for the places of a move (a waste card at depth d is ``-1 - d``),
#: and its kinds; in a stop's moves, a put-back is (``PUT_BACK_MOVE``, where it goes)
STOCK, WASTE_TOP, NO_CARD, PUT_BACK_MOVE = -1, -2, -100, -50
REMOVE_KIND, DRAW_KIND, RECYCLE_KIND, PUT_BACK_KIND = 0, 1, 2, 3


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
def _buried_paired(tab: np.ndarray, removed: int, seq: np.ndarray, p: int, n: int) -> int:
    """``relax.buried`` where stock and waste pair: a waste card stays for good, with every
    card under it, when its value has no partner among the pyramid cards left or the stock."""
    king, pair_sum = tab[SCALARS, KING], tab[SCALARS, PAIR_SUM]
    values = _present_values(tab, removed)
    stock = 0
    for k in range(p, n):
        stock |= 1 << seq[k]
    for index in range(p - 1, -1, -1):
        v = seq[index]
        if v == king:
            continue
        w = pair_sum - v
        if not (values >> w & 1 or stock >> w & 1):
            return index + 1
    return 0


@njit(cache=True)
def _stretch_key(
    tab: np.ndarray, removed: int, seq: np.ndarray, n: int, p: int, r: int, last_draw: int, words: np.ndarray
) -> int:
    """``WinSearch._key`` of the position (``removed``, outside cards ``seq[:n]``, ``p`` of them on
    the waste, ``r`` recycles used, ``last_draw``: the last move was a draw): the outside sequence
    packed into ``words`` (the memo key is (removed, the words, ``STRETCH_MARK``)), and the code."""
    house = tab[SCALARS, HOUSE]
    dead = 0
    if not house and r == tab[SCALARS, RECYCLES] and not tab[SCALARS, PAIRS] and p:
        # a last-pass key leaves the buried cards out, a wall in their place
        dead = _buried_alone(tab, removed, seq[:p])
    words[:] = 0
    t = 0
    if dead:
        words[0] = WALL_NIBBLE
        t = 1
    for k in range(dead, n):
        words[t // PER_WORD] |= seq[k] << 4 * (t % PER_WORD)
        t += 1
    code = (r << 9) + (p - dead + (1 if dead else 0) << 1)
    # under the house rules only "was the last move a draw" still matters (it only adds a put-back:
    # where there is none, as with egyptian's waste pairs, it does not matter, as in ``WinSearch._key``)
    return code + 1 if house and not (last_draw and tab[SCALARS, PUT_BACK]) else code


@njit(cache=True)
def _enter(
    tab: np.ndarray,
    memo: Dict,
    frame: np.ndarray,
    removed: int,
    source: np.ndarray | bytes,
    n: int,
    p: int,
    r: int,
    skip: int,
    also: int,
    put_back: int,
    last_draw: int,
    bag: int,
) -> int:
    """``WinSearch._search``'s look at the memo for the position (``removed``, the outside cards
    ``source[:n]`` but those at ``skip`` and ``also`` (-1: none), ``p`` of them on the waste before
    those, ``r`` recycles used; or, with ``put_back`` n > 0, the waste top put back under the first
    n stock cards): ``LOST`` if a stretch from there or before was searched, else ``OPEN`` with the
    stretch's frame filled in."""
    seq = frame[SEQ:]
    m = 0
    waste = p
    if put_back:
        for k in range(p - 1):
            seq[k] = source[k]
        for k in range(put_back):
            seq[p - 1 + k] = source[p + k]
        seq[p - 1 + put_back] = source[p - 1]
        for k in range(p + put_back, n):
            seq[k] = source[k]
        m, waste = n, p - 1
    else:
        for k in range(n):
            if k == skip or k == also:
                if k < p:
                    waste -= 1
            else:
                seq[m] = source[k]
                m += 1
    words = frame[F_KEY : F_KEY + WORDS]
    code = _stretch_key(tab, removed, seq, m, waste, r, last_draw, words)
    covered: int = memo.get((removed, words[0], words[1], words[2], words[3], STRETCH_MARK), -1)
    if covered >= 0 and covered <= code:
        return LOST
    frame[F_REMOVED], frame[F_N], frame[F_P], frame[F_R], frame[F_BAG] = removed, m, waste, r, bag
    frame[F_COVERED], frame[F_START], frame[F_OFF] = covered, code, (r << 9) + (waste << 1) - code
    frame[F_FIRST], frame[F_JUST_DRAWN], frame[F_STOCK_BAG] = 1, last_draw, -1
    frame[F_LAST_DEAD] = frame[F_FINAL_PLACE] = frame[F_FINAL_DEAD] = frame[F_NEEDY] = -1
    frame[F_BURIED_BAG] = frame[F_BURIED_DEAD] = frame[F_STEPS] = frame[F_FORCED] = 0
    return OPEN


@njit(cache=True)
def _house_stack_cut(
    tab: np.ndarray, memo: Dict, stack_work: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], frame: np.ndarray
) -> bool:
    """The stack relaxation of a last-pass stop under the house rules (``WinSearch.stack_clearable``),
    once the search has made ``STACK_AFTER`` stops: whether it ends the stretch here."""
    frames, options, bag_work, question = stack_work
    n, p = frame[F_N], frame[F_P]
    if not p or tab[SCALARS, NODES] <= tab[SCALARS, STACK_AFTER]:
        return False
    seq = frame[SEQ : SEQ + n]
    if frame[F_STOCK_BAG] < 0:
        frame[F_STOCK_BAG] = _outside_bag(tab, seq, p, n)
        frame[F_WASTE_BAG] = _outside_bag(tab, seq, 0, p)
    stock_bag, waste_bag, m = frame[F_STOCK_BAG], frame[F_WASTE_BAG], p
    if tab[SCALARS, PUT_BACK] and frame[F_JUST_DRAWN]:
        # the card just drawn may still go back into the stock: it counts as a stock card
        top = seq[p - 1]
        if top != tab[SCALARS, KING]:
            stock_bag += 1 << 4 * top
            waste_bag -= 1 << 4 * top
        m = p - 1
    question[0], question[1], question[2] = frame[F_REMOVED], stock_bag, waste_bag
    return _stack(tab, memo, frames, options, bag_work, question, seq[:m], False) == LOST


@njit(cache=True)
def _last_pass_cut(
    tab: np.ndarray,
    memo: Dict,
    stack_work: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    segment_work: tuple[np.ndarray, np.ndarray, np.ndarray],
    frame: np.ndarray,
    needy: np.ndarray,
    room: np.ndarray,
) -> bool:
    """The tests of a last-pass stop (``WinSearch._walk``: rules 5 to 8): whether they end the
    stretch here."""
    if tab[SCALARS, HOUSE]:
        return _house_stack_cut(tab, memo, stack_work, frame)
    frames, options, bag_work, question = stack_work
    removed, n, p, bag = frame[F_REMOVED], frame[F_N], frame[F_P], frame[F_BAG]
    seq = frame[SEQ : SEQ + n]
    pairs = tab[SCALARS, PAIRS]
    last_dead = frame[F_LAST_DEAD]
    dead = 0
    if p > pairs:
        dead = _buried_paired(tab, removed, seq, p, n) if pairs else _buried_alone(tab, removed, seq[:p])
        if dead and dead != last_dead:
            usable = _outside_bag(tab, seq, dead, n)
            if usable != bag:
                bag = frame[F_BAG] = usable
                if _any_dead(tab, removed, bag) or not _bag_clearable(tab, memo, bag_work, removed, bag):
                    return True
    final = tab[SCALARS, FINAL]
    if final and (dead != frame[F_FINAL_DEAD] or frame[F_FINAL_PLACE] < p - dead):
        if frame[F_NEEDY] < 0:
            frame[F_NEEDY] = _needs(tab, removed, needy, room)
        frame[F_FINAL_PLACE] = _last_pass(
            seq[dead:], p - dead, final, tab[SCALARS, KING], needy[: frame[F_NEEDY]], room
        )
        if frame[F_FINAL_PLACE] < 0:
            return True
        frame[F_FINAL_DEAD] = dead
    if not pairs and dead != last_dead:
        segments, tails, rests = segment_work
        count = _segments(tab, removed, seq, dead, p, n, segments)
        # (the segment relaxation walks its frames in the stack relaxation's arrays, idle meanwhile)
        if not _segment_clearable(tab, memo, frames, options, bag_work, segments[:count], tails, rests, removed):
            return True
    if p:
        if frame[F_STOCK_BAG] < 0:
            frame[F_STOCK_BAG] = _outside_bag(tab, seq, p, n)
            frame[F_WASTE_BAG] = _outside_bag(tab, seq, 0, p)
        question[0] = removed
        if pairs:
            question[1], question[2] = frame[F_STOCK_BAG], frame[F_WASTE_BAG]
            answer = _stack(tab, memo, frames, options, bag_work, question, seq[:p], False)
        else:
            # the buried cards left out, as the relaxation would leave them
            if dead != frame[F_BURIED_DEAD]:
                frame[F_BURIED_BAG], frame[F_BURIED_DEAD] = _outside_bag(tab, seq, 0, dead), dead
            question[1] = frame[F_STOCK_BAG] & _useful_nibbles(tab, removed)
            question[2] = frame[F_WASTE_BAG] - frame[F_BURIED_BAG]
            answer = _stack(tab, memo, frames, options, bag_work, question, seq[dead:p], False)
        if answer == LOST:
            return True
    frame[F_LAST_DEAD] = dead
    return False


@njit(cache=True)
def _put(moves: np.ndarray, count: int, a: int, b: int) -> int:
    moves[count, 0], moves[count, 1] = a, b
    return count + 1


@njit(cache=True)
def _house_removals(tab: np.ndarray, frame: np.ndarray, moves: np.ndarray) -> int:
    """``Table._pairwise_removals`` where waste cards pair among the top ``REACH`` (a deep one only
    with another waste card): every removal at the first stop of a stretch; at the later ones, those
    with the waste top but pairs of two pyramid cards (``WinSearch._walk``: a pair of two waste
    cards below the top lay one place higher at the stop before)."""
    removed, p = frame[F_REMOVED], frame[F_P]
    king, pair_sum, size = tab[SCALARS, KING], tab[SCALARS, PAIR_SUM], tab[SCALARS, SIZE]
    first = frame[F_FIRST]
    frame[F_FIRST] = 0
    free_bits = _free_bits(tab, removed)
    # the cards in play: the free pyramid cards, then the waste's top ``REACH`` (place -1 - depth)
    places = np.empty(size + WIDTH, np.int64)
    values = np.empty(size + WIDTH, np.int64)
    cards = 0
    for i in range(size):
        if free_bits >> i & 1:
            places[cards], values[cards] = i, tab[VALUES, i]
            cards += 1
    for depth in range(1, min(tab[SCALARS, REACH], p) + 1):
        places[cards], values[cards] = -1 - depth, frame[SEQ + p - depth]
        cards += 1
    count = 0
    for k in range(cards):
        a, v = places[k], values[k]
        if v == king and a >= WASTE_TOP:
            if first or a == WASTE_TOP:
                count = _put(moves, count, a, NO_CARD)
            continue
        for j in range(k + 1, cards):
            b = places[j]
            if values[j] != pair_sum - v or not (first or a < 0 or b < 0):
                continue
            in_waste = (a < STOCK) + (b < STOCK)
            if (a < WASTE_TOP or b < WASTE_TOP) and in_waste != 2:
                continue
            if a < 0 and b < 0 and not (tab[SCALARS, PAIRS] or in_waste == 2):
                continue
            if first or WASTE_TOP <= a < 0 or WASTE_TOP <= b < 0:
                count = _put(moves, count, a, b)
    return count


@njit(cache=True)
def _removals(tab: np.ndarray, frame: np.ndarray, moves: np.ndarray) -> int:
    """The removals of a stop, in ``moves``, and how many: ``Table.removals`` at the first stop of
    a stretch, ``Table.outside_removals`` at the later ones."""
    if tab[SCALARS, HOUSE]:
        return _house_removals(tab, frame, moves)
    removed, n, p = frame[F_REMOVED], frame[F_N], frame[F_P]
    stock = frame[SEQ + p] if tab[SCALARS, STOCK_TOP] and p < n else 0
    top = frame[SEQ + p - 1] if p else 0
    first = frame[F_FIRST]
    frame[F_FIRST] = 0
    # just after a draw where the stock top plays, the waste top was the stock top at the stop
    # before, which made its removals (docs/solver.md, "No stop twice")
    again = frame[F_JUST_DRAWN] and tab[SCALARS, STOCK_TOP]
    return top_removals(tab, removed, stock, top, first, again, tab[SCALARS, PAIRS], moves)


@njit(cache=True)
def top_removals(
    tab: np.ndarray, removed: int, stock: int, top: int, first: bool, again: bool, pairs: bool, moves: np.ndarray
) -> int:
    """Where only the tops play (the stock top, ``stock``, 0 if it does not play or there is none;
    the waste top, ``top``): ``Table._top_removals`` at the first stop of a stretch,
    ``Table.outside_removals`` at the later ones (``again``: without the waste top's removals, made
    at the stop before), in their order, into ``moves``; how many."""
    king, pair_sum, size = tab[SCALARS, KING], tab[SCALARS, PAIR_SUM], tab[SCALARS, SIZE]
    free_bits = _free_bits(tab, removed)
    count = 0
    if first:
        for i in range(size):
            if not free_bits >> i & 1:
                continue
            v = tab[VALUES, i]
            if v == king:
                count = _put(moves, count, i, NO_CARD)
                continue
            w = pair_sum - v
            for j in range(i + 1, size):
                if free_bits >> j & 1 and tab[VALUES, j] == w:
                    count = _put(moves, count, i, j)
            if stock == w:
                count = _put(moves, count, i, STOCK)
            if top == w:
                count = _put(moves, count, i, WASTE_TOP)
        if stock == king:
            count = _put(moves, count, STOCK, NO_CARD)
        elif stock and top and pairs and stock + top == pair_sum:
            count = _put(moves, count, STOCK, WASTE_TOP)
        if top == king:
            count = _put(moves, count, WASTE_TOP, NO_CARD)
        return count
    if stock == king:
        count = _put(moves, count, STOCK, NO_CARD)
    elif stock:
        for i in range(size):
            if free_bits >> i & 1 and tab[VALUES, i] == pair_sum - stock:
                count = _put(moves, count, i, STOCK)
    if top:
        if not again:
            if top == king:
                count = _put(moves, count, WASTE_TOP, NO_CARD)
            else:
                for i in range(size):
                    if free_bits >> i & 1 and tab[VALUES, i] == pair_sum - top:
                        count = _put(moves, count, i, WASTE_TOP)
        if stock and pairs and stock + top == pair_sum:
            count = _put(moves, count, STOCK, WASTE_TOP)
    return count


@njit(cache=True)
def _order(tab: np.ndarray, frame: np.ndarray, moves: np.ndarray, count: int) -> int:
    """``forced_move`` (a king, or a pair one of whose pyramid cards has no other possible partner:
    the only move tried), else the removals in the order of trial: the lowest pyramid card first,
    or shuffled in a run that shuffles.  How many moves are tried."""
    removed, bag = frame[F_REMOVED], frame[F_BAG]
    pair_sum = tab[SCALARS, PAIR_SUM]
    # under the house rules a put-back must follow its draw at once: nothing is forced just after one
    # (where there is a put-back: ``forced_move``, whose flag only the put-back and return-three set)
    loose = not (tab[SCALARS, HOUSE] and tab[SCALARS, PUT_BACK] and frame[F_JUST_DRAWN])
    for k in range(count if loose else 0):
        a, b = moves[k, 0], moves[k, 1]
        forced = b == NO_CARD
        for place in (a, b):
            if not forced and place >= 0:
                w = pair_sum - tab[VALUES, place]
                forced = (bag >> 4 * w & 15) + _bits(tab[MATES, place] & ~removed) == 1
        if forced and b != NO_CARD and tab[SCALARS, PUT_BACK]:
            # ``fellows_at_stake``: a put-back needs three fellows of the drawn card free in the pyramid
            present = tab[SCALARS, FULL] & ~removed
            for place in (a, b):
                if place >= 0 and _bits(tab[BY_VALUE, tab[VALUES, place]] & present) >= 3:
                    forced = False
        if forced:
            moves[0, 0], moves[0, 1] = a, b
            frame[F_FORCED] = 1
            return 1
    if count >= 2:
        count = _sorted(tab, moves, count)
    if tab[SCALARS, PUT_BACK] and frame[F_JUST_DRAWN] and frame[F_P] < frame[F_N]:
        # the card just drawn back under the first n stock cards, where its three fellows lie free
        card = frame[SEQ + frame[F_P] - 1]
        free_bits = _free_bits(tab, removed)
        fellows = 0
        for i in range(tab[SCALARS, SIZE]):
            if free_bits >> i & 1 and tab[VALUES, i] == card:
                fellows += 1
        if fellows == 3:
            for at in range(1, frame[F_N] - frame[F_P] + 1):
                count = _put(moves, count, PUT_BACK_MOVE, at)
    return count


@njit(cache=True)
def _sorted(tab: np.ndarray, moves: np.ndarray, count: int) -> int:
    """The removals in the order of trial: the lowest pyramid card first, or shuffled in a run
    that shuffles."""
    if tab[SCALARS, SHUFFLE]:
        # Fisher and Yates, on a xorshift generator seeded with the run's number
        for k in range(count - 1, 0, -1):
            x = tab[SCALARS, RANDOM]
            x ^= x << 13
            x ^= (x >> 7) & 0x1FFFFFFFFFFFFFF
            x ^= x << 17
            tab[SCALARS, RANDOM] = x
            m = (x & 0x7FFFFFFFFFFFFFFF) % (k + 1)
            moves[k, 0], moves[m, 0] = moves[m, 0], moves[k, 0]
            moves[k, 1], moves[m, 1] = moves[m, 1], moves[k, 1]
        return count
    # (``lowest_first``: a stable sort on the higher place)
    for k in range(1, count):
        a, b = moves[k, 0], moves[k, 1]
        high = max(a, b)
        m = k
        while m > 0 and max(moves[m - 1, 0], moves[m - 1, 1]) < high:
            moves[m, 0], moves[m, 1] = moves[m - 1, 0], moves[m - 1, 1]
            m -= 1
        moves[m, 0], moves[m, 1] = a, b
    return count


@njit(cache=True)
def _search(
    tab: np.ndarray,
    memo: Dict,
    frames: np.ndarray,
    options: np.ndarray,
    bag_work: np.ndarray,
    question: np.ndarray,
    segment_bags: np.ndarray,
    stretches: np.ndarray,
    moves: np.ndarray,
    steps: np.ndarray,
    needy: np.ndarray,
    room: np.ndarray,
    line: np.ndarray,
    removed: int,
    outside: bytes,
    p: int,
    r: int,
    last_draw: int,
    bag: int,
    limit: int,
) -> tuple[int, int, int]:
    """``WinSearch._search`` of the position (``removed``, the outside cards ``outside``, ``p`` of
    them on the waste, ``r`` recycles used), with ``bag`` its usable outside values: (``WON``,
    ``LOST``, or ``GAVE_UP`` after ``limit`` stops; the stops made; the length of the winning line
    written into ``line`` as (kind, a, b)).  A stretch searched to the end enters its code in the
    memo then (no line leads back to a position being searched, so this is the same as entering it
    at the start), so that a search given up leaves only finished answers behind."""
    stack_work = (frames, options, bag_work, question)
    segment_work = (segment_bags[0], segment_bags[1], segment_bags[2])
    full, king, pair_sum = tab[SCALARS, FULL], tab[SCALARS, KING], tab[SCALARS, PAIR_SUM]
    recycles = tab[SCALARS, RECYCLES]
    stops = 0
    if _enter(tab, memo, stretches[0], removed, outside, len(outside), p, r, -1, -1, 0, last_draw, bag) == LOST:
        return LOST, 0, 0
    nodes = tab[SCALARS, NODES]
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
            tab[SCALARS, NODES] = nodes + stops
            if frame[F_R] == recycles:
                lost = _last_pass_cut(tab, memo, stack_work, segment_work, frame, needy[depth], room[depth])
            if not lost:
                frame[F_COUNT] = _order(tab, frame, moves[depth], _removals(tab, frame, moves[depth]))
                frame[F_NEXT] = 0
        if not lost:
            k = frame[F_NEXT]
            if k < frame[F_COUNT]:
                frame[F_NEXT] = k + 1
                a, b = moves[depth, k, 0], moves[depth, k, 1]
                n, p = frame[F_N], frame[F_P]
                seq = frame[SEQ : SEQ + n]
                child = frame[F_REMOVED]
                if depth + 1 == len(stretches):
                    # (never: the frames are as many as the longest line can need)
                    return TOO_DEEP, stops, 0
                if a == PUT_BACK_MOVE:
                    if (
                        _enter(
                            tab, memo, stretches[depth + 1], child, seq, n, p, frame[F_R], -1, -1, b, 0, frame[F_BAG]
                        )
                        == OPEN
                    ):
                        depth += 1
                        fresh = True
                    continue
                # the outside cards taken: the stock top is the first after the waste, a waste card at
                # depth d the d-th from its end
                skip = also = -1
                if a >= 0:
                    child |= 1 << a
                elif a != NO_CARD:
                    skip = p if a == STOCK else p + 1 + a
                if b >= 0:
                    child |= 1 << b
                elif b != NO_CARD:
                    also = p if b == STOCK else p + 1 + b
                if child == full:
                    # the line: each stretch's steps, then the move that left it
                    t = 0
                    for d in range(depth + 1):
                        for s in range(stretches[d, F_STEPS]):
                            line[t, 0], line[t, 1], line[t, 2] = steps[d, s], 0, 0
                            t += 1
                        taken = stretches[d, F_NEXT] - 1
                        a, b = moves[d, taken, 0], moves[d, taken, 1]
                        if a == PUT_BACK_MOVE:
                            line[t, 0], line[t, 1], line[t, 2] = PUT_BACK_KIND, b, 0
                        else:
                            line[t, 0], line[t, 1], line[t, 2] = REMOVE_KIND, a, b
                        t += 1
                    return WON, stops, t
                child_bag = frame[F_BAG]
                if b != NO_CARD:
                    # ``WinSearch._try``: the bag after the pair, the dead-card tests, the bag relaxation
                    v = tab[VALUES, a] if a >= 0 else seq[skip]
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
                if (
                    _enter(tab, memo, stretches[depth + 1], child, seq, n, p, frame[F_R], skip, also, 0, 0, child_bag)
                    == OPEN
                ):
                    depth += 1
                    fresh = True
                continue
            if not frame[F_FORCED]:
                # on to the next pointer: draw, or recycle once the stock is out
                p, r = frame[F_P], frame[F_R]
                step = 0
                if p < frame[F_N]:
                    step = DRAW_KIND
                    u = frame[SEQ + p]
                    if frame[F_STOCK_BAG] >= 0 and u != king:
                        frame[F_STOCK_BAG] -= 1 << 4 * u
                        frame[F_WASTE_BAG] += 1 << 4 * u
                    p += 1
                elif r < recycles and p:
                    step = RECYCLE_KIND
                    r += 1
                    p = 0
                if step:
                    frame[F_P], frame[F_R], frame[F_JUST_DRAWN] = p, r, step == DRAW_KIND
                    # (under the house rules, one more where the last move was no draw, or where no
                    # put-back makes a draw matter: ``_stretch_key``)
                    house_bit = tab[SCALARS, HOUSE] and (step != DRAW_KIND or not tab[SCALARS, PUT_BACK])
                    code = (r << 9) + (p << 1) - frame[F_OFF] + (1 if house_bit else 0)
                    start = frame[F_START]
                    # not past an earlier stretch from this key, nor back at a pointer of this one
                    if not (frame[F_COVERED] >= 0 and code >= frame[F_COVERED]) and not (
                        code >> 9 > start >> 9 and code & 511 >= start & 511
                    ):
                        steps[depth, frame[F_STEPS]] = step
                        frame[F_STEPS] += 1
                        fresh = True
                        continue
        # this stretch is lost: its code goes into the memo
        memo[(frame[F_REMOVED], frame[F_KEY], frame[F_KEY + 1], frame[F_KEY + 2], frame[F_KEY + 3], STRETCH_MARK)] = (
            frame[F_START]
        )
        if depth == 0:
            return LOST, stops, 0
        depth -= 1


@njit(cache=True)
def _covered(
    tab: np.ndarray, memo: Dict, removed: int, outside: bytes, p: int, r: int, words: np.ndarray
) -> tuple[int, int]:
    """The code a position's key has in the memo (-1: none), and the position's own (outside the
    house rules: the beam's question)."""
    seq = np.empty(len(outside), np.int64)
    for k in range(len(outside)):
        seq[k] = outside[k]
    code = _stretch_key(tab, removed, seq, len(outside), p, r, 0, words)
    covered: int = memo.get((removed, words[0], words[1], words[2], words[3], STRETCH_MARK), -1)
    return covered, code


class KernelSearch:
    """One solve's search in the kernel: it shares the compiled stack relaxation's table, memo and
    arrays (``Compiled``), and keeps in that memo the stretches it has searched to the end, for the
    whole solve."""

    def __init__(
        self,
        compiled: Compiled,
        final: int,
        recycles: int,
        stock_top: bool,
        pairs: bool,
        outside: int,
        house: bool = False,
        put_back: bool = False,
        stack_after: int = 0,
    ) -> None:
        self.compiled = compiled
        tab = compiled.tab
        tab[SCALARS, FINAL], tab[SCALARS, RECYCLES] = final, recycles
        tab[SCALARS, STOCK_TOP], tab[SCALARS, PAIRS] = stock_top, pairs
        tab[SCALARS, HOUSE], tab[SCALARS, PUT_BACK], tab[SCALARS, STACK_AFTER] = house, put_back, stack_after
        size = tab[SCALARS, SIZE]
        # a stretch's child has a card fewer, or under the house rules the same cards with the card
        # just drawn put back further down the stock: only the fourth card of a rank goes back (one a
        # rank, a deck of one), always further down, so at most ``outside`` times each
        ranks = tab[SCALARS, KING] if put_back else 0
        depth = size + outside + ranks * outside + 2
        self.stretches = np.zeros((depth, SEQ + WIDTH), np.int64)
        self.moves = np.zeros((depth, WIDTH, 2), np.int64)
        #: a stretch draws every card once a pass, and recycles between the passes
        self.steps = np.zeros((depth, (recycles + 1) * (outside + 1)), np.int64)
        self.needy = np.zeros((depth, 16, 2), np.int64)
        self.room = np.zeros((depth, 16), np.int64)
        #: the segments' bags, their tails' numbers and their tails' sums
        self.segment_bags = np.zeros((3, WIDTH + 1), np.int64)
        self.line = np.zeros((depth * ((recycles + 1) * (outside + 1) + 1), 3), np.int64)
        self.words = np.zeros(WORDS, np.int64)

    def shuffle(self, run: int | None) -> None:
        """The order of trial from now on: the lowest pyramid card first (None), or shuffled by a
        generator seeded with ``run``."""
        tab = self.compiled.tab
        tab[SCALARS, SHUFFLE] = run is not None
        # (xorshift needs a state other than 0)
        tab[SCALARS, RANDOM] = 0x9E3779B97F4A7C15 % (1 << 62) + (run or 0)

    def search(
        self,
        removed: int,
        outside: bytes,
        on_waste: int,
        recycles: int,
        bag: int,
        limit: int,
        last_draw: bool = False,
        nodes: int = 0,
    ) -> tuple[int, int, list[tuple[int, int, int]]]:
        """(``WON``, ``LOST`` or ``GAVE_UP``; the stops made; the winning line).  ``last_draw``: the
        position follows a draw; ``nodes``: the stops the search has made so far (under the house
        rules the stack relaxation waits for ``stack_after`` of them)."""
        c = self.compiled
        c.tab[SCALARS, NODES] = nodes
        answer, stops, length = _search(
            c.tab,
            c.memo,
            c.frames,
            c.options,
            c.bag_work,
            c.question,
            self.segment_bags,
            self.stretches,
            self.moves,
            self.steps,
            self.needy,
            self.room,
            self.line,
            removed,
            outside,
            on_waste,
            recycles,
            last_draw,
            bag,
            limit,
        )
        line = [(kind, a, b) for kind, a, b in self.line[:length].tolist()] if answer == WON else []
        return int(answer), int(stops), line

    def refuted(self, removed: int, outside: bytes, on_waste: int, recycles: int) -> bool:
        """The memo holds a stretch searched to the end from this position's key at its code or a
        lower one."""
        covered, code = _covered(
            self.compiled.tab, self.compiled.memo, removed, outside, on_waste, recycles, self.words
        )
        return 0 <= covered <= code
