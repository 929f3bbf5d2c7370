"""A day of play to scan: today's challenges with games in every state, tomorrow's, yesterday's, races.

- ``alice`` is mid-game in both of today's challenges and plays in a running race;
- ``bob`` has not started anything today (he joined the running race);
- ``carol`` won today's classic (a practice game of it is refused until the day is over), and
  practises yesterday's;
- ``dave`` resigned today's classic after two moves (the throwaway of a second account);
- yesterday's challenge is over (its seed and deal are public), tomorrow's is scheduled only.
"""

from __future__ import annotations

import datetime as dt
import secrets
from dataclasses import dataclass, field
from typing import Any

from games.engine import Game as EngineGame
from games.engine import parse_move
from games.engine.solver import solve
from games.models import DailyChallenge, Game
from games.services import game_move_make, game_practice_start, game_ranked_start, game_resign
from races.models import Race, RaceEntry
from races.services import race_create, race_join, race_move_make, race_start
from tests.factories import BIG_WINNABLE, make_challenge, make_player

from . import leaks


def big_seed() -> int:
    """A seed long enough that finding it in a response cannot be chance."""
    return 2**62 + secrets.randbelow(2**62)


def play_some(game: Game, player: Any, count: int) -> None:
    """``count`` legal moves, preferring ones that reveal cards (draws come last but still come)."""
    state = EngineGame.start(game.challenge.deal)
    for seen in range(count):
        moves = [str(move) for move in state.legal_moves()]
        move = next((m for m in moves if m != "D"), moves[0]) if seen % 2 else ("D" if "D" in moves else moves[0])
        game_move_make(game_id=game.pk, player=player, move=move, seen=seen)
        state = state.apply(parse_move(move))


@dataclass
class World:
    yesterday: DailyChallenge
    classic: DailyChallenge
    forty: DailyChallenge
    tomorrow: DailyChallenge
    players: dict[str, Any]
    games: dict[str, Game]
    lobby: Race
    race: Race
    secret_seeds: list[int] = field(default_factory=list)

    def refresh(self) -> None:
        for game in self.games.values():
            game.refresh_from_db()

    # ----------------------------------------------------------------- what each viewer may see

    def hidden_in_challenge(self, viewer: Any, challenge: DailyChallenge) -> set[str]:
        from games.selectors import challenge_is_over

        if challenge_is_over(challenge):
            return set()
        if viewer is None:
            return leaks.hidden_at_start(challenge.deal)
        mine = Game.objects.filter(challenge=challenge, player=viewer, ranked=True).first()
        if mine is None:
            return leaks.hidden_at_start(challenge.deal)
        # finished or not, only what the viewer's own ranked game showed (the knowledge rule)
        notation = mine.moves.order_by("number").values_list("notation", flat=True)
        return leaks.hidden_after(challenge.deal, [parse_move(text) for text in notation])

    def hidden_in_race(self, viewer: Any, race: Race) -> set[str]:
        race.refresh_from_db()
        if race.status == Race.Status.FINISHED:
            return set()
        entry = RaceEntry.objects.filter(race=race, player=viewer).first() if viewer is not None else None
        if entry is None or race.status == Race.Status.LOBBY:
            return leaks.hidden_at_start(race.deal)
        notation = entry.moves.order_by("number").values_list("notation", flat=True)
        return leaks.hidden_after(race.deal, [parse_move(text) for text in notation])

    def hidden_everywhere(self, viewer: Any) -> set[str]:
        """For pages about no one deal: nothing hidden in any open deal may show."""
        hidden: set[str] = set()
        for challenge in (self.classic, self.forty, self.tomorrow):
            hidden |= self.hidden_in_challenge(viewer, challenge)
        for race in (self.lobby, self.race):
            hidden |= self.hidden_in_race(viewer, race)
        return hidden

    def secrets(self) -> set[str]:
        found: set[str] = set()
        for seed in self.secret_seeds:
            found |= leaks.seed_forms(seed)
        for challenge in (self.classic, self.forty, self.tomorrow):
            found.add(str(challenge.deal))
            found |= {challenge.salt, challenge.salt.upper()}
        for race in (self.lobby, self.race):
            found.add(str(race.deal))
        return found


def build_world(today: dt.date) -> World:
    players = {name: make_player(name, display_name=name.title()) for name in ("alice", "bob", "carol", "dave", "erin")}
    seeds = [big_seed() for _ in range(5)]
    yesterday = make_challenge(date=today - dt.timedelta(days=1), preset="classic", seed=big_seed())
    classic = make_challenge(date=today, preset="classic", seed=BIG_WINNABLE)
    forty = make_challenge(date=today, preset="forty", seed=seeds[0])
    tomorrow = make_challenge(date=today + dt.timedelta(days=1), preset="classic", seed=seeds[1])
    alice, bob, carol, dave = (players[name] for name in ("alice", "bob", "carol", "dave"))

    games: dict[str, Game] = {}
    games["alice_classic"] = game_ranked_start(challenge_id=classic.pk, player=alice)[0].game
    play_some(games["alice_classic"], alice, 6)
    games["alice_forty"] = game_ranked_start(challenge_id=forty.pk, player=alice)[0].game
    play_some(games["alice_forty"], alice, 4)

    games["carol_won"] = game_ranked_start(challenge_id=classic.pk, player=carol)[0].game
    line = solve(EngineGame.start(classic.deal), time_limit=10).line
    for seen, move in enumerate(line):
        game_move_make(game_id=games["carol_won"].pk, player=carol, move=str(move), seen=seen)
    games["carol_practice"] = game_practice_start(challenge_id=yesterday.pk, player=carol).game
    play_some(games["carol_practice"], carol, 3)

    games["dave_resigned"] = game_ranked_start(challenge_id=classic.pk, player=dave)[0].game
    play_some(games["dave_resigned"], dave, 2)
    game_resign(game_id=games["dave_resigned"].pk, player=dave)

    lobby = race_create(host=players["erin"], preset="classic", seed=seeds[2])
    race = race_create(host=alice, preset="classic", seed=seeds[3])
    race_join(code=race.code, player=bob)
    race_start(code=race.code, player=alice, countdown=0)
    state = EngineGame.start(race.deal)
    for seen in range(3):
        move = str(state.legal_moves()[0])
        race_move_make(code=race.code, player=alice, move=move, seen=seen)
        state = state.apply(parse_move(move))

    world = World(yesterday, classic, forty, tomorrow, players, games, lobby, race)
    world.secret_seeds = [classic.seed, forty.seed, tomorrow.seed, lobby.seed, race.seed]
    world.refresh()
    return world
