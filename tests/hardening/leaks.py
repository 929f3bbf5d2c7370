"""What a viewer may know of a deal, and a scanner that finds anything more in a response or message.

A card is *hidden* from a viewer when no position the viewer could have seen at a real table
shows it: for a player with a game running, no position of that game's history; for anyone
else before the spoiler line, the opening position (docs/live.md, *Spoilers*).  What a position
shows is the engine's ``visible()``, so the test trusts nothing of the service's own code.

Cards are matched in every form the service writes them: the text form (``7s``, ``Td``) and the
label (``7♠``, ``10♥``), raw or JSON-escaped; seeds in decimal and in hex; deals in their text form.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from games.engine import Card, Deal
from games.engine import Game as EngineGame

#: A card in its text form standing alone (inside a JSON string, a move list, a message).
CARD = re.compile(r"(?<![A-Za-z0-9])([A2-9TJQK][cdhs])(?![A-Za-z0-9])")
#: In HTML, CSS and JavaScript only a quoted card counts (a data attribute, embedded JSON); a card
#: a page prints for people is its label.  Prose ("As wide as..."), CSS durations ("4s") and a
#: calendar's weekdays ("Th") are not cards.
QUOTED_CARD = re.compile(r"""(?<=["'])([A2-9TJQK][cdhs])(?=["'])""")


def cards_of(view: dict[str, Any]) -> set[str]:
    """Every card face a ``visible()`` view shows."""
    shown: set[str] = set()
    for row in view["rows"]:
        for slot in row:
            if slot and "card" in slot:
                shown.add(slot["card"])
    for key in ("drawn",):
        if view.get(key):
            shown.add(view[key])
    if view["stock"].get("top"):
        shown.add(view["stock"]["top"])
    shown.update(view["waste"])
    return shown


def deck_of(deal: Deal) -> set[str]:
    return {str(card) for card in (*deal.pyramid, *deal.stock)}


def seen_in_history(deal: Deal, moves: Iterable[Any]) -> set[str]:
    """Every card any position of a game's history showed its player."""
    state = EngineGame.start(deal)
    seen = cards_of(state.visible())
    for move in moves:
        state = state.apply(move)
        seen |= cards_of(state.visible())
    return seen


def hidden_at_start(deal: Deal) -> set[str]:
    return deck_of(deal) - cards_of(EngineGame.start(deal).visible())


def hidden_after(deal: Deal, moves: Iterable[Any]) -> set[str]:
    return deck_of(deal) - seen_in_history(deal, moves)


def label_of(code: str) -> str:
    card = Card("A23456789TJQK".index(code[0]) + 1, code[1])
    return card.label


def seed_forms(seed: int) -> set[str]:
    return {str(seed), format(seed, "x"), format(seed, "X"), f"0x{seed:x}", json.dumps(str(seed))}


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif value is not None:
        yield str(value)


@dataclass
class Scanner:
    """Collects every leak it finds (rather than stopping at the first), with where it was seen."""

    secrets: set[str] = field(default_factory=set)
    leaks: list[str] = field(default_factory=list)
    scanned: int = 0
    characters: int = 0

    def _check_secrets(self, text: str, where: str) -> None:
        for secret in self.secrets:
            if secret in text:
                self.leaks.append(f"{where}: holds the secret {secret!r}")

    def _check_labels(self, text: str, hidden: set[str], where: str) -> None:
        for code in hidden:
            label = label_of(code)
            escaped = json.dumps(label)[1:-1]
            if re.search(rf"(?<![0-9A-Za-z]){re.escape(label)}", text) or escaped in text:
                self.leaks.append(f"{where}: shows the hidden card {label}")

    def json(self, message: Any, hidden: set[str], where: str) -> None:
        """A JSON body or socket message: every string in it, keys included."""
        self.scanned += 1
        text = json.dumps(message, ensure_ascii=False)
        self.characters += len(text)
        self._check_secrets(text, where)
        found = {token for string in _strings(message) for token in CARD.findall(string)}
        for code in sorted(found & hidden):
            self.leaks.append(f"{where}: shows the hidden card {code}")
        self._check_labels(text, hidden, where)

    def text(self, text: str, hidden: set[str], where: str) -> None:
        """A page, a static file, a header: quoted or element-delimited cards, labels, secrets."""
        self.scanned += 1
        self.characters += len(text)
        self._check_secrets(text, where)
        for code in sorted(set(QUOTED_CARD.findall(text)) & hidden):
            self.leaks.append(f"{where}: shows the hidden card {code}")
        self._check_labels(text, hidden, where)
