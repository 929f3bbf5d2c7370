"""Race rooms: friends play one fresh deal at the same time; unranked (persistence only)."""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.db import models

from games.engine import Deal, deal_from_seed, get_rules
from games.models import PRESET_CHOICES, RULES_VERSION_CHOICES, current_rules_version


class Race(models.Model):
    class Status(models.TextChoices):
        LOBBY = "lobby"
        #: Started by the host: the countdown runs until ``starts_at``, then the race runs.
        STARTED = "started"
        FINISHED = "finished"

    #: The room's name in its shared link: random, unguessable, URL-safe.
    code = models.CharField(max_length=16, unique=True)
    host = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="hosted_races")
    preset = models.CharField(max_length=20, choices=PRESET_CHOICES)
    #: Secret until the race is finished.
    seed = models.PositiveBigIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.LOBBY)
    countdown = models.PositiveSmallIntegerField(default=5)
    starts_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    #: Raised by every race event, so a client can tell it missed one.
    version = models.PositiveIntegerField(default=0)
    #: The rules its games are played and replayed under (docs/rules.md, "Rules versions").
    rules_version = models.PositiveSmallIntegerField(choices=RULES_VERSION_CHOICES, default=current_rules_version)
    created_at = models.DateTimeField(auto_now_add=True)
    #: The race its players go on to once this one is over (``race_rematch``): the first to ask
    #: opens it, everyone after joins it.
    rematch = models.OneToOneField("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="rematch_of")

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"race {self.code} ({self.preset})"

    @property
    def deal(self) -> Deal:
        return deal_from_seed(get_rules(self.preset, self.rules_version), self.seed)

    def expires_at(self) -> dt.datetime:
        """A lobby nobody starts closes by the clock this long after it opened (``RACE_LOBBY_SECONDS``, 1 h)."""
        return self.created_at + dt.timedelta(seconds=getattr(settings, "RACE_LOBBY_SECONDS", 3600))

    def is_expired(self, now: dt.datetime) -> bool:
        return self.status == self.Status.LOBBY and now >= self.expires_at()

    def phase(self, now: dt.datetime) -> str:
        """lobby, countdown, running or finished: the countdown ends by the clock, not by a write,
        and so does a lobby nobody started (it shows as finished, with no results)."""
        if self.is_expired(now):
            return "finished"
        if self.status == self.Status.STARTED:
            assert self.starts_at is not None
            return "countdown" if now < self.starts_at else "running"
        return str(self.status)


class RaceEntry(models.Model):
    """One player's game in a race: its record; the position is rebuilt from the deal and its moves."""

    class Outcome(models.TextChoices):
        IN_PROGRESS = "in_progress"
        WON = "won"
        LOST = "lost"
        RESIGNED = "resigned"
        #: The race ended (someone cleared the pyramid) while this game was still going.
        STOPPED = "stopped"

    race = models.ForeignKey(Race, on_delete=models.CASCADE, related_name="entries")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="race_entries")
    outcome = models.CharField(max_length=12, choices=Outcome.choices, default=Outcome.IN_PROGRESS)
    move_count = models.PositiveIntegerField(default=0)
    score = models.IntegerField(default=0)
    pyramid_left = models.PositiveIntegerField()
    joined_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["joined_at", "id"]
        constraints = [models.UniqueConstraint(fields=["race", "player"], name="one_entry_per_player_and_race")]

    def __str__(self) -> str:
        return f"{self.player} in {self.race}"

    @property
    def is_finished(self) -> bool:
        return self.outcome != self.Outcome.IN_PROGRESS


class RaceMove(models.Model):
    """One accepted move of a race game; (entry, number) is unique, so none is stored twice."""

    entry = models.ForeignKey(RaceEntry, on_delete=models.CASCADE, related_name="moves")
    number = models.PositiveIntegerField()
    notation = models.CharField(max_length=16)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["entry", "number"]
        constraints = [models.UniqueConstraint(fields=["entry", "number"], name="one_race_move_per_number")]

    def __str__(self) -> str:
        return f"{self.number}. {self.notation}"


class PooledDeal(models.Model):
    """A deal the solver proved winnable, kept for the next race of its preset (races/pool.py).

    Taken (deleted) by the race that deals it, so a deal is dealt once; never a daily deal,
    checked when it is added and again when it is taken.
    """

    preset = models.CharField(max_length=20, choices=PRESET_CHOICES)
    #: Secret: a race reveals its seed only when it is finished.
    seed = models.PositiveBigIntegerField()
    #: What the solver found: always "winnable" here, the moves of its winning line, the states it
    #: explored and how long it took.
    verdict = models.CharField(max_length=12, default="winnable")
    line_length = models.PositiveIntegerField(null=True)
    solver_states = models.PositiveBigIntegerField(default=0)
    solve_seconds = models.FloatField(default=0.0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(fields=["preset", "seed"], name="one_pooled_deal_per_preset_and_seed")]

    def __str__(self) -> str:
        return f"pooled {self.preset} deal #{self.pk}"
