"""Display names unique by how they look: a stored confusable skeleton with a unique constraint.

Existing names are kept as they are, each given its skeleton.  Where two or more existing names
look the same, the oldest account (lowest id) keeps its name and each later one is renamed to
"<name> #<id>", so no one goes on posing as another and nobody loses their account or scores.
"""

from django.db import migrations, models


def fill_skeletons(apps, schema_editor):
    from accounts.names import MAX_LENGTH, display_name_skeleton

    User = apps.get_model("accounts", "User")
    taken: set[str] = set()
    for user in User.objects.order_by("pk").only("pk", "display_name").iterator():
        skeleton = display_name_skeleton(user.display_name)
        name, tries = user.display_name, 0
        while skeleton in taken:
            tries += 1
            suffix = f" #{user.pk}" + (f"-{tries}" if tries > 1 else "")
            user.display_name = name[: MAX_LENGTH - len(suffix)] + suffix
            skeleton = display_name_skeleton(user.display_name)
        taken.add(skeleton)
        user.display_name_skeleton = skeleton
        user.save(update_fields=["display_name", "display_name_skeleton"])


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0003_user_follow_token_unique"),
    ]

    operations = [
        migrations.AddField(
            model_name="user",
            name="display_name_skeleton",
            field=models.TextField(editable=False, null=True),
        ),
        migrations.RunPython(fill_skeletons, migrations.RunPython.noop, elidable=False),
    ]
