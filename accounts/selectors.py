"""Reads on accounts: players by display name or share link, and who a player follows."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.core.exceptions import PermissionDenied
from django.db.models.functions import Lower

from .models import Follow, User

if TYPE_CHECKING:
    from django.http import HttpRequest
    from rest_framework.request import Request


def account_of(request: HttpRequest | Request) -> User:
    """The request's account, for views that admit signed-in players only (their permission or
    decorator checked first): typed as the account, and a refusal, never an anonymous user, if
    that check is ever missing."""
    user = request.user
    if not isinstance(user, User):
        raise PermissionDenied("sign in first")
    return user


def user_by_display_name(*, display_name: str) -> User | None:
    """The player with this display name, in any case (sign-up refuses names that differ only by case)."""
    name = display_name.strip()
    if not name:
        return None
    found = list(User.objects.filter(display_name__iexact=name, is_active=True))
    if len(found) > 1:  # names from before that rule: only the exact one is meant
        return next((user for user in found if user.display_name == name), None)
    return found[0] if found else None


def user_by_follow_token(*, token: str) -> User | None:
    if not token:
        return None
    return User.objects.filter(follow_token=token, is_active=True).first()


def followed_ids(*, follower_id: int) -> list[int]:
    return list(Follow.objects.filter(follower_id=follower_id).values_list("followed_id", flat=True))


@dataclass(frozen=True)
class Followed:
    player_id: int
    display_name: str
    since: dt.datetime


def follows_list(*, follower_id: int) -> list[Followed]:
    """The players someone follows, by display name (case aside)."""
    rows = (
        Follow.objects.filter(follower_id=follower_id)
        .select_related("followed")
        .order_by(Lower("followed__display_name"), "followed_id")
    )
    return [Followed(row.followed_id, row.followed.display_name, row.created_at) for row in rows]
