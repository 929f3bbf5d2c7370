"""The migration that records rules versions: rows that exist were played under version 1."""

import datetime as dt

from games.engine import RULES_VERSION
from tests.factories import make_player

BEFORE = [("games", "0005_fairplay_lines_and_game_origin"), ("races", "0002_pooled_deal")]
AFTER = [("games", "0006_rules_version"), ("races", "0003_race_rules_version")]


def test_existing_challenges_games_and_races_keep_version_1_and_new_ones_take_the_current(migrate_to):
    user = make_player("old")  # the accounts table is not migrated: today's model writes it
    apps = migrate_to(BEFORE)
    challenge = apps.get_model("games", "DailyChallenge").objects.create(
        date=dt.date(2026, 12, 1), preset="classic", seed=13, seed_commitment="0" * 64, commitment_version=1
    )
    game = apps.get_model("games", "Game").objects.create(challenge=challenge, player_id=user.pk, ranked=True)
    race = apps.get_model("races", "Race").objects.create(code="old-race", host_id=user.pk, preset="classic", seed=13)

    apps = migrate_to(AFTER)
    Challenge, Game, Race = (
        apps.get_model(*name) for name in (("games", "DailyChallenge"), ("games", "Game"), ("races", "Race"))
    )
    assert Challenge.objects.get(pk=challenge.pk).rules_version == 1
    assert Game.objects.get(pk=game.pk).rules_version == 1
    assert Race.objects.get(pk=race.pk).rules_version == 1
    fresh = Challenge.objects.create(
        date=dt.date(2026, 12, 2), preset="classic", seed=14, seed_commitment="0" * 64, commitment_version=1
    )
    assert fresh.rules_version == RULES_VERSION


def test_rows_dealt_under_version_2_keep_it_through_version_3s_migration(migrate_to):
    """Version 3 (egyptian's neighbouring waste cards) changes only the choices: an egyptian game
    stored under version 2 stays there, and replays under version 2's rules."""
    user = make_player("older")
    apps = migrate_to([("games", "0008_preset_unlimited"), ("races", "0005_preset_unlimited")])
    challenge = apps.get_model("games", "DailyChallenge").objects.create(
        date=dt.date(2026, 12, 3),
        preset="egyptian",
        seed=15,
        seed_commitment="0" * 64,
        commitment_version=1,
        rules_version=2,
    )
    game = apps.get_model("games", "Game").objects.create(
        challenge=challenge, player_id=user.pk, ranked=True, rules_version=2
    )
    race = apps.get_model("races", "Race").objects.create(
        code="v2-race", host_id=user.pk, preset="egyptian", seed=15, rules_version=2
    )

    apps = migrate_to([("games", "0009_rules_version_3"), ("races", "0006_race_rules_version_3")])
    Challenge, Game, Race = (
        apps.get_model(*name) for name in (("games", "DailyChallenge"), ("games", "Game"), ("races", "Race"))
    )
    assert Challenge.objects.get(pk=challenge.pk).rules_version == 2
    assert Game.objects.get(pk=game.pk).rules_version == 2
    assert Race.objects.get(pk=race.pk).rules_version == 2
    fresh = Challenge.objects.create(
        date=dt.date(2026, 12, 4), preset="egyptian", seed=16, seed_commitment="0" * 64, commitment_version=1
    )
    assert fresh.rules_version == RULES_VERSION == 3
