from django.contrib import admin

from .models import PooledDeal, Race, RaceEntry


class RaceEntryInline(admin.TabularInline):
    model = RaceEntry
    extra = 0
    fields = ("player", "outcome", "move_count", "score", "pyramid_left", "finished_at")
    readonly_fields = fields
    can_delete = False


@admin.register(Race)
class RaceAdmin(admin.ModelAdmin):
    list_display = ("code", "preset", "host", "status", "starts_at", "finished_at", "created_at")
    list_filter = ("status", "preset")
    search_fields = ("code", "host__display_name")
    readonly_fields = ("code", "host", "preset", "seed", "status", "countdown", "starts_at", "finished_at", "version")
    inlines = [RaceEntryInline]


@admin.register(PooledDeal)
class PooledDealAdmin(admin.ModelAdmin):
    """The deals waiting for races: their seeds are secret until a race deals one and ends."""

    list_display = ("id", "preset", "line_length", "solve_seconds", "created_at")
    list_filter = ("preset",)
    exclude = ("seed",)
    readonly_fields = ("preset", "verdict", "line_length", "solver_states", "solve_seconds", "created_at")
