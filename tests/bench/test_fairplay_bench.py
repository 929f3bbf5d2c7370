"""bench/fairplay.py: it runs and prints every kind, and its honest players read only what a player sees."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from bench import fairplay as bench
from games.engine import Game, deal_from_seed, get_rules, parse_move


def test_a_tiny_simulation_prints_a_row_for_every_kind_and_both_targets(capsys):
    bench.main(["--honest", "12", "--cheaters", "4", "--days", "1", "--seed", "3"])
    out = capsys.readouterr().out
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.strip()}
    for kind in (bench.HONEST, *bench.CHEATER_KINDS):
        assert kind in rows, out
        assert int(rows[kind][1]) > 0, out
    assert "target every cheater kind" in out
    assert "target honest players" in out


def test_the_honest_player_is_handed_exactly_the_player_s_view():
    start = Game.from_seed("classic", 11)
    views = []

    def chooser(view, temper, rng):
        views.append(view)
        return bench.choose_move(view, temper, rng)

    moves = bench.play_honest(start, bench.Temper.draw(random.Random(1)), random.Random(2), chooser)
    game = start
    for view, move in zip(views, moves):
        assert view == game.visible()
        game = game.apply(parse_move(move))


def _hidden_cards_changed(preset: str, seed: int) -> tuple[Game, Game]:
    """Two games whose first view is the same and whose hidden cards differ."""
    deal = deal_from_seed(get_rules(preset), seed)
    if deal.rules.face_down:
        first = Game.start(deal)
        hidden = [i for i in range(len(deal.pyramid)) if not first.is_face_up(i)]
        pyramid = list(deal.pyramid)
        pyramid[hidden[0]], pyramid[hidden[-1]] = pyramid[hidden[-1]], pyramid[hidden[0]]
        other = replace(deal, pyramid=tuple(pyramid), stock=deal.stock[::-1])
    else:
        # classic shows the stock's top card only
        other = replace(deal, stock=deal.stock[:1] + deal.stock[:0:-1])
    return Game.start(deal), Game.start(other)


@pytest.mark.parametrize("preset", ["classic", "forty"])
def test_honest_players_choose_the_same_moves_while_what_they_see_is_the_same(preset):
    compared = 0
    for seed in range(6):
        left, right = _hidden_cards_changed(preset, seed)
        assert left.visible() == right.visible()
        assert left.deal != right.deal
        temper = bench.Temper.draw(random.Random(seed))
        left_rng, right_rng = random.Random(seed), random.Random(seed)
        while left.visible() == right.visible() and left.legal_moves():
            move = bench.choose_move(left.visible(), temper, left_rng)
            assert bench.choose_move(right.visible(), temper, right_rng) == move
            if move is None:
                break
            left, right = left.apply(parse_move(move)), right.apply(parse_move(move))
            compared += 1
    assert compared > 6


def test_regulars_come_back_with_the_same_temper_and_copiers_copy_the_day_s_top_line():
    world = bench.World(random.Random(4))
    regulars, copiers = bench.regulars_draw(world, 60, 3)
    assert len(regulars) == round(60 / bench.PLAY_CHANCE_MEAN) and len(copiers) == 3
    assert {r.group for r in regulars} == {"office", "household", "single"}
    deal = bench.DayDeal(bench.winnable_deals("forty", 1, random.Random(5))[0].seed, (), ())
    days = [
        bench.simulate_regular_day(
            world,
            "forty",
            deal,
            bench.EPOCH + bench.dt.timedelta(days=n),
            regulars,
            copiers,
            {kind: 0 for kind in bench.CHEATER_KINDS},
        )
        for n in range(2)
    ]
    players = [{r.player_id for r in day.records if day.kinds[r.game_id] == bench.HONEST} for day in days]
    assert players[0] & players[1], "the same accounts play on both days"
    assert all(p in {r.player_id for r in regulars} for p in players[0] | players[1])
    for day in days:
        copies = [r for r in day.records if day.kinds[r.game_id] == "copy-line"]
        assert {c.player_id for c in copies} <= {c.player_id for c in copiers}
        assert len({c.moves for c in copies}) <= 1, "every copier copies the one line"


def test_a_tiny_run_of_regulars_prints_the_copies_flagged_when_they_finished(capsys):
    bench.main(["--honest", "12", "--cheaters", "4", "--days", "2", "--seed", "3", "--preset", "forty", "--regulars"])
    out = capsys.readouterr().out
    assert "flagged at their finish" in out and "line_habit above 0 on honest games" in out
    assert "(copies: all)" in out
