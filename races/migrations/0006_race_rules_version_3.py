"""Rules version 3 for races (games/migrations/0008_rules_version_3.py): the races that exist keep
their version; new ones take 3."""

from django.db import migrations, models

import games.models

CHOICES = [(1, "rules v1"), (2, "rules v2"), (3, "rules v3")]


class Migration(migrations.Migration):
    dependencies = [
        ("races", "0005_preset_unlimited"),
    ]

    operations = [
        migrations.AlterField(
            model_name="race",
            name="rules_version",
            field=models.PositiveSmallIntegerField(choices=CHOICES, default=games.models.current_rules_version),
        ),
    ]
