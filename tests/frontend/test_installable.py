"""The installable app: the manifest, the service worker's script and the offline page."""

from __future__ import annotations

import json
import re
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from frontend import installable
from tests.factories import make_player

pytestmark = pytest.mark.usefixtures("db")


def png_size(body: bytes) -> tuple[int, int]:
    assert body[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", body[16:24])
    return width, height


def body_of(response: Any) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content


def test_the_manifest_names_the_app_and_its_icons_in_the_pages_language() -> None:
    response = Client().get("/manifest.webmanifest?lang=es")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/manifest+json")
    data = json.loads(response.content)
    assert data["name"] == "Piramide: el solitario de la pirámide del día" and data["lang"] == "es"
    assert data["short_name"] == "Piramide" and data["display"] == "standalone"
    assert data["start_url"] == "/" and data["scope"] == "/" and data["id"] == "/"
    assert data["theme_color"] and data["background_color"]
    purposes = {(icon["sizes"], icon["purpose"]) for icon in data["icons"]}
    assert purposes == {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")}
    for icon in data["icons"]:
        png = Client().get(icon["src"])
        assert png.status_code == 200
        width, height = png_size(body_of(png))
        assert f"{width}x{height}" == icon["sizes"]


def test_a_manifest_asked_in_an_unknown_language_falls_back_to_the_visitors() -> None:
    data = Client(HTTP_ACCEPT_LANGUAGE="en").get("/manifest.webmanifest?lang=xx").json()
    assert data["lang"] == "en" and data["name"] == "Piramide: the daily pyramid solitaire"


def test_every_page_links_the_manifest_the_touch_icon_the_theme_colour_and_the_worker() -> None:
    page = Client().get("/").content.decode()
    assert re.search(r'<link rel="manifest" href="/manifest.webmanifest\?lang=it">', page)
    assert 'rel="apple-touch-icon"' in page and '<meta name="theme-color"' in page
    assert 'data-worker="/sw.js"' in page


def test_the_worker_is_served_from_the_root_uncached_and_precaches_only_the_static_shell() -> None:
    response = Client().get("/sw.js")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript")
    assert "no-cache" in response["Cache-Control"]
    script = response.content.decode()
    shell = json.loads(re.search(r"const SHELL = (\[.*?\]);", script).group(1))  # type: ignore[union-attr]
    assert "/static/frontend/site.css" in shell and "/static/frontend/js/play.js" in shell
    assert "/static/frontend/icons/maskable-512.png" in shell
    assert all(url.startswith("/static/") for url in shell), "nothing but static files is precached"
    assert 'const OFFLINE = "/offline/"' in script
    assert re.search(r'const CACHE = "piramide-shell-[0-9a-f]{16}"', script)


def test_the_cache_version_changes_when_a_shell_file_changes(monkeypatch: Any, tmp_path: Path) -> None:
    _, before = installable._shell()
    edited = tmp_path / "site.css"
    edited.write_text("body { color: red; }")
    real_find = installable.finders.find
    monkeypatch.setattr(
        installable.finders, "find", lambda name: str(edited) if name == "frontend/site.css" else real_find(name)
    )
    _, after = installable._shell()
    assert after != before


def test_the_offline_page_is_the_same_for_everyone_so_a_stored_copy_tells_nothing() -> None:
    player = make_player(display_name="Secretname")
    signed_in = Client(HTTP_ACCEPT_LANGUAGE="it")
    signed_in.force_login(player)
    mine = signed_in.get("/offline/")
    anyone = Client(HTTP_ACCEPT_LANGUAGE="it").get("/offline/")
    assert mine.status_code == anyone.status_code == 200
    assert mine.content == anyone.content
    page = mine.content.decode()
    assert "Secretname" not in page and "csrfmiddlewaretoken" not in page
    assert "Sei offline" in page


@pytest.fixture
def fresh_shell() -> Iterator[None]:
    """The shell a deployed process computes once: computed again for this test, and after it."""
    installable._shell_cached.cache_clear()
    yield
    installable._shell_cached.cache_clear()


@pytest.mark.usefixtures("fresh_shell")
def test_with_hashed_static_names_the_worker_precaches_the_names_the_pages_ask_for(
    settings: Any, tmp_path: Path
) -> None:
    from django.core.management import call_command
    from django.templatetags.static import static

    settings.STATIC_ROOT = tmp_path
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.ManifestStaticFilesStorage"},
    }
    # the front end's files are enough here: the other apps' (admin, API docs) only take time
    call_command(
        "collectstatic", interactive=False, verbosity=0, ignore_patterns=["admin", "rest_framework", "drf_spectacular*"]
    )
    script = Client().get("/sw.js").content.decode()
    css = static("frontend/site.css")
    assert re.fullmatch(r"/static/frontend/site\.[0-9a-f]{12}\.css", css)
    assert f'"{css}"' in script and f'"{static("frontend/js/board.js")}"' in script
    assert css in Client().get("/").content.decode()
    icons = Client().get("/manifest.webmanifest").json()["icons"]
    assert all(re.search(r"\.[0-9a-f]{12}\.png$", icon["src"]) for icon in icons)
