"""Socket message fuzz: whatever a client sends, every socket answers in its protocol and stays up.

Generated frames (hypothesis) go to each socket type, signed in as the game's owner where that
matters: malformed JSON, JSON that is not an object, objects with known and unknown types and
wrong field types, huge text frames, binary frames.  Every answer must be a JSON object with a
``type``; an ``error`` must carry a known code and a message; and afterwards the socket still
answers a ping, and the game's move log is only ever changed by moves that were legal.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from channels.testing import WebsocketCommunicator
from django.conf import settings
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from games import events
from games.engine import Game as EngineGame
from games.engine import parse_move
from games.models import Move
from games.services import game_ranked_start
from races.services import race_create, race_start
from tests.factories import make_challenge, make_player
from tests.sockets import session_cookie

pytestmark = pytest.mark.django_db(transaction=True)

ERROR_CODES = {
    "illegal",
    "stale",
    "not_yours",
    "finished",
    "not_allowed",
    "unauthenticated",
    "not_found",
    "invalid",
    "rate_limited",
    "spoiler",
    "not_member",
    "not_host",
    "not_started",
    "conflict",
}
#: what a socket pushes on its own: its groups' events, a room's coalesced update, a race's start
#: when its countdown ends; every other message is a reply to the client
PUSHED_TYPES = {name for name, _ in events.SCHEMAS} | {"room.update", "race.started"}
TYPES = ["move", "resign", "undo", "sync", "ping", "replay", "join", "start", "", "MOVE", "game.move_made", "x" * 300]
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)
objects = st.fixed_dictionaries(
    {"type": st.sampled_from(TYPES) | st.text(max_size=12)},
    optional={
        "move": st.sampled_from(["D", "R", "7.1", "7.1+S", "S+W", "1.1", "T", "B1"]) | json_values,
        "seen": st.integers(min_value=-5, max_value=2**64) | json_values,
        "since": st.integers(min_value=-5, max_value=2**64) | json_values,
        "countdown": st.integers(min_value=-5, max_value=100) | json_values,
        "ref": st.text(max_size=80) | json_values,
        "extra": json_values,
    },
)
frames = st.one_of(
    objects.map(lambda obj: ("text", json.dumps(obj))),
    json_values.map(lambda value: ("text", json.dumps(value))),
    st.text(max_size=200).map(lambda text: ("text", text)),
    st.binary(max_size=200).map(lambda data: ("bytes", data)),
    st.integers(min_value=4097, max_value=200_000).map(
        lambda n: ("text", json.dumps({"type": "ping", "pad": "x" * n}))
    ),
    st.just(("text", "{" * 5000)),
    st.just(("text", "[" * 3000 + "]" * 3000)),
)


@pytest.fixture
def targets(settings: Any, today: Any) -> dict[str, Any]:
    settings.LIVE_RATE_BURST = 100000
    settings.LIVE_RATE_PER_SECOND = 100000.0
    settings.RACE_COUNTDOWN_MIN = 0
    challenge = make_challenge(preset="classic", date=today)
    alice = make_player("alice")
    game = game_ranked_start(challenge_id=challenge.pk, player=alice)[0].game
    race = race_create(host=alice, preset="classic", seed=7)  # not a daily deal
    race_start(code=race.code, player=alice, countdown=0)
    return {"cookie": session_cookie(alice), "game": game, "challenge": challenge, "race": race}


def open_socket(path: str, cookie: str) -> WebsocketCommunicator:
    from piramide_site.asgi import application

    headers = [(b"origin", b"http://127.0.0.1"), (b"cookie", f"{settings.SESSION_COOKIE_NAME}={cookie}".encode())]
    return WebsocketCommunicator(application, path, headers=headers)


async def exchange(communicator: WebsocketCommunicator, frame: tuple[str, Any]) -> list[dict[str, Any]]:
    kind, data = frame
    # The raw ASGI message: the communicator's helper refuses an empty frame, a client may not.
    await communicator.send_input({"type": "websocket.receive", kind: data})
    await communicator.send_to(text_data=json.dumps({"type": "ping", "ref": "fuzz-end"}))
    answers = []
    while True:
        output = await communicator.receive_output(timeout=5)
        assert output["type"] == "websocket.send", f"the socket closed after {frame!r:.200}: {output}"
        message = json.loads(output["text"])
        if message.get("type") == "pong" and message.get("ref") == "fuzz-end":
            return answers
        answers.append(message)


def check_answers(answers: list[dict[str, Any]], frame: tuple[str, Any]) -> None:
    for message in answers:
        assert isinstance(message, dict) and isinstance(message.get("type"), str), message
        if message["type"] == "error":
            assert message["code"] in ERROR_CODES and message["message"], message
    # A pushed message arrives when it arrives: a fuzzed ``resign`` before may end the race during
    # this frame.  Anything else answers this frame.
    replies = [message for message in answers if message["type"] not in PUSHED_TYPES]
    kind, data = frame
    if kind == "bytes" or len(data.encode()) > 4096:
        assert [m.get("code") for m in replies] == ["invalid"], (frame[1][:80], answers)


def generated_frames(count: int) -> list[tuple[str, Any]]:
    """``count`` frames drawn by hypothesis (its generation, with its edge cases; no shrinking here:
    each failing frame is reported as it is)."""
    drawn: list[tuple[str, Any]] = []

    @hsettings(max_examples=count, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(frame=frames)
    def collect(frame: tuple[str, Any]) -> None:
        drawn.append(frame)

    collect()
    return drawn


FRAMES_PER_SOCKET = 500


@pytest.mark.asyncio
@pytest.mark.parametrize("socket", ["game", "room", "race"])
async def test_any_frame_gets_an_answer_in_the_protocol_and_the_socket_stays_up(targets, socket):
    from channels.db import database_sync_to_async

    path = {
        "game": f"/ws/games/{targets['game'].pk}/",
        "room": f"/ws/challenges/{targets['challenge'].pk}/",
        "race": f"/ws/races/{targets['race'].code}/",
    }[socket]
    communicator = open_socket(path, targets["cookie"])
    connected, _ = await communicator.connect(timeout=5)
    assert connected
    await communicator.send_to(text_data=json.dumps({"type": "ping", "ref": "fuzz-end"}))
    while (await communicator.receive_json_from(timeout=5)).get("ref") != "fuzz-end":
        pass
    sent = 0
    for frame in generated_frames(FRAMES_PER_SOCKET):
        check_answers(await exchange(communicator, frame), frame)
        sent += 1
    await communicator.disconnect()
    print(f"\nsocket fuzz {socket}: {sent} generated frames, each answered in the protocol")
    assert sent >= FRAMES_PER_SOCKET * 0.9

    def replays() -> None:
        game = targets["game"]
        notation = list(Move.objects.filter(game=game).order_by("number").values_list("notation", flat=True))
        EngineGame.replay(game.challenge.deal, [parse_move(text) for text in notation])

    await database_sync_to_async(replays)()
