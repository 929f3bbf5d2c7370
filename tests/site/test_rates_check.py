"""plumbing.limits.rates_check: a mistyped rate setting is reported before any request reads it."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

from plumbing.limits import RATE_SETTINGS, rates_check
from tests.conftest import ROOT


def test_the_settings_rates_all_read_as_rates() -> None:
    assert rates_check() == []


def test_a_mistyped_rate_of_each_kind_is_reported_by_its_name(settings: Any) -> None:
    settings.SOLVER_SEARCHES_PER_USER = "30 a minute"
    settings.LIMITS_HTTP = {**settings.LIMITS_HTTP, "moves": {"user": "240/min", "ip": "lots"}}
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "auth": "20/fortnight"},
    }
    errors = rates_check()
    assert {error.id for error in errors} == {"plumbing.E001"}
    said = " ".join(error.msg for error in errors)
    for name in ("SOLVER_SEARCHES_PER_USER", "LIMITS_HTTP['moves']['ip']", "['auth']"):
        assert name in said, said
    assert len(errors) == 3


def test_a_limit_turned_off_is_no_error(settings: Any) -> None:
    settings.SOLVER_SEARCHES_PER_USER = ""
    assert rates_check() == []


def test_every_rate_setting_named_exists() -> None:
    from django.conf import settings

    assert all(hasattr(settings, name) for name in RATE_SETTINGS)


def test_manage_py_check_refuses_a_mistyped_rate_from_the_environment() -> None:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "piramide_site.settings.local", "GUESTS_PER_IP": "30 per hour"}
    env.pop("DATABASE_URL", None)
    done = subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode != 0
    assert "plumbing.E001" in done.stderr and "GUESTS_PER_IP" in done.stderr, done.stderr[-2000:]
