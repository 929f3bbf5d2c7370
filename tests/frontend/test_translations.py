"""The committed catalogues: complete, and their compiled .mo files match the .po sources."""

from __future__ import annotations

import gettext
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from django.utils import translation

from tests.ci import missing

LOCALE = Path(__file__).resolve().parents[2] / "frontend" / "locale"
CATALOGUES = sorted(LOCALE.glob("*/LC_MESSAGES/*.po"))


@pytest.mark.parametrize("po", CATALOGUES, ids=lambda p: f"{p.parts[-3]}/{p.name}")
def test_compiled_catalogue_matches_its_source(po: Path, tmp_path: Path) -> None:
    if shutil.which("msgfmt") is None:
        missing("msgfmt (GNU gettext) is not installed: cannot recompile to compare")
    fresh = tmp_path / "fresh.mo"
    subprocess.run(["msgfmt", "--check-format", "-o", str(fresh), str(po)], check=True, capture_output=True)
    with fresh.open("rb") as a, po.with_suffix(".mo").open("rb") as b:
        assert gettext.GNUTranslations(a)._catalog == gettext.GNUTranslations(b)._catalog  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "po", [p for p in CATALOGUES if p.parts[-3] in ("it", "es")], ids=lambda p: f"{p.parts[-3]}/{p.name}"
)
def test_every_italian_and_spanish_string_is_translated(po: Path) -> None:
    """The .po files are where the translations live: msgfmt counts what is left untranslated or
    fuzzy (a guess of msgmerge's, which makemessages leaves for a person to check), single-line
    and wrapped messages and plurals alike."""
    if shutil.which("msgfmt") is None:
        missing("msgfmt (GNU gettext) is not installed: cannot count the catalogue's messages")
    counted = subprocess.run(
        ["msgfmt", "--statistics", "-o", "/dev/null", str(po)], check=True, capture_output=True, text=True
    ).stderr
    assert re.fullmatch(r"\d+ translated messages?\.\n", counted), counted
    assert '"Plural-Forms: nplurals=2; plural=(n != 1);\\n"' in po.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("language", "expected"), [("it", "Classifiche"), ("en", "Leaderboards"), ("es", "Clasificaciones")]
)
def test_templates_translate_through_djangos_machinery(language: str, expected: str) -> None:
    with translation.override(language):
        assert translation.gettext("Leaderboards") == expected


JS = Path(__file__).resolve().parents[2] / "frontend" / "static" / "frontend" / "js"
#: What the scripts hand to Django's JavaScript catalogue: _("…"), gettext("…"), ngettext("…", "…", n).
JS_CALL = re.compile(r'\b(?:_|gettext|ngettext)\("((?:[^"\\]|\\.)*)"')


def test_every_string_the_scripts_translate_is_in_the_catalogue() -> None:
    """A string handed to a translation function under a name xgettext does not know is never
    extracted, and every player sees it in English."""
    with (LOCALE / "it" / "LC_MESSAGES" / "djangojs.mo").open("rb") as compiled:
        catalogue = gettext.GNUTranslations(compiled)._catalog  # type: ignore[attr-defined]
    extracted = {key[0] if isinstance(key, tuple) else key for key in catalogue}
    called = {text for script in JS.rglob("*.js") for text in JS_CALL.findall(script.read_text(encoding="utf-8"))}
    assert called and not called - extracted
