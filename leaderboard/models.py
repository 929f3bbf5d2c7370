"""Scores: one row per player per challenge, the source of truth behind every leaderboard."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Score(models.Model):
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="scores")
    challenge = models.ForeignKey("games.DailyChallenge", on_delete=models.PROTECT, related_name="scores")
    game = models.OneToOneField("games.Game", on_delete=models.PROTECT, related_name="final_score")
    # Copied from the challenge so weekly and all-time sums need no join.
    date = models.DateField()
    preset = models.CharField(max_length=20)
    points = models.IntegerField()
    moves = models.PositiveIntegerField()
    won = models.BooleanField()
    finished_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["player", "challenge"], name="one_score_per_player_and_challenge")]
        indexes = [
            models.Index(fields=["challenge", "-points", "moves", "finished_at"], name="score_challenge_rank"),
            models.Index(fields=["preset", "date"], name="score_preset_date"),
            models.Index(fields=["player", "date"], name="score_player_date"),
        ]

    def __str__(self) -> str:
        return f"{self.player} · {self.challenge} · {self.points}"
