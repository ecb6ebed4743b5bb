"""Typed moves against the move generator's own list: every legal play's printed text reads
back to that play, in many positions and rolls; the reference engine's own notation
(backgammon_engine.format_move, another writer) reads to the same plays; the usual forms a
player types; and illegal or unreadable text refused with a reason."""

import numpy as np
import pytest

from helpers import board
from tdbg.app.terminal_moves import hit_points, legal_plays, parse_play, play_leading_to
from tdbg.game import backgammon_engine as be
from tdbg.game.dice import ALL_ROLLS


def random_positions(n: int, seed: int) -> list:
    """Positions (row 1 on roll) from games of uniformly random legal plays: openings,
    contact, hits, the bar, bear-offs."""
    rng = np.random.default_rng(seed)
    out, b = [], be.initial_board()
    while len(out) < n:
        d1, d2 = (int(x) for x in rng.integers(1, 7, 2))
        moves = be.legal_moves(b, d1, d2)
        after = moves[int(rng.integers(len(moves)))][1]
        if be.game_result(after):
            b = be.initial_board()
            continue
        b = be.swap(after)
        out.append(b)
    return out


def test_every_printed_play_reads_back_to_itself():
    """The oracle: for every roll of 150 positions, each legal play of the engine's list, its
    text read back gives exactly that play; and the engine's list is the reference engine's."""
    checked = 0
    for b in random_positions(150, seed=7):
        for d1, d2 in ALL_ROLLS[::2].tolist():  # 11 of the 21 rolls each, doubles among them
            plays = legal_plays(b, (d1, d2))
            reference = {be.position_id(after) for _, after in be.legal_moves(b, d1, d2)}
            assert {be.position_id(p.after) for p in plays} == reference
            if not plays[0].steps:
                continue
            for p in plays:
                back = parse_play(p.text, b, (d1, d2), plays)
                assert np.array_equal(back.after, p.after), (
                    be.position_id(b),
                    d1,
                    d2,
                    p.text,
                    back.text,
                )
                checked += 1
    assert checked > 10_000


def test_the_reference_engines_notation_reads_to_the_same_play():
    """be.format_move writes steps one by one (``24/18 18/13``, every hit starred): another
    writer, whose text must read to the play it was written from."""
    for b in random_positions(60, seed=11):
        for d1, d2 in ALL_ROLLS[1::3].tolist():
            plays = legal_plays(b, (d1, d2))
            for move, after in be.legal_moves(b, d1, d2):
                if move:
                    assert np.array_equal(
                        parse_play(be.format_move(b, move), b, (d1, d2), plays).after, after
                    )


def test_the_usual_forms_in_the_opening():
    b = be.initial_board()
    groups = [
        ((3, 1), ["8/5 6/5", "6/5 8/5", "8/5, 6/5"]),
        ((6, 5), ["24/13", "24/18 18/13", "24/18/13"]),
        ((6, 6), ["24/18(2) 13/7(2)", "13/7(2) 24/18 24/18"]),
        ((5, 5), ["13/3(2)", "13/8/3 13/8/3", "13/8(2) 8/3(2)"]),
        ((6, 4), ["24/14", "24/18/14", "24/20 20/14"]),
    ]
    for dice, texts in groups:
        plays = legal_plays(b, dice)
        results = {be.position_id(parse_play(t, b, dice, plays).after) for t in texts}
        assert len(results) == 1, (dice, texts)
    # by hand: 13/3(2) takes two checkers from the 13 point to the 3 point
    after = parse_play("13/3(2)", b, (5, 5), legal_plays(b, (5, 5))).after
    assert after[1][12] == 3 and after[1][2] == 2


def test_bar_off_and_hits_with_the_star_optional():
    # mover: one on the bar, 3 on 6; opponent: a blot on our 22 point (their 3) and on our 4 (their 21)
    b = board({25: 1, 6: 3, 1: 11}, {3: 1, 21: 1, 1: 13})
    plays = legal_plays(b, (3, 2))
    for text in ("bar/22*/20", "bar/22/20", "bar/22* 22/20"):
        assert hit_points(b, parse_play(text, b, (3, 2), plays).after) == {22}
    # the same checkers moved without the hit: bar/23/20, written bar/20
    assert hit_points(b, parse_play("bar/20", b, (3, 2), plays).after) == frozenset()
    assert hit_points(b, parse_play("bar/22 6/4", b, (3, 2), plays).after) == {22, 4}
    home = board({6: 1, 5: 1}, {1: 15})
    p = parse_play("6/off 5/off", home, (6, 5), legal_plays(home, (6, 5)))
    assert p.after[1].tolist() == [0] * 25  # the last two of its checkers borne off


@pytest.mark.parametrize(
    "text, words",
    [
        ("6/off", "not a legal play of 3-1"),  # not all home
        ("24/18", "not a legal play of 3-1"),  # six pips with a 3-1
        ("8/5", "not a legal play of 3-1"),  # a die left unplayed
        ("5/2 4/3", "do not have that many checkers on your 5 point"),
        ("8/11", "moves backwards"),
        ("30/27", "not on the board"),
        ("13-10", "cannot read"),
        ("off/5", "cannot read"),
        ("8/bar", "cannot read"),
    ],
)
def test_illegal_and_unreadable_moves_say_why(text, words):
    b = be.initial_board()
    with pytest.raises(ValueError, match=words):
        parse_play(text, b, (3, 1), legal_plays(b, (3, 1)))


def test_the_play_that_leads_to_a_board():
    b = be.initial_board()
    plays = legal_plays(b, (3, 1))
    target = be.apply_move(b, ((8, 5), (6, 5)))
    assert play_leading_to(plays, target).text == "8/5 6/5"
    with pytest.raises(ValueError):
        play_leading_to(plays, b)


@pytest.mark.parametrize(
    "dice, text, words",
    [
        ((6, 5), "24/20/13", "24/20 is no move of 6-5"),  # was taken as 24/13
        ((6, 5), "24/19/13", "cannot stop on your 19 point"),  # their 6 point: only 24/18/13
        ((4, 4), "24/18/12", "24/18 is no move of 4-4"),
        ((3, 1), "8/6/5 6/5", "8/6 is no move of 3-1"),
    ],
)
def test_a_point_named_on_the_way_must_be_a_stop_of_the_roll(dice, text, words):
    """Only the first and last points of a word decided the play: ``24/20/13`` with 6-5 (a 4 on
    the way) was played as 24/13, and ``24/19/13`` stopped on a point the opponent holds."""
    b = be.initial_board()
    with pytest.raises(ValueError, match=words):
        parse_play(text, b, dice, legal_plays(b, dice))
    assert parse_play("24/18/13", b, (6, 5), legal_plays(b, (6, 5))).text == "24/13"


@pytest.mark.parametrize("text", ["13/7* 13/8", "13/7*/2", "24/18*/13"])
def test_a_star_where_nothing_is_hit_is_refused_with_that_reason(text):
    """``13/7* 13/8`` with 6-5 in the opening (no blot on the 7 point) was refused as "could be
    13/8 13/7; type the one you mean", a choice of one and no reason."""
    b = be.initial_board()
    with pytest.raises(ValueError, match="tdbg has no blot on your (7|18) point to hit"):
        parse_play(text, b, (6, 5), legal_plays(b, (6, 5)))
