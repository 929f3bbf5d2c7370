"""The ASGI application: Django builds first, then the Channels router.

HTTP goes to Django, past a cap on each client's requests in flight (plumbing/inflight.py).
WebSockets (docs/live.md) pass the origin check against ALLOWED_HOSTS, then the session middleware
that puts the signed-in user in the scope (plumbing/socket_auth.py), then the per-user and
per-address limits on open sockets and frames (plumbing/socket_limits.py), then the routes.
"""

import os

from plumbing.http import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "piramide_site.settings.local")
django_asgi_app = get_asgi_application()

# Django must be set up before the consumers (and the models they import) load.
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from games.program import lifespan  # noqa: E402
from games.routing import not_found_urlpatterns  # noqa: E402
from games.routing import websocket_urlpatterns as game_routes  # noqa: E402
from plumbing import collector  # noqa: E402
from plumbing.inflight import ClientConcurrencyLimit  # noqa: E402
from plumbing.observability import ObservedApplication  # noqa: E402
from plumbing.socket_auth import SessionAuthStack  # noqa: E402
from plumbing.socket_limits import SocketLimitMiddleware  # noqa: E402
from races.routing import websocket_urlpatterns as race_routes  # noqa: E402

# Around everything: each socket's id and unhandled errors, Sentry's asyncio integration (plumbing/observability.py).
application = ObservedApplication(
    ProtocolTypeRouter(
        {
            "http": ClientConcurrencyLimit(django_asgi_app),
            # the daily program kept where no beat runs (games/program.py)
            "lifespan": lifespan,
            "websocket": AllowedHostsOriginValidator(
                SessionAuthStack(SocketLimitMiddleware(URLRouter([*game_routes, *race_routes, *not_found_urlpatterns])))
            ),
        }
    )
)

# Everything is loaded: out of the garbage collector's sight for the process's life.
collector.settle()
