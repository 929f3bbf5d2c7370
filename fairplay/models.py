"""Fair play: what the signals said of each ranked score, and what staff did about it."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from leaderboard.models import Score, Standing


class Assessment(models.Model):
    """The fair-play signals of one finished ranked game (fairplay/signals.py), kept for the staff queue."""

    score = models.OneToOneField(Score, on_delete=models.CASCADE, primary_key=True, related_name="assessment")
    suspicion = models.FloatField()
    #: Each signal's value from 0 to 1, by name.
    signals = models.JSONField(default=dict)
    #: Other accounts linked to this one on the challenge: {player id: "device" | "address"}.
    linked = models.JSONField(default=dict)
    flagged = models.BooleanField()
    assessed_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.score} · suspicion {self.suspicion:.2f}"


class ScoreInReview(Score):
    """The staff queue: ranked scores the signals sent to review (the admin lists these)."""

    class Meta:
        proxy = True
        verbose_name = "score in review"
        verbose_name_plural = "fair-play queue"


class ModerationAction(models.Model):
    """The audit log: every action staff took on a score or an account, by whom and when."""

    class Kind(models.TextChoices):
        CLEAR = "clear", "cleared the score: it ranks"
        EXCLUDE = "exclude", "excluded the score: kept, not ranked"
        MARK = "mark", "marked the account: every score of it leaves every board"

    kind = models.CharField(max_length=10, choices=Kind.choices)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="moderation_actions")
    score = models.ForeignKey(
        Score, on_delete=models.SET_NULL, null=True, blank=True, related_name="moderation_actions"
    )
    account = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="moderated"
    )
    #: The standing the score had before the action (for a mark: of the account's scores, by id).
    before = models.JSONField(default=dict)
    note = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M} {self.actor} {self.kind}"


__all__ = ["Assessment", "ModerationAction", "ScoreInReview", "Standing"]
