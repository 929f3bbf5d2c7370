"""The migration that adds display-name skeletons, on accounts that already look alike."""

from accounts.names import display_name_skeleton

BEFORE = [("accounts", "0003_user_follow_token_unique")]
AFTER = [("accounts", "0005_user_display_name_skeleton_unique")]


def test_existing_look_alikes_keep_the_name_on_the_oldest_account(migrate_to):
    User = migrate_to(BEFORE).get_model("accounts", "User")
    names = ["Demo Player", "D\u0435mo Player", "demo player", "Demo\u200bPlayer", "Niccolò"]
    ids = [
        User.objects.create(username=f"u{i}", display_name=name, follow_token=f"t{i}").pk
        for i, name in enumerate(names)
    ]

    User = migrate_to(AFTER).get_model("accounts", "User")
    rows = dict(User.objects.values_list("pk", "display_name"))
    assert rows[ids[0]] == "Demo Player" and rows[ids[4]] == "Niccolò"
    assert [rows[pk] for pk in ids[1:3]] == [f"{names[1]} #{ids[1]}", f"{names[2]} #{ids[2]}"]
    assert rows[ids[3]] == "Demo\u200bPlayer", "invisible characters are dropped: it reads 'DemoPlayer', another name"
    skeletons = dict(User.objects.values_list("pk", "display_name_skeleton"))
    assert skeletons[ids[0]] == display_name_skeleton("Demo Player") and len(set(skeletons.values())) == len(ids)
