"""Writes on accounts: sign up and change password (sign in and out are Django's own)."""

from __future__ import annotations

from django.contrib.auth import password_validation
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from piramide_site.errors import BadRequest, Conflict

from .models import User


def user_create(*, username: str, password: str, display_name: str = "", email: str = "") -> User:
    """Create a player after Django's password validators agree; names must be free.

    Locks nothing: the unique constraints on username and display name settle races.
    """
    display_name = (display_name or username).strip()
    user = User(username=username, display_name=display_name, email=email or "")
    try:
        password_validation.validate_password(password, user)
    except ValidationError as error:
        raise BadRequest(" ".join(error.messages)) from None
    if User.objects.filter(username__iexact=username).exists():
        raise Conflict(f"the username {username!r} is taken")
    if User.objects.filter(display_name__iexact=display_name).exists():
        raise Conflict(f"the display name {display_name!r} is taken")
    user.set_password(password)
    try:
        with transaction.atomic():
            user.save()
    except IntegrityError:
        raise Conflict("that username or display name was just taken") from None
    return user


def user_password_change(*, user: User, old_password: str, new_password: str) -> User:
    """Change a password after checking the old one; locks the user row."""
    with transaction.atomic():
        locked = User.objects.select_for_update().get(pk=user.pk)
        if not locked.check_password(old_password):
            raise BadRequest("the current password is wrong")
        try:
            password_validation.validate_password(new_password, locked)
        except ValidationError as error:
            raise BadRequest(" ".join(error.messages)) from None
        locked.set_password(new_password)
        locked.save(update_fields=["password"])
    return locked
