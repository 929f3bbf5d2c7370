"""Scores: one row per player per challenge, the source of truth behind every leaderboard."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Standing(models.TextChoices):
    """Whether a score ranks (docs/fairplay.md, *Standing*): only ``good`` scores are on the boards'
    default views; the player always sees their own, with its standing and why."""

    GOOD = "good"
    #: A guest's score, or the account was made on the challenge's day or later, or its e-mail
    #: address is not verified: the score does not rank (verifying ranks the scores of days not
    #: yet over).
    PROVISIONAL = "provisional"
    #: The fair-play signals sent it to the staff queue; it ranks again if cleared.
    REVIEW = "review"
    #: Taken off the boards by staff (kept, not ranked).
    EXCLUDED = "excluded"


class StandingReason(models.TextChoices):
    NONE = "", "none"
    NEW_ACCOUNT = "new_account", "the account is younger than the challenge"
    GUEST = "guest", "played as a guest, not yet kept by signing up or in"
    EMAIL_UNVERIFIED = "email_unverified", "the account's e-mail address is not verified"
    SIGNALS = "signals", "the fair-play signals sent it to review"
    CLEARED = "cleared", "cleared by staff after review"
    EXCLUDED = "excluded", "excluded by staff"
    ACCOUNT_MARKED = "account_marked", "every score of the account was excluded by staff"


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
    #: Set when the score is written (``provisional`` for an account younger than the challenge or
    #: with no verified e-mail address, ``excluded`` for an account staff marked, else ``good``), then by fair play and by staff.
    standing = models.CharField(
        max_length=12, choices=Standing.choices, default=Standing.GOOD, db_default=Standing.GOOD
    )
    standing_reason = models.CharField(
        max_length=16, choices=StandingReason.choices, blank=True, default="", db_default=""
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["player", "challenge"], name="one_score_per_player_and_challenge")
        ]
        indexes = [
            models.Index(fields=["challenge", "-points", "moves", "finished_at"], name="score_challenge_rank"),
            models.Index(fields=["preset", "date"], name="score_preset_date"),
            models.Index(fields=["player", "date"], name="score_player_date"),
        ]

    def __str__(self) -> str:
        return f"{self.player} · {self.challenge} · {self.points}"
