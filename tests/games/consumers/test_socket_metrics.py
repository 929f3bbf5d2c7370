"""What the live sockets count (plumbing/metrics.py): open sockets by consumer, and a socket's
move under the path that wrote it — the threaded service, or the event loop's on Postgres."""

from __future__ import annotations

import asyncio

import pytest
from prometheus_client import REGISTRY

from tests.sockets import Socket

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


def sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


async def gone(consumer: str, expected: float) -> bool:
    for _ in range(50):
        if sample("piramide_open_sockets", consumer=consumer) == expected:
            return True
        await asyncio.sleep(0.02)
    return False


async def test_an_open_socket_is_counted_until_it_closes(alice_game, alice_cookie):
    before = sample("piramide_open_sockets", consumer="GameConsumer")
    socket = await Socket(f"/ws/games/{alice_game.pk}/", alice_cookie).open()
    await socket.until("synced")
    assert sample("piramide_open_sockets", consumer="GameConsumer") == before + 1
    await socket.close()
    assert await gone("GameConsumer", before)


async def test_a_socket_to_an_unknown_address_is_counted_only_while_open(challenge):
    before = sample("piramide_open_sockets", consumer="NotFoundConsumer")
    socket = Socket("/ws/nothing-here/")
    connected, _ = await socket.communicator.connect(timeout=5)
    if connected:  # accepted to say why, then closed: counted only while open
        await socket.communicator.disconnect()
    assert await gone("NotFoundConsumer", before)


async def move_over_a_socket(game, cookie, move):
    socket = await Socket(f"/ws/games/{game.pk}/", cookie).open()
    await socket.until("synced")
    await socket.send(type="move", move=move, seen=0, ref="1")
    answer = await socket.until("move.ok")
    await socket.close()
    return answer


async def test_a_socket_move_without_the_loop_path_counts_under_the_service(alice_game, alice_cookie, line, settings):
    settings.LIVE_LOOP_MOVES = False
    before = sample("piramide_moves_total", path="service", preset="classic")
    await move_over_a_socket(alice_game, alice_cookie, line[0])
    assert sample("piramide_moves_total", path="service", preset="classic") == before + 1


async def test_a_socket_move_written_from_the_loop_counts_under_the_loop_once(
    postgres, alice_game, alice_cookie, line, settings
):
    settings.LIVE_LOOP_MOVES = True
    loop, service = (sample("piramide_moves_total", path=p, preset="classic") for p in ("loop", "service"))
    timed = sample("piramide_move_seconds_count", path="loop")
    await move_over_a_socket(alice_game, alice_cookie, line[0])
    assert sample("piramide_moves_total", path="loop", preset="classic") == loop + 1
    assert sample("piramide_moves_total", path="service", preset="classic") == service
    assert sample("piramide_move_seconds_count", path="loop") == timed + 1
