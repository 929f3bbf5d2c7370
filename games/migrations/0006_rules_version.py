"""Every challenge and game records the rules version it was dealt under (docs/rules.md, "Rules versions").

The rows that exist already were played and verified under version 1, where every preset ended
the game as soon as the pyramid froze: they are set to 1, so their logs keep replaying to the same
outcome and score.  New rows take the current version.
"""

from django.db import migrations, models

import games.models

CHOICES = [(1, "rules v1"), (2, "rules v2")]


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0005_fairplay_lines_and_game_origin"),
    ]

    operations = [
        migrations.AddField(
            model_name="dailychallenge",
            name="rules_version",
            field=models.PositiveSmallIntegerField(choices=CHOICES, default=1),
            preserve_default=False,
        ),
        migrations.AlterField(
            model_name="dailychallenge",
            name="rules_version",
            field=models.PositiveSmallIntegerField(
                choices=CHOICES,
                default=games.models.current_rules_version,
                help_text="The rules version of its verdict and par (docs/rules.md, Rules versions).",
            ),
        ),
        migrations.AddField(
            model_name="game",
            name="rules_version",
            field=models.PositiveSmallIntegerField(choices=CHOICES, default=1),
            preserve_default=False,
        ),
        migrations.AlterField(
            model_name="game",
            name="rules_version",
            field=models.PositiveSmallIntegerField(choices=CHOICES, default=games.models.current_rules_version),
        ),
    ]
