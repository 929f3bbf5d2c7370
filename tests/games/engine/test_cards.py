import pytest

from games.engine.cards import Card, NotationError, full_deck, parse_card


@pytest.mark.parametrize(
    ("text", "card"),
    [("As", Card(1, "s")), ("td", Card(10, "d")), ("TD", Card(10, "d")), ("Kh", Card(13, "h")), ("2C", Card(2, "c"))],
)
def test_cards_parse_in_either_case(text: str, card: Card) -> None:
    assert parse_card(text) == card


def test_card_prints_its_code_and_a_readable_label() -> None:
    assert str(Card(10, "h")) == "Th"
    assert Card(10, "h").label == "10♥"
    assert Card(12, "s").label == "Q♠"


@pytest.mark.parametrize(
    ("text", "says"), [("1s", "unknown rank"), ("Ax", "unknown suit"), ("10s", "not a card"), ("", "not a card")]
)
def test_bad_card_text_names_the_problem(text: str, says: str) -> None:
    with pytest.raises(NotationError, match=says):
        parse_card(text)


def test_full_deck_has_every_card_once_per_copy() -> None:
    deck = full_deck(tuple(range(1, 14)), 2)
    assert len(deck) == 104
    assert len(set(deck)) == 52
