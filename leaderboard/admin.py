from django.contrib import admin

from .models import Score


@admin.register(Score)
class ScoreAdmin(admin.ModelAdmin):
    list_display = ("challenge", "player", "points", "moves", "won", "finished_at")
    list_filter = ("preset", "won")
    search_fields = ("player__username", "player__display_name")
    readonly_fields = ("player", "challenge", "game", "date", "preset", "points", "moves", "won", "finished_at")
