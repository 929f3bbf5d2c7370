from django.urls import path

from . import apis

app_name = "leaderboard"

urlpatterns = [
    path("leaderboards/challenges/<int:challenge_id>/", apis.ChallengeLeaderboardApi.as_view(), name="challenge"),
    path("leaderboards/weeks/<str:preset>/", apis.WeekLeaderboardApi.as_view(), name="week"),
    path("leaderboards/all-time/<str:preset>/", apis.AllTimeLeaderboardApi.as_view(), name="all-time"),
    path("me/", apis.ProfileApi.as_view(), name="profile"),
]
