"""The site's forms: sign up, and sign in with the lockout said in words."""

from __future__ import annotations

import math
from typing import Any

from django import forms
from django.conf import settings
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import AuthenticationForm
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from accounts.backends import refusal_of
from accounts.names import display_name_normalize
from accounts.signin import Refusal, signin_refused_next

#: accounts/names.py's refusals, in the player's language.
DISPLAY_NAME_MESSAGES = {
    "invisible": _(
        "A display name cannot contain invisible, control or text-direction characters (this one has %(code)s %(name)s)."
    ),
    "max_length": _("A display name has at most %(max)s characters."),
    "no_letter": _("A display name needs at least one letter or digit."),
}


def display_name_taken_message(name: str) -> str:
    return _("This display name looks the same as “%(name)s”, which another player has.") % {"name": name}


class SignUpForm(forms.Form):
    # autocomplete: password managers and phones fill these in, and offer a strong new password
    username = forms.RegexField(
        r"^[\w.@+-]{3,40}$",
        max_length=40,
        label=_("Username"),
        widget=forms.TextInput(attrs={"autocomplete": "username", "autocapitalize": "none", "spellcheck": "false"}),
    )
    display_name = forms.CharField(
        max_length=40,
        required=False,
        label=_("Display name"),
        help_text=_("Shown on leaderboards; defaults to the username."),
        widget=forms.TextInput(attrs={"autocomplete": "nickname"}),
    )
    email = forms.EmailField(
        required=False, label=_("E-mail (optional)"), widget=forms.EmailInput(attrs={"autocomplete": "email"})
    )
    password = forms.CharField(widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}), label=_("Password"))

    def clean_display_name(self) -> str:
        # Whether it looks like a taken name is the service's to say (accounts.services.user_create).
        name: str = self.cleaned_data["display_name"]
        if not name.strip():
            return ""
        try:
            return display_name_normalize(name)
        except forms.ValidationError as error:
            raise forms.ValidationError(
                DISPLAY_NAME_MESSAGES[str(error.code)], code=error.code, params=error.params
            ) from None


def lock_message(seconds: float) -> str:
    minutes = max(1, math.ceil(seconds / 60))
    return ngettext(
        "Too many failed sign-ins: try again in %(minutes)s minute.",
        "Too many failed sign-ins: try again in %(minutes)s minutes.",
        minutes,
    ) % {"minutes": minutes}


def delay_message(seconds: float, longest: float) -> str:
    wait = max(1, math.ceil(seconds))
    return ngettext(
        "Many failed sign-ins for this username: try again in %(seconds)s second (the wait is never longer than %(longest)s seconds).",
        "Many failed sign-ins for this username: try again in %(seconds)s seconds (the wait is never longer than %(longest)s seconds).",
        wait,
    ) % {"seconds": wait, "longest": math.ceil(longest)}


def refusal_message(refusal: Refusal) -> str:
    if refusal.kind == "delay":
        return delay_message(refusal.seconds, settings.SIGNIN_USER_DELAY_MAX)
    return lock_message(refusal.seconds)


class LockSaid:
    """For a sign-in form: when the sign-in limits refuse (accounts/signin.py), it says so and for
    how long, instead of "wrong username or password".

    The refusal is said for unknown usernames alike, so it tells no one which accounts exist."""

    request: Any
    cleaned_data: dict[str, Any]

    def get_invalid_login_error(self) -> forms.ValidationError:
        assert self.request is not None
        # Left by the backend when it refused to check the password; otherwise this failure may
        # just have reached a limit.
        refusal = refusal_of(self.request) or signin_refused_next(self.cleaned_data.get("username") or "", self.request)
        if refusal is not None:
            return forms.ValidationError(refusal_message(refusal), code="locked")
        return super().get_invalid_login_error()  # type: ignore[misc]


class EmailForm(forms.Form):
    """A player's e-mail address, where a password reset and the verification link are sent."""

    email = forms.EmailField(
        required=False,
        max_length=get_user_model()._meta.get_field("email").max_length,
        label=_("E-mail"),
        help_text=_(
            "A password reset link is sent here, and a link to verify it: your scores rank once it is "
            "verified. Leave it empty and a forgotten password cannot be recovered."
        ),
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )


class AccountDeleteForm(forms.Form):
    """Deleting one's own account, confirmed with the password."""

    password = forms.CharField(
        label=_("Your password"), strip=False, widget=forms.PasswordInput(attrs={"autocomplete": "current-password"})
    )


class SignInForm(LockSaid, AuthenticationForm):
    """The site's sign-in page."""


class AdminSignInForm(LockSaid, AdminAuthenticationForm):
    """The admin's sign-in page (``login_form`` of piramide_site/admin.py)."""
