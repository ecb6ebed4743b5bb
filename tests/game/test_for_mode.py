"""for_mode: a table keyed by mode classes answers for a mode as a method would, its own
class's entry first, else the nearest base class's."""

import pytest

from tdbg.game.modes import (
    DMP,
    CubefulMoney,
    CubelessMoney,
    GameMode,
    MatchPlay,
    for_mode,
    game_mode,
)

TABLE = {GameMode: "base", CubefulMoney: "cubeful", MatchPlay: "match"}


@pytest.mark.parametrize(
    "mode, entry",
    [
        (DMP(), "base"),
        (CubelessMoney(), "base"),
        (CubefulMoney(), "cubeful"),
        (MatchPlay(length=5), "match"),
    ],
)
def test_own_entry_else_the_nearest_base_class(mode, entry):
    assert for_mode(TABLE, mode) == entry
    assert for_mode(TABLE, type(mode)) == entry  # a class answers as its instances do


def test_match_play_inherits_cubeful_money_where_it_has_no_entry():
    # MatchPlay derives from CubefulMoney, which derives from CubelessMoney
    assert for_mode({GameMode: 0, CubefulMoney: 1}, game_mode("match", match_length=3)) == 1
    assert for_mode({GameMode: 0, CubelessMoney: 1}, MatchPlay) == 1


def test_a_table_without_an_entry_for_the_mode_is_an_error():
    with pytest.raises(KeyError, match="DMP"):
        for_mode({CubefulMoney: 1}, DMP())
