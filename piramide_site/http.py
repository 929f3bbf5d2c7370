"""Django's ASGI handler, with its middleware chain run on the request's thread in one go.

Under ASGI Django builds its middleware chain async, and every one of its own middlewares
(``MiddlewareMixin``) then hands its ``process_request`` and ``process_response`` to the request's
thread and back: a dozen hops between the event loop and that thread per request, for views
that are all sync (bench/load.py's profile: a quarter of the servers' time).  This handler
builds the chain sync, as under WSGI, and enters it once, on the request's thread; the request
and the response still travel async.
"""

from __future__ import annotations

import django
from django.core.handlers.asgi import ASGIHandler


class SyncChainASGIHandler(ASGIHandler):
    def load_middleware(self, is_async: bool = False) -> None:
        super().load_middleware(is_async=False)
        self._middleware_chain = self.adapt_method_mode(True, self._middleware_chain, False)


def get_asgi_application() -> SyncChainASGIHandler:
    """``django.core.asgi.get_asgi_application`` with the handler above."""
    django.setup(set_prefix=False)
    return SyncChainASGIHandler()
