"""tdbg.app.play_plan and tdbg.app.play_report: play_models.py's flags and players made into the
series to play (play_command.planned_series: each misuse one UsageError before any game), and
the summary it prints and keeps."""

import json
from dataclasses import fields

import pytest

from tdbg.app import cli
from tdbg.app.play_command import planned_series, player_search
from tdbg.app.play_plan import gnubg_csv_path, gnubg_matches
from tdbg.app.play_report import errors_text, game_fields, report
from tdbg.app.play_settings import PlaySettings
from tdbg.infra.errors import InputError
from tdbg.play.series import ModeSpec, play_series


def test_named_players_make_a_series_in_duplicate_pairs_on_our_dice():
    s = PlaySettings(
        model1="random", model2="pubeval", games=6, seed=11, game_mode="cubeless-money", quiet=True
    )
    series, p = planned_series(s)
    assert [pl.name for pl in series.players] == ["random", "pubeval"]
    assert series.mode_spec == ModeSpec("cubeless-money", True)
    assert (series.count, series.seed, p.model2, p.gnubg) == (6, 11, "pubeval", None)
    assert (p.md5["model1_md5"], p.md5["model2_md5"]) == (None, None)  # named opponents: no file
    assert p.mode.name == "cubeless-money"


def test_gnubg_nn_is_the_shortcut_for_model2_and_the_default_mode_is_dmp():
    series, p = planned_series(PlaySettings(model1="random", gnubg_nn=True, games=2))
    assert p.model2 == "gnubg-nn" and series.mode_spec.mode == "dmp"


@pytest.mark.parametrize(
    "flags, words",
    [
        ({"model2": "pubeval", "gnubg_nn": True}, "different opponents"),
        ({}, "name the opponent"),
        ({"model2": "pubeval", "oneply1": True, "twoply1": True}, "not both"),
        ({"model2": "pubeval", "oneply_k": 4}, "--oneply-k"),
        ({"model2": "pubeval", "oneply_filter": 4}, "--oneply-filter"),
        ({"model2": "pubeval", "extreme_threshold": 2.0}, "go together"),
        ({"model2": "pubeval", "plies": 1}, "neither player is gnubg-nn"),
        ({"model2": "pubeval", "gnubg": "/usr/games/gnubg"}, "not the gnubg binary"),
        ({"model2": "no_such_file.pt"}, "no_such_file.pt"),
    ],
)
def test_each_misuse_is_one_usage_error(flags, words):
    # a UsageError or an InputError: cli.run_main writes either as one error line, exit 2
    with pytest.raises(InputError, match=words):
        planned_series(PlaySettings(model1="random", **flags))


def test_search_flags_go_to_the_players_whose_depth_they_filter():
    s = PlaySettings(model1="random", oneply_k=5, oneply_filter=3, twoply_k1=4, twoply_k2=2)
    one = player_search(s, oneply=True, twoply=False)
    two = player_search(s, oneply=False, twoply=True)
    zero = player_search(s, oneply=False, twoply=False)
    assert (one.oneply, one.twoply, one.oneply_k, one.oneply_filter) == (True, None, 5, 3)
    assert (two.oneply, two.twoply, two.oneply_k, two.oneply_filter) == (False, (4, 2), None, 3)
    assert (zero.oneply, zero.twoply, zero.oneply_k, zero.oneply_filter) == (
        False,
        None,
        None,
        None,
    )


def test_the_gnubg_side_is_the_play_settings_of_the_same_names(tmp_path):
    """Each field of the gnubg opponent but its level (the --model2 named) is the play setting
    of that name as given: nothing renamed between the flags and the gnubg workers."""
    s = PlaySettings(
        model1="random",
        model2="gnubg-ext",
        gnubg="/opt/gnubg",
        gnubg_timeout=7.0,
        games=2,
        games_csv=str(tmp_path / "games.csv"),
        save_games=str(tmp_path / "mats"),
        game_mode="match",
        match_length=3,
    )
    side = planned_series(s)[1].gnubg
    assert side is not None and side.level == "gnubg-ext"
    names = [f.name for f in fields(side) if f.name != "level"]
    assert names == ["gnubg", "gnubg_timeout", "games_csv", "save_games"]
    assert [getattr(side, n) for n in names] == [getattr(s, n) for n in names]


def test_gnubg_outputs_named_and_checked():
    assert gnubg_csv_path(PlaySettings(model1="random", games_csv="x.csv"), "match7_") == "x.csv"
    default = gnubg_csv_path(PlaySettings(model1="random", seed=4), "match7_")
    assert default.startswith("runs/gnubg_match7_") and default.endswith("_seed4.csv")
    assert gnubg_matches(PlaySettings(model1="random"), 7) == "match7_"
    with pytest.raises(cli.UsageError, match="without blanks"):
        gnubg_matches(PlaySettings(model1="random", save_games="/tmp/a folder"), 7)


def test_errors_text_gives_the_first_error_and_how_many_more():
    assert errors_text([]) == "unknown error"
    assert errors_text(["worker 1: gnubg died"]) == "worker 1: gnubg died"
    assert errors_text(["a", "b", "c"]) == "a; 2 more worker(s) failed too"


def test_the_report_keeps_what_the_games_gave(tmp_path, capsys):
    out = tmp_path / "summary.json"
    s = PlaySettings(
        model1="random",
        model2="pubeval",
        games=4,
        seed=2,
        game_mode="cubeless-money",
        oneply_k=None,
        json=str(out),
        quiet=True,
    )
    series, p = planned_series(s)
    played = play_series(series, progress=False)
    report(s, p, played)
    summary = json.loads(out.read_text())
    # the settings a games summary records, after its numbers
    fields = game_fields(s, p, played)
    assert {k: summary[k] for k in fields} == fields
    assert (
        fields["model1"] == "random" and fields["model2"] == "pubeval" and fields["jacoby"] is True
    )
    # the headline number is the mean of the games' points, in mEq (x 1000)
    points = [r.points for r in played.records]
    assert len(points) == 4
    assert summary["meq_per_game"]["mean"] == pytest.approx(1000 * sum(points) / 4)
    assert "random" in capsys.readouterr().out
