"""A server process freezes what start-up loaded and collects young objects less often (plumbing/collector.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROBE = "import gc, json, piramide_site.asgi; print(json.dumps([gc.get_freeze_count(), gc.get_threshold()]))"


def probe(**env: str) -> tuple[int, list[int]]:
    """Loads the ASGI application in a fresh interpreter, as a server does, and reads its collector."""
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "piramide_site.settings.local", **env}
    for name in ("DATABASE_URL", "REDIS_URL"):  # the embedded defaults: nothing to connect to
        environment.pop(name, None)
    done = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=environment, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    frozen, thresholds = json.loads(done.stdout.strip().splitlines()[-1])
    return frozen, thresholds


def test_the_loaded_application_is_frozen_and_young_objects_are_collected_less_often():
    from plumbing.collector import THRESHOLDS

    frozen, thresholds = probe()
    assert frozen > 10_000, "Django, the apps and the URL patterns are out of the collector's sight"
    assert tuple(thresholds) == THRESHOLDS


def test_python_defaults_when_turned_off():
    frozen, thresholds = probe(DJANGO_GC_TUNED="false")
    assert frozen == 0
    assert thresholds[0] == 700
