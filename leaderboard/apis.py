"""Leaderboards (per challenge, per week, all time), each for everyone or among the players I
follow, and the player's own profile."""

from __future__ import annotations

import datetime as dt
from dataclasses import asdict
from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotAuthenticated
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.apis import UserOutputSerializer
from accounts.selectors import account_of
from games.engine import PRESETS
from games.selectors import challenge_get, local_today
from plumbing.errors import NotFound

from . import selectors
from .boards import Board
from .models import Standing

STANDINGS = [choice for choice, _ in Standing.choices]


class EntrySerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    player_id = serializers.IntegerField()
    display_name = serializers.CharField()
    points = serializers.IntegerField()
    moves = serializers.IntegerField()
    finished_at = serializers.DateTimeField()
    standing = serializers.ChoiceField(choices=STANDINGS, help_text="Only 'good' scores rank (docs/fairplay.md)")


class WithheldSerializer(serializers.Serializer):
    challenge_id = serializers.IntegerField()
    date = serializers.DateField()
    preset = serializers.CharField()
    points = serializers.IntegerField()
    moves = serializers.IntegerField()
    standing = serializers.ChoiceField(choices=STANDINGS)
    standing_reason = serializers.CharField()
    standing_text = serializers.CharField(help_text="Why it does not rank, in the request's language")


class OwnEntrySerializer(EntrySerializer):
    rank = serializers.IntegerField(allow_null=True, help_text="null when none of my scores here ranks")
    standing_reason = serializers.CharField(allow_blank=True)
    standing_text = serializers.CharField(allow_blank=True)
    withheld = WithheldSerializer(many=True, help_text="My scores on this board that do not count, and why")
    would_rank = serializers.IntegerField(
        allow_null=True,
        required=False,
        help_text="On a challenge's board, the rank my score would have if it counted (null when it does, or on sums)",
    )


class LeaderboardOutputSerializer(serializers.Serializer):
    board = serializers.CharField()
    view = serializers.ChoiceField(choices=["everyone", "following"])
    total = serializers.IntegerField()
    my_rank = serializers.IntegerField(allow_null=True)
    me = OwnEntrySerializer(
        allow_null=True,
        help_text="My own entry, wherever it is and whatever its standing, seen only by me (null if I have no score)",
    )
    entries = EntrySerializer(many=True)


class PageInputSerializer(serializers.Serializer):
    offset = serializers.IntegerField(min_value=0, max_value=10_000_000, default=0)
    limit = serializers.IntegerField(min_value=1, max_value=100, default=100)
    around = serializers.ChoiceField(choices=["me"], required=False, help_text="'me': my rank and my neighbours")
    radius = serializers.IntegerField(min_value=0, max_value=50, default=5)
    view = serializers.ChoiceField(
        choices=["everyone", "following"],
        default="everyone",
        help_text="'following': only me and the players I follow, ranked among ourselves",
    )


#: The query parameters as the schema documents them: the serializer's own bounds and choices.
PAGE_PARAMETERS: list[Any] = [PageInputSerializer]


class WeekPageInputSerializer(PageInputSerializer):
    date = serializers.DateField(
        required=False, help_text="Any day of the week (default: today), from the first challenge's week to this one"
    )

    def validate_date(self, value: dt.date) -> dt.date:
        first, last = selectors.week_days_open()
        if not first <= value <= last:
            raise serializers.ValidationError(
                f"choose a day from {first} to {last}: there are no week boards outside them"
            )
        return value


def _query(request: Request, serializer: type[serializers.Serializer] = PageInputSerializer) -> dict[str, Any]:
    # A plain dict, not the QueryDict: DRF reads an empty form value as "not given", so
    # "?offset=" would pass for the default instead of being refused as the schema says.
    params = serializer(data=request.query_params.dict())
    params.is_valid(raise_exception=True)
    return dict(params.validated_data)


def _answer(request: Request, board: Board, query: dict[str, Any] | None = None) -> Response:
    query = query if query is not None else _query(request)
    user = request.user
    around = query.get("around") == "me"
    if query["view"] == "following":
        if not user.is_authenticated:
            raise NotAuthenticated("sign in to see the boards of the players you follow")
        following = selectors.leaderboard_following(
            board=board,
            viewer_id=user.pk,
            offset=query["offset"],
            limit=query["limit"],
            around_radius=query["radius"] if around else None,
        )
        return Response(LeaderboardOutputSerializer(following).data)
    if around:
        if not user.is_authenticated:
            raise NotAuthenticated("sign in to see your own rank")
        near = selectors.leaderboard_around(board=board, player_id=user.pk, radius=query["radius"])
        page = selectors.leaderboard_page(board=board, offset=0, limit=0)
        ranked = next((e for e in near["entries"] if e["player_id"] == user.pk), None)
        me = selectors.own_entry(board=board, player_id=user.pk, ranked=ranked)
        body: dict[str, Any] = {
            "board": board.key,
            "total": page["total"],
            "my_rank": near["rank"],
            "me": me,
            "entries": near["entries"],
        }
    else:
        page = selectors.leaderboard_page(board=board, offset=query["offset"], limit=query["limit"])
        mine = selectors.leaderboard_around(board=board, player_id=user.pk, radius=0) if user.is_authenticated else None
        ranked = mine["entries"][0] if mine and mine["entries"] else None
        me = (
            selectors.own_entry(board=board, player_id=account_of(request).pk, ranked=ranked)
            if mine is not None
            else None
        )
        body = {**page, "my_rank": mine["rank"] if mine else None, "me": me}
    return Response(LeaderboardOutputSerializer({**body, "view": "everyone"}).data)


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

    @extend_schema(parameters=[WeekPageInputSerializer], responses=LeaderboardOutputSerializer)
    def get(self, request: Request, preset: str) -> Response:
        query = _query(request, WeekPageInputSerializer)
        return _answer(request, Board.for_week(_preset(preset), query.get("date") or local_today()), query)


class AllTimeLeaderboardApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(parameters=PAGE_PARAMETERS, responses=LeaderboardOutputSerializer)
    def get(self, request: Request, preset: str) -> Response:
        return _answer(request, Board.all_time(_preset(preset)))


class ProfileApi(APIView):
    """Me: account, streaks (played and won, current and best; every challenge of the day; per preset) and recent ranked results."""

    permission_classes = [IsAuthenticated]

    class OutputSerializer(serializers.Serializer):
        user = UserOutputSerializer()
        streaks = serializers.DictField(child=serializers.IntegerField())
        preset_streaks = serializers.ListField(
            child=serializers.DictField(),
            help_text="Per preset played: its runs along its own challenges (preset, played_current, played_best, won_current, won_best).",
        )
        history = serializers.ListField(child=serializers.DictField())

    @extend_schema(responses=OutputSerializer)
    def get(self, request: Request) -> Response:
        streaks = selectors.player_streaks(player_id=account_of(request).pk)
        body = {
            "user": request.user,
            "streaks": streaks.totals(),
            "preset_streaks": [asdict(preset) for preset in streaks.presets],
            "history": selectors.player_history(player_id=account_of(request).pk),
        }
        return Response(self.OutputSerializer(body).data)
