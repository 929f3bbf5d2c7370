from games.engine.moves import parse_moves
from games.engine.scoring import Counters, count_moves, score_moves


def test_score_is_twenty_a_pair_ten_a_king_minus_ten_a_recycle() -> None:
    assert Counters(pairs=3, kings=2, recycles=1).score == 60 + 20 - 10


def test_counters_read_from_the_move_list_alone() -> None:
    moves = parse_moves("7.1+7.2 7.3 D R 7.4+S 7.5+7.6 7.7+W")
    assert count_moves(moves) == Counters(pairs=4, kings=1, recycles=1, rows=1)
    assert score_moves(moves) == 80 + 10 - 10 + 10


def test_a_cleared_pyramid_of_seven_rows_earns_seventy_for_rows() -> None:
    places = [f"{row}.{col}" for row in range(7, 0, -1) for col in range(1, row + 1)]
    assert count_moves(parse_moves(" ".join(places))).rows == 7
