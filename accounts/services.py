"""Writes on accounts: sign up, change password, follow and stop following (sign in and out are Django's own)."""

from __future__ import annotations

import math
import secrets
from collections.abc import Callable

from django.conf import settings
from django.contrib.auth import password_validation
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from plumbing import limits
from plumbing.errors import BadRequest, Conflict, NotAllowed, NotFound, Throttled

from .models import Follow, User, new_follow_token
from .names import display_name_normalize, display_name_skeleton, display_name_taken_message
from .selectors import user_by_display_name, user_by_follow_token


def _named(user: User, *, username: str, password: str, display_name: str, email: str) -> User:
    """``user`` given the names, e-mail and password asked for, once Django's password validators
    agree and both names are free (none but ``user`` itself holds them); not saved."""
    try:
        display_name = display_name_normalize(display_name or username)
    except ValidationError as error:
        raise BadRequest(" ".join(error.messages)) from None
    skeleton = display_name_skeleton(display_name)
    user.username, user.display_name, user.display_name_skeleton, user.email = (
        username,
        display_name,
        skeleton,
        email or "",
    )
    try:
        password_validation.validate_password(password, user)
    except ValidationError as error:
        raise BadRequest(" ".join(error.messages)) from None
    others = User.objects.exclude(pk=user.pk) if user.pk else User.objects.all()
    if others.filter(username__iexact=username).exists():
        raise Conflict(f"the username {username!r} is taken")
    holder = others.filter(display_name_skeleton=skeleton).values_list("display_name", flat=True).first()
    if holder is not None:
        raise Conflict(display_name_taken_message(holder), taken_display_name=holder)
    user.set_password(password)
    return user


def _saved(user: User) -> User:
    try:
        with transaction.atomic():
            user.save()
    except IntegrityError:
        raise Conflict("that username or display name was just taken") from None
    return user


def user_create(*, username: str, password: str, display_name: str = "", email: str = "") -> User:
    """Create a player after Django's password validators agree; names must be free, and the
    display name (the username when none is given) must not look like another player's.

    Locks nothing: the unique constraints on username and display-name skeleton settle races.
    """
    return _saved(_named(User(), username=username, password=password, display_name=display_name, email=email))


def guest_create(*, address: str) -> User:
    """An account for a visitor who taps Play without one: no password (it cannot sign in), a
    made-up name, ``guest`` set so that its scores never rank (docs/fairplay.md, *Guests*).

    Limited per address (``GUESTS_PER_IP``) before anything is written: every guest is a row, and a
    fresh one is a fresh look at the day's deal.  Locks nothing: names are random.
    """
    verdict = limits.hits([limits.key("guest", "ip", address)], [limits.Rate.parse(settings.GUESTS_PER_IP)])
    if not verdict.allowed:
        minutes = max(1, math.ceil(verdict.retry_after / 60))
        raise Throttled(
            f"too many guest games from your address: sign up or sign in to play, or try again in {minutes} min",
            retry_after=math.ceil(verdict.retry_after),
        )
    for _attempt in range(5):
        tag = secrets.token_hex(4)
        name = f"Guest {tag}"
        user = User(
            username=f"guest-{tag}", display_name=name, display_name_skeleton=display_name_skeleton(name), guest=True
        )
        user.set_unusable_password()
        try:
            with transaction.atomic():
                user.save()
        except IntegrityError:
            continue  # a name drawn twice: draw again
        return user
    raise Conflict("could not make a guest name: try again")


def guest_sign_up(*, guest: User, username: str, password: str, display_name: str = "", email: str = "") -> User:
    """A guest becomes a player with the names and password given, keeping its row and so its
    games; the same checks as ``user_create``.  Locks the guest's row."""
    with transaction.atomic():
        user = User.objects.select_for_update().get(pk=guest.pk)
        if not user.guest:
            raise Conflict("this account has signed up already")
        user = _named(user, username=username, password=password, display_name=display_name, email=email)
        user.guest = False
        return _saved(user)


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


def follow_create(*, follower: User, display_name: str = "", token: str = "") -> tuple[Follow, bool]:
    """Follow the player with this display name (any case) or this share-link token: exactly one
    of the two.  Returns the follow and whether it is new; following someone again changes nothing.

    Locks the follower's user row, so two requests at once cannot both pass the cap
    (``FOLLOWS_PER_USER``), which is checked before anything is written.
    """
    if follower.guest:
        raise NotAllowed("sign up to follow players: guests play the daily challenges only")
    if bool(display_name) == bool(token):
        raise BadRequest("name one player: by display name or by share link, not both")
    if display_name:
        followed = user_by_display_name(display_name=display_name)
        if followed is None:
            raise NotFound(f"no player is called {display_name.strip()!r}")
    else:
        followed = user_by_follow_token(token=token)
        if followed is None:
            raise NotFound("this follow link does not lead to any player (it may have been replaced)")
    if followed.pk == follower.pk:
        raise BadRequest("you cannot follow yourself: your own row is always on your boards")
    with transaction.atomic():
        User.objects.select_for_update().only("pk").get(pk=follower.pk)
        existing = Follow.objects.filter(follower_id=follower.pk, followed_id=followed.pk).first()
        if existing is not None:
            return existing, False
        cap = settings.FOLLOWS_PER_USER
        if Follow.objects.filter(follower_id=follower.pk).count() >= cap:
            raise NotAllowed(
                f"you already follow {cap} players, the most one account can: stop following someone first", limit=cap
            )
        return Follow.objects.create(follower_id=follower.pk, followed=followed), True


def follow_delete(*, follower: User, followed_id: int) -> bool:
    """Stop following a player; True if they were followed.  Stopping twice changes nothing.

    Locks nothing: one row goes, by its unique pair.
    """
    if not User.objects.filter(pk=followed_id).exists():
        raise NotFound(f"there is no player #{followed_id}")
    deleted, _ = Follow.objects.filter(follower_id=follower.pk, followed_id=followed_id).delete()
    return deleted > 0


def user_follow_token_reset(*, user: User) -> User:
    """Give the player a new share link; the old one stops working.  Existing follows stay.

    Locks the user row.
    """
    with transaction.atomic():
        locked = User.objects.select_for_update().get(pk=user.pk)
        locked.follow_token = new_follow_token()
        locked.save(update_fields=["follow_token"])
    user.follow_token = locked.follow_token
    return locked


#: What other apps do with an account about to be deleted, inside ``account_remove``'s transaction
#: and before the row goes, each called with the locked row; registered in their ``AppConfig.ready``,
#: so that accounts import no other app, and called in the order of ``INSTALLED_APPS``: games keep
#: its games linked to nobody, leaderboard takes its scores off every board, races hand over the
#: rooms it hosts (rows that would otherwise go with it).
ACCOUNT_LEAVING: list[Callable[[User], None]] = []


def user_delete(*, user: User, password: str) -> None:
    """Delete one's own account, confirmed with its password.  Staff accounts cannot.

    What goes and what stays: ``account_remove``.
    """
    with transaction.atomic():
        locked = User.objects.select_for_update().get(pk=user.pk)
        if locked.is_staff or locked.is_superuser:
            raise NotAllowed("staff accounts cannot be deleted from here: ask another administrator")
        if not password or not locked.check_password(password):
            raise BadRequest("the password is wrong: the account was not deleted")
        account_remove(locked)


def account_remove(user: User) -> None:
    """Delete an account, whoever asks (its owner through ``user_delete``, staff in the admin).

    Its scores leave every board at once (Postgres here; the rank store's sorted sets once the
    deletion commits); its games stay, for the day's statistics, linked to nobody (no player, no
    address, no device); its follows both ways, race entries and sessions go with the account, and
    the races it hosts pass to their next player: the other apps' part is ``ACCOUNT_LEAVING``'s.
    Locks the user row (and each app the rows it changes).
    """
    with transaction.atomic():
        locked = User.objects.select_for_update().get(pk=user.pk)
        for leaving in ACCOUNT_LEAVING:
            leaving(locked)
        locked.delete()
