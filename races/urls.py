from django.urls import path

from . import apis

app_name = "races"

urlpatterns = [
    path("races/", apis.RaceCreateApi.as_view(), name="race-create"),
    path("races/<str:code>/", apis.RaceDetailApi.as_view(), name="race-detail"),
    path("races/<str:code>/join/", apis.RaceJoinApi.as_view(), name="race-join"),
    path("races/<str:code>/leave/", apis.RaceLeaveApi.as_view(), name="race-leave"),
    path("races/<str:code>/rematch/", apis.RaceRematchApi.as_view(), name="race-rematch"),
    path("races/<str:code>/start/", apis.RaceStartApi.as_view(), name="race-start"),
    path("races/<str:code>/game/", apis.RaceGameApi.as_view(), name="race-game"),
    path("races/<str:code>/moves/", apis.RaceMoveMakeApi.as_view(), name="race-move-make"),
    path("races/<str:code>/resign/", apis.RaceResignApi.as_view(), name="race-resign"),
]
