"""Staff schedule challenges here; saving one enqueues its verification after the commit."""

from __future__ import annotations

import functools
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db import transaction
from django.db.models import Q, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, HttpResponseRedirect
from django.middleware.csrf import get_token
from django.shortcuts import get_object_or_404
from django.urls import path, reverse
from django.utils.html import format_html

from . import services
from .models import SEED_BOUND, DailyChallenge, Game, Move
from .selectors import local_today


class ChallengeScheduleForm(forms.ModelForm):
    seed = forms.IntegerField(
        required=False,
        min_value=0,
        max_value=SEED_BOUND - 1,
        help_text="Leave empty: the solver finds a secret seed whose deal it proves winnable.",
    )

    class Meta:
        model = DailyChallenge
        fields = ("date", "preset", "seed")


@admin.register(DailyChallenge)
class DailyChallengeAdmin(admin.ModelAdmin):
    # few columns, so the list fits a laptop's screen; line length, solver states and times are on each challenge's page
    list_display = ("date", "preset", "status", "verdict", "par_shown", "game_count")
    list_filter = ("status", "verdict", "preset", "rules_version")
    date_hierarchy = "date"
    actions = ["reverify", "replace_with_winnable"]
    readonly_fields = (
        "seed_commitment",
        "commitment_version",
        "salt",
        "rules_version",
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

    @admin.display(description="par", ordering="par")
    def par_shown(self, challenge: DailyChallenge) -> str:
        if challenge.par is None:
            return "–"
        return f"{challenge.par}" if challenge.par_exact else f"{challenge.par} (not proven best)"

    def changelist_view(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> Any:
        # A deal that cannot be played as scheduled is said at the top of the list, not only in a column.
        today = local_today()
        for challenge in DailyChallenge.objects.filter(date__gte=today).filter(
            Q(verdict=DailyChallenge.Verdict.UNWINNABLE)
            | Q(status__in=[DailyChallenge.Status.FAILED, DailyChallenge.Status.UNKNOWN])
        ):
            problem = (
                "its deal is unwinnable"
                if challenge.verdict == DailyChallenge.Verdict.UNWINNABLE
                else f"its verification is {challenge.status}"
            )
            if challenge.games.exists():
                self.message_user(request, f"{challenge}: {problem}, and it has games already.", messages.WARNING)
                continue
            # one click: a form of its own, posting to replace_view
            self.message_user(
                request,
                format_html(
                    '{}: {}. <form method="post" action="{}" class="replace-deal" style="display:inline">'
                    '<input type="hidden" name="csrfmiddlewaretoken" value="{}">'
                    '<button type="submit" class="button">Replace with a winnable deal</button></form>',
                    challenge,
                    problem,
                    reverse("admin:games_dailychallenge_replace", args=[challenge.pk]),
                    get_token(request),
                ),
                messages.WARNING,
            )
        return super().changelist_view(request, extra_context)

    def get_urls(self) -> list[Any]:
        replace = path(
            "<int:challenge_id>/replace/",
            self.admin_site.admin_view(self.replace_view),
            name="games_dailychallenge_replace",
        )
        return [replace, *super().get_urls()]

    def replace_view(self, request: HttpRequest, challenge_id: int) -> HttpResponse:
        """The warning's button: the action "Replace with a winnable deal" on one challenge."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        if not self.has_change_permission(request):
            return HttpResponse("You may not change challenges.", status=403, content_type="text/plain")
        challenge = get_object_or_404(DailyChallenge, pk=challenge_id)
        self.replace_with_winnable(request, DailyChallenge.objects.filter(pk=challenge.pk))
        return HttpResponseRedirect(reverse("admin:games_dailychallenge_changelist"))

    def save_model(self, request: HttpRequest, obj: DailyChallenge, form: Any, change: bool) -> None:
        if change:
            return  # every field is read-only once scheduled
        data = form.cleaned_data
        scheduled = services.challenge_schedule(date=data["date"], preset=data["preset"], seed=data.get("seed"))
        if data.get("seed") is None:
            said = "the solver is looking for a winnable deal for it; until then the list shows it pending"
        else:
            said = f"the solver is verifying seed {scheduled.seed}; if the deal is unwinnable the list will say so"
        self.message_user(request, f"{scheduled}: {said}.", messages.INFO)
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
            transaction.on_commit(functools.partial(challenge_replace_task.delay, challenge.pk))
            self.message_user(request, f"{challenge}: looking for a winnable deal")


class MoveInline(admin.TabularInline):
    model = Move
    extra = 0
    readonly_fields = ("number", "notation", "created_at")
    can_delete = False


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    # a game is its move log's: staff read it, never edit it
    readonly_fields = (
        "challenge",
        "player",
        "ranked",
        "rules_version",
        "outcome",
        "move_count",
        "score",
        "started_at",
        "finished_at",
    )
    list_display = ("id", *readonly_fields)
    list_filter = ("ranked", "outcome", "challenge__preset")
    search_fields = ("player__username", "player__display_name")
    inlines = [MoveInline]
