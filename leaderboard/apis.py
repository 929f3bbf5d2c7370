"""Leaderboards (per challenge, per week, all time) and the player's own profile."""

from __future__ import annotations

import datetime as dt
from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotAuthenticated
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.apis import UserOutputSerializer
from games.engine import PRESETS
from games.selectors import challenge_get, local_today
from piramide_site.errors import NotFound

from . import selectors
from .boards import Board


class EntrySerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    player_id = serializers.IntegerField()
    display_name = serializers.CharField()
    points = serializers.IntegerField()
    moves = serializers.IntegerField()
    finished_at = serializers.DateTimeField()


class LeaderboardOutputSerializer(serializers.Serializer):
    board = serializers.CharField()
    total = serializers.IntegerField()
    my_rank = serializers.IntegerField(allow_null=True)
    entries = EntrySerializer(many=True)


class PageInputSerializer(serializers.Serializer):
    offset = serializers.IntegerField(min_value=0, default=0)
    limit = serializers.IntegerField(min_value=1, max_value=100, default=100)
    around = serializers.ChoiceField(choices=["me"], required=False, help_text="'me': my rank and my neighbours")
    radius = serializers.IntegerField(min_value=0, max_value=50, default=5)


PAGE_PARAMETERS = [
    OpenApiParameter("offset", int),
    OpenApiParameter("limit", int),
    OpenApiParameter("around", str, enum=["me"]),
    OpenApiParameter("radius", int),
]


def _answer(request: Request, board: Board) -> Response:
    params = PageInputSerializer(data=request.query_params)
    params.is_valid(raise_exception=True)
    query = params.validated_data
    user = request.user
    if query.get("around") == "me":
        if not user.is_authenticated:
            raise NotAuthenticated("sign in to see your own rank")
        around = selectors.leaderboard_around(board=board, player_id=user.pk, radius=query["radius"])
        page = selectors.leaderboard_page(board=board, offset=0, limit=0)
        body: dict[str, Any] = {
            "board": board.key,
            "total": page["total"],
            "my_rank": around["rank"],
            "entries": around["entries"],
        }
    else:
        page = selectors.leaderboard_page(board=board, offset=query["offset"], limit=query["limit"])
        mine = selectors.leaderboard_around(board=board, player_id=user.pk, radius=0) if user.is_authenticated else None
        body = {**page, "my_rank": mine["rank"] if mine else None}
    return Response(LeaderboardOutputSerializer(body).data)


def _preset(preset: str) -> str:
    if preset not in PRESETS:
        raise NotFound(f"unknown preset {preset!r}: choose one of {', '.join(PRESETS)}")
    return preset


class ChallengeLeaderboardApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(parameters=PAGE_PARAMETERS, responses=LeaderboardOutputSerializer)
    def get(self, request: Request, challenge_id: int) -> Response:
        challenge = challenge_get(challenge_id=challenge_id)
        return _answer(request, Board.for_challenge(challenge.pk))


class WeekLeaderboardApi(APIView):
    """The sum of ranked scores over the ISO week (Monday to Sunday) holding ``date`` (default: today)."""

    permission_classes = [AllowAny]

    @extend_schema(parameters=[*PAGE_PARAMETERS, OpenApiParameter("date", dt.date)], responses=LeaderboardOutputSerializer)
    def get(self, request: Request, preset: str) -> Response:
        field = serializers.DateField(required=False)
        day = field.run_validation(request.query_params.get("date")) if request.query_params.get("date") else None
        return _answer(request, Board.for_week(_preset(preset), day or local_today()))


class AllTimeLeaderboardApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(parameters=PAGE_PARAMETERS, responses=LeaderboardOutputSerializer)
    def get(self, request: Request, preset: str) -> Response:
        return _answer(request, Board.all_time(_preset(preset)))


class ProfileApi(APIView):
    """Me: account, streaks (played and won, current and best) and recent ranked results."""

    permission_classes = [IsAuthenticated]

    class OutputSerializer(serializers.Serializer):
        user = UserOutputSerializer()
        streaks = serializers.DictField(child=serializers.IntegerField())
        history = serializers.ListField(child=serializers.DictField())

    @extend_schema(responses=OutputSerializer)
    def get(self, request: Request) -> Response:
        streaks = selectors.player_streaks(player_id=request.user.pk)
        body = {
            "user": request.user,
            "streaks": streaks.__dict__,
            "history": selectors.player_history(player_id=request.user.pk),
        }
        return Response(self.OutputSerializer(body).data)
