from django.urls import path

from . import apis

app_name = "games"

urlpatterns = [
    path("challenges/today/", apis.ChallengeTodayListApi.as_view(), name="challenge-today"),
    path("challenges/calendar/", apis.ChallengeCalendarApi.as_view(), name="challenge-calendar"),
    path("challenges/<int:challenge_id>/", apis.ChallengeDetailApi.as_view(), name="challenge-detail"),
    path("challenges/<int:challenge_id>/ranked/", apis.GameRankedStartApi.as_view(), name="game-ranked-start"),
    path("challenges/<int:challenge_id>/practice/", apis.GamePracticeStartApi.as_view(), name="game-practice-start"),
    path("games/<int:game_id>/", apis.GameDetailApi.as_view(), name="game-detail"),
    path("games/<int:game_id>/moves/", apis.GameMoveMakeApi.as_view(), name="game-move-make"),
    path("games/<int:game_id>/undo/", apis.GameMoveUndoApi.as_view(), name="game-move-undo"),
    path("games/<int:game_id>/resign/", apis.GameResignApi.as_view(), name="game-resign"),
    path("games/<int:game_id>/hint/", apis.GameHintApi.as_view(), name="game-hint"),
    path("games/<int:game_id>/review/", apis.GameReviewApi.as_view(), name="game-review"),
]
