"""README's "Limits and settings" names every abuse limit with the default the settings really have."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: Setting name (as read from the environment) -> expression for its value in the settings.
LIMITS = {
    "SIGNIN_FAILURES_PER_USER_IP": "s.SIGNIN_FAILURES_PER_USER_IP",
    "SIGNIN_FAILURES_PER_USER": "s.SIGNIN_FAILURES_PER_USER",
    "SIGNIN_USER_DELAY_MAX": "s.SIGNIN_USER_DELAY_MAX",
    "SIGNIN_FAILURES_PER_IP": "s.SIGNIN_FAILURES_PER_IP",
    "PASSWORD_RESETS_PER_EMAIL": "s.PASSWORD_RESETS_PER_EMAIL",
    "PASSWORD_RESETS_PER_IP": "s.PASSWORD_RESETS_PER_IP",
    "LIMIT_MOVES_PER_USER": "s.LIMITS_HTTP['moves']['user']",
    "LIMIT_MOVES_PER_IP": "s.LIMITS_HTTP['moves']['ip']",
    "LIMIT_AUTH_PER_IP": "s.LIMITS_HTTP['auth']['ip']",
    "LIVE_SOCKETS_PER_USER": "s.LIVE_SOCKETS_PER_USER",
    "LIVE_SOCKETS_PER_IP": "s.LIVE_SOCKETS_PER_IP",
    "LIVE_FRAMES_PER_USER": "s.LIVE_FRAMES_PER_USER",
    "LIVE_FRAMES_PER_IP": "s.LIVE_FRAMES_PER_IP",
    "SOLVER_JOBS_PER_USER": "s.SOLVER_JOBS_PER_USER",
    "SOLVER_JOBS_GLOBAL": "s.SOLVER_JOBS_GLOBAL",
    "SOLVER_SEARCHES_PER_USER": "s.SOLVER_SEARCHES_PER_USER",
    "LIMIT_RACES_PER_USER": "s.LIMITS_HTTP['races']['user']",
    "HTTP_REQUESTS_PER_CLIENT": "s.HTTP_REQUESTS_PER_CLIENT",
    "HTTP_REQUESTS_PER_ADDRESS": "s.HTTP_REQUESTS_PER_ADDRESS",
    "HTTP_SOLVER_REQUESTS_PER_CLIENT": "s.HTTP_SOLVER_REQUESTS_PER_CLIENT",
    "LIMITS_KEY_PREFIX": "s.LIMITS_KEY_PREFIX",
    "FOLLOWS_PER_USER": "s.FOLLOWS_PER_USER",
    "GUESTS_PER_IP": "s.GUESTS_PER_IP",
    "THROTTLE_USER": "s.REST_FRAMEWORK['DEFAULT_THROTTLE_RATES']['user']",
    "THROTTLE_ANON": "s.REST_FRAMEWORK['DEFAULT_THROTTLE_RATES']['anon']",
    "THROTTLE_MOVES": "s.REST_FRAMEWORK['DEFAULT_THROTTLE_RATES']['moves']",
    "THROTTLE_AUTH": "s.REST_FRAMEWORK['DEFAULT_THROTTLE_RATES']['auth']",
}


def section() -> str:
    text = (ROOT / "README.md").read_text()
    found = re.search(r"^## Limits and settings\n(.*?)(?=^## )", text, re.S | re.M)
    assert found, "README has a 'Limits and settings' section"
    return found.group(1)


def defaults() -> dict[str, str]:
    """The production settings with none of these set, in a fresh process."""
    probe = (
        "import django, json; django.setup(); from django.conf import settings as s; print(json.dumps({"
        + ", ".join(f"{name!r}: str({expr})" for name, expr in LIMITS.items())
        + "}))"
    )
    env = {
        "PATH": "/usr/bin:/bin",
        "DJANGO_SETTINGS_MODULE": "piramide_site.settings.production",
        "DJANGO_SECRET_KEY": "readme-check-only",
        "PYTHONPATH": str(ROOT),
    }
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True, check=True, timeout=60
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_every_limit_is_listed_with_its_real_default():
    listed = dict(re.findall(r"`([A-Z_]+)` \(`([^`]+)`\)", section()))
    assert listed == defaults()


def test_the_close_code_of_refused_sockets_is_the_one_the_code_sends():
    from plumbing import socket_limits

    source = Path(socket_limits.__file__).read_text()
    assert '"code": 4429' in source
    assert "4429" in section() and "FORWARDED_ALLOW_IPS" in section()
