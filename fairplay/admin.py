"""The staff's fair-play queue: scores in review with their signals, linked accounts and a replay,
and the actions on them (clear, exclude, mark the account), each written to the audit log."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from games.engine import Game as EngineGame
from games.engine import parse_move
from games.engine.board import render
from leaderboard.models import Standing
from plumbing.errors import ServiceError

from . import services
from .models import Assessment, ModerationAction, ScoreInReview
from .signals import THRESHOLD, WEIGHTS, think_times


def _act(modeladmin: admin.ModelAdmin[Any], request: HttpRequest, queryset: QuerySet[Any], act: Any, done: str) -> None:
    count = 0
    for score in queryset:
        try:
            act(score, request.user)
        except ServiceError as error:
            modeladmin.message_user(request, f"{score}: {error.message}", messages.ERROR)
        else:
            count += 1
    if count:
        modeladmin.message_user(request, f"{count} {done}; the boards follow at once.", messages.SUCCESS)


@admin.register(ScoreInReview)
class ScoreInReviewAdmin(admin.ModelAdmin):
    list_display = ("player", "challenge", "points", "suspicion", "fired", "linked_accounts")
    list_filter = ("standing", "preset", "date")
    list_select_related = ("player", "challenge", "assessment")
    search_fields = ("player__username", "player__display_name")
    ordering = ("-assessment__suspicion", "-finished_at")
    actions = ["clear", "exclude_score", "mark_account"]
    fields = (
        "player",
        "challenge",
        "standing",
        "standing_reason",
        "points",
        "moves",
        "won",
        "finished_at",
        "signal_table",
        "linked_accounts",
        "replay",
        "history",
    )
    readonly_fields = fields

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        queryset = super().get_queryset(request)
        # the queue by default; the standing filter shows the others too
        if "standing__exact" not in request.GET:
            queryset = queryset.filter(standing=Standing.REVIEW)
        return queryset

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def _assessment(self, score: Any) -> Assessment | None:
        # a score without one raises RelatedObjectDoesNotExist, an AttributeError: getattr's default
        return getattr(score, "assessment", None)

    @admin.display(description="suspicion", ordering="assessment__suspicion")
    def suspicion(self, score: Any) -> str:
        found = self._assessment(score)
        return f"{found.suspicion:.2f}" if found else "–"

    @admin.display(description="signals")
    def fired(self, score: Any) -> str:
        found = self._assessment(score)
        if not found:
            return "–"
        return ", ".join(f"{name} {value:.2f}" for name, value in found.signals.items() if value > 0) or "none"

    @admin.display(description=f"signals (weight × value; review at {THRESHOLD})")
    def signal_table(self, score: Any) -> str:
        found = self._assessment(score)
        if not found:
            return "not assessed yet"
        # numbers formatted first: format_html escapes its arguments into strings
        rows = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (name, WEIGHTS.get(name, 0), f"{value:.2f}", f"{WEIGHTS.get(name, 0) * value:.2f}")
                for name, value in found.signals.items()
            ),
        )
        return format_html(
            '<table class="fairplay-signals"><tr><th>signal</th><th>weight</th><th>value</th><th>adds</th></tr>{}'
            "<tr><th colspan=3>suspicion</th><th>{}</th></tr></table>",
            rows,
            f"{found.suspicion:.2f}",
        )

    @admin.display(description="linked accounts")
    def linked_accounts(self, score: Any) -> str:
        found = self._assessment(score)
        if not found or not found.linked:
            return "none"
        from django.contrib.auth import get_user_model

        users = get_user_model().objects.in_bulk([int(pk) for pk in found.linked])
        return format_html_join(
            ", ",
            '<a href="{}">{}</a> ({})',
            (
                (reverse("admin:accounts_user_change", args=[pk]), users[int(pk)].display_name, how)
                for pk, how in found.linked.items()
                if int(pk) in users
            ),
        )

    @admin.display(description="replay: each position as the player saw it, and the seconds before each move")
    def replay(self, score: Any) -> str:
        game = score.game
        record = services.play_records([game])[game.pk]
        seconds = think_times(record)
        state = EngineGame.start(score.game.deal)
        steps = [("start", "", render(state.visible()))]
        for number, (move, wait) in enumerate(zip(record.moves, seconds), start=1):
            state = state.apply(parse_move(move))
            steps.append((f"{number}. {move}", f"{wait:.1f} s", render(state.visible())))
        return format_html(
            '<div class="fairplay-replay">{}</div>',
            format_html_join("", "<details><summary>{} <small>{}</small></summary><pre>{}</pre></details>", steps),
        )

    @admin.display(description="audit log")
    def history(self, score: Any) -> str:
        actions = ModerationAction.objects.filter(score=score) | ModerationAction.objects.filter(account=score.player)
        rows = [(a.created_at.strftime("%Y-%m-%d %H:%M"), str(a.actor), a.get_kind_display(), a.note) for a in actions]
        if not rows:
            return "no action yet"
        return format_html("<ul>{}</ul>", format_html_join("", "<li>{} · {} · {} {}</li>", rows))

    @admin.action(description="Clear: the score ranks")
    def clear(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        _act(self, request, queryset, lambda s, u: services.score_clear(score_id=s.pk, actor=u), "score(s) cleared")

    @admin.action(description="Exclude the score (kept, not ranked)")
    def exclude_score(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        _act(self, request, queryset, lambda s, u: services.score_exclude(score_id=s.pk, actor=u), "score(s) excluded")

    @admin.action(description="Mark the account: every score of it leaves every board")
    def mark_account(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        _act(
            self,
            request,
            queryset,
            lambda s, u: services.account_mark(account_id=s.player_id, actor=u),
            "account(s) marked",
        )


@admin.register(ModerationAction)
class ModerationActionAdmin(admin.ModelAdmin):
    """The audit log: read-only."""

    list_display = ("created_at", "actor", "kind", "account", "score", "note")
    list_filter = ("kind",)
    date_hierarchy = "created_at"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
