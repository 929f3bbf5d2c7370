"""WebSocket routes of the races app (docs/live.md)."""

from django.urls import path

from . import consumers

websocket_urlpatterns = [path("ws/races/<str:code>/", consumers.RaceConsumer.as_asgi())]
