"""gnubg_eval.py's settings and report (tdbg/app/eval_settings.py, tdbg/app/eval_report.py)
on analysed games written by hand: the rates and their intervals worked out by hand, gnubg's
rating of the rates (a stand-in binary's verdict, the ends of its interval swapped), the
luck-adjusted result, and the checks of saved .mat files made before gnubg runs."""

import functools
import json

import pytest

from tdbg.app import cli, eval_report
from tdbg.app.eval_report import Analysed
from tdbg.app.eval_settings import EvalSettings
from tdbg.gnubg.gnubg_analysis import GnubgAnalysis, error_rates
from tdbg.gnubg.gnubg_binary import GnubgError
from tdbg.infra.errors import InputError

INFO = {"binary": "/opt/gnubg", "version": "1.08.003"}


def side(chequer, unforced, cube, close, total, **more) -> dict:
    return {
        "chequer": chequer,
        "unforced": unforced,
        "cube": cube,
        "close_cube": close,
        "total": total,
        **more,
    }


# Two money games, X rated.  Alone, game 1's rates are 1000 x 0.1 / 10 = 10 (chequer),
# 1000 x 0.14 / 12 = 11.67 (overall), 1000 x 0.14 / 28 = 5 (Snowie); game 2's are 15, 15, 7.5.
# Together: 1000 x 0.4 / 30 = 13.33, 1000 x 0.44 / 32 = 13.75, 1000 x 0.44 / 68 = 6.47.
# A bootstrap over the two games draws each one alone a quarter of the time: far above 2.5%,
# so the 95% interval's ends are the two games' own rates.
GAMES = [
    {
        "file": "a.mat",
        "game": 0,
        "stats": {
            "X": side(0.1, 10, 0.04, 2, 14, cube_kinds={"wrong-take": (1, 0.04)}),
            "O": side(0.0, 9, 0.0, 0, 14),
        },
    },
    {
        "file": "a.mat",
        "game": 1,
        "stats": {"X": side(0.3, 20, 0.0, 0, 20), "O": side(0.0, 15, 0.0, 0, 20)},
    },
]
LUCK = [
    {"actual": 1.0, "luck_adjusted": 0.4},  # X lucky by 0.6
    {"actual": -2.0, "luck_adjusted": -0.6},  # X unlucky by 1.4
]


def rated_by_letters(monkeypatch):
    """gnubg's verdict on each rate replaced by 'R' and the rate: which rate each rating is of.
    (The bootstrap draws 200 resamples, not 2,000: still far more than the ends above need.)"""
    asked = []
    monkeypatch.setattr(eval_report, "error_rates", functools.partial(error_rates, n_boot=200))

    def ratings(rates, binary, timeout=None):
        asked.append(list(rates))
        return [f"R{v:.2f}" for v in rates]

    monkeypatch.setattr(eval_report, "gnubg_ratings", ratings)
    return asked


def test_the_analysis_is_the_one_the_flags_ask_for():
    s = EvalSettings(ply=2, jacoby=False, luck=True, workers=3, chunk_size=5, gnubg_timeout=9.0)
    assert s.analysis("/opt/gnubg", ["set cube use off"]) == GnubgAnalysis(
        "/opt/gnubg",
        ply=2,
        jacoby=False,
        luck=True,
        rules=("set cube use off",),
        workers=3,  # --gnubg-workers unset: as many as --workers
        chunk_size=5,
        timeout=9.0,
    )
    assert EvalSettings(workers=3, gnubg_workers=1).analysis("g").workers == 1


def test_the_rating_of_a_higher_rate_is_the_lower_end(monkeypatch):
    asked = rated_by_letters(monkeypatch)
    r = eval_report.rate(EvalSettings(), INFO, Analysed(GAMES, ("X",), "EMG", [0, 1]))
    overall = r["overall_memg_per_decision"]
    assert (overall["mean"], overall["ci_low"], overall["ci_high"]) == (
        pytest.approx(13.75),
        pytest.approx(140 / 12),
        pytest.approx(15.0),
    )
    assert r["gnubg_rating"] == {"mean": "R13.75", "ci_low": "R15.00", "ci_high": "R11.67"}
    assert r["gnubg_chequer_rating"] == {"mean": "R13.33", "ci_low": "R15.00", "ci_high": "R10.00"}
    assert len(asked) == 1 and len(asked[0]) == 6  # one call of the binary for all six


def test_one_unit_has_no_interval_and_no_rating_of_its_ends(monkeypatch):
    """Both games in one unit (one duplicate pair): the rates have no CI, and the binary is
    asked about the two means alone."""
    asked = rated_by_letters(monkeypatch)
    r = eval_report.rate(EvalSettings(), INFO, Analysed(GAMES, ("X",), "EMG", [0, 0]))
    assert r["gnubg_rating"] == {"mean": "R13.75", "ci_low": None, "ci_high": None}
    assert asked == [[pytest.approx(13.75), pytest.approx(40 / 3)]]


def test_a_binary_that_fails_to_rate_leaves_the_rates_and_warns(monkeypatch, capsys):
    def fails(rates, binary, timeout=None):
        raise GnubgError("gnubg stopped")

    rated_by_letters(monkeypatch)
    monkeypatch.setattr(eval_report, "gnubg_ratings", fails)
    r = eval_report.rate(EvalSettings(), INFO, Analysed(GAMES, ("X",), "EMG", [0, 1]))
    assert r["gnubg_rating"] == {"mean": "n/a", "ci_low": "n/a", "ci_high": "n/a"}
    assert r["chequer_memg_per_move"]["mean"] == pytest.approx(40 / 3)
    assert "warning: gnubg stopped; the rates are reported without gnubg's rating" in (
        capsys.readouterr().err
    )


def test_the_report_prints_the_rates_worked_out_by_hand(monkeypatch, capsys, tmp_path):
    rated_by_letters(monkeypatch)
    out = tmp_path / "r.json"
    s = EvalSettings(model="m.pt", opponent="gnubg-nn", json=str(out))
    about = {
        "model": "m.pt",
        "opponent": "gnubg-nn",
        "records_played": 4,
        "records": "games",
        "resample_unit": "duplicate pairs",
    }
    eval_report.report(s, INFO, Analysed(GAMES, ("X",), "EMG", [0, 1]), None, about)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(
        "m.pt (vs gnubg-nn), 4 games played, 2 games analysed by gnubg 1.08.003 at 0-ply"
    )
    assert lines[1:] == [
        "  CIs resample 2 duplicate pairs",
        f"  {'chequer error rate (m per unforced move)':42s}    13.33  95% CI [10.00, 15.00]",
        f"  {'overall error rate (m per decision)':42s}    13.75  95% CI [11.67, 15.00]",
        f"  {'Snowie error rate':42s}     6.47  95% CI [5.00, 7.50]",
        "  cube errors (count, total m): wrong-take 1 (40)",
        f"  {'gnubg rating (of the overall rate)':42s} R13.75  (95% CI: R15.00 to R11.67)",
        f"  {'gnubg chequerplay rating':42s} R13.33  (95% CI: R15.00 to R10.00)",
    ]
    written = json.loads(out.read_text())
    assert written["snowie_error_rate"]["mean"] == pytest.approx(440 / 68)
    assert (written["model"], written["units"], written["ply"]) == ("m.pt", "EMG", 0)


def test_the_luck_adjusted_result_by_hand(monkeypatch, capsys):
    """Points per game: actual (1 - 2) / 2 = -0.5, adjusted (0.4 - 0.6) / 2 = -0.1, net luck
    (0.6 - 1.4) / 2 = -0.4; each interval's ends are the two games' own values."""
    rated_by_letters(monkeypatch)
    games = [
        {**g, "stats": {**g["stats"], "X": {**g["stats"]["X"], **luck}}}
        for g, luck in zip(GAMES, LUCK, strict=True)
    ]
    s = EvalSettings(model="m.pt", opponent="pubeval", luck=True)
    about = {"model": "m.pt", "opponent": "pubeval", "resample_unit": "games"}
    eval_report.report(s, INFO, Analysed(games, ("X",), "EMG", [0, 1]), None, about)
    lines = capsys.readouterr().out.splitlines()
    assert [ln for ln in lines if "per game" in ln or "luck" in ln] == [
        f"  {'actual points per game':42s}  -0.5000  95% CI [-2.0000, 1.0000]  (2 games)",
        f"  {'luck-adjusted points per game':42s}  -0.1000  95% CI [-0.6000, 0.4000]  (2 games)",
        f"  {'net luck':42s}  -0.4000  95% CI [-1.4000, 0.6000]  (2 games)",
    ]


def test_no_games_analysed_is_one_usage_error():
    with pytest.raises(cli.UsageError, match="gnubg analysed no games in out: nothing to rate"):
        eval_report.report(EvalSettings(), INFO, Analysed([], ("X",), "EMG", []), "out", {})


def test_saved_games_are_analysed_with_the_cube_of_the_mode_named():
    """A cubeless mode's games are analysed with the cube off; without --game-mode, as they are."""
    assert eval_report.saved_games_rules(EvalSettings()) == []
    assert eval_report.saved_games_rules(EvalSettings(game_mode="dmp")) == [
        "set cube use off",
        "set analysis cube off",
    ]
    assert eval_report.saved_games_rules(EvalSettings(game_mode="cubeful-money")) == []


@pytest.mark.parametrize(
    "content, words",
    [
        (b" 7 point match\n\n Game 1\n", None),
        (b"1 point match\r\n", None),
        (b"a text file, but no match in it\n", "is not a .mat match (no 'N point match' line)"),
        (
            b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(64),
            "is a PNG image, not a .mat match (text)",
        ),
        (b" 1 point match\n\n Game 1\n a : 0    b : 0\n  1) 64: 24/18 24/20\n", None),
        # moves gnubg cannot read: it imports the file anyway ("This file contains garbage!" on
        # its terminal, which the analysis does not read), and the game was rated over no moves
        (
            b" 1 point match\n\n Game 1\n a : 0    b : 0\n  1) 64: 24-18 24-20\n",
            "cannot read move '24-18' in '64: 24-18 24-20'",
        ),
        (
            b" 1 point match\n\n Game 1\n a : 0    b : 0\n  1) 64: 24/18 24/21\n",
            "illegal move '64: 24/18 24/21' in position 4HPwATDgc/ABMA",
        ),
    ],
)
def test_a_saved_file_must_look_like_a_match(tmp_path, content, words):
    path = tmp_path / "m.mat"
    path.write_bytes(content)
    if words is None:
        eval_report.check_mat_file(str(path))
        return
    with pytest.raises(InputError) as info:
        eval_report.check_mat_file(str(path))
    assert str(info.value).startswith(f"--from-mat: {path} ") and str(info.value).endswith(words)


@pytest.mark.parametrize(
    "flags, words",
    [
        ({"model": "m.pt"}, "it takes no --model"),
        ({"opponent": "pubeval"}, "it takes no --model, --opponent"),
        ({"cubeful": True}, "the files say how they were played"),
    ],
)
def test_from_mat_takes_no_flag_of_a_played_run(tmp_path, flags, words):
    with pytest.raises(cli.UsageError, match=words):
        eval_report.analyse_folder(EvalSettings(from_mat=str(tmp_path), **flags))


def test_from_mat_needs_a_folder_of_mat_files(tmp_path):
    with pytest.raises(cli.UsageError, match="no such folder"):
        eval_report.analyse_folder(EvalSettings(from_mat=str(tmp_path / "none")))
    (tmp_path / "notes.txt").write_text("7 point match\n")
    with pytest.raises(cli.UsageError, match="no .mat files there"):
        eval_report.analyse_folder(EvalSettings(from_mat=str(tmp_path)))
