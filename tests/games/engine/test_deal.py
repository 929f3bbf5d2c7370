import hashlib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engine.cards import NotationError
from games.engine.deal import deal_from_seed, parse_deal
from games.engine.rules import PRESETS, get_rules

VECTORS = [
    line.split("\t")
    for line in (Path(__file__).parent / "deal_vectors.tsv").read_text().splitlines()
    if line and not line.startswith("#")
]


@pytest.mark.parametrize(("preset", "seed", "deal"), VECTORS, ids=[f"{p}-{s}" for p, s, _ in VECTORS])
def test_seeded_deals_never_change(preset: str, seed: str, deal: str) -> None:
    assert str(deal_from_seed(get_rules(preset), int(seed))) == deal


def test_every_preset_has_at_least_ten_pinned_deals() -> None:
    for preset in PRESETS:
        assert sum(1 for p, _, _ in VECTORS if p == preset) >= 10


def _documented_shuffle(preset: str, seed: int, deck: list[str]) -> list[str]:
    """The shuffle exactly as docs/formats.md describes it, written independently of the engine."""
    words: list[int] = []
    counter = 0

    def word() -> int:
        nonlocal counter
        if not words:
            digest = hashlib.sha256(
                b"piramide-shuffle-v1\x00"
                + preset.encode()
                + b"\x00"
                + seed.to_bytes(8, "big")
                + counter.to_bytes(8, "big")
            ).digest()
            words.extend(int.from_bytes(digest[k : k + 8], "big") for k in (24, 16, 8, 0))
            counter += 1
        return words.pop()

    cards = list(deck)
    for i in range(len(cards) - 1, 0, -1):
        bound = i + 1
        limit = 2**64 - 2**64 % bound
        while (x := word()) >= limit:
            pass
        j = x % bound
        cards[i], cards[j] = cards[j], cards[i]
    return cards


@pytest.mark.parametrize("preset", list(PRESETS))
def test_shuffle_is_the_documented_fisher_yates(preset: str) -> None:
    rules = get_rules(preset)
    ranks = "A23456789TJQK" if len(rules.ranks) == 13 else "A234567JQK"
    deck = [rank + suit for _ in range(rules.decks) for suit in "cdhs" for rank in ranks]
    for seed in (0, 99, 2**64 - 1):
        assert str(deal_from_seed(rules, seed)).split() == _documented_shuffle(preset, seed, deck)


@given(st.sampled_from(list(PRESETS)), st.integers(min_value=0, max_value=2**64 - 1))
def test_a_seeded_deal_is_a_full_deck_that_reads_back(preset: str, seed: int) -> None:
    rules = get_rules(preset)
    deal = deal_from_seed(rules, seed)
    assert len(deal.pyramid) == rules.pyramid_size and len(deal.stock) == rules.stock_size
    assert parse_deal(rules, str(deal)) == deal
    assert parse_deal(rules, str(deal).lower()) == deal


def test_a_seed_gives_one_shared_deal_per_preset() -> None:
    # deals are immutable: every game of a day's challenge shares one deal and its cards
    assert deal_from_seed(get_rules("classic"), 7) is deal_from_seed(get_rules("classic"), 7)
    assert deal_from_seed(get_rules("one-pass"), 7) is not deal_from_seed(get_rules("classic"), 7)


def test_presets_sharing_a_seed_deal_independently() -> None:
    assert str(deal_from_seed(get_rules("classic"), 5)) != str(deal_from_seed(get_rules("one-pass"), 5))


@pytest.mark.parametrize("seed", [-1, 2**64])
def test_seeds_outside_64_bits_are_refused(seed: int) -> None:
    with pytest.raises(ValueError, match="a seed is a whole number"):
        deal_from_seed(get_rules("classic"), seed)


def _classic_line() -> str:
    return str(deal_from_seed(get_rules("classic"), 1))


@pytest.mark.parametrize(
    ("preset", "text", "says"),
    [
        (
            "classic",
            " ".join(_classic_line().split()[:-1]),
            "has 52 cards .28 in the pyramid, 24 in the stock., not 51",
        ),
        (
            "classic",
            " ".join(_classic_line().split()[:-1] + ["Ah"]),
            "appears 2 times: a classic deck holds each card once",
        ),
        ("classic", _classic_line().replace("9h", "Xh", 1), "unknown rank"),
        ("forty", " ".join(str(deal_from_seed(get_rules("forty"), 1)).split()[:-1] + ["8s"]), "not in the forty deck"),
    ],
)
def test_bad_deal_text_is_refused_with_the_reason(preset: str, text: str, says: str) -> None:
    with pytest.raises(NotationError, match=says):
        parse_deal(get_rules(preset), text)


def test_double_deck_holds_each_card_twice_not_three_times() -> None:
    rules = get_rules("double")
    cards = str(deal_from_seed(rules, 1)).split()
    assert parse_deal(rules, " ".join(cards)).pyramid
    victim = next(i for i, card in enumerate(cards) if card != cards[0])
    cards[victim] = cards[0]
    with pytest.raises(NotationError, match="appears 3 times: a double deck holds each card 2 times"):
        parse_deal(rules, " ".join(cards))
