"""Thin DRF views, one class per operation: parse input, call one service or selector, answer.

Every game state in a response is ``game_view`` (the engine's ``visible()``); a challenge's seed
and deal appear only once its day is over.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from plumbing.device import origin_of
from plumbing.inputs import StrictSerializer, require_no_body

from . import selectors, services
from .models import DailyChallenge


class ChallengeOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    date = serializers.DateField()
    preset = serializers.CharField()
    seed_commitment = serializers.CharField(
        help_text="SHA-256, published from scheduling on, of the text commitment_scheme names: "
        "'piramide-seed-v1:<preset>:<seed>' or 'piramide-seed-v2:<preset>:<seed>:<salt>' (docs/formats.md)."
    )
    commitment_scheme = serializers.CharField(help_text="'piramide-seed-v1' (no salt) or 'piramide-seed-v2'.")
    status = serializers.CharField()
    verdict = serializers.CharField()
    line_length = serializers.IntegerField(allow_null=True)
    par = serializers.IntegerField(allow_null=True)
    is_over = serializers.SerializerMethodField()
    seed = serializers.SerializerMethodField(help_text="Revealed once the challenge day is over.")
    salt = serializers.SerializerMethodField(
        help_text="32 hex digits, revealed with the seed once the challenge day is over; null in piramide-seed-v1."
    )
    deal = serializers.SerializerMethodField(help_text="Revealed once the challenge day is over.")
    variant_of_the_day = serializers.SerializerMethodField(
        help_text="True for the day's rotating variant, false for the presets on the program every day."
    )

    def get_variant_of_the_day(self, challenge: DailyChallenge) -> bool:
        return selectors.is_variant_of_the_day(challenge)

    def get_is_over(self, challenge: DailyChallenge) -> bool:
        return selectors.challenge_is_over(challenge)

    def get_seed(self, challenge: DailyChallenge) -> str | None:
        # A string: seeds go up to 2**63, beyond what a JSON number keeps exactly in a browser.
        return str(challenge.seed) if selectors.challenge_is_over(challenge) else None

    def get_salt(self, challenge: DailyChallenge) -> str | None:
        return (challenge.salt or None) if selectors.challenge_is_over(challenge) else None

    def get_deal(self, challenge: DailyChallenge) -> str | None:
        return str(challenge.deal) if selectors.challenge_is_over(challenge) else None


class GameOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    challenge = serializers.IntegerField()
    ranked = serializers.BooleanField()
    outcome = serializers.CharField()
    moves = serializers.IntegerField(help_text="Send this number back as 'seen' with the next move.")
    score = serializers.IntegerField()
    started_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    state = serializers.JSONField(help_text="The engine's visible() view: face-down and undrawn cards only as counts.")


def _game(play: services.Play, code: int = status.HTTP_200_OK) -> Response:
    return Response(GameOutputSerializer(selectors.game_view(play.game, play.state)).data, status=code)


class ChallengeTodayListApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses=ChallengeOutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        challenges = selectors.challenges_for_day(date=selectors.local_today())
        return Response(ChallengeOutputSerializer(challenges, many=True).data)


class ChallengeCalendarApi(APIView):
    """The public program of the coming days: which presets each day has, and its variant of the day."""

    permission_classes = [AllowAny]

    class DayOutputSerializer(serializers.Serializer):
        date = serializers.DateField()
        presets = serializers.ListField(child=serializers.CharField())
        variant_of_the_day = serializers.CharField(allow_null=True)

    @extend_schema(responses=DayOutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        return Response(self.DayOutputSerializer(selectors.program_calendar(), many=True).data)


class ChallengeDetailApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses=ChallengeOutputSerializer)
    def get(self, request: Request, challenge_id: int) -> Response:
        return Response(ChallengeOutputSerializer(selectors.challenge_get(challenge_id=challenge_id)).data)


class GameRankedStartApi(APIView):
    """Start my ranked game on a challenge (201), or resume it (200)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={200: GameOutputSerializer, 201: GameOutputSerializer})
    def post(self, request: Request, challenge_id: int) -> Response:
        require_no_body(request)
        play, created = services.game_ranked_start(
            challenge_id=challenge_id, player=request.user, origin=origin_of(request)
        )
        return _game(play, status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class GamePracticeStartApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={201: GameOutputSerializer})
    def post(self, request: Request, challenge_id: int) -> Response:
        require_no_body(request)
        return _game(
            services.game_practice_start(challenge_id=challenge_id, player=request.user), status.HTTP_201_CREATED
        )


class GameDetailApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses=GameOutputSerializer)
    def get(self, request: Request, game_id: int) -> Response:
        game = selectors.game_get_for_player(game_id=game_id, player=request.user)
        return _game(services.Play(game, selectors.game_engine_state(game)))


class GameMoveMakeApi(APIView):
    permission_classes = [IsAuthenticated]
    throttle_scope = "moves"

    class GameMoveMakeInputSerializer(StrictSerializer):
        move = serializers.CharField(max_length=16, help_text="Engine notation: D, R, 7.1, 7.1+S, B3, T")
        seen = serializers.IntegerField(min_value=0, help_text="How many moves of this game the client has seen.")

    @extend_schema(request=GameMoveMakeInputSerializer, responses=GameOutputSerializer)
    def post(self, request: Request, game_id: int) -> Response:
        data = self.GameMoveMakeInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return _game(services.game_move_make(game_id=game_id, player=request.user, **data.validated_data))


class GameMoveUndoApi(APIView):
    permission_classes = [IsAuthenticated]
    throttle_scope = "moves"

    class GameMoveUndoInputSerializer(StrictSerializer):
        seen = serializers.IntegerField(min_value=0)

    @extend_schema(request=GameMoveUndoInputSerializer, responses=GameOutputSerializer)
    def post(self, request: Request, game_id: int) -> Response:
        data = self.GameMoveUndoInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return _game(services.game_move_undo(game_id=game_id, player=request.user, **data.validated_data))


class GameResignApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses=GameOutputSerializer)
    def post(self, request: Request, game_id: int) -> Response:
        require_no_body(request)
        return _game(services.game_resign(game_id=game_id, player=request.user))


class GameHintApi(APIView):
    permission_classes = [IsAuthenticated]
    throttle_scope = "moves"

    @extend_schema(
        responses=inline_serializer(
            "Hint", {"verdict": serializers.CharField(), "move": serializers.CharField(allow_null=True)}
        )
    )
    def get(self, request: Request, game_id: int) -> Response:
        game = selectors.game_get_for_player(game_id=game_id, player=request.user)
        result = selectors.game_hint(game=game)
        return Response({"verdict": result.verdict, "move": result.move})


class GameReviewApi(APIView):
    permission_classes = [IsAuthenticated]
    throttle_scope = "moves"

    @extend_schema(
        responses=inline_serializer(
            "Review",
            {
                "start_verdict": serializers.CharField(),
                "point_of_no_return": serializers.IntegerField(allow_null=True),
                "line": serializers.ListField(
                    child=serializers.CharField(), help_text="Empty until the challenge's day is over."
                ),
                "line_opens_at": serializers.DateTimeField(
                    allow_null=True, help_text="When the line opens; null once it has."
                ),
                "seconds": serializers.FloatField(),
            },
        )
    )
    def get(self, request: Request, game_id: int) -> Response:
        game = selectors.game_get_for_player(game_id=game_id, player=request.user)
        result = selectors.game_review(game=game)
        body: dict[str, Any] = {
            "start_verdict": result.start_verdict,
            "point_of_no_return": result.point_of_no_return,
            "line": result.line,
            "line_opens_at": result.line_opens_at.isoformat().replace("+00:00", "Z") if result.line_opens_at else None,
            "seconds": result.seconds,
        }
        return Response(body)
