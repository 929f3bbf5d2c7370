"""WebSocket routes of the games app (docs/live.md)."""

from django.urls import path, re_path

from . import consumers

websocket_urlpatterns = [
    path("ws/games/<int:game_id>/", consumers.GameConsumer.as_asgi()),
    path("ws/challenges/<int:challenge_id>/", consumers.ChallengeRoomConsumer.as_asgi()),
]

#: Last in the router: any other socket path gets a readable "not_found" and close code 4404.
not_found_urlpatterns = [re_path(r"", consumers.NotFoundConsumer.as_asgi())]
