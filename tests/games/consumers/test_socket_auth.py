"""A socket's user: Channels' session authentication, read on the thread pool (plumbing/socket_auth.py).

Over the whole application stack, with the consumer tests' players, games and session cookies."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from tests.sockets import Socket

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


async def hello_of(game: Any, cookie: str | None) -> dict[str, Any]:
    socket = await Socket(f"/ws/games/{game.pk}/", cookie).open()
    hello = await socket.expect("hello")
    await socket.until("synced")
    await socket.close()
    return hello


async def test_a_socket_learns_its_user_while_the_thread_sensitive_thread_is_busy(
    alice_game: Any, alice_cookie: str
) -> None:
    """Channels' own stack reads the user on the one thread a process keeps for thread-sensitive
    calls, so an opening waited behind whatever held it (every other opening's read, on a busy
    server); here a call holds that thread for the whole opening."""
    entered, release = threading.Event(), threading.Event()

    def hold() -> None:
        entered.set()
        release.wait(10)

    holding = asyncio.ensure_future(sync_to_async(hold, thread_sensitive=True)())
    try:
        assert await asyncio.to_thread(entered.wait, 5)
        hello = await hello_of(alice_game, alice_cookie)
    finally:
        release.set()
        await holding
    assert hello["user"]["display_name"] == "Alice" and hello["role"] == "player"


async def test_a_socket_of_a_session_from_before_a_password_change_is_anonymous(
    alice: Any, alice_game: Any, alice_cookie: str
) -> None:
    """The session's hash is still checked against the user's (Channels' ``get_user``)."""
    assert (await hello_of(alice_game, alice_cookie))["user"]["display_name"] == "Alice"

    def change_password() -> None:
        alice.set_password("a-new-long-pass-phrase-43")
        alice.save()

    await sync_to_async(change_password)()
    hello = await hello_of(alice_game, alice_cookie)
    assert hello["user"] is None and hello["role"] == "spectator"
