"""What every live socket enforces: origin, size, JSON, known types, the rate limit, and leaving groups on close."""

from __future__ import annotations

import pytest

from games.events import challenge_group, game_group, hub
from tests.sockets import Socket

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


async def opened(game, cookie=None):
    socket = await Socket(f"/ws/games/{game.pk}/", cookie).open()
    await socket.until("synced")
    return socket


async def test_a_handshake_from_a_foreign_origin_is_refused(alice_game):
    socket = Socket(f"/ws/games/{alice_game.pk}/", origin=b"https://evil.example")
    connected, _ = await socket.communicator.connect(timeout=5)
    assert not connected


async def test_a_handshake_without_an_origin_is_refused(alice_game):
    socket = Socket(f"/ws/games/{alice_game.pk}/", origin=None)
    connected, _ = await socket.communicator.connect(timeout=5)
    assert not connected


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("{not json", "not JSON"),
        ("[1, 2]", "JSON object"),
        ('{"type": "fly"}', "unknown message type"),
        ('{"type": ["ping"]}', "unknown message type"),
        ('{"type": {"a": 1}}', "unknown message type"),
        ('{"type": NaN}', "not JSON"),
        ('{"type": "ping", "ref": 5}', "'ref'"),
        ('{"type": "ping", "pad": "' + "x" * 5000 + '"}', "at most 4096 bytes"),
    ],
)
async def test_malformed_messages_get_an_invalid_error_and_the_socket_stays_open(alice_game, text, words):
    socket = await opened(alice_game)
    await socket.send_text(text)
    error = await socket.expect("error")
    assert error["code"] == "invalid" and words in error["message"]
    await socket.send(type="ping")
    assert (await socket.expect("pong"))["version"] == 0
    await socket.close()


async def test_a_binary_frame_is_refused(alice_game):
    socket = await opened(alice_game)
    await socket.communicator.send_to(bytes_data=b"\x00\x01")
    assert (await socket.expect("error"))["code"] == "invalid"
    await socket.close()


async def test_messages_beyond_the_rate_limit_are_refused_then_the_socket_is_closed(alice_game, settings):
    settings.LIVE_RATE_PER_SECOND = 1
    settings.LIVE_RATE_BURST = 3
    socket = await opened(alice_game)
    for _ in range(3):
        await socket.send(type="ping")
        assert (await socket.expect("pong"))["type"] == "pong"
    await socket.send(type="ping")
    refused = await socket.expect("error")
    assert refused["code"] == "rate_limited" and refused["retry_after"] > 0
    for _ in range(60):
        await socket.send(type="ping")
    codes = set()
    while True:
        output = await socket.communicator.receive_output(timeout=3)
        if output["type"] == "websocket.close":
            assert output["code"] == 4429
            break
        codes.add(output["text"])
    assert codes


async def test_an_unknown_game_is_not_found_and_closed_with_4404(transactional_db):
    socket = await Socket("/ws/games/999999/").open()
    error = await socket.expect("error")
    assert error["code"] == "not_found" and "999999" in error["message"]
    assert await socket.closed_with() == 4404


async def test_an_unknown_socket_path_is_not_found(transactional_db):
    socket = await Socket("/ws/nowhere/").open()
    assert (await socket.expect("error"))["code"] == "not_found"
    assert await socket.closed_with() == 4404


async def test_a_closed_socket_leaves_every_group_it_joined(alice_game, challenge):
    members = hub().members
    game_socket = await opened(alice_game)
    room = await Socket(f"/ws/challenges/{challenge.pk}/").open()
    await room.expect("room.snapshot")
    summary_group, room_group = game_group(alice_game.pk, full=False), challenge_group(challenge.pk)
    assert len(members.get(summary_group, ())) == 1
    assert len(members.get(room_group, ())) == 1
    await game_socket.close()
    await room.close()
    assert summary_group not in members
    assert room_group not in members
