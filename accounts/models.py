import secrets
from typing import Any, ClassVar

from django.conf import settings
from django.contrib.auth.models import AbstractUser, UserManager
from django.db import models
from django.db.models import F, Q

from .names import display_name_normalize, display_name_skeleton


def new_follow_token() -> str:
    """A random, unguessable token for a player's follow link: neither their id nor their name."""
    return secrets.token_urlsafe(16)


class PlayerManager(UserManager["User"]):
    """Django's manager, but every account it makes (``createsuperuser``, ``create_user``) gets a
    display name, the username when none is given, and that name's skeleton: both columns are
    unique, so an account made without them would block the next one."""

    def create_user(
        self, username: str, email: str | None = None, password: str | None = None, **extra_fields: Any
    ) -> "User":
        return super().create_user(username, email, password, **_named(username, extra_fields))

    create_user.alters_data = True  # type: ignore[attr-defined]

    async def acreate_user(
        self, username: str, email: str | None = None, password: str | None = None, **extra_fields: Any
    ) -> "User":
        return await super().acreate_user(username, email, password, **_named(username, extra_fields))

    acreate_user.alters_data = True  # type: ignore[attr-defined]

    def create_superuser(
        self, username: str, email: str | None = None, password: str | None = None, **extra_fields: Any
    ) -> "User":
        return super().create_superuser(username, email, password, **_named(username, extra_fields))

    create_superuser.alters_data = True  # type: ignore[attr-defined]

    async def acreate_superuser(
        self, username: str, email: str | None = None, password: str | None = None, **extra_fields: Any
    ) -> "User":
        return await super().acreate_superuser(username, email, password, **_named(username, extra_fields))

    acreate_superuser.alters_data = True  # type: ignore[attr-defined]


def _named(username: str, extra_fields: dict[str, Any]) -> dict[str, Any]:
    """``extra_fields`` with the display name (the username when none is given) and its skeleton."""
    name = display_name_normalize(str(extra_fields.pop("display_name", "") or username))
    return {**extra_fields, "display_name": name, "display_name_skeleton": display_name_skeleton(name)}


class User(AbstractUser):
    """A player; ``display_name`` is what leaderboards show, unique so no one can pass for another."""

    display_name = models.CharField(max_length=40, unique=True)
    #: What the display name looks like (accounts/names.py), unique so no name can pose as another.
    display_name_skeleton = models.TextField(unique=True, editable=False)
    #: The secret part of the player's share link (/follow/<token>/); a new one retires the old link.
    follow_token = models.CharField(max_length=32, unique=True, default=new_follow_token, editable=False)
    #: Marked by staff for fair play (fairplay.services): every score of the account, past and
    #: future, is excluded from every board.
    marked = models.BooleanField(default=False, db_default=False)
    #: Made by "Play" for a visitor without an account (accounts.services.guest_create): no
    #: password, its scores never rank, and signing up or in claims its games (docs/fairplay.md).
    guest = models.BooleanField(default=False, db_default=False)
    #: When the player followed the verification link for their current ``email`` (accounts/email.py);
    #: None when unverified, and set back to None whenever the address changes.  Fair play reads
    #: it: an unverified account's scores are provisional (docs/fairplay.md, *Standing*).
    email_verified_at = models.DateTimeField(null=True, blank=True)

    objects: ClassVar[PlayerManager] = PlayerManager()

    def __str__(self) -> str:
        return self.display_name or self.username

    @property
    def email_verified(self) -> bool:
        return bool(self.email) and self.email_verified_at is not None


class Follow(models.Model):
    """One player following another, to compare with them on the "following" view of every board."""

    follower = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="follows")
    followed = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="followers")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["follower", "followed"], name="follow_once"),
            models.CheckConstraint(condition=~Q(follower=F("followed")), name="follow_not_self"),
        ]

    def __str__(self) -> str:
        return f"{self.follower_id} → {self.followed_id}"
