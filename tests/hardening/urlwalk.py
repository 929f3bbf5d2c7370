"""Every URL pattern of the project, as concrete paths naming the day's objects (tests/hardening/world.py)."""

from __future__ import annotations

import itertools
import re
from typing import Any

from django.urls import URLPattern, URLResolver

from .world import World


def walk(resolvers: list[Any], prefix: str = "") -> list[tuple[str, URLPattern]]:
    """(route, pattern) for every leaf of the URL tree, routes joined as written."""
    found: list[tuple[str, URLPattern]] = []
    for entry in resolvers:
        route = str(entry.pattern)
        if isinstance(entry, URLResolver):
            found.extend(walk(entry.url_patterns, prefix + route))
        else:
            found.append((prefix + route, entry))
    return found


PARAMETER = re.compile(r"<(?:(?P<converter>\w+):)?(?P<name>\w+)>|\(\?P<(?P<group>\w+)>[^)]*\)")


def values_for(name: str, world: World) -> list[str]:
    g = world.games
    known = {
        "challenge_id": [world.yesterday.pk, world.classic.pk, world.forty.pk, world.tomorrow.pk, 999999],
        "game_id": [g[key].pk for key in g] + [999999],
        "code": [world.lobby.code, world.race.code, "nosuchrace"],
        "preset": ["classic", "forty", "nope"],
        "object_id": [world.classic.pk, g["alice_classic"].pk],
        "content_type_id": [1],
        "app_label": ["games"],
        "url": ["x"],
    }
    return [str(value) for value in known.get(name, ["1"])]


def urls_of(route: str, world: World) -> list[tuple[str, dict[str, str]]]:
    """Concrete paths for a route, every combination of the known values of its parameters."""
    names = [m.group("name") or m.group("group") for m in PARAMETER.finditer(route)]
    path = route.lstrip("^").rstrip("$").replace("\\", "")
    out = []
    for combo in itertools.product(*(values_for(name, world) for name in names)):
        values = iter(combo)
        concrete = PARAMETER.sub(lambda _: next(values), path)
        out.append(("/" + concrete, dict(zip(names, combo))))
    return out
