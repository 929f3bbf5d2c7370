"""Sessions that name their sign-in backend by a path no longer listed still sign their player in.

Django keeps, in each session, the path of the backend that signed its user in, and treats a
session whose path is not in ``AUTHENTICATION_BACKENDS`` as signed out.  Sign-ins used to be made
with Django's own ``ModelBackend`` too (the site's sign-up page); it is no longer listed, because
``authenticate()`` asks every listed backend in turn and so checked a wrong password twice.
``LockoutModelBackend`` is that backend plus the failure count, and loads a session's user the
same way, so such sessions are read as naming it.  This runs wherever a session is read: pages,
the API and sockets.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import BACKEND_SESSION_KEY
from django.core.signing import JSONSerializer

#: Old backend path -> the listed backend that loads its users.
RENAMED_BACKENDS = {"django.contrib.auth.backends.ModelBackend": "accounts.backends.LockoutModelBackend"}


class SessionSerializer(JSONSerializer):
    """Django's JSON session serializer, reading a renamed backend's path as its new one."""

    def loads(self, data: bytes) -> Any:
        session = super().loads(data)
        if isinstance(session, dict):
            backend = session.get(BACKEND_SESSION_KEY)
            if backend in RENAMED_BACKENDS:
                session[BACKEND_SESSION_KEY] = RENAMED_BACKENDS[backend]
        return session
