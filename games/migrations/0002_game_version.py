from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("games", "0001_initial")]

    operations = [
        migrations.AddField(model_name="game", name="version", field=models.PositiveIntegerField(default=0)),
        # Existing games start at their move count, so a version never repeats a position already seen.
        migrations.RunSQL("UPDATE games_game SET version = move_count", migrations.RunSQL.noop),
    ]
