"""Following players: by display name or share link, once, never oneself, up to the cap."""

import pytest
from django.db import IntegrityError, transaction

from accounts.models import Follow
from accounts.selectors import followed_ids, follows_list, user_by_follow_token
from accounts.services import follow_create, follow_delete, user_follow_token_reset
from plumbing.errors import BadRequest, NotAllowed, NotFound
from tests.factories import make_player

pytestmark = pytest.mark.django_db


def test_following_by_display_name_ignores_case_and_spaces(player, other_player):
    follow, created = follow_create(follower=player, display_name="  bOB ")
    assert created and follow.followed == other_player
    assert followed_ids(follower_id=player.pk) == [other_player.pk]
    assert followed_ids(follower_id=other_player.pk) == []


def test_following_by_share_link_token(player, other_player):
    follow, created = follow_create(follower=player, token=other_player.follow_token)
    assert created and follow.followed == other_player


def test_following_twice_keeps_one_follow(player, other_player):
    first, _ = follow_create(follower=player, display_name="Bob")
    again, created = follow_create(follower=player, token=other_player.follow_token)
    assert not created and again.pk == first.pk
    assert Follow.objects.count() == 1


def test_an_unknown_name_or_link_is_not_found(player):
    with pytest.raises(NotFound, match="no player is called 'Nobody'"):
        follow_create(follower=player, display_name="Nobody")
    with pytest.raises(NotFound, match="follow link"):
        follow_create(follower=player, token="not-a-token")
    assert not Follow.objects.exists()


def test_no_one_follows_themselves(player):
    with pytest.raises(BadRequest, match="cannot follow yourself"):
        follow_create(follower=player, display_name="alice")
    with pytest.raises(BadRequest, match="cannot follow yourself"):
        follow_create(follower=player, token=player.follow_token)


def test_exactly_one_of_name_and_link(player, other_player):
    with pytest.raises(BadRequest):
        follow_create(follower=player)
    with pytest.raises(BadRequest):
        follow_create(follower=player, display_name="Bob", token=other_player.follow_token)


def test_the_cap_is_checked_before_writing_and_refollowing_still_answers(settings, player):
    settings.FOLLOWS_PER_USER = 2
    a, b, c = make_player("ann"), make_player("ben"), make_player("cat")
    follow_create(follower=player, display_name="Ann")
    follow_create(follower=player, display_name="Ben")
    with pytest.raises(NotAllowed, match="already follow 2 players") as refused:
        follow_create(follower=player, display_name="Cat")
    assert refused.value.extra == {"limit": 2}
    assert set(followed_ids(follower_id=player.pk)) == {a.pk, b.pk}
    assert follow_create(follower=player, display_name="Ann")[1] is False
    follow_delete(follower=player, followed_id=b.pk)
    assert follow_create(follower=player, display_name="Cat")[0].followed == c


def test_stopping_removes_only_that_follow_and_twice_is_harmless(player, other_player):
    carol = make_player("carol")
    follow_create(follower=player, display_name="Bob")
    follow_create(follower=player, display_name="Carol")
    follow_create(follower=other_player, display_name="Carol")
    assert follow_delete(follower=player, followed_id=carol.pk) is True
    assert follow_delete(follower=player, followed_id=carol.pk) is False
    assert followed_ids(follower_id=player.pk) == [other_player.pk]
    assert followed_ids(follower_id=other_player.pk) == [carol.pk]
    with pytest.raises(NotFound):
        follow_delete(follower=player, followed_id=999999)


def test_the_database_refuses_a_self_follow_and_a_duplicate(player, other_player):
    with pytest.raises(IntegrityError), transaction.atomic():
        Follow.objects.create(follower=player, followed=player)
    Follow.objects.create(follower=player, followed=other_player)
    with pytest.raises(IntegrityError), transaction.atomic():
        Follow.objects.create(follower=player, followed=other_player)


def test_share_tokens_are_random_and_a_new_one_retires_the_old(player, other_player):
    assert player.follow_token != other_player.follow_token
    assert len(player.follow_token) >= 20
    assert str(player.pk) != player.follow_token and "alice" not in player.follow_token.lower()
    follow_create(follower=other_player, token=player.follow_token)
    old = player.follow_token
    user_follow_token_reset(user=player)
    assert player.follow_token != old
    assert user_by_follow_token(token=old) is None
    assert user_by_follow_token(token=player.follow_token) == player
    assert followed_ids(follower_id=other_player.pk) == [player.pk]  # who already follows stays


def test_the_list_is_by_name_whatever_the_case(player):
    for name in ("zoe", "Bea", "carl"):
        follow_create(follower=player, display_name=make_player(name, display_name=name).display_name)
    assert [f.display_name for f in follows_list(follower_id=player.pk)] == ["Bea", "carl", "zoe"]
