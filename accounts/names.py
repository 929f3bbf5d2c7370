"""Display names: one normal form, nothing invisible, and unique by how they look.

A name is NFKC-normalised (a no-break space becomes a space, full-width letters plain ones) with
its runs of spaces made one; a name holding an invisible, control or text-direction character is
refused.  Two names are the same name when their confusable skeletons are equal (Unicode TR39,
computed by ICU's spoof checker on the case-folded name), so "Dеmo Player" with a Cyrillic "е"
is "Demo Player", and so is "DEMO PLAYER".
"""

from __future__ import annotations

import unicodedata

import icu
from django.core.exceptions import ValidationError

MAX_LENGTH = 40

# Control, format (zero-width and bidi controls are Cf), private use, surrogates, unassigned, and
# the line and paragraph separators; Unicode's default-ignorable characters (variation
# selectors, Hangul fillers ...) draw nothing either.
_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"})
_spoof_checker = icu.SpoofChecker()

# In English, as every API message; the site's forms say them in the player's language (frontend/forms.py).
MESSAGES = {
    "invisible": "A display name cannot contain invisible, control or text-direction characters (this one has %(code)s %(name)s).",
    "max_length": "A display name has at most %(max)s characters.",
    "no_letter": "A display name needs at least one letter or digit.",
    "taken": "This display name looks the same as “%(name)s”, which another player has.",
}


def _refused(char: str) -> bool:
    return unicodedata.category(char) in _REFUSED_CATEGORIES or icu.Char.hasBinaryProperty(
        char, icu.UProperty.DEFAULT_IGNORABLE_CODE_POINT
    )


def _normal_form(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).split())


def display_name_normalize(raw: str) -> str:
    """The name as it will be stored and shown; ``ValidationError`` for a name nobody may take."""
    for char in raw + unicodedata.normalize("NFKC", raw):
        if _refused(char):
            raise ValidationError(
                MESSAGES["invisible"],
                code="invisible",
                params={"code": f"U+{ord(char):04X}", "name": unicodedata.name(char, "")},
            )
    name = _normal_form(raw)
    if len(name) > MAX_LENGTH:
        raise ValidationError(MESSAGES["max_length"], code="max_length", params={"max": MAX_LENGTH})
    if not any(unicodedata.category(char)[0] in "LN" for char in name):
        raise ValidationError(MESSAGES["no_letter"], code="no_letter")
    return name


def display_name_skeleton(name: str) -> str:
    """What the name looks like, case aside: equal for names a reader could take for each other.

    Invisible characters are dropped first, so the skeleton of a name stored before they were
    refused still matches the name without them."""
    visible = _normal_form("".join(char for char in unicodedata.normalize("NFKC", name) if not _refused(char)))
    # Case-folded before the skeleton (TR39's recipe for names that ignore case), and again after
    # it, since some prototypes are capitals: "0" becomes "O", which must meet "o".
    skeleton = str(_spoof_checker.getSkeleton(0, visible.casefold()))
    return str(_spoof_checker.getSkeleton(0, skeleton.casefold()))


def display_name_taken_message(taken: str) -> str:
    return MESSAGES["taken"] % {"name": taken}
