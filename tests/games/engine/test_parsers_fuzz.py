"""Any text thrown at the engine's parsers is either read or refused with NotationError, never a crash."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine.cards import NotationError, parse_card
from games.engine.cli import main
from games.engine.deal import deal_from_seed, parse_deal
from games.engine.moves import format_moves, parse_move, parse_moves
from games.engine.record import parse_record
from games.engine.rules import PRESETS, get_rules

NOTATION = st.text(alphabet="0123456789.+ ,DRTBSWdrtbswAKQJTcdhs\n\t#:-x", max_size=40)
ANY_TEXT = st.one_of(NOTATION, st.text(max_size=60))


@given(ANY_TEXT)
def test_card_text_is_read_or_refused(text: str) -> None:
    try:
        card = parse_card(text)
    except NotationError:
        return
    assert parse_card(str(card)) == card


@given(ANY_TEXT)
def test_move_text_is_read_or_refused_and_reads_back(text: str) -> None:
    try:
        moves = parse_moves(text)
    except NotationError as error:
        assert str(error)
        return
    assert parse_moves(format_moves(moves)) == moves
    for move in moves:
        assert parse_move(str(move)) == move


@given(st.sampled_from(list(PRESETS)), st.integers(0, 2**64 - 1), st.data())
def test_damaged_deal_lines_are_read_or_refused(preset: str, seed: int, data: st.DataObject) -> None:
    rules = get_rules(preset)
    words = str(deal_from_seed(rules, seed)).split()
    damage = data.draw(st.sampled_from(["drop", "duplicate", "swap-in", "garble"]))
    index = data.draw(st.integers(0, len(words) - 1))
    if damage == "drop":
        del words[index]
    elif damage == "duplicate":
        words.append(words[index])
    elif damage == "swap-in":
        words[index] = data.draw(st.sampled_from(["8s", "9d", "Th", "Ks", "Ac"]))
    else:
        words[index] = data.draw(ANY_TEXT).replace(" ", "")
    try:
        deal = parse_deal(rules, " ".join(words))
    except NotationError as error:
        assert str(error)
        return
    assert sorted(map(str, deal.pyramid + deal.stock)) == sorted(words)


@given(ANY_TEXT)
def test_record_text_is_read_or_refused(text: str) -> None:
    try:
        parse_record(text)
    except NotationError:
        pass


@settings(max_examples=60)
@given(
    st.sampled_from(["deal", "play", "random", "solve", "hint", "review", "bogus"]),
    st.sampled_from(list(PRESETS) + ["nope", ""]),
    st.lists(
        st.sampled_from(["--deal", "--moves", "--seed", "1", "-1", "Ah Kd", "7.1+S", "x", "99999999999999999999999"]),
        max_size=4,
    ),
)
def test_command_line_never_crashes(command: str, preset: str, rest: list[str]) -> None:
    args = [command, preset, *rest]
    try:
        status = main(args)
    except SystemExit as stop:  # --help and friends
        status = stop.code if isinstance(stop.code, int) else 0
    assert status in (0, 2)


@pytest.mark.parametrize("text", ["", " ", "\x00", "7.1+" * 1000, "D" * 10000])
def test_pathological_move_text_is_refused_quickly(text: str) -> None:
    with pytest.raises(NotationError):
        parse_move(text)
