from django.contrib.auth.models import AbstractUser
from django.db import models


class User(AbstractUser):
    """A player; ``display_name`` is what leaderboards show, unique so no one can pass for another."""

    display_name = models.CharField(max_length=40, unique=True)

    def __str__(self) -> str:
        return self.display_name or self.username
