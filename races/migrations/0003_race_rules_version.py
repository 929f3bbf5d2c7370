"""Races record the rules version they are played under; the races that exist were played under 1."""

from django.db import migrations, models

import games.models

CHOICES = [(1, "rules v1"), (2, "rules v2")]


class Migration(migrations.Migration):
    dependencies = [
        ("races", "0002_pooled_deal"),
    ]

    operations = [
        migrations.AddField(
            model_name="race",
            name="rules_version",
            field=models.PositiveSmallIntegerField(choices=CHOICES, default=1),
            preserve_default=False,
        ),
        migrations.AlterField(
            model_name="race",
            name="rules_version",
            field=models.PositiveSmallIntegerField(choices=CHOICES, default=games.models.current_rules_version),
        ),
    ]
