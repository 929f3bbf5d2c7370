from typing import Any

from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in
        from django.core import checks

        from plumbing.limits import rates_check

        user_logged_in.connect(_remember_signin, dispatch_uid="accounts.remember_signin")
        # the limits' rates, checked by the app at the bottom of the layers (plumbing is no app)
        checks.register(rates_check)


def _remember_signin(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    # Every login() passes here, sign-up's included, whichever way in (API, site, admin).
    from .signin import signin_remember

    if request is not None:
        signin_remember(user.get_username(), request)
