"""Rule scenarios, preset by preset, on deals laid out by hand."""

import pytest

from games.engine.game import Game, IllegalMoveError, Outcome
from games.engine.moves import DRAW, RECYCLE, Kind, parse_move, parse_moves
from games.engine.rules import FULL_RANKS, Rules, StockModel
from games.engine.scoring import count_moves

from .builders import deal_with, game_with

CLASSIC_PYRAMID = "2c 2d 2h 2s 3c 3d 3h 3s 4c 4d 4h 4s 5d 5h 5s 6c 6d 6h 7c 7d 7s Kc 8c 5c Qc Ac 9d Td"
CLASSIC_STOCK = "Jc 9s Kh Ts Qs As"
FORTY_PYRAMID = "Ac Ad Ah As 2d 2h 2s 4c 4d 4h 4s 6c 6d 6h 6s 7c 7d 7h Kc 2c 3c"
#: The same with a base row (7 7 7 Q 2 5) that holds no king and no pair: forty may draw at once.
FORTY_STUCK = FORTY_PYRAMID.replace("Kc 2c 3c", "Qc 2c 5c")

#: A three-card pyramid (a king on top of a queen and a king) for whole games in a few moves.
MINI = Rules("mini", FULL_RANKS, 1, 2, 13, 3, StockModel.STOCK_TOP_AND_WASTE, stock_waste_pairs=True)


def moves_of(game: Game) -> set[str]:
    return {str(move) for move in game.legal_moves()}


def refused(game: Game, move: str, says: str) -> None:
    with pytest.raises(IllegalMoveError, match=says):
        game.apply(parse_move(move))


# --------------------------------------------------------------------- the pyramid


def test_base_row_pairs_and_kings_are_playable_at_the_start() -> None:
    game = game_with("classic", CLASSIC_PYRAMID, CLASSIC_STOCK)
    assert {"7.1", "7.2+7.3", "7.4+7.5", "D"} <= moves_of(game)
    assert "7.6+7.7" not in moves_of(game)


def test_a_covered_card_is_refused_with_the_number_of_cards_on_it() -> None:
    game = game_with("classic", CLASSIC_PYRAMID, CLASSIC_STOCK)
    refused(game, "6.1", "6♣ is covered by 2 cards")
    refused(game.apply(parse_move("7.1")), "6.1", "6♣ is covered by 1 card")


def test_a_pair_that_misses_the_sum_says_what_it_makes() -> None:
    game = game_with("classic", CLASSIC_PYRAMID, CLASSIC_STOCK)
    refused(game, "7.6+7.7", r"9♦ \+ 10♦ is 19, not 13")
    refused(game, "7.2", "8♣ counts 8: only a king leaves alone")


def test_a_card_freed_by_both_neighbours_becomes_playable() -> None:
    game = game_with("classic", CLASSIC_PYRAMID, CLASSIC_STOCK, "7.1 7.2+7.3")
    assert game.is_free(game.geometry.index(5, 0))
    refused(game, "6.3", "6♥ is covered by 1 card")


def test_a_removed_card_and_a_missing_row_are_refused() -> None:
    game = game_with("classic", CLASSIC_PYRAMID, CLASSIC_STOCK, "7.1")
    refused(game, "7.1", "already gone")
    refused(game, "8.1", "the pyramid has 7 rows")


def test_illegal_move_leaves_the_game_as_it_was() -> None:
    game = game_with("classic", CLASSIC_PYRAMID, CLASSIC_STOCK, "7.1")
    before = (game.removed, game.stock, game.waste, game.counters, game.moves)
    refused(game, "7.6+7.7", "not 13")
    assert (game.removed, game.stock, game.waste, game.counters, game.moves) == before


# --------------------------------------------------------------------- stock and waste, classic


def test_classic_stock_top_is_face_up_and_plays_with_the_pyramid() -> None:
    game = game_with("classic", CLASSIC_PYRAMID, "Qs " + CLASSIC_STOCK.replace("Qs ", ""))
    assert game.visible()["stock"]["top"] == "Qs"
    assert "7.5+S" in moves_of(game)


def test_classic_stock_top_and_waste_top_pair_with_each_other() -> None:
    game = game_with("classic", CLASSIC_PYRAMID, CLASSIC_STOCK, "D D S D D")
    assert (str(game.waste[-1]), str(game.stock[0])) == ("Qs", "As")
    after = game.apply(parse_move("S+W"))
    assert after.counters.pairs == 1 and after.score == 20 + 10


def test_recycle_turns_the_waste_over_in_the_same_order() -> None:
    game = Game.start(deal_with(MINI, "Kd 5c 5d"))
    for _ in range(len(game.stock)):
        game = game.apply(DRAW)
    refused(game, "D", "turn the waste over with R")
    recycled = game.apply(RECYCLE)
    assert recycled.stock == game.waste and recycled.waste == ()
    assert recycled.score == game.score - 10 and recycled.recycles_left == 1


def test_recycles_stop_after_the_last_pass() -> None:
    rules = Rules("mini-one-pass", FULL_RANKS, 1, 2, 13, 1, StockModel.STOCK_TOP_AND_WASTE, stock_waste_pairs=True)
    game = Game.start(deal_with(rules, "Kd 5c 5d"))
    refused(game, "R", "the stock still has 49 cards")
    for _ in range(len(game.stock)):
        game = game.apply(DRAW)
    assert "R" not in moves_of(game)


def test_the_game_is_won_the_moment_the_pyramid_is_empty_with_row_points() -> None:
    game = game_with(MINI, "Kd Qc Kc", "Ah", "2.2 2.1+S")
    assert game.outcome is Outcome.IN_PROGRESS
    won = game.apply(parse_move("1.1"))
    assert won.outcome is Outcome.WON and won.legal_moves() == []
    assert won.counters == count_moves(won.moves)
    assert won.score == 10 + 20 + 10 + 10 + 10
    refused(won, "D", "the game is over: the pyramid is cleared")


def test_a_pyramid_that_can_never_change_loses_at_once_where_the_rules_end_so() -> None:
    rules = Rules(
        "mini-fives",
        (5, 6, 7, 13),
        1,
        2,
        13,
        3,
        StockModel.STOCK_TOP_AND_WASTE,
        stock_waste_pairs=True,
        ends_when_frozen=True,
    )
    game = Game.start(deal_with(rules, "5c 5d 5h"))
    assert game.outcome is Outcome.LOST
    assert "can ever be removed" in game.outcome_reason
    assert game.legal_moves() == []


def test_a_pyramid_that_can_never_change_leaves_the_stock_to_play_elsewhere() -> None:
    rules = Rules("mini-fives", (5, 6, 7, 13), 1, 2, 13, 3, StockModel.STOCK_TOP_AND_WASTE, stock_waste_pairs=True)
    game = Game.start(deal_with(rules, "5c 5d 5h"))
    assert game.outcome is Outcome.IN_PROGRESS and not game.pyramid_clearable
    assert "D" in moves_of(game)


def test_a_game_with_a_partner_still_to_come_goes_on() -> None:
    rules = Rules("mini-sixes", (5, 6, 7, 13), 1, 2, 13, 1, StockModel.STOCK_TOP_AND_WASTE, stock_waste_pairs=True)
    game = Game.start(deal_with(rules, "5c 6d 6h"))
    assert game.outcome is Outcome.IN_PROGRESS
    assert "2.1+S" not in moves_of(game)


# --------------------------------------------------------------------- waste-only presets


@pytest.mark.parametrize("preset", ["egyptian", "double"])
def test_waste_only_presets_play_the_drawn_card_from_the_waste(preset: str) -> None:
    rows = 7 if preset == "egyptian" else 9
    from games.engine.deal import deal_from_seed
    from games.engine.rules import get_rules

    game = Game.start(deal_from_seed(get_rules(preset), 3))
    assert rows == game.rules.rows
    refused(game, "S", f"in {preset} a drawn card goes to the waste: play it as W")
    assert game.visible()["stock"]["top"] is None
    drawn = game.apply(DRAW)
    assert drawn.waste == game.stock[:1]
    if preset == "double":
        refused(drawn, "W2+W", "only the top card of the waste")
    else:
        # egyptian from rules version 3: W2 is in play, to pair with W (tests/games/engine/test_neighbours.py)
        refused(drawn, "W2+W", "the waste holds only 1 card")
        refused(drawn.apply(DRAW).apply(DRAW), "W3+W", r"only the top 2 cards of the waste \(W to W2\)")


# --------------------------------------------------------------------- forty: face down, drawn card


def test_forty_deals_every_row_but_the_base_face_down() -> None:
    game = Game.start(deal_with("forty", FORTY_PYRAMID, "Jc"))
    view = game.visible()
    assert view["face_down"] == 15
    assert all(cell == {"face_down": True, "free": False} for row in view["rows"][:5] for cell in row)
    refused(game, "5.1", "the face-down card at 5.1 is covered by 2 cards")


def test_forty_card_turns_face_up_when_freed() -> None:
    game = game_with("forty", FORTY_PYRAMID.replace("7c 7d", "7c 3d").replace("2d", "7d"), "", "6.1+6.2")
    assert game.visible()["rows"][4][0] == {"card": "4s", "free": True}
    assert game.visible()["face_down"] == 14


def test_forty_drawn_card_plays_then_goes_to_the_waste_on_the_next_draw() -> None:
    game = Game.start(deal_with("forty", FORTY_STUCK, "Qd 3d Jd"))
    refused(game, "S", r"draw a card first \(D\)")
    first = game.apply(DRAW)
    assert first.visible()["drawn"] == "Qd" and first.waste == ()
    assert moves_of(first) == {"D"}  # Q counts 9 and no free ace: nothing pairs
    second = first.apply(DRAW)
    assert second.visible()["drawn"] == "3d" and [str(c) for c in second.waste] == ["Qd"]
    assert {"6.1+S", "6.2+S", "6.3+S"} == moves_of(second)
    third = second.apply(parse_move("6.2+S")).apply(DRAW)
    assert third.visible()["drawn"] == "Jd" and [str(c) for c in third.waste] == ["Qd"]
    assert "6.5+S" in moves_of(third)  # J counts 8: 8 + 2 = 10


# --------------------------------------------------------------------- forty: draw only when stuck


def test_forty_draws_only_when_nothing_can_be_removed() -> None:
    """*Quando non so può più levare nulla ... allora si può prendere una carta dal tallone.*"""
    game = Game.start(deal_with("forty", FORTY_PYRAMID, "Qd"))
    assert "D" not in moves_of(game) and "6.1+6.6" in moves_of(game)
    refused(game, "D", r"you may draw only when nothing can be removed: 7♣ \+ 3♣ \(6\.1\+6\.6\) make 10")
    stuck = Game.start(deal_with("forty", FORTY_STUCK, "Jd Qd"))
    assert moves_of(stuck) == {"D"}
    # the drawn card pairs with the 2 at 6.5: it must go (or another removal be made) before the next draw
    drawn = stuck.apply(DRAW)
    assert moves_of(drawn) == {"6.5+S"}
    refused(drawn, "D", r"nothing can be removed: 2♣ \+ J♦ \(6\.5\+S\) make 10")
    assert "D" in moves_of(drawn.apply(parse_move("6.5+S")))


def test_forty_a_king_in_play_must_go_before_the_next_draw() -> None:
    game = Game.start(deal_with("forty", FORTY_STUCK, "Kd Qd")).apply(DRAW)
    assert moves_of(game) == {"S"}
    refused(game, "D", r"nothing can be removed: K♦ \(S\) counts 10 and leaves alone")


def test_forty_open_and_forty_house_draw_whenever_the_stock_has_cards() -> None:
    for preset in ("forty-open", "forty-house"):
        game = Game.start(deal_with(preset, FORTY_PYRAMID, "Qd"))
        assert {"D", "6.1+6.6", "6.4"} <= moves_of(game), preset


# --------------------------------------------------------------------- forty-house: the three house rules


def test_house_put_back_of_the_last_seven_while_three_lie_free() -> None:
    game = game_with("forty-house", FORTY_PYRAMID, "7s Jc Jd", "D")
    assert {f"B{n}" for n in range(1, 19)} <= moves_of(game)
    back = game.apply(parse_move("B2"))
    assert [str(c) for c in back.stock[:3]] == ["Jc", "Jd", "7s"] and back.waste == ()
    refused(back, "B1", "only the card just drawn")


def test_house_put_back_needs_the_other_three_free() -> None:
    game = game_with("forty-house", FORTY_PYRAMID.replace("7h", "5d"), "7s", "D")
    refused(game, "B1", "7♠ may go back only while the other three of its rank lie free")


def test_house_return_of_the_first_three_cards_when_no_pair_was_made() -> None:
    game = game_with("forty-house", FORTY_PYRAMID, "Jc Jd Jh", "D D D")
    assert "T" in moves_of(game)
    back = game.apply(parse_move("T"))
    assert [str(c) for c in back.stock[-3:]] == ["Jc", "Jd", "Jh"] and back.waste == ()
    assert "T" not in moves_of(back.apply(DRAW).apply(DRAW).apply(DRAW))
    paired = game_with("forty-house", FORTY_PYRAMID, "Jc Jd Jh", "D 6.5+W D D D")
    refused(paired, "T", "before any pair is made")


def test_house_pairs_two_waste_cards_with_at_most_two_between() -> None:
    game = game_with("forty-house", FORTY_PYRAMID, "3d Qd 5d 7s", "D D D D")
    assert "W+W4" in moves_of(game)
    after = game.apply(parse_move("W+W4"))
    assert [str(c) for c in after.waste] == ["Qd", "5d"] and after.score == 20
    refused(game, "W3+6.5", "W3 pairs only with another waste card")
    refused(game, "W2+W3", r"5♦ \+ Q♦ is 14, not 10")


def test_house_waste_beyond_its_window_is_refused_naming_the_window() -> None:
    game = game_with("forty-house", FORTY_PYRAMID, "3d Qd 5d 7s Jc", "D D D D D")
    refused(game, "W+W5", r"only the top 4 cards of the waste \(W to W4\) are in play")


def test_house_rules_are_refused_in_other_presets() -> None:
    game = game_with("forty-open", FORTY_PYRAMID, "7s", "D")
    refused(game, "B1", "forty-open has no put-back rule")
    refused(game, "T", "no rule for returning")
    refused(game, "W+W3", r"only the top 2 cards of the waste \(W to W2\)")


# --------------------------------------------------------------------- what the player sees


def test_visible_shows_stock_and_face_down_cards_only_as_counts() -> None:
    game = game_with("forty", FORTY_STUCK, "Qd 3d", "D")
    view = game.visible()
    assert view["stock"] == {"count": 18, "top": None}
    text = repr(view)
    hidden = set(FORTY_PYRAMID.split()[:15]) | {str(card) for card in game.stock}
    assert not any(f"'{card}'" in text for card in hidden)


def test_replay_rebuilds_the_same_game_and_names_the_first_bad_move() -> None:
    game = game_with("classic", CLASSIC_PYRAMID, CLASSIC_STOCK, "7.1 D D S 7.2+7.3")
    assert Game.replay(game.deal, game.moves) == game
    with pytest.raises(IllegalMoveError, match=r"move 2 \(7.6\+7.7\)"):
        Game.replay(game.deal, parse_moves("7.1 7.6+7.7"))


def _tracked_reach(root: object) -> dict[int, object]:
    """The objects Python's collector tracks that ``root`` reaches (classes, modules and functions left out)."""
    import gc
    import types

    seen: dict[int, object] = {}
    stack = [root]
    while stack:
        obj = stack.pop()
        if id(obj) in seen or not gc.is_tracked(obj) or isinstance(obj, (type, types.ModuleType, types.FunctionType)):
            continue
        seen[id(obj)] = obj
        stack.extend(gc.get_referents(obj))
    return seen


def test_two_games_of_one_deal_played_alike_hold_only_a_few_objects_of_their_own() -> None:
    # A server remembers one position per game (games/positions.py), and Python's collector walks
    # every object they hold on each full pass: games of the day's deal share its cards and their moves.
    import gc

    first, second = Game.from_seed("classic", 12), Game.from_seed("classic", 12)
    for _ in range(20):  # removals where there are some, else draws: both games alike, each move read from its notation
        text = min((str(move) for move in first.legal_moves()), key=lambda text: (text == "D", text))
        first, second = first.apply(parse_move(text)), second.apply(parse_move(text))
    assert sum(move.kind is Kind.REMOVE for move in second.moves) >= 3
    gc.collect()  # tuples of untracked objects stop being tracked at a collection
    own = set(_tracked_reach(second)) - set(_tracked_reach(first))
    assert len(own) <= 6, f"{len(own)} objects of its own"
