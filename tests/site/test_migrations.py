"""Every model change has its migration: ``makemigrations --check`` finds nothing to write."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_no_model_change_is_missing_its_migration():
    out = io.StringIO()
    try:
        call_command("makemigrations", "--check", "--dry-run", stdout=out, stderr=out)
    except SystemExit as exit:
        pytest.fail(
            f"models changed without a migration (makemigrations --check exited {exit.code}):\n{out.getvalue()}"
        )
