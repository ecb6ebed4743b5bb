"""tdbg.app.result_figures: figures read from result files, checked against their rows and
written as the tables print them; every expected value worked out by hand."""

import json
import os

import numpy as np
import pytest

from tdbg.app import result_figures as rf
from tdbg.play.results_file import Results

# four games: +1, -1, +2 (a gammon), -3 (a backgammon): 2 wins of 4, points -1 / 4 = -0.25
POINTS = [1.0, -1.0, 2.0, -3.0]


def _results(header: dict) -> Results:
    return Results("x.csv", header, np.arange(4), np.array(POINTS))


def test_the_rows_give_the_rate_and_the_equity_by_hand():
    r = _results({})
    assert rf.rows_figure(r, "win_rate") == 0.5
    assert rf.rows_figure(r, "match_win_rate") == 0.5
    assert rf.rows_figure(r, "meq_per_game") == -250.0
    assert rf.rows_figure(r, "capped_meq_per_game") == -250.0  # no game beyond the cap


def test_a_header_figure_within_its_rounding_of_the_rows_is_read():
    r = _results(
        {"win_rate": "0.5 (95% CI 0.1 .. 0.9)", "meq_per_game": "-250.04 (95% CI -900 .. 400)"}
    )
    assert rf.header_figure(r, "x", "win_rate") == (0.5, 0.1, 0.9)
    assert rf.header_figure(r, "x", "meq_per_game") == (-250.04, -900.0, 400.0)


@pytest.mark.parametrize(
    "key, line, words",
    [
        ("win_rate", "0.51 (95% CI 0.1 .. 0.9)", "rows give 0.5"),  # 0.01 from the rows' 0.5
        (
            "meq_per_game",
            "-250.1 (95% CI -900 .. 400)",
            "rows give -250.0",
        ),  # 0.1 mEq: beyond rounding
        ("win_rate", None, "no '# win_rate:' summary line"),
        ("win_rate", "0.5 [0.1, 0.9]", "no '# win_rate:' summary line"),  # not the written form
    ],
)
def test_a_header_figure_the_rows_do_not_give_is_refused(key, line, words):
    r = _results({} if line is None else {key: line})
    with pytest.raises(ValueError, match=words.replace("(", r"\(")):
        rf.header_figure(r, "x", key)


def test_figures_are_written_as_the_tables_print_them():
    assert rf.pct_text((0.477, 0.467998, 0.4858)) == "47.70% [46.80, 48.58]"
    assert rf.meq_text((12.34, -1.0, 25.66)) == "+12.3 mEq/game [-1.0, +25.7]"
    assert rf.count(10000) == "10,000" and rf.count(7) == "7"
    assert rf.workers_text("play_models.py --games 10 --workers 4") == "4 workers"
    assert rf.workers_text("play_models.py --workers 1") == "1 worker"
    assert rf.workers_text("play_models.py --games 10") == "1 worker"  # the default: one
    zero, one = {"meq": 5.04, "ci": [4.55, 5.51]}, {"meq": 3.96}
    assert rf.decision_text(zero, one) == "5.0 [4.5, 5.5]; 4.0"


def test_a_paired_difference_in_points_of_percent_or_in_meq():
    win = {"metric": "win", "difference": 0.0123, "ci_low": -0.001, "ci_high": 0.0256}
    assert rf.paired_text(win) == "+1.23 [-0.10, +2.56]"
    points = {"metric": "points", "difference": -0.0234, "ci_low": -0.05, "ci_high": 0.0031}
    assert rf.paired_text(points) == "-23.4 [-50.0, +3.1]"
    # one duplicate pair allows no bootstrap interval: the cell gives the difference and the reason
    lone = {
        "metric": "win",
        "difference": 0.5,
        "ci_low": None,
        "ci_high": None,
        "ci_reason": "one unit",
    }
    assert rf.paired_text(lone) == "+50.00 (no interval: one unit)"


def _write_csv(path, seed: int, points: list[float], header: dict) -> None:
    lines = [f"# seed: {seed}", "# game_mode: cubeless-money"] + [
        f"# {k}: {v}" for k, v in header.items()
    ]
    lines += ["game,points"] + [f"{i},{p}" for i, p in enumerate(points)]
    path.write_text("\n".join(lines) + "\n")


MATCH_JSON = {"points_per_game": {"mean": -0.25}, "drops_per_match": {"a": 0.5, "b": 0.25}}


def decision_entry(ply: int) -> dict:
    """A line of the decision benchmark's results as all_models.sh writes it (the entries the
    tables read)."""
    return {
        "model": "best_models/m.pt",
        "ply": ply,
        "plays_by": "0-ply",
        "overall": {"meq": 6.0 - ply, "ci": [5.0, 7.0], "best": 0.5, "outside": 0.1},
        "by_class": {k: {"meq": 1.0} for k in ("contact", "crashed", "race")},
    }


@pytest.fixture
def files(tmp_path):
    (tmp_path / "h2h").mkdir()
    (tmp_path / "luck").mkdir()
    _write_csv(
        tmp_path / "h2h" / "a.csv",
        5,
        POINTS,
        {
            "win_rate": "0.5 (95% CI 0.1 .. 0.9)",
            "meq_per_game": "-250 (95% CI -900 .. 400)",
            "capped_meq_per_game": "-250 (95% CI -900 .. 400)",
            "command": "play_models.py --workers 2",
        },
    )
    _write_csv(tmp_path / "h2h" / "other_seed.csv", 6, POINTS, {})
    (tmp_path / "h2h" / "a.json").write_text(json.dumps(MATCH_JSON))
    (tmp_path / "luck" / "l.json").write_text(
        json.dumps({"luck": {"luck_adjusted": {"mean": 0.5123, "ci_low": 0.49, "ci_high": 0.535}}})
    )
    entries = [decision_entry(p) for p in (0, 1)]
    (tmp_path / "dec.jsonl").write_text("".join(json.dumps(e) + "\n" for e in entries))
    (tmp_path / "best_models").mkdir()
    (tmp_path / "best_models" / "m.pt").write_bytes(b"abc")
    return rf.ResultFiles(str(tmp_path), "h2h", "luck", "dec.jsonl")


def test_result_files_answer_from_their_files(files):
    assert files.seed("a") == "5" and files.games("a") == 4
    assert files.pct("a") == "50.00% [10.00, 90.00]"
    assert files.meq("a") == "-250.0 mEq/game [-900.0, +400.0]"
    assert files.capped_equal("a")
    assert files.workers("a") == "2 workers" and files.workers("other_seed") == "1 worker"
    assert files.match_json("a") == MATCH_JSON
    assert files.luck("l") == "51.23% [49.00, 53.50]"
    assert files.decision("m.pt") == "6.0 [5.0, 7.0]; 5.0"
    assert files.md5("m.pt") == "900150983cd24fb0d6963f7d28e17f72"  # RFC 1321's md5 of "abc"
    with pytest.raises(FileNotFoundError, match="No such file"):
        files.md5("gone.pt")
    assert files.results("a") is files.results("a")  # read once


def test_a_paired_difference_needs_the_same_dice(files):
    # the same games on the same seed: each pair's difference is 0
    assert files.paired("a", "a").startswith("+0.0")
    with pytest.raises(ValueError, match="did not play the same dice"):
        files.paired("a", "other_seed")


@pytest.mark.parametrize(
    "kind, edit, words",
    [
        ("match", lambda d: d["drops_per_match"].update(a="0.1"), r"'drops_per_match/a' is '0.1'"),
        ("match", lambda d: d.pop("points_per_game"), r"no 'points_per_game' entry"),
        (
            "luck",
            lambda d: d["luck"]["luck_adjusted"].update(mean="0.48"),
            r"'luck/luck_adjusted/mean'",
        ),
        ("luck", lambda d: d["luck"].update(luck_adjusted=[0.5]), r"not an object"),
        ("decisions", lambda d: d["overall"].update(meq="6.0"), r"'overall/meq' is '6.0'"),
        ("decisions", lambda d: d["overall"].update(ci=[1.0, True]), r"'overall/ci'"),
        ("decisions", lambda d: d.update(ply=True), r"'ply' is True"),
    ],
)
def test_a_result_json_entry_of_another_kind_is_refused_naming_the_file(files, kind, edit, words):
    """A match JSON's, luck JSON's or decision line's value of another kind (text for a number)
    or missing failed in the tables' formatting: "Unknown format code 'f' for object of type
    'str'", "no 'points_per_game' entry", in a line that named no file."""
    root = files.root
    path, name = {
        "match": (f"{root}/h2h/a.json", "a"),
        "luck": (f"{root}/luck/l.json", "l"),
        "decisions": (f"{root}/dec.jsonl", "m.pt"),
    }[kind]
    if kind == "decisions":
        d = decision_entry(0)
        edit(d)
        with open(path, "w") as fh:
            fh.write(json.dumps(d) + "\n" + json.dumps(decision_entry(1)) + "\n")
    else:
        d = json.loads(open(path).read())
        edit(d)
        with open(path, "w") as fh:
            fh.write(json.dumps(d))
    ask = {"match": files.match_json, "luck": files.luck, "decisions": files.decision}[kind]
    with pytest.raises(ValueError, match=f"{os.path.basename(path)}: .*{words}"):
        ask(name)


def test_an_entry_a_result_file_lacks_is_refused_naming_the_file(files, tmp_path):
    """A decision benchmark without a model's line, a head-to-head file without its seed line
    or a unit-health JSON without a model's entries was a KeyError the tables turned into
    "no ('best_models/m.pt', 1) entry": the line named neither the file nor, at times, what
    it lacked."""
    dec = tmp_path / "dec.jsonl"
    dec.write_text(dec.read_text().splitlines()[0] + "\n")  # the 0-ply line only
    with pytest.raises(ValueError, match=rf"{dec}: no 1-ply entry for best_models/m\.pt"):
        files.decision("m.pt")
    csv = tmp_path / "h2h" / "other_seed.csv"
    csv.write_text(csv.read_text().replace("# seed: 6\n", ""))
    with pytest.raises(ValueError, match=rf"{csv}: no '# seed:' line"):
        files.seed("other_seed")
