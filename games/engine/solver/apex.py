"""The final card: where only the waste top plays, a win ends by pairing the apex with it.

Every pyramid card covers the apex, so the apex is the last pyramid card to go, and no other
pyramid card can pair with it.  Where only the waste top plays (no stock top, no card held in play,
stock and waste never pair, no house rules), a win therefore ends with the apex and the waste top,
a card of the apex's partner value: the *final card*.  In the last pass nothing comes back, so every
card drawn after the final card must be gone again, each with a pyramid card of its own or alone as
a king, before the final card is back on top to take the apex (docs/solver.md, rule 8).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .position import Table
from .relax import BITS, NIBBLE

if TYPE_CHECKING:
    from .kernels.relax import FinalCount

APEX = 1


class FinalCard:
    def __init__(self, table: Table) -> None:
        self.table = table
        apex = table.values[0]
        #: the value of a final card; 0 when the apex is a king (it leaves alone)
        self.final = 0 if apex == table.king else table.pair_sum - apex
        #: a value's place in a bag (``BITS`` a value), kings left out
        self._counted = [0 if v == table.king else 1 << BITS * v for v in range(table.king + 1)].__getitem__
        #: by pyramid: what ``_needs`` answers
        self._needs: dict[int, tuple[tuple[tuple[int, int, int], ...], tuple[int, ...]]] = {}
        #: the compiled count, once ``compile`` has been asked for
        self._compiled: FinalCount | None = None

    def compile(self) -> None:
        """From now on the count is the compiled one (``kernels.relax``, where Numba is installed:
        ``kernel``): the same answers."""
        from .kernels.relax import FinalCount

        self._compiled = FinalCount(self.table.king)

    def last_pass(self, removed: int, live: tuple[int, ...], stock: tuple[int, ...]) -> int:
        """The place in ``live + stock`` of a card that can be the final card of a last-pass win
        (``live``: the waste above its buried cards, ``stock`` in drawing order), -1 if none.

        A card still in the stock passes or fails whatever lies on the waste (the cards before it
        play before it is drawn), so while the stretch draws on and buries nothing more, a place in
        the stock found here stays one at every stop until it is drawn."""
        final = self.final
        if not final:
            return 0
        if self._compiled is not None:
            return self._compiled.last_pass(final, removed, live, stock, self._pyramid(removed))
        needy, room = self._pyramid(removed)
        sequence = live + stock
        drawn_at = len(live)
        counted = self._counted
        index = -1
        while True:
            try:
                index = sequence.index(final, index + 1)
            except ValueError:
                return -1
            # on the waste, what lies under it is out of play for good and what lies on it must go;
            # in the stock, the cards before it play before it is drawn
            before = sum(map(counted, sequence[:index])) if index >= drawn_at else 0
            if self._possible(sequence, index, before, max(index, drawn_at - 1), needy, room):
                return index

    def _pyramid(self, removed: int) -> tuple[tuple[tuple[int, int, int], ...], tuple[int, ...]]:
        """For a pyramid: (partner value, how many cards want it, its nibble of a bag) for the cards
        other than kings and the apex that no pyramid card unrelated to them can take; and, by
        outside value, how many pyramid cards other than the apex can take a card of that value."""
        known = self._needs.get(removed)
        if known is None:
            table = self.table
            king, pair_sum, values, mates, by_value = (
                table.king,
                table.pair_sum,
                table.values,
                table.mates,
                table.by_value,
            )
            present = table.full & ~removed & ~APEX
            wanted: dict[int, int] = {}
            rest = present
            while rest:
                low = rest & -rest
                rest ^= low
                i = low.bit_length() - 1
                v = values[i]
                if v == king:
                    continue
                w = pair_sum - v
                if not mates[i] & present:
                    wanted[w] = wanted.get(w, 0) + 1
            room = tuple((by_value.get(pair_sum - u, 0) & present).bit_count() for u in range(king + 1))
            known = (tuple((w, cards, NIBBLE << BITS * w) for w, cards in wanted.items()), room)
            self._needs[removed] = known
        return known

    def _possible(
        self,
        sequence: tuple[int, ...],
        index: int,
        before: int,
        reach: int,
        needy: tuple[tuple[int, int, int], ...],
        room: tuple[int, ...],
    ) -> bool:
        """The count the final card at ``sequence[index]`` must pass.  A pyramid card of ``needy``
        whose partner value ``before`` (the cards that play before the final one) lacks is *late*: it
        needs a card of its own drawn after the final one, so the cards after it are drawn at least
        that far (and up to ``reach``, the waste cards lying on it), and each of those needs a
        pyramid card of its own other than the apex (``room``)."""
        for w, cards, mask in needy:
            if before & mask:
                continue
            place = index
            for _ in range(cards):
                try:
                    place = sequence.index(w, place + 1)
                except ValueError:
                    return False
            if place > reach:
                reach = place
        if reach == index:
            return True
        king = self.table.king
        drawn = [0] * (king + 1)
        for u in sequence[index + 1 : reach + 1]:
            if u != king:
                drawn[u] += 1
                if drawn[u] > room[u]:
                    return False
        return True
