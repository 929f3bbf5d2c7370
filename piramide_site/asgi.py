"""The ASGI application: Django builds first, then the Channels router (see docs/style.md).

HTTP goes to Django; WebSocket routes arrive with the live layer (issue 5) through the
channel layer already configured in settings.
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "piramide_site.settings.local")
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter  # noqa: E402  (Django must be set up first)

application = ProtocolTypeRouter({"http": django_asgi_app})
