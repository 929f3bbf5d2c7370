"""Accounts made by Django's own paths (``createsuperuser``, ``create_user``) get a display name
and its skeleton, as sign-up gives them: both columns are unique."""

import pytest
from django.core.management import call_command

from accounts.models import User
from accounts.names import display_name_skeleton

pytestmark = pytest.mark.django_db


def test_two_superusers_made_by_the_command_each_get_their_name_and_skeleton(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", "a long staff password 1")
    for username in ("boss", "chief"):
        call_command(
            "createsuperuser", interactive=False, username=username, email=f"{username}@example.org", verbosity=0
        )
    boss, chief = User.objects.get(username="boss"), User.objects.get(username="chief")
    assert (boss.display_name, chief.display_name) == ("boss", "chief")
    assert boss.display_name_skeleton == display_name_skeleton("boss") != chief.display_name_skeleton
    assert boss.is_superuser and boss.check_password("a long staff password 1")


def test_create_user_keeps_a_given_display_name_in_its_stored_form() -> None:
    user = User.objects.create_user("ann", password="x", display_name="  Ann\u00a0 Bell ")
    assert user.display_name == "Ann Bell"
    assert user.display_name_skeleton == display_name_skeleton("Ann Bell")


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_the_async_paths_name_the_account_too() -> None:
    user = await User.objects.acreate_user("bea", password="x")
    boss = await User.objects.acreate_superuser("Boss", password="y", display_name="The Boss")
    assert (user.display_name, user.display_name_skeleton) == ("bea", display_name_skeleton("bea"))
    assert (boss.display_name, boss.is_superuser) == ("The Boss", True)
