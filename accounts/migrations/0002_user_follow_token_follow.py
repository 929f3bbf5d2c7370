# Every existing player gets a token of their own before the column becomes unique (0003): a
# callable default would be computed once and given to all of them.

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

import accounts.models


def give_every_player_a_token(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    for user in User.objects.filter(follow_token__isnull=True).only("pk").iterator():
        User.objects.filter(pk=user.pk).update(follow_token=accounts.models.new_follow_token())


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="user",
            name="follow_token",
            field=models.CharField(editable=False, max_length=32, null=True),
        ),
        migrations.RunPython(give_every_player_a_token, migrations.RunPython.noop),
        migrations.CreateModel(
            name="Follow",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "followed",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="followers", to=settings.AUTH_USER_MODEL
                    ),
                ),
                (
                    "follower",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="follows", to=settings.AUTH_USER_MODEL
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(fields=("follower", "followed"), name="follow_once"),
                    models.CheckConstraint(condition=models.Q(("follower", models.F("followed")), _negated=True), name="follow_not_self"),
                ],
            },
        ),
    ]
