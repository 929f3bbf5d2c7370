"""Python's garbage collector, set for a long-running server process (called once everything is loaded).

By default the collector looks at the young objects every 700 allocations, and now and then walks
every object the process holds: the 110,000 or so that Django, the apps and the URL patterns
leave after start-up, which live as long as the process, and the remembered positions.  Under
``bench/live.py`` (200 players, 200 spectators) a server spent 7% of its CPU in the collector,
most of it in ten full collections of 130 ms of CPU each, each a pause for every socket.

So, once the process has loaded everything: one collection, then ``gc.freeze()`` moves what
survives out of the collector's sight for good (it is never garbage), and the young objects are
looked at every 5,000 allocations instead of 700, so that fewer objects of a request still in
flight are carried into the older generations.  The same run then spent 1.3% of its CPU there,
with one full collection of 1 ms.  ``DJANGO_GC_TUNED=false`` keeps Python's defaults.
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

    _ = get_resolver().url_patterns  # the URL patterns and every view module, loaded now rather than by the first request
    gc.collect()
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)
