"""The one sign-in backend: Django's ModelBackend behind the sign-in limits of accounts/signin.py.

Every way in goes through ``authenticate()`` (the API, the site's sign-in page, the admin), so the
limits are kept here.  An attempt the limits refuse is not checked: the backend raises
``PermissionDenied`` (so Django asks no other backend) and leaves the refusal on the request, where
the API and the forms read it to say why and for how long.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.backends import ModelBackend
from django.core.exceptions import PermissionDenied

from .signin import Refusal, signin_attempt, signin_succeeded


def refusal_of(request: Any) -> Refusal | None:
    """The refusal the backend left on this request, if it refused to check the password."""
    return getattr(request, "signin_refusal", None)


class LockoutModelBackend(ModelBackend):
    def authenticate(
        self, request: Any, username: str | None = None, password: str | None = None, **kwargs: Any
    ) -> Any:
        if username is None:
            username = kwargs.get("username")
        if username is None or password is None:
            return None
        refusal = signin_attempt(username, request)
        if refusal is not None:
            if request is not None:
                request.signin_refusal = refusal
            raise PermissionDenied("sign-in refused for now")
        user = super().authenticate(request, username=username, password=password, **kwargs)
        if user is not None:
            signin_succeeded(username, request)
        return user
