import pytest

from games.engine.cards import NotationError
from games.engine.deal import deal_from_seed
from games.engine.game import Game
from games.engine.moves import parse_moves
from games.engine.record import GameRecord, parse_record
from games.engine.rules import get_rules


def test_record_text_round_trips_and_replays() -> None:
    deal = deal_from_seed(get_rules("classic"), 1)
    game = Game.replay(deal, parse_moves("7.3+7.4 D D"))
    text = str(GameRecord.of(game))
    assert text.splitlines()[0] == "preset: classic"
    assert text.splitlines()[2] == "moves: 7.3+7.4 D D"
    assert parse_record(text).replay() == game


def test_record_allows_comments_blank_lines_and_no_moves() -> None:
    deal = deal_from_seed(get_rules("forty"), 9)
    record = parse_record(f"# a fresh game\n\npreset: forty\ndeal: {deal}\n")
    assert record.moves == () and record.deal == deal


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("deal: Ah", "no 'preset:' line"),
        ("preset: classic", "no 'deal:' line"),
        ("preset: nope\ndeal: Ah", "unknown preset 'nope'"),
        ("preset: classic\npreset: classic", "appears twice"),
        ("players: 2", "expected 'preset:'"),
    ],
)
def test_bad_records_are_refused_with_the_line(text: str, says: str) -> None:
    with pytest.raises(NotationError, match=says):
        parse_record(text)


def test_the_record_example_in_the_formats_doc_replays() -> None:
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[3] / "docs" / "formats.md").read_text()
    block = doc.split("## Game records", 1)[1].split("```", 2)[1]
    game = parse_record(block).replay()
    assert len(game.moves) == 3 and game.score == 40
