"""Sign up, sign in, sign out, change password: session cookies, CSRF on each of them."""

from __future__ import annotations

from django.contrib.auth import authenticate, login, logout, update_session_auth_hash
from django.middleware.csrf import get_token
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import exceptions, serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from piramide_site.errors import BadRequest
from piramide_site.inputs import StrictSerializer, require_no_body

from .backends import signin_locked_for
from .models import User
from .services import user_create, user_password_change


class UserOutputSerializer(serializers.ModelSerializer):
    class Meta:
        model = User
        fields = ("id", "username", "display_name", "email")


class CsrfApi(APIView):
    """Hands out the CSRF token (and cookie) a client sends back as X-CSRFToken."""

    permission_classes = [AllowAny]

    @extend_schema(responses=inline_serializer("Csrf", {"csrf_token": serializers.CharField()}))
    def get(self, request: Request) -> Response:
        return Response({"csrf_token": get_token(request._request)})


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
        login(request._request, user, backend="accounts.backends.LockoutModelBackend")
        return Response(UserOutputSerializer(user).data, status=status.HTTP_201_CREATED)


class SignInApi(APIView):
    permission_classes = [AllowAny]
    throttle_scope = "auth"

    class SignInInputSerializer(StrictSerializer):
        username = serializers.CharField()
        password = serializers.CharField(write_only=True)

    @extend_schema(request=SignInInputSerializer, responses={200: UserOutputSerializer})
    def post(self, request: Request) -> Response:
        """Sign in; after repeated failures for a username or from an address: 429 until the lock ends."""
        data = self.SignInInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        wait = signin_locked_for(data.validated_data["username"], request._request)
        if wait:
            raise exceptions.Throttled(wait, detail="too many failed sign-ins")
        user = authenticate(request._request, **data.validated_data)
        if user is None and getattr(request._request, "signin_lock_seconds", None):
            raise exceptions.Throttled(request._request.signin_lock_seconds, detail="too many failed sign-ins")
        if user is None:
            raise BadRequest("wrong username or password")
        login(request._request, user)
        return Response(UserOutputSerializer(user).data)


class SignOutApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(request=None, responses={204: None})
    def post(self, request: Request) -> Response:
        require_no_body(request)
        logout(request._request)
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
        user = user_password_change(user=request.user, **data.validated_data)
        update_session_auth_hash(request._request, user)
        return Response(status=status.HTTP_204_NO_CONTENT)
