"""Staff schedule challenges here; saving one enqueues its verification after the commit."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db import transaction
from django.db.models import QuerySet
from django.http import HttpRequest


from . import services
from .models import SEED_BOUND, DailyChallenge, Game, Move


class ChallengeScheduleForm(forms.ModelForm):
    seed = forms.IntegerField(
        required=False, min_value=0, max_value=SEED_BOUND - 1, help_text="Leave empty to draw a secret seed."
    )

    class Meta:
        model = DailyChallenge
        fields = ("date", "preset", "seed")


@admin.register(DailyChallenge)
class DailyChallengeAdmin(admin.ModelAdmin):
    list_display = ("date", "preset", "status", "verdict", "line_length", "par", "par_exact", "verify_seconds", "game_count")
    list_filter = ("status", "verdict", "preset")
    date_hierarchy = "date"
    actions = ["reverify", "replace_with_winnable"]
    readonly_fields = (
        "seed_commitment",
        "commitment_version",
        "salt",
        "status",
        "verdict",
        "line_length",
        "par",
        "par_exact",
        "solver_states",
        "verify_seconds",
        "verify_error",
        "verified_at",
        "created_at",
    )

    def get_form(self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any) -> Any:
        if obj is None:
            kwargs["form"] = ChallengeScheduleForm
        return super().get_form(request, obj, change, **kwargs)

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        if obj is None:
            return ("date", "preset", "seed")
        return ("date", "preset", "seed", *self.readonly_fields)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        if obj is None:
            return ()
        # Once scheduled, a deal changes only through "replace with a winnable deal".
        return ("date", "preset", "seed", *self.readonly_fields)

    @admin.display(description="games")
    def game_count(self, challenge: DailyChallenge) -> int:
        return challenge.games.count()

    def save_model(self, request: HttpRequest, obj: DailyChallenge, form: Any, change: bool) -> None:
        if change:
            return  # every field is read-only once scheduled
        data = form.cleaned_data
        scheduled = services.challenge_schedule(date=data["date"], preset=data["preset"], seed=data.get("seed"))
        obj.pk = scheduled.pk
        obj.seed = scheduled.seed
        obj.seed_commitment, obj.commitment_version, obj.salt = (
            scheduled.seed_commitment,
            scheduled.commitment_version,
            scheduled.salt,
        )

    @admin.action(description="Verify again with the solver")
    def reverify(self, request: HttpRequest, queryset: QuerySet[DailyChallenge]) -> None:
        for challenge in queryset:
            services.challenge_verification_request(challenge_id=challenge.pk)
        self.message_user(request, f"{queryset.count()} challenge(s) queued for verification")

    @admin.action(description="Replace with a winnable deal")
    def replace_with_winnable(self, request: HttpRequest, queryset: QuerySet[DailyChallenge]) -> None:
        from .tasks import challenge_replace_task

        for challenge in queryset:
            if challenge.games.exists():
                self.message_user(request, f"{challenge} has games already: its deal cannot change", messages.ERROR)
                continue
            transaction.on_commit(lambda pk=challenge.pk: challenge_replace_task.delay(pk))
            self.message_user(request, f"{challenge}: looking for a winnable deal")


class MoveInline(admin.TabularInline):
    model = Move
    extra = 0
    readonly_fields = ("number", "notation", "created_at")
    can_delete = False


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ("id", "challenge", "player", "ranked", "outcome", "move_count", "score", "started_at", "finished_at")
    list_filter = ("ranked", "outcome", "challenge__preset")
    search_fields = ("player__username", "player__display_name")
    readonly_fields = ("challenge", "player", "ranked", "outcome", "move_count", "score", "started_at", "finished_at")
    inlines = [MoveInline]


