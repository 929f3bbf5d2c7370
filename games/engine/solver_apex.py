"""The final card: where only the waste top plays, a win ends by pairing the apex with it.

Every pyramid card covers the apex, so the apex is the last pyramid card to go, and no other
pyramid card can pair with it.  Where only the waste top plays (no stock top, no card held in play,
stock and waste never pair, no house rules), a win therefore ends with the apex and the waste top,
a card of the apex's partner value: the *final card*.  In the last pass nothing comes back, so every
card drawn after the final card must be gone again, each with a pyramid card of its own or alone as
a king, before the final card is back on top to take the apex (docs/solver.md, rule 8).
"""

from __future__ import annotations

from .solver_position import Table
from .solver_relax import BITS, NIBBLE, bag_of

APEX = 1


class FinalCard:
    def __init__(self, table: Table) -> None:
        self.table = table
        apex = table.values[0]
        #: the value of a final card; 0 when the apex is a king (it leaves alone)
        self.final = 0 if apex == table.king else table.pair_sum - apex

    def last_pass(self, removed: int, live: tuple[int, ...], stock: tuple[int, ...]) -> bool:
        """Can some card of ``live + stock`` be the final card of a last-pass win (``live``: the
        waste above its buried cards, ``stock`` in drawing order)?"""
        if not self.final:
            return True
        sequence = live + stock
        drawn_at = len(live)
        king = self.table.king
        for index, value in enumerate(sequence):
            if value != self.final:
                continue
            # on the waste, what lies under it is out of play for good and what lies on it must go;
            # in the stock, the cards before it play before it is drawn
            before = 0 if index < drawn_at else bag_of([v for v in sequence[:index] if v != king])
            if self._possible(removed, sequence, index, before, max(index, drawn_at - 1)):
                return True
        return False

    def _possible(self, removed: int, sequence: tuple[int, ...], index: int, before: int, reach: int) -> bool:
        """The count the final card at ``sequence[index]`` must pass.  A pyramid card that no card
        of ``before`` (the cards that play before the final one) and no pyramid card unrelated to it
        can take needs a card of its own drawn after the final one, so the cards after it are drawn
        at least that far (and up to ``reach``, the waste cards lying on it), and each of those
        needs a pyramid card of its own other than the apex."""
        table = self.table
        king, pair_sum, values, related, by_value = table.king, table.pair_sum, table.values, table.related, table.by_value
        present = table.full & ~removed & ~APEX
        late: dict[int, int] = {}
        rest = present
        while rest:
            low = rest & -rest
            rest ^= low
            i = low.bit_length() - 1
            v = values[i]
            if v == king:
                continue
            w = pair_sum - v
            if before >> BITS * w & NIBBLE or by_value.get(w, 0) & present & ~related[i]:
                continue
            late[w] = late.get(w, 0) + 1
        for w, cards in late.items():
            place = index
            for _ in range(cards):
                try:
                    place = sequence.index(w, place + 1)
                except ValueError:
                    return False
            reach = max(reach, place)
        drawn = bag_of([v for v in sequence[index + 1 : reach + 1] if v != king])
        v = 0
        while drawn:
            count = drawn & NIBBLE
            if count and count > (by_value.get(pair_sum - v, 0) & present).bit_count():
                return False
            drawn >>= BITS
            v += 1
        return True
