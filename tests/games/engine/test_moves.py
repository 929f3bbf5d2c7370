import pytest

from games.engine.cards import NotationError
from games.engine.moves import (
    DRAW,
    RECYCLE,
    RETURN_THREE,
    STOCK,
    WASTE,
    format_moves,
    parse_move,
    parse_moves,
    put_back,
    pyramid_ref,
    remove,
    waste_ref,
)


@pytest.mark.parametrize(
    "text", ["D", "R", "T", "B3", "7.1", "7.1+7.4", "6.2+S", "5.5+W", "S+W", "W+W3", "W2+W4", "S", "W"]
)
def test_notation_round_trips(text: str) -> None:
    assert str(parse_move(text)) == text


def test_pair_order_is_canonical_pyramid_first() -> None:
    assert parse_move("S+7.1") == parse_move("7.1+S") == remove(pyramid_ref(7, 1), STOCK)
    assert str(parse_move("w+s")) == "S+W"
    assert str(parse_move("7.4+7.1")) == "7.1+7.4"


def test_the_same_removal_is_one_shared_move_whatever_the_order_it_was_written_in() -> None:
    # moves are immutable: a server's remembered positions share them instead of holding their own
    assert parse_move("7.4+7.1") is parse_move("7.1+7.4") is remove(pyramid_ref(7, 4), pyramid_ref(7, 1))
    assert parse_move("7.1") is parse_move(" 7.1 ")


def test_simple_moves_parse_to_their_kinds() -> None:
    assert parse_moves("d r t b2 W3+w") == [DRAW, RECYCLE, RETURN_THREE, put_back(2), remove(WASTE, waste_ref(3))]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("7.1+7.2+7.3", "names 3 cards"),
        ("7.8", "row n has cards 1 to n"),
        ("0.1", "row n has cards 1 to n"),
        ("X", "not a card place"),
        ("7.1+7.1", "same card twice"),
        ("B0", "not a put-back"),
        ("Bx", "not a put-back"),
        ("W0", "not a card place"),
    ],
)
def test_malformed_moves_are_refused_with_the_reason(text: str, says: str) -> None:
    with pytest.raises(NotationError, match=says):
        parse_move(text)


def test_a_bad_move_in_a_list_is_named_by_its_number() -> None:
    with pytest.raises(NotationError, match="move 3:"):
        parse_moves("D D 9..1 D")


def test_moves_format_with_spaces() -> None:
    assert format_moves(parse_moves("D, 7.1+S,R")) == "D 7.1+S R"
