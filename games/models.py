"""Daily challenges, games and their move logs: persistence only (the rules live in games.engine)."""

from __future__ import annotations

import secrets
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models.functions import Length
from django.db.models.lookups import Exact
from django.utils import timezone

from games.engine import PRESETS, RULES_VERSION, RULES_VERSIONS, Deal, deal_from_seed, get_rules
from games.engine.commitment import (
    SALT_BYTES,
    SALT_HEX_DIGITS,
    SCHEME_V1,
    SCHEME_V2,
    commitment_preimage,
    seed_commitment,
)

PRESET_CHOICES = [(name, name) for name in PRESETS]
#: Postgres' bigint is signed: seeds are drawn below this (the engine accepts up to 2**64).
SEED_BOUND = 2**63


RULES_VERSION_CHOICES = [(version, f"rules v{version}") for version in RULES_VERSIONS]


def current_rules_version() -> int:
    """The rules version new rows are dealt under (games/engine/rules.py; docs/rules.md, "Rules versions")."""
    return RULES_VERSION


def commitment_fields(preset: str, seed: int) -> dict[str, Any]:
    """The commitment of a challenge given this seed now: a fresh secret salt and the v2 SHA-256
    over preset, seed and salt (games/engine/commitment.py), as DailyChallenge fields."""
    salt = secrets.token_hex(SALT_BYTES)
    return {
        "commitment_version": DailyChallenge.CommitmentVersion.V2,
        "salt": salt,
        "seed_commitment": seed_commitment(preset, seed, salt),
    }


class DailyChallenge(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"
        UNKNOWN = "unknown"

    class Verdict(models.TextChoices):
        WINNABLE = "winnable"
        UNWINNABLE = "unwinnable"
        UNKNOWN = "unknown"

    class CommitmentVersion(models.IntegerChoices):
        #: The challenges scheduled before the salt: their commitment stays as it was published.
        V1 = 1, SCHEME_V1 + ":<preset>:<seed>"
        V2 = 2, SCHEME_V2 + ":<preset>:<seed>:<salt>"

    date = models.DateField(help_text="The challenge day, in the configured time zone.")
    preset = models.CharField(max_length=20, choices=PRESET_CHOICES)
    #: Secret until the day is over; never derived from the date.
    seed = models.PositiveBigIntegerField()
    #: Public from scheduling on: SHA-256 of commitment_preimage.
    seed_commitment = models.CharField(max_length=64)
    commitment_version = models.PositiveSmallIntegerField(
        choices=CommitmentVersion.choices, help_text="Which text the commitment hashes (docs/formats.md)."
    )
    #: Secret until the day is over, like the seed; empty in version 1.
    salt = models.CharField(max_length=SALT_HEX_DIGITS, blank=True)
    #: The rules the deal was verified under (its verdict and par): its games are dealt under them.
    rules_version = models.PositiveSmallIntegerField(
        choices=RULES_VERSION_CHOICES,
        default=current_rules_version,
        help_text="The rules version of its verdict and par (docs/rules.md, Rules versions).",
    )

    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    verdict = models.CharField(max_length=10, choices=Verdict.choices, blank=True)
    line_length = models.PositiveIntegerField(null=True, blank=True, help_text="Moves in the solver's winning line.")
    par = models.IntegerField(null=True, blank=True, help_text="Best score the solver found.")
    par_exact = models.BooleanField(default=False)
    #: The solver's winning line and par line (moves in engine notation, separated by spaces): as
    #: secret as the seed, never sent to a client; fair play compares games with them.
    solver_line = models.TextField(blank=True, default="")
    par_line = models.TextField(blank=True, default="")
    solver_states = models.PositiveBigIntegerField(null=True, blank=True)
    verify_seconds = models.FloatField(null=True, blank=True)
    verify_error = models.TextField(blank=True)
    verified_at = models.DateTimeField(null=True, blank=True)
    #: When the current verification was asked for (status pending) or started (running): a
    #: challenge left in either long after it was lost with its task (a flushed broker).
    verify_requested_at = models.DateTimeField(default=timezone.now)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-date", "preset"]
        constraints = [
            models.UniqueConstraint(fields=["date", "preset"], name="one_challenge_per_date_and_preset"),
            models.CheckConstraint(
                # a Q combined with a lookup is a boolean expression; the stubs type ``&`` as Combinable
                condition=models.Q(commitment_version=1, salt="")
                | (models.Q(commitment_version=2) & Exact(Length("salt"), SALT_HEX_DIGITS)),  # type: ignore[arg-type]
                name="commitment_salt_fits_its_version",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.date} {self.preset}"

    @property
    def deal(self) -> Deal:
        """The deal under the rules it was verified under."""
        return deal_from_seed(get_rules(self.preset, self.rules_version), self.seed)

    @property
    def commitment_scheme(self) -> str:
        return SCHEME_V2 if self.commitment_version == self.CommitmentVersion.V2 else SCHEME_V1

    @property
    def commitment_preimage(self) -> str:
        """The exact text whose SHA-256 is seed_commitment: it holds the seed and salt, so it is
        secret until the day is over."""
        salt = self.salt if self.commitment_version == self.CommitmentVersion.V2 else None
        return commitment_preimage(self.preset, self.seed, salt)


class Game(models.Model):
    class Outcome(models.TextChoices):
        IN_PROGRESS = "in_progress"
        WON = "won"
        LOST = "lost"
        RESIGNED = "resigned"

    challenge = models.ForeignKey(DailyChallenge, on_delete=models.PROTECT, related_name="games")
    #: None once its player deleted their account: the game stays, for the day's statistics and
    #: fair play's population, linked to nobody (accounts.services.user_delete).
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="games")
    ranked = models.BooleanField()
    outcome = models.CharField(max_length=12, choices=Outcome.choices, default=Outcome.IN_PROGRESS)
    #: How many moves the log holds; the number a client must send back with its next move.
    move_count = models.PositiveIntegerField(default=0)
    #: Raised by every change of the move log (a move, or an undo in a practice game), never lowered:
    #: (game, version) names one position for ever, so positions can be remembered by it
    #: (games/positions.py) and a move can be written with one conditional UPDATE.
    version = models.PositiveIntegerField(default=0)
    #: Computed from the move log when the game ends; never sent by a client.
    score = models.IntegerField(null=True, blank=True)
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    #: Where a ranked game was started from, for fair play (docs/fairplay.md, *Detection*): the
    #: client's address as the server saw it, and the device cookie of its browser.
    start_address = models.GenericIPAddressField(null=True, blank=True)
    start_device = models.CharField(max_length=32, blank=True, default="")
    #: The rules its moves were played under (its challenge's when it started); its log is always
    #: replayed under them, so a game keeps its outcome and score when the rules change.
    rules_version = models.PositiveSmallIntegerField(choices=RULES_VERSION_CHOICES, default=current_rules_version)

    class Meta:
        ordering = ["-started_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["challenge", "player"], condition=models.Q(ranked=True), name="one_ranked_game_per_player"
            )
        ]
        indexes = [
            models.Index(fields=["player", "challenge"]),
            models.Index(fields=["challenge", "start_address"], name="game_challenge_address"),
            models.Index(fields=["challenge", "start_device"], name="game_challenge_device"),
        ]

    def __str__(self) -> str:
        kind = "ranked" if self.ranked else "practice"
        return f"{self.player} · {self.challenge} · {kind} #{self.pk}"

    @property
    def is_finished(self) -> bool:
        return self.outcome != self.Outcome.IN_PROGRESS

    @property
    def deal(self) -> Deal:
        """Its challenge's deal under the game's own rules version: what its log replays on."""
        challenge = self.challenge
        return deal_from_seed(get_rules(challenge.preset, self.rules_version), challenge.seed)


class Move(models.Model):
    """One accepted move, in the engine's notation; (game, number) is unique, so none is stored twice."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="moves")
    number = models.PositiveIntegerField(help_text="1-based position in the game's move log.")
    notation = models.CharField(max_length=16)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "number"]
        constraints = [models.UniqueConstraint(fields=["game", "number"], name="one_move_per_number")]

    def __str__(self) -> str:
        return f"{self.number}. {self.notation}"
