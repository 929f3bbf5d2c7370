"""Invariants of random legal play, for every preset (hypothesis stateful testing)."""

import json
from collections import Counter

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from games.engine.cards import Card
from games.engine.deal import deal_from_seed
from games.engine.game import Game, IllegalMoveError, Outcome
from games.engine.moves import (
    DRAW,
    RECYCLE,
    RETURN_THREE,
    STOCK,
    Kind,
    Move,
    Place,
    put_back,
    pyramid_ref,
    remove,
    waste_ref,
)
from games.engine.record import GameRecord, parse_record
from games.engine.rules import PRESETS, StockModel, get_rules
from games.engine.scoring import count_moves, score_moves


def any_move(rules_rows: int) -> st.SearchStrategy[Move]:
    """Moves of every shape, most of them illegal in any given position."""
    ref = st.one_of(
        st.builds(
            lambda r, c: pyramid_ref(r, min(c, r)), st.integers(1, rules_rows + 1), st.integers(1, rules_rows + 1)
        ),
        st.just(STOCK),
        st.builds(waste_ref, st.integers(1, 5)),
    )
    return st.one_of(
        st.just(DRAW),
        st.just(RECYCLE),
        st.just(RETURN_THREE),
        st.builds(put_back, st.integers(1, 60)),
        st.builds(remove, ref),
        st.builds(lambda a, b: remove(a, b), ref, ref).filter(lambda m: len(set(m.refs)) == 2),
    )


class RandomPlay(RuleBasedStateMachine):
    game: Game

    @initialize(preset=st.sampled_from(list(PRESETS)), seed=st.integers(0, 2**64 - 1))
    def deal(self, preset: str, seed: int) -> None:
        self.game = Game.start(deal_from_seed(get_rules(preset), seed))
        self.gone: Counter[Card] = Counter()
        self.seen: Counter[Card] = Counter()
        self._note_seen()

    def _note_seen(self) -> None:
        """Cards the player has been shown so far (a card seen once stays known)."""
        game = self.game
        shown = Counter(game.waste)
        if game.drawn is not None:
            shown[game.drawn] += 1
        if game.rules.stock_model is StockModel.STOCK_TOP_AND_WASTE and game.stock:
            shown[game.stock[0]] += 1
        shown.update(game.deal.pyramid[i] for i in range(game.geometry.size) if game.is_face_up(i))
        self.seen = self.seen | shown

    @precondition(lambda self: self.game.outcome is Outcome.IN_PROGRESS)
    @rule(data=st.data())
    def play_a_legal_move(self, data: st.DataObject) -> None:
        moves = self.game.legal_moves()
        assert moves, "a game in progress always has a move"
        move = data.draw(st.sampled_from(moves))
        if move.kind is Kind.REMOVE:
            self.gone.update(self._card_at(ref) for ref in move.refs)
        self.game = self.game.apply(move)
        self._note_seen()

    def _card_at(self, ref: object) -> Card:
        game = self.game
        assert hasattr(ref, "place")
        if ref.place is Place.PYRAMID:
            return game.deal.pyramid[game.geometry.index(ref.row - 1, ref.col - 1)]
        if ref.place is Place.STOCK:
            card = game.stock_card
            assert card is not None
            return card
        return game.waste[-ref.depth]

    @rule(data=st.data())
    def try_any_move(self, data: st.DataObject) -> None:
        move = data.draw(any_move(self.game.rules.rows))
        before = self.game
        legal = move in before.legal_moves()
        try:
            after = before.apply(move)
        except IllegalMoveError as error:
            assert not legal, f"{move} is listed as legal but refused: {error}"
            assert str(error), "a refusal says why"
        else:
            assert legal, f"{move} was accepted but is not listed as legal"
            assert after.moves[-1] == move
        assert self.game is before and Game.replay(before.deal, before.moves) == before

    @invariant()
    def no_card_is_created_or_lost(self) -> None:
        game = self.game
        in_play = Counter(game.deal.pyramid[i] for i in range(game.geometry.size) if not game.removed >> i & 1)
        in_play.update(game.stock + game.waste)
        if game.drawn is not None:
            in_play[game.drawn] += 1
        assert in_play + self.gone == Counter(game.deal.pyramid + game.deal.stock)
        assert sum(self.gone.values()) == 2 * game.counters.pairs + game.counters.kings

    @invariant()
    def score_equals_the_recount_from_the_move_list(self) -> None:
        assert self.game.counters == count_moves(self.game.moves)
        assert self.game.score == score_moves(self.game.moves, self.game.rules)
        assert self.game.score == count_moves(self.game.moves).points(self.game.rules.row_bonus)

    @invariant()
    def unlimited_recycles_only_after_a_pass_that_removed_a_card(self) -> None:
        """004: «Puedes reciclar el mazo de descarte cuando se acabe»; a pass with no removal would
        deal the same cards again, so no recycle follows one, and recycles never outnumber removals."""
        game = self.game
        if not game.rules.recycle_needs_removal:
            return
        if RECYCLE in game.legal_moves():
            assert game.removed_this_pass and not game.stock
        elif game.outcome is Outcome.IN_PROGRESS and not game.stock and game.waste:
            assert not game.removed_this_pass
        assert game.counters.recycles <= game.counters.pairs + game.counters.kings

    @invariant()
    def visible_never_shows_a_card_the_player_has_not_seen(self) -> None:
        view = json.dumps(self.game.visible())
        shown = Counter(
            card
            for deck_card in set(self.game.deal.pyramid + self.game.deal.stock)
            for card in [deck_card] * view.count(f'"{deck_card}"')
        )
        for card, count in shown.items():
            assert count <= self.seen[card], f"{card} is shown but was never face up"

    @invariant()
    def record_replays_to_the_same_game(self) -> None:
        record = parse_record(str(GameRecord.of(self.game)))
        assert record.replay() == self.game

    @invariant()
    def forty_draws_only_when_nothing_can_be_removed(self) -> None:
        game = self.game
        moves = game.legal_moves()
        removals = [move for move in moves if move.kind is Kind.REMOVE]
        if game.rules.draw_only_when_stuck:
            assert not (DRAW in moves and removals), "seed 002: a draw only when nothing can be removed"
        elif game.stock and game.outcome is Outcome.IN_PROGRESS:
            assert DRAW in moves
        if game.outcome is Outcome.IN_PROGRESS:
            assert moves, "a game in progress always has a move"

    @invariant()
    def double_never_runs_dry_before_the_last_pass(self) -> None:
        game = self.game
        if game.rules.name == "double" and game.outcome is not Outcome.WON:
            assert game.stock or game.waste, "seed 000: stock and waste never both empty while the pyramid stands"


RandomPlay.TestCase.settings = settings(
    max_examples=60, stateful_step_count=120, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
TestRandomPlay = pytest.mark.slow(RandomPlay.TestCase)  # 60 runs of 120 steps: over a minute
