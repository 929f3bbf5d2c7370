"""A socket's user: Channels' session authentication, read on the thread pool (piramide_site/socket_auth.py)."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from games.services import game_ranked_start
from tests.factories import make_challenge, make_player
from tests.sockets import Socket, session_cookie

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def in_memory_layer(settings: Any) -> None:
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


@pytest.fixture
def alice(transactional_db: Any) -> Any:
    return make_player("alice", display_name="Alice")


@pytest.fixture
def alice_game(transactional_db: Any, alice: Any) -> Any:
    return game_ranked_start(challenge_id=make_challenge(preset="classic").pk, player=alice)[0].game


async def hello_of(game: Any, cookie: str | None) -> dict[str, Any]:
    socket = await Socket(f"/ws/games/{game.pk}/", cookie).open()
    hello = await socket.expect("hello")
    await socket.until("synced")
    await socket.close()
    return hello


async def test_a_socket_learns_its_user_while_the_thread_sensitive_thread_is_busy(alice: Any, alice_game: Any) -> None:
    """Channels' own stack reads the user on the one thread a process keeps for thread-sensitive
    calls, so an opening waited behind whatever held it (every other opening's read, on a busy
    server); here a call holds that thread for the whole opening."""
    cookie = await sync_to_async(session_cookie)(alice)
    entered, release = threading.Event(), threading.Event()

    def hold() -> None:
        entered.set()
        release.wait(10)

    holding = asyncio.ensure_future(sync_to_async(hold, thread_sensitive=True)())
    try:
        assert await asyncio.to_thread(entered.wait, 5)
        hello = await hello_of(alice_game, cookie)
    finally:
        release.set()
        await holding
    assert hello["user"]["display_name"] == "Alice" and hello["role"] == "player"


async def test_a_socket_of_a_session_from_before_a_password_change_is_anonymous(alice: Any, alice_game: Any) -> None:
    """The session's hash is still checked against the user's (Channels' ``get_user``)."""
    cookie = await sync_to_async(session_cookie)(alice)
    assert (await hello_of(alice_game, cookie))["user"]["display_name"] == "Alice"

    def change_password() -> None:
        alice.set_password("a-new-long-pass-phrase-43")
        alice.save()

    await sync_to_async(change_password)()
    hello = await hello_of(alice_game, cookie)
    assert hello["user"] is None and hello["role"] == "spectator"
