"""Rules version 3 (docs/rules.md, "Rules versions"): egyptian's and forty-open's two top waste
cards pair with each other.  Only the choices change: the rows that exist keep the version they were
dealt under (1 or 2), so their logs replay as they did; new rows take version 3."""

from django.db import migrations, models

import games.models

CHOICES = [(1, "rules v1"), (2, "rules v2"), (3, "rules v3")]


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0008_preset_unlimited"),
    ]

    operations = [
        migrations.AlterField(
            model_name="dailychallenge",
            name="rules_version",
            field=models.PositiveSmallIntegerField(
                choices=CHOICES,
                default=games.models.current_rules_version,
                help_text="The rules version of its verdict and par (docs/rules.md, Rules versions).",
            ),
        ),
        migrations.AlterField(
            model_name="game",
            name="rules_version",
            field=models.PositiveSmallIntegerField(choices=CHOICES, default=games.models.current_rules_version),
        ),
    ]
