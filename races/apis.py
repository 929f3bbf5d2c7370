"""Thin DRF views for race rooms, one class per operation (docs/live.md, *Race rooms*)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games.engine import PRESETS
from plumbing.inputs import StrictSerializer, require_no_body

from . import selectors, services


class PlayerSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    display_name = serializers.CharField()


class SummarySerializer(serializers.Serializer):
    moves = serializers.IntegerField()
    score = serializers.IntegerField()
    pyramid_left = serializers.IntegerField()
    finished = serializers.BooleanField()
    outcome = serializers.CharField()


class RacePlayerSerializer(serializers.Serializer):
    player = PlayerSerializer()
    summary = SummarySerializer()


class ResultSerializer(serializers.Serializer):
    place = serializers.IntegerField()
    player = PlayerSerializer()
    outcome = serializers.CharField()
    score = serializers.IntegerField()
    moves = serializers.IntegerField()
    pyramid_left = serializers.IntegerField()
    finished_at = serializers.CharField(allow_null=True)


class RaceOutputSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="The room's name in its link /races/<code>/.")
    preset = serializers.CharField()
    status = serializers.ChoiceField(choices=["lobby", "countdown", "running", "finished"])
    version = serializers.IntegerField()
    host = PlayerSerializer()
    countdown = serializers.IntegerField()
    starts_at = serializers.CharField(allow_null=True)
    finished_at = serializers.CharField(allow_null=True)
    players = RacePlayerSerializer(many=True)
    results = ResultSerializer(many=True, allow_null=True)
    seed = serializers.CharField(allow_null=True, help_text="Revealed once the race is finished.")
    rematch = serializers.CharField(
        allow_null=True, help_text="The code of the race its players went on to, once one asked for a rematch."
    )


class RaceGameOutputSerializer(serializers.Serializer):
    race = serializers.CharField()
    outcome = serializers.CharField()
    moves = serializers.IntegerField(help_text="Send this number back as 'seen' with the next move.")
    score = serializers.IntegerField()
    finished_at = serializers.CharField(allow_null=True)
    state = serializers.JSONField(help_text="The engine's visible() view.")


def _race(race: Any, code: int = status.HTTP_200_OK) -> Response:
    return Response(selectors.race_view(race), status=code)


def _game(play: services.RacePlay) -> Response:
    return Response(selectors.race_game_view(play.race, play.entry, play.state))


class RaceCreateApi(APIView):
    """Open a race room with a fresh deal the solver proved winnable; you are its host.

    503 with Retry-After while no deal of the preset is ready; 429 past ``LIMIT_RACES_PER_USER``."""

    permission_classes = [IsAuthenticated]
    throttle_scope = "races"

    class RaceCreateInputSerializer(StrictSerializer):
        """The rules of the room; the server draws the deal."""

        preset = serializers.ChoiceField(choices=list(PRESETS))

    @extend_schema(request=RaceCreateInputSerializer, responses={201: RaceOutputSerializer})
    def post(self, request: Request) -> Response:
        data = self.RaceCreateInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return _race(services.race_create(host=request.user, **data.validated_data), status.HTTP_201_CREATED)


class RaceDetailApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses=RaceOutputSerializer)
    def get(self, request: Request, code: str) -> Response:
        return _race(selectors.race_get(code=code))


class RaceJoinApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses=RaceOutputSerializer)
    def post(self, request: Request, code: str) -> Response:
        require_no_body(request)
        return _race(services.race_join(code=code, player=request.user))


class RaceRematchApi(APIView):
    """Once the race is over: the first player to ask opens a new race of its preset and hosts it,
    every later one joins that race.  Answers the new race; 429 past ``LIMIT_RACES_PER_USER``, which
    it counts as creating a race does, since it may take a deal from the pool."""

    permission_classes = [IsAuthenticated]
    throttle_scope = "races"

    @extend_schema(request=None, responses=RaceOutputSerializer)
    def post(self, request: Request, code: str) -> Response:
        require_no_body(request)
        return _race(services.race_rematch(code=code, player=request.user))


class RaceLeaveApi(APIView):
    """Leave the room: in the lobby the seat is given up (the host's room passes to the next
    player, the last one out closes it); during the race, leaving gives up my game."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses=RaceOutputSerializer)
    def post(self, request: Request, code: str) -> Response:
        require_no_body(request)
        return _race(services.race_leave(code=code, player=request.user))


class RaceStartApi(APIView):
    """The host starts the countdown."""

    permission_classes = [IsAuthenticated]

    class RaceStartInputSerializer(StrictSerializer):
        """How long the countdown lasts."""

        countdown = serializers.IntegerField(required=False, help_text="Seconds, from 3 to 30 (default 5).")

    @extend_schema(request=RaceStartInputSerializer, responses=RaceOutputSerializer)
    def post(self, request: Request, code: str) -> Response:
        data = self.RaceStartInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return _race(services.race_start(code=code, player=request.user, **data.validated_data))


class RaceGameApi(APIView):
    """My game in the race (404 before the countdown ends or when I have not joined)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses=RaceGameOutputSerializer)
    def get(self, request: Request, code: str) -> Response:
        game = selectors.race_game_for_player(code=code, player=request.user)
        if game is None:
            return Response(
                {"error": "not_found", "message": "you have no game in this race yet"}, status=status.HTTP_404_NOT_FOUND
            )
        return Response(game)


class RaceMoveMakeApi(APIView):
    permission_classes = [IsAuthenticated]
    throttle_scope = "moves"

    class RaceMoveMakeInputSerializer(StrictSerializer):
        """One move of my race game."""

        move = serializers.CharField(max_length=16, help_text="Engine notation: D, R, 7.1, 7.1+S, B3, T")
        seen = serializers.IntegerField(min_value=0, help_text="How many moves of your race game you have seen.")

    @extend_schema(request=RaceMoveMakeInputSerializer, responses=RaceGameOutputSerializer)
    def post(self, request: Request, code: str) -> Response:
        data = self.RaceMoveMakeInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return _game(services.race_move_make(code=code, player=request.user, **data.validated_data))


class RaceResignApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses=RaceGameOutputSerializer)
    def post(self, request: Request, code: str) -> Response:
        require_no_body(request)
        return _game(services.race_resign(code=code, player=request.user))
