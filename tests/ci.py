"""Whether this run is CI's, read one way for the whole suite; and what a test does without a
server, a binary or a browser it needs: skipped with the reason, or, in CI, failed.

.ci/run sets ``CI=true`` itself; any of ``1``, ``true``, ``yes`` (any case) counts, as most CI
services spell it.
"""

from __future__ import annotations

import os

import pytest

IN_CI = os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def missing(reason: str) -> None:
    """Skip (or, in CI, fail) a test whose server, binary or browser is not there."""
    if IN_CI:
        pytest.fail(f"CI needs this: {reason}", pytrace=False)
    pytest.skip(reason)
