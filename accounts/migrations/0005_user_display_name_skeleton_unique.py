from django.db import migrations, models


class Migration(migrations.Migration):
    """Apart from 0004, so Postgres alters the table in a transaction that has updated no rows."""

    dependencies = [
        ("accounts", "0004_user_display_name_skeleton"),
    ]

    operations = [
        migrations.AlterField(
            model_name="user",
            name="display_name_skeleton",
            field=models.TextField(editable=False, unique=True),
        ),
    ]
