import pytest

from games.engine.rules import PRESETS, UnknownPresetError, get_rules


@pytest.mark.parametrize(
    ("preset", "deck", "pyramid", "stock", "pair_sum", "passes"),
    [
        ("classic", 52, 28, 24, 13, 3),
        ("one-pass", 52, 28, 24, 13, 1),
        ("egyptian", 52, 28, 24, 13, 2),
        ("forty", 40, 21, 19, 10, 1),
        ("forty-open", 40, 21, 19, 10, 2),
        ("forty-house", 40, 21, 19, 10, 1),
        ("double", 104, 45, 59, 13, 3),
        # 004: «Puedes reciclar el mazo de descarte cuando se acabe» names no limit; each recycle needs a
        # removal in the pass before, so a game makes at most 52: 53 passes never bind
        ("unlimited", 52, 28, 24, 13, 53),
    ],
)
def test_presets_have_the_sizes_of_the_rules_table(
    preset: str, deck: int, pyramid: int, stock: int, pair_sum: int, passes: int
) -> None:
    rules = get_rules(preset)
    assert (rules.deck_size, rules.pyramid_size, rules.stock_size) == (deck, pyramid, stock)
    assert (rules.pair_sum, rules.passes) == (pair_sum, passes)


def test_forty_card_deck_counts_jack_queen_king_as_eight_nine_ten() -> None:
    rules = get_rules("forty")
    assert [rules.value(rank) for rank in rules.ranks] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]


def test_every_preset_is_listed() -> None:
    assert list(PRESETS) == [
        "classic",
        "one-pass",
        "egyptian",
        "forty",
        "forty-open",
        "forty-house",
        "double",
        "unlimited",
    ]


def test_unknown_preset_lists_the_known_ones() -> None:
    with pytest.raises(UnknownPresetError, match="choose one of classic"):
        get_rules("pyramid")
