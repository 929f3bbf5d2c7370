"""The installable app: the web app manifest, the service worker, and the page it shows offline.

The worker keeps only the static shell (these files, public to all) and the offline page, which
no session shapes; pages, the API and sockets always go to the network (docs/frontend.md,
*Installable*).
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path

from django.apps import apps
from django.conf import settings
from django.contrib.staticfiles import finders
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.template.loader import get_template
from django.templatetags.static import PrefixNode, static
from django.urls import reverse
from django.utils import translation
from django.utils.cache import patch_cache_control
from django.utils.translation import gettext as _

THEME_COLOUR = "#174a2e"
BACKGROUND_COLOUR = "#f4f1ea"
ICONS = [
    ("frontend/icons/icon-192.png", "192x192", "any"),
    ("frontend/icons/icon-512.png", "512x512", "any"),
    ("frontend/icons/maskable-512.png", "512x512", "maskable"),
]


def shell_files() -> list[str]:
    """Every static file of the front end (stylesheet, modules, icons), as static names."""
    static_root = Path(apps.get_app_config("frontend").path) / "static"
    return sorted(
        path.relative_to(static_root).as_posix()
        for path in (static_root / "frontend").rglob("*")
        if path.is_file() and not path.name.startswith(".")
    )


@lru_cache(maxsize=1)
def _shell_cached() -> tuple[tuple[str, ...], str]:
    return _shell()


def _shell() -> tuple[tuple[str, ...], str]:
    """The shell's URLs (hashed names under ManifestStaticFilesStorage) and a version drawn from
    the files' contents and the offline page's template: any change to them is a new cache."""
    digest = hashlib.sha256()
    names = shell_files()
    for name in names:
        found = finders.find(name)
        digest.update(name.encode())
        digest.update(Path(str(found)).read_bytes() if found else b"")
    digest.update(Path(get_template("frontend/offline.html").origin.name).read_bytes())  # type: ignore[attr-defined]
    return tuple(static(name) for name in names), digest.hexdigest()[:16]


def shell() -> tuple[tuple[str, ...], str]:
    # A developer's edit shows at the next load; a deployed site computes it once.
    return _shell() if settings.DEBUG else _shell_cached()


def manifest(request: HttpRequest) -> JsonResponse:
    """The web app manifest, in the language the page linking it asked for (?lang=)."""
    language = request.GET.get("lang", "")
    if language not in dict(settings.LANGUAGES):
        language = translation.get_language() or settings.LANGUAGE_CODE
    with translation.override(language):
        data = {
            "id": "/",
            "name": _("Piramide: the daily pyramid solitaire"),
            "short_name": "Piramide",
            "description": _("One pyramid solitaire deal a day, the same for everyone, with a leaderboard."),
            "lang": language,
            "start_url": reverse("frontend:home"),
            "scope": "/",
            "display": "standalone",
            "orientation": "any",
            "theme_color": THEME_COLOUR,
            "background_color": BACKGROUND_COLOUR,
            "icons": [
                {"src": static(name), "sizes": sizes, "type": "image/png", "purpose": purpose}
                for name, sizes, purpose in ICONS
            ],
        }
    response = JsonResponse(data, content_type="application/manifest+json", json_dumps_params={"ensure_ascii": False})
    patch_cache_control(response, public=True, max_age=3600)
    return response


def service_worker(request: HttpRequest) -> HttpResponse:
    """The worker's script, served from the root so that its scope is the whole site."""
    urls, version = shell()
    context = {
        "version": version,
        "shell": json.dumps(list(urls)),
        "offline": json.dumps(reverse("frontend:offline")),
        "static_prefix": json.dumps(PrefixNode.handle_simple("STATIC_URL")),
    }
    response = render(request, "frontend/sw.js", context, content_type="text/javascript; charset=utf-8")
    # The browser looks for a new worker on every navigation: let it see a new version at once.
    patch_cache_control(response, no_cache=True)
    return response


def offline(request: HttpRequest) -> HttpResponse:
    """What a page opened without a network shows.  The worker stores it, so it carries nothing
    of whoever asked for it: no name, no game, no form token."""
    response = render(request, "frontend/offline.html")
    patch_cache_control(response, no_cache=True)
    return response
