"""Every refusal the engine can give is said again in the page's language (frontend/static/frontend/js/reasons.js).

The engine explains a refused move in English; ``reasons.js`` matches each message with a regular
expression and says it with a msgid that the Italian and Spanish catalogues translate.  Here random
positions of every preset are asked every kind of move, and every refusal met must match a pattern
of ``reasons.js`` whose msgid has an Italian and a Spanish translation.
"""

from __future__ import annotations

import gettext
import random
import re
from pathlib import Path

from games.engine import PRESETS, deal_from_seed
from games.engine.game import Game, IllegalMoveError, Outcome
from games.engine.moves import parse_move

ROOT = Path(__file__).resolve().parents[2]
REASONS = (ROOT / "frontend/static/frontend/js/reasons.js").read_text()
LOCALE = ROOT / "frontend" / "locale"


def translated(language: str) -> set[str]:
    """The msgids the compiled script catalogue of ``language`` translates (tests/frontend/
    test_translations.py checks that each .mo matches its .po)."""
    with (LOCALE / language / "LC_MESSAGES" / "djangojs.mo").open("rb") as compiled:
        catalogue = gettext.GNUTranslations(compiled)._catalog  # type: ignore[attr-defined]
    return {key[0] if isinstance(key, tuple) else key for key, text in catalogue.items() if text}


#: (pattern, the msgids its line says)
RULES = [
    (re.compile(pattern), re.findall(r'(?:_|ngettext)\("([^"]+)"', line))
    for line in REASONS.split("\n  [")[1:]
    for pattern in re.findall(r"^/(.+?)/,", line)
]


def asked(game: Game) -> list[str]:
    """Moves of every kind, legal or not."""
    rows = game.rules.rows
    places = [f"{r}.{c}" for r in (1, rows, rows + 1) for c in (1, 2)]
    cards = places + ["S", "W", "W2", "W5"]
    return ["D", "R", "T", "B1", "B99", *cards, *(f"{a}+{b}" for a in cards for b in cards), f"{places[2]}+{places[2]}"]


def refusals() -> set[str]:
    found = set()
    for rules in PRESETS.values():
        for seed in range(4):
            game = Game.start(deal_from_seed(rules, seed))
            chooser = random.Random(seed)
            while True:
                for text in asked(game):
                    try:
                        game.apply(parse_move(text))
                    except IllegalMoveError as error:
                        found.add(str(error))
                    except ValueError:
                        pass  # the notation itself (a client never sends one the page did not write)
                if game.outcome is not Outcome.IN_PROGRESS:
                    break
                game = game.apply(chooser.choice(game.legal_moves()))
    return found


def test_every_refusal_met_in_play_is_said_in_italian_and_spanish() -> None:
    missing, untranslated = [], []
    both = translated("it") & translated("es")
    for message in sorted(refusals()):
        said = next((msgids for pattern, msgids in RULES if pattern.search(message)), None)
        if said is None:
            missing.append(message)
            continue
        untranslated += [msgid for msgid in said if msgid not in both]
    assert not missing, f"reasons.js does not say: {missing[:10]}"
    assert not untranslated, f"the catalogues have no Italian and Spanish for: {untranslated}"


def test_the_service_refusal_of_a_finished_game_is_said_too() -> None:
    message = "the game is over (lost): no more moves"
    assert any(pattern.search(message) for pattern, _ in RULES)
