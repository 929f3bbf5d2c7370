"""Python's garbage collector, set for a long-running server process (called once everything is loaded).

What start-up leaves is frozen out of the collector's sight and young objects are looked at less
often; ``DJANGO_GC_TUNED=false`` keeps Python's defaults.  Why, and what it measured:
docs/operations.md, *The garbage collector*.
"""

from __future__ import annotations

import gc

from django.conf import settings

#: Allocations between looks at the young objects, then looks at the young between looks at the
#: middle generation, and at the middle between full collections (Python's defaults: 700, 10, 10).
THRESHOLDS = (5000, 20, 10)


def settle() -> None:
    if not settings.GC_TUNED:
        return
    from django.urls import get_resolver

    _ = (
        get_resolver().url_patterns
    )  # the URL patterns and every view module, loaded now rather than by the first request
    gc.collect()
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)
