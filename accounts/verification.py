"""E-mail verification: a signed, expiring link for one account and one address; following it marks
the address verified, and fair play then ranks the account's scores (docs/fairplay.md, *Standing*).

The link signs the account and the address: once the address changes, an old link verifies nothing.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.core import signing
from django.core.mail import send_mail
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from plumbing import limits
from plumbing.errors import BadRequest, NotFound, Throttled

from .models import User

SALT = "accounts.email-verification"

#: What other apps do once an account's address is verified, inside ``email_verify``'s transaction,
#: each called with the locked row; registered in their ``AppConfig.ready``, so that accounts import
#: no other app (leaderboard ranks the scores held provisional for want of it).
EMAIL_VERIFIED: list[Callable[[User], None]] = []


def email_normalize(email: str) -> str:
    return email.strip().lower()


def verification_token(user: User) -> str:
    """A token naming the account and its current address, timestamped (``EMAIL_VERIFICATION_MAX_AGE``)."""
    return signing.dumps({"u": user.pk, "e": email_normalize(user.email)}, salt=SALT)


@dataclass(frozen=True)
class Sent:
    email: str


def email_verification_send(*, user: User, base_url: str) -> Sent:
    """Mail the player a link verifying their current address, in the active language.

    Limited per account and per address (``EMAIL_VERIFICATIONS_PER_ACCOUNT``, ``..._PER_EMAIL``)
    before anything is sent, so nobody can fill an inbox through the service.  ``base_url`` is
    the site's scheme and host, as the request saw them.
    """
    user = User.objects.get(pk=user.pk)  # as stored now, not as the request first read it
    if not user.email:
        raise BadRequest("the account has no e-mail address to verify", reason="no_email")
    if user.email_verified:
        raise BadRequest("this e-mail address is already verified", reason="already_verified")
    email = email_normalize(user.email)
    verdict = limits.hits(
        [limits.key("verify", "account", user.pk), limits.key("verify", "email", email)],
        [
            limits.Rate.parse(settings.EMAIL_VERIFICATIONS_PER_ACCOUNT),
            limits.Rate.parse(settings.EMAIL_VERIFICATIONS_PER_EMAIL),
        ],
    )
    if not verdict.allowed:
        wait = max(1, math.ceil(verdict.retry_after))
        raise Throttled(
            f"too many verification e-mails asked for: try again in {max(1, math.ceil(wait / 60))} minutes",
            retry_after=wait,
        )
    link = base_url.rstrip("/") + reverse("frontend:email-verify", args=[verification_token(user)])
    days = max(1, settings.EMAIL_VERIFICATION_MAX_AGE // 86400)
    context = {"user": user, "link": link, "days": days}
    subject = render_to_string("frontend/email/verify_email_subject.txt", context).strip()
    body = render_to_string("frontend/email/verify_email.txt", context)
    send_mail(subject, body, None, [user.email])
    return Sent(email=user.email)


def email_verify(*, token: str) -> User:
    """Follow a verification link: the account's address is verified, and its scores held
    provisional for want of it rank on the days not yet over.  Following it again changes nothing.

    Locks the user row.  Refused (``reason``): ``expired``, ``invalid``, ``address_changed``.
    """
    try:
        data = signing.loads(token, salt=SALT, max_age=settings.EMAIL_VERIFICATION_MAX_AGE)
    except signing.SignatureExpired:
        raise BadRequest(
            "this verification link has expired: ask for a new one from your profile", reason="expired"
        ) from None
    except signing.BadSignature:
        raise BadRequest("this verification link is not valid", reason="invalid") from None
    if not isinstance(data, dict) or not isinstance(data.get("u"), int) or not isinstance(data.get("e"), str):
        raise BadRequest("this verification link is not valid", reason="invalid")
    with transaction.atomic():
        user = User.objects.select_for_update().filter(pk=data["u"]).first()
        if user is None:
            raise NotFound("this verification link is for an account that no longer exists", reason="invalid")
        if not user.email or email_normalize(user.email) != data["e"]:
            raise BadRequest(
                "this link was sent to an address the account no longer has: ask for a new one from your profile",
                reason="address_changed",
            )
        if user.email_verified_at is None:
            user.email_verified_at = timezone.now()
            user.save(update_fields=["email_verified_at"])
            for verified in EMAIL_VERIFIED:
                verified(user)
    return user


def user_email_set(*, user: User, email: str) -> bool:
    """Set the player's address; a new one (case aside) is unverified until its link is followed.
    Returns whether it changed.  Locks the user row."""
    email = email.strip()
    with transaction.atomic():
        locked = User.objects.select_for_update().get(pk=user.pk)
        changed = email_normalize(locked.email) != email_normalize(email)
        locked.email = email
        fields = ["email"]
        if changed:
            locked.email_verified_at = None
            fields.append("email_verified_at")
        locked.save(update_fields=fields)
    user.email, user.email_verified_at = locked.email, locked.email_verified_at
    return changed
