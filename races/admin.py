from django.contrib import admin

from .models import Race, RaceEntry


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
