from django.db import migrations, models

import accounts.models


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0002_user_follow_token_follow"),
    ]

    operations = [
        migrations.AlterField(
            model_name="user",
            name="follow_token",
            field=models.CharField(default=accounts.models.new_follow_token, editable=False, max_length=32, unique=True),
        ),
    ]
