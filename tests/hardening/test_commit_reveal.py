"""Commit–reveal: the commitment is public from scheduling; the seed, salt and deal once the day is over.

A challenge is scheduled with a secret seed and salt; its commitment is read from the API while
both are still hidden (days before, and during the day); then the clock passes midnight in the
service's zone and the seed, salt and deal appear.  The revealed seed and salt must hash to the
commitment published before (checked by the engine's verify-commitment, as anyone would), the
revealed deal must be the one that seed deals, and every ranked score of the day must equal the
replay of its move log (read by anyone, over the watch socket) on that deal.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from typing import Any

import pytest
from channels.testing import WebsocketCommunicator
from django.utils import timezone
from rest_framework.test import APIClient

from games.engine import Game as EngineGame
from games.engine import deal_from_seed, get_rules, parse_move
from games.engine.cli import main as engine_main
from games.engine.solver import solve
from games.models import Game
from games.selectors import challenge_day_end
from games.services import challenge_schedule, game_move_make, game_ranked_start, game_resign
from leaderboard.models import Score
from tests.factories import make_challenge, make_player

pytestmark = pytest.mark.django_db(transaction=True)


def at(monkeypatch: Any, moment: dt.datetime) -> None:
    monkeypatch.setattr(timezone, "now", lambda: moment)


def public(challenge_id: int) -> dict[str, Any]:
    return APIClient().get(f"/api/challenges/{challenge_id}/").json()


def verify_commitment(capsys: Any, *args: str) -> tuple[int, dict[str, str]]:
    """``python -m games.engine verify-commitment ARGS``: its exit status and its ``key: value`` lines."""
    capsys.readouterr()
    status = engine_main(["verify-commitment", *args])
    printed = capsys.readouterr().out
    return status, dict(line.split(": ", 1) for line in printed.splitlines() if ": " in line)


async def watch_replay(game_id: int) -> list[str]:
    from piramide_site.asgi import application

    socket = WebsocketCommunicator(application, f"/ws/games/{game_id}/", headers=[(b"origin", b"http://127.0.0.1")])
    assert (await socket.connect(timeout=5))[0]
    hello = await socket.receive_json_from(timeout=5)
    assert hello["view"] == "full", "after the day anyone sees the whole game"
    await socket.send_json_to({"type": "replay", "ref": "r"})
    while (message := await socket.receive_json_from(timeout=5))["type"] != "replay":
        pass
    await socket.disconnect()
    return [step["move"] for step in message["steps"]]


@pytest.mark.parametrize("preset", ["classic", "forty"])
def test_the_revealed_seed_matches_the_commitment_published_before(preset, monkeypatch, settings, capsys):
    from games.selectors import local_today

    day = local_today() + dt.timedelta(days=2)
    challenge = challenge_schedule(date=day, preset=preset)  # the seed is drawn here, in secret
    # (after the commit the solver replaced the drawn deal with one it proved winnable, if it had to)
    challenge.refresh_from_db()

    # Scheduled, two days ahead: the commitment and its scheme are public, the seed and salt are not.
    before = public(challenge.pk)
    assert len(before["seed_commitment"]) == 64 and before["commitment_scheme"] == "piramide-seed-v2"
    assert before["seed"] is None and before["salt"] is None and before["deal"] is None
    assert str(challenge.seed) not in json.dumps(before) and challenge.salt not in json.dumps(before)

    # During the day: players play; the commitment has not changed and the seed is still hidden.
    noon = challenge_day_end(challenge) - dt.timedelta(hours=12)
    at(monkeypatch, noon)
    during = public(challenge.pk)
    assert during["seed_commitment"] == before["seed_commitment"] and not during["is_over"]
    assert during["seed"] is None and during["salt"] is None
    assert str(challenge.seed) not in json.dumps(during) and challenge.salt not in json.dumps(during)
    winner, quitter = make_player("winner"), make_player("quitter")
    won = game_ranked_start(challenge_id=challenge.pk, player=winner)[0].game
    line = solve(EngineGame.start(challenge.deal), time_limit=10).line
    if line:
        for seen, move in enumerate(line):
            game_move_make(game_id=won.pk, player=winner, move=str(move), seen=seen)
    else:
        game_resign(game_id=won.pk, player=winner)
    lost = game_ranked_start(challenge_id=challenge.pk, player=quitter)[0].game
    first = str(EngineGame.start(challenge.deal).legal_moves()[0])  # forty may not draw while a pair is free
    game_move_make(game_id=lost.pk, player=quitter, move=first, seen=0)
    game_resign(game_id=lost.pk, player=quitter)

    # The last second of the day in the service's zone: still hidden.
    at(monkeypatch, challenge_day_end(challenge) - dt.timedelta(seconds=1))
    last = public(challenge.pk)
    assert not last["is_over"] and last["seed"] is None and last["salt"] is None

    # A second after the day's end in the service's zone: the seed, the salt and the deal are public.
    at(monkeypatch, challenge_day_end(challenge) + dt.timedelta(seconds=1))
    after = public(challenge.pk)
    assert after["is_over"] and after["seed"] is not None and after["salt"] is not None
    seed, salt = int(after["seed"]), after["salt"]
    preimage = f"piramide-seed-v2:{preset}:{seed}:{salt}"
    assert hashlib.sha256(preimage.encode("ascii")).hexdigest() == before["seed_commitment"]
    status, printed = verify_commitment(
        capsys, "--preset", preset, "--seed", after["seed"], "--salt", salt, before["seed_commitment"]
    )
    assert status == 0 and printed["preimage"] == preimage and printed["deal"] == after["deal"]
    revealed = deal_from_seed(get_rules(preset), seed)
    assert after["deal"] == str(revealed)

    # Anyone can now replay every ranked score of the day on the revealed deal.
    from asgiref.sync import async_to_sync

    scores = Score.objects.filter(challenge=challenge)
    assert scores.count() == 2
    for score in scores:
        notation = async_to_sync(watch_replay)(score.game_id)
        assert notation == list(
            Game.objects.get(pk=score.game_id).moves.order_by("number").values_list("notation", flat=True)
        )
        replayed = EngineGame.replay(revealed, [parse_move(text) for text in notation])
        assert replayed.score == score.points


def test_a_v1_challenge_keeps_its_commitment_and_still_verifies_once_over(monkeypatch, capsys):
    """The challenges published before the salt: their commitment is the v1 hash, and stays checkable."""
    from games.selectors import local_today

    challenge = make_challenge(
        date=local_today() + dt.timedelta(days=1), seed=4611686018427400261, commitment_version=1
    )
    at(monkeypatch, challenge_day_end(challenge) - dt.timedelta(seconds=1))
    during = public(challenge.pk)
    assert during["commitment_scheme"] == "piramide-seed-v1" and during["seed"] is None and during["salt"] is None
    at(monkeypatch, challenge_day_end(challenge) + dt.timedelta(seconds=1))
    after = public(challenge.pk)
    assert after["seed"] == "4611686018427400261" and after["salt"] is None
    assert after["seed_commitment"] == during["seed_commitment"]
    status, printed = verify_commitment(
        capsys, "--preset", "classic", "--seed", after["seed"], after["seed_commitment"]
    )
    assert status == 0 and printed["scheme"] == "piramide-seed-v1" and printed["deal"] == after["deal"]


@pytest.mark.parametrize("tamper", ["seed", "salt"])
def test_a_tampered_seed_or_salt_does_not_verify(tamper, monkeypatch, capsys):
    from games.selectors import local_today

    challenge = make_challenge(date=local_today() - dt.timedelta(days=1))
    after = public(challenge.pk)
    seed, salt = int(after["seed"]), after["salt"]
    if tamper == "seed":
        seed += 1
    else:
        salt = format(int(salt, 16) ^ 1, "032x")
    status, printed = verify_commitment(
        capsys, "--preset", "classic", "--seed", str(seed), "--salt", salt, after["seed_commitment"]
    )
    assert status == 1 and printed["match"].startswith("NO")
