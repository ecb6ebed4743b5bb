"""tdbg.play.summary: the one summary of a series as play_models.py prints it, from four
games whose numbers are counted here by hand."""

from tdbg.play.match import GameRecord
from tdbg.play.players import Player
from tdbg.play.series import ModeSpec, Played, Series
from tdbg.play.summary import Summary

# two duplicate pairs from A's side: a gammon won and a single lost (pair 0), two singles won
RECORDS = [
    GameRecord(index=0, first=0, points=2.0, result=2, cube=1, plies=40),
    GameRecord(index=1, first=1, points=-1.0, result=1, cube=1, plies=52),
    GameRecord(index=2, first=0, points=1.0, result=1, cube=1, plies=61),
    GameRecord(index=3, first=1, points=1.0, result=1, cube=1, plies=47),
]


def played(paired=True) -> Played:
    series = Series((Player("a"), Player("b")), ModeSpec("cubeless-money"), 4, seed=7)
    return Played(series, RECORDS, paired)


def test_the_summary_counts_the_games_by_hand():
    summary = played().summary
    assert isinstance(summary, Summary) and summary.unit == "game" and summary.paired
    f = summary.fields
    assert (f["games"], f["game_mode"], f["seed"], f["abandoned"]) == (4, "cubeless-money", 7, 0)
    assert f["win_rate"]["mean"] == 3 / 4
    assert f["points_per_game"]["mean"] == (2 - 1 + 1 + 1) / 4
    assert (f["gammon_rate"], f["backgammon_rate"]) == (1 / 4, 0.0)


def test_the_printed_summary_reads_the_hand_counts():
    lines = played().summary.text("a", "b").splitlines()
    assert lines[0] == "a  vs  b"
    assert lines[1] == "mode cubeless-money, 4 games in duplicate pairs, seed 7"
    # pair means 0.5 and 1.0: a resample of the two pairs has a mean of 0.5, 0.75 or 1.0,
    # the ends each a quarter of the time, so the 95% interval runs from one end to the other
    assert lines[2].startswith("  win rate (a): 75.00%  95% CI [50.00%, 100.00%]")
    assert lines[3] == "  mEq/game (a): +750.0  95% CI [+500.0, +1000.0]"
    assert lines[4] == "  gammons / backgammons: 25.00% / 0.00% of games"
    assert len(lines) == 5


def test_unpaired_games_say_whose_dice_and_resample_each_game():
    summary = played(paired=False).summary
    assert not summary.paired
    assert summary.fields["resample_unit"] == "single games (each game rolls its own dice)"
    assert summary.text("a", "b").splitlines()[1] == (
        "mode cubeless-money, 4 games (gnubg's dice), seed 7"
    )


def test_no_finished_game_is_no_summary():
    assert Played(played().series, []).summary is None
