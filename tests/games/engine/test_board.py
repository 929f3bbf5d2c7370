from games.engine.board import render

from .builders import game_with
from .test_game import FORTY_STUCK


def test_board_shows_free_cards_face_down_backs_and_the_waste() -> None:
    game = game_with("forty", FORTY_STUCK, "Qd 3d", "D D 6.2+S")
    text = render(game.visible())
    lines = text.splitlines()
    assert lines[0].startswith("forty · 3 moves · score 20")
    assert lines[1].strip() == "##"
    assert lines[6].split() == ["7c*", "..", "7h*", "Qc*", "2c*", "5c*"]
    assert "drawn" not in lines[7] and "waste 1: Qd" in lines[7]
