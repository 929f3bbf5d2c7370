"""Sign up, sign in, sign out, change password: session cookies, CSRF on each of them.
The e-mail address and its verification; deleting one's own account.
Following other players: by display name or share link, the list, stopping, a new link."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import authenticate, login, logout, update_session_auth_hash
from django.middleware.csrf import get_token
from django.urls import reverse
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import exceptions, serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from plumbing.errors import BadRequest, Throttled
from plumbing.inputs import StrictSerializer, require_no_body
from plumbing.internals import django_request

from . import selectors
from .backends import refusal_of
from .models import Follow, User
from .selectors import account_of
from .services import (
    follow_create,
    follow_delete,
    user_create,
    user_delete,
    user_follow_token_reset,
    user_password_change,
)
from .signin import Refusal
from .verification import email_verification_send, email_verify, user_email_set


class UserOutputSerializer(serializers.ModelSerializer):
    email_verified = serializers.BooleanField(
        read_only=True, help_text="Scores rank only once it is (docs/fairplay.md)"
    )

    class Meta:
        model = User
        fields: tuple[str, ...] = ("id", "username", "display_name", "email", "email_verified")


def _site_root(request: Request) -> str:
    return request.build_absolute_uri("/")


def _send_quietly(request: Request, user: User) -> bool:
    """Mail a verification link after the address was set; a limit reached leaves it for later
    (the player can ask again), so the address itself is saved either way."""
    try:
        email_verification_send(user=user, base_url=_site_root(request))
    except Throttled:
        return False
    return True


class CsrfApi(APIView):
    """Hands out the CSRF token (and cookie) a client sends back as X-CSRFToken."""

    permission_classes = [AllowAny]

    @extend_schema(responses=inline_serializer("Csrf", {"csrf_token": serializers.CharField()}))
    def get(self, request: Request) -> Response:
        return Response({"csrf_token": get_token(django_request(request))})


class SignUpApi(APIView):
    permission_classes = [AllowAny]
    throttle_scope = "auth"

    class SignUpInputSerializer(StrictSerializer):
        username = serializers.RegexField(r"^[\w.@+-]{3,40}$", help_text="3 to 40 letters, digits or @.+-_")
        password = serializers.CharField(write_only=True)
        display_name = serializers.CharField(max_length=40, required=False, allow_blank=True)
        email = serializers.EmailField(required=False, allow_blank=True)

    @extend_schema(request=SignUpInputSerializer, responses={201: UserOutputSerializer})
    def post(self, request: Request) -> Response:
        data = self.SignUpInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = user_create(**data.validated_data)
        login(django_request(request), user, backend="accounts.backends.LockoutModelBackend")
        if user.email:
            _send_quietly(request, user)
        return Response(UserOutputSerializer(user).data, status=status.HTTP_201_CREATED)


class SignInApi(APIView):
    permission_classes = [AllowAny]
    throttle_scope = "auth"

    class SignInInputSerializer(StrictSerializer):
        username = serializers.CharField()
        password = serializers.CharField(write_only=True)

    @extend_schema(request=SignInInputSerializer, responses={200: UserOutputSerializer})
    def post(self, request: Request) -> Response:
        """Sign in.  Too many failures of this name from this address, or from this address, are
        429 until the window ends; many failures of this name alone only delay the next attempt
        (429 for at most ``SIGNIN_USER_DELAY_MAX`` seconds), never from a device or an address
        that signed in as it before (accounts/signin.py)."""
        data = self.SignInInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = authenticate(django_request(request), **data.validated_data)
        refusal = refusal_of(django_request(request))
        if user is None and refusal is not None:
            raise SignInRefused(refusal)
        if user is None:
            raise BadRequest("wrong username or password")
        login(django_request(request), user)
        return Response(UserOutputSerializer(user).data)


class SignInRefused(exceptions.Throttled):
    """A 429 that says which sign-in limit refused the attempt (``limit``), and for the name's
    delay how long it can be at most (``max_delay``)."""

    MESSAGES = {
        "delay": "many failed sign-ins for this username: each attempt waits a little longer, at most {max:g} s",
        "user_address": "too many failed sign-ins for this username from this address",
        "device": "too many failed sign-ins for this username on this device",
        "address": "too many failed sign-ins from this address",
    }

    def __init__(self, refusal: Refusal) -> None:
        longest = settings.SIGNIN_USER_DELAY_MAX
        self.said = self.MESSAGES[refusal.kind].format(max=longest)
        super().__init__(refusal.seconds, detail=self.said)
        self.extra: dict[str, object] = {"limit": refusal.kind}
        if refusal.kind == "delay":
            self.extra["max_delay"] = longest


class SignOutApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(request=None, responses={204: None})
    def post(self, request: Request) -> Response:
        require_no_body(request)
        logout(django_request(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class PasswordChangeApi(APIView):
    permission_classes = [IsAuthenticated]
    throttle_scope = "auth"

    class PasswordChangeInputSerializer(StrictSerializer):
        old_password = serializers.CharField(write_only=True)
        new_password = serializers.CharField(write_only=True)

    @extend_schema(request=PasswordChangeInputSerializer, responses={204: None})
    def post(self, request: Request) -> Response:
        data = self.PasswordChangeInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = user_password_change(user=account_of(request), **data.validated_data)
        update_session_auth_hash(django_request(request), user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class EmailApi(APIView):
    """My e-mail address: a new one is unverified, and a verification link is mailed to it."""

    permission_classes = [IsAuthenticated]
    throttle_scope = "auth"

    class EmailInputSerializer(StrictSerializer):
        email = serializers.EmailField(allow_blank=True, max_length=254)

    class EmailOutputSerializer(UserOutputSerializer):
        verification_sent = serializers.BooleanField(read_only=True)

        class Meta(UserOutputSerializer.Meta):
            fields = (*UserOutputSerializer.Meta.fields, "verification_sent")

    @extend_schema(request=EmailInputSerializer, responses=EmailOutputSerializer)
    def post(self, request: Request) -> Response:
        """Set (or clear, with "") my address.  ``verification_sent`` is false when the address did
        not change, is empty, or its verification limit is reached (ask again later)."""
        data = self.EmailInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = account_of(request)
        changed = user_email_set(user=user, email=data.validated_data["email"])
        sent = bool(changed and user.email) and _send_quietly(request, user)
        body = UserOutputSerializer(user).data
        return Response({**body, "verification_sent": sent})


class EmailVerificationSendApi(APIView):
    permission_classes = [IsAuthenticated]
    throttle_scope = "auth"

    @extend_schema(
        request=None, responses={202: inline_serializer("VerificationSent", {"sent_to": serializers.EmailField()})}
    )
    def post(self, request: Request) -> Response:
        """Mail me a new verification link: 400 ``invalid`` with no address or one already verified,
        429 ``throttled`` (with ``retry_after``) past the limits per account and per address."""
        require_no_body(request)
        sent = email_verification_send(user=account_of(request), base_url=_site_root(request))
        return Response({"sent_to": sent.email}, status=status.HTTP_202_ACCEPTED)


class EmailVerifyApi(APIView):
    """Follow a verification link's token (the last part of its path), signed in or not."""

    permission_classes = [AllowAny]
    throttle_scope = "auth"

    class EmailVerifyInputSerializer(StrictSerializer):
        token = serializers.CharField(max_length=500)

    @extend_schema(
        request=EmailVerifyInputSerializer,
        responses=inline_serializer("Verified", {"email_verified": serializers.BooleanField()}),
    )
    def post(self, request: Request) -> Response:
        """400 with ``reason`` ``expired``, ``invalid`` or ``address_changed`` (the account's
        address is no longer the one the link was sent to)."""
        data = self.EmailVerifyInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = email_verify(token=data.validated_data["token"])
        return Response({"email_verified": user.email_verified})


class AccountDeleteApi(APIView):
    permission_classes = [IsAuthenticated]
    throttle_scope = "auth"

    class AccountDeleteInputSerializer(StrictSerializer):
        password = serializers.CharField(write_only=True, trim_whitespace=False)

    @extend_schema(request=AccountDeleteInputSerializer, responses={204: None})
    def post(self, request: Request) -> Response:
        """Delete my account, confirmed with my password, and sign out: my scores leave every board
        at once, my games stay linked to nobody.  403 ``not_allowed`` for staff accounts."""
        data = self.AccountDeleteInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user_delete(user=account_of(request), password=data.validated_data["password"])
        logout(django_request(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


# ----------------------------------------------------------------- following


def share_url(request: Request, user: User) -> str:
    """The player's share link: whoever opens it is offered to follow them."""
    return request.build_absolute_uri(reverse("frontend:follow-link", args=[user.follow_token]))


class FollowedOutputSerializer(serializers.Serializer):
    player_id = serializers.IntegerField()
    display_name = serializers.CharField()
    since = serializers.DateTimeField()


def _followed(follow: Follow) -> dict[str, object]:
    return {"player_id": follow.followed_id, "display_name": follow.followed.display_name, "since": follow.created_at}


class FollowListApi(APIView):
    """Who I follow, how many I may follow, and my own share link."""

    permission_classes = [IsAuthenticated]

    class FollowListOutputSerializer(serializers.Serializer):
        count = serializers.IntegerField()
        limit = serializers.IntegerField()
        share_url = serializers.URLField()
        following = FollowedOutputSerializer(many=True)

    @extend_schema(responses=FollowListOutputSerializer)
    def get(self, request: Request) -> Response:
        following = selectors.follows_list(follower_id=account_of(request).pk)
        body = {
            "count": len(following),
            "limit": settings.FOLLOWS_PER_USER,
            "share_url": share_url(request, account_of(request)),
            "following": [f.__dict__ for f in following],
        }
        return Response(self.FollowListOutputSerializer(body).data)


def _follow_answer(follow: Follow, created: bool) -> Response:
    code = status.HTTP_201_CREATED if created else status.HTTP_200_OK
    return Response(FollowedOutputSerializer(_followed(follow)).data, status=code)


class FollowByNameApi(APIView):
    permission_classes = [IsAuthenticated]

    class FollowByNameInputSerializer(StrictSerializer):
        display_name = serializers.CharField(max_length=40)

    @extend_schema(
        request=FollowByNameInputSerializer, responses={201: FollowedOutputSerializer, 200: FollowedOutputSerializer}
    )
    def post(self, request: Request) -> Response:
        """Follow a player by display name (any case); 200 if I already did."""
        data = self.FollowByNameInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return _follow_answer(
            *follow_create(follower=account_of(request), display_name=data.validated_data["display_name"])
        )


class FollowByLinkApi(APIView):
    permission_classes = [IsAuthenticated]

    class FollowByLinkInputSerializer(StrictSerializer):
        link = serializers.CharField(max_length=300, help_text="A share link, or just its token")

        def validate_link(self, value: str) -> str:
            # The token is the last part of the path: a pasted link and a bare token both work.
            return value.strip().split("?")[0].rstrip("/").rsplit("/", 1)[-1]

    @extend_schema(
        request=FollowByLinkInputSerializer, responses={201: FollowedOutputSerializer, 200: FollowedOutputSerializer}
    )
    def post(self, request: Request) -> Response:
        """Follow the player whose share link this is; 200 if I already did."""
        data = self.FollowByLinkInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return _follow_answer(*follow_create(follower=account_of(request), token=data.validated_data["link"]))


class FollowDeleteApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={204: None})
    def delete(self, request: Request, player_id: int) -> Response:
        """Stop following a player (204 whether or not I did)."""
        follow_delete(follower=account_of(request), followed_id=player_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class FollowLinkResetApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses=inline_serializer("FollowLink", {"share_url": serializers.URLField()}))
    def post(self, request: Request) -> Response:
        """A new share link for me; the old one stops working, and who follows me already stays."""
        require_no_body(request)
        user = user_follow_token_reset(user=account_of(request))
        return Response({"share_url": share_url(request, user)})
