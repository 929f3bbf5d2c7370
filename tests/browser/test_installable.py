"""The installable app in Chromium: the manifest as the browser reads it, and the service worker
that serves the static shell from its cache but never stores a page, the API or a game."""

from __future__ import annotations

import json
import re
from typing import Any

from .helpers import sign_up, start_ranked

CACHED_URLS = """async () => {
  const urls = [];
  for (const name of await caches.keys()) for (const request of await (await caches.open(name)).keys()) urls.push(request.url);
  return { names: await caches.keys(), urls };
}"""


def test_the_manifest_is_linked_and_valid_with_icons_the_browser_can_use(site: Any, page: Any) -> None:
    page.goto("/")
    cdp = page.context.new_cdp_session(page)
    found = cdp.send("Page.getAppManifest")
    assert found["url"] == site.url + "/manifest.webmanifest?lang=it"
    assert found["errors"] == [], found["errors"]
    manifest = json.loads(found["data"])
    assert manifest["display"] == "standalone" and manifest["short_name"] == "Piramide"
    assert manifest["name"] == "Piramide: il solitario della piramide del giorno"
    for icon in manifest["icons"]:
        response = page.request.get(icon["src"])
        assert response.ok and response.headers["content-type"] == "image/png"
    assert page.locator('meta[name="theme-color"]').get_attribute("content") == manifest["theme_color"]
    # issue 42, point 12: /favicon.ico, where browsers look without a link, was a 404
    for href in ("/favicon.ico", page.locator('link[rel="icon"]').get_attribute("href")):
        response = page.request.get(href)
        assert response.ok and response.headers["content-type"].startswith("image/"), (href, response.status)


def test_the_worker_controls_the_play_page_serves_static_files_from_its_cache_and_never_stores_a_game(
    site: Any, new_context: Any
) -> None:
    context = new_context()
    page = context.new_page()
    sign_up(page, site)
    start_ranked(page)
    page.wait_for_function("navigator.serviceWorker.controller !== null")
    assert page.evaluate("navigator.serviceWorker.controller.scriptURL") == site.url + "/sw.js"
    game_id = re.search(r"/games/(\d+)/", page.url).group(1)  # type: ignore[union-attr]
    # the page's own requests for the game: its state from the API, the page itself again
    assert page.evaluate(f"fetch('/api/games/{game_id}/').then(r => r.status)") == 200
    page.reload()
    page.wait_for_selector("body[data-ready='1']")

    stored = page.evaluate(CACHED_URLS)
    assert len(stored["names"]) == 1 and stored["names"][0].startswith("piramide-shell-")
    paths = {url.replace(site.url, "") for url in stored["urls"]}
    assert "/static/frontend/site.css" in paths and "/static/frontend/js/board.js" in paths and "/offline/" in paths
    assert all(path.startswith("/static/") or path == "/offline/" for path in paths), paths

    # Offline: the static shell still comes (from the worker's cache), the API and the game do not.
    context.set_offline(True)
    assert page.evaluate("fetch('/static/frontend/site.css').then(r => r.status)") == 200
    api = page.evaluate(f"fetch('/api/games/{game_id}/').then(r => 'status ' + r.status, e => 'failed')")
    assert api == "failed", "an API response was answered from a cache"
    page.goto(f"/games/{game_id}/")
    page.get_by_role("heading", name="Sei offline").wait_for()
    assert page.locator(".card").count() == 0, "the offline fallback shows no deal"
    context.set_offline(False)
