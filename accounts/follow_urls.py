from django.urls import path

from . import apis

app_name = "follows"

urlpatterns = [
    path("", apis.FollowListApi.as_view(), name="list"),
    path("by-name/", apis.FollowByNameApi.as_view(), name="by-name"),
    path("by-link/", apis.FollowByLinkApi.as_view(), name="by-link"),
    path("link/reset/", apis.FollowLinkResetApi.as_view(), name="link-reset"),
    path("<int:player_id>/", apis.FollowDeleteApi.as_view(), name="delete"),
]
