"""gnubg_eval.py: --export-only writes the files and scripts and runs nothing; the exported
script, run by hand, gives gnubg's analysis; chunks over several gnubg processes give the
same per-game statistics as one process; cube errors count in the overall rate."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from helpers import HANG_GUARD, ROOT, assert_one_line_error, run
from tdbg.gnubg.gnubg_binary import available, find_gnubg

CUBEFUL = os.path.join(ROOT, "best_models", "cubeful_256x2.pt")
DMP = os.path.join(ROOT, "best_models", "dmp_128x2.pt")
needs_gnubg = pytest.mark.skipif(not available(), reason="no gnubg binary")


@needs_gnubg
def test_export_only_then_the_script_and_chunked_workers(tmp_path):
    out = tmp_path / "exp"
    proc = run(
        "gnubg_eval.py",
        "--model",
        CUBEFUL,
        "--self-play",
        "--games",
        6,
        "--quiet",
        "--export-only",
        "--out",
        out,
        "--chunk-size",
        2,
        "--gnubg-workers",
        2,
        check=True,
    )
    names = sorted(os.listdir(out))
    assert "analyse.sh" in names and sum(n.endswith(".mat") for n in names) >= 1, names
    assert sum(n.startswith("analyse") and n.endswith(".py") for n in names) >= 1
    assert "analyse.sh" in proc.stdout
    # the exported script is the whole analysis: run it by hand
    text = subprocess.run(
        ["sh", str(out / "analyse.sh")], capture_output=True, text=True, timeout=HANG_GUARD
    ).stdout
    by_hand = sorted(
        json.loads(ln[7:])["file"] for ln in text.splitlines() if ln.startswith("@@GAME ")
    )
    assert len(by_hand) == 3  # six self-play games are three, each played from both chairs
    # one gnubg for all files, and files one at a time over two gnubg: the same games, the same errors
    from tdbg.gnubg.gnubg_analysis import GnubgAnalysis, analyse_files

    files = sorted(str(out / n) for n in names if n.endswith(".mat"))
    key = lambda g: (g["file"], g["game"])  # noqa: E731
    one = sorted(analyse_files(files, GnubgAnalysis(find_gnubg(), ply=0, jacoby=True)), key=key)
    many = sorted(
        analyse_files(
            files, GnubgAnalysis(find_gnubg(), ply=0, jacoby=True, workers=2, chunk_size=1)
        ),
        key=key,
    )
    assert one == many and len(one) == 3
    # cubeful analysis: some cube decision was analysed, and cube errors are part of the overall rate
    from tdbg.gnubg.gnubg_analysis import error_rates

    assert sum(g["stats"][s]["close_cube"] for g in one for s in "XO") > 0
    no_cube = [{**g, "stats": {s: {**v, "cube": 0.0} for s, v in g["stats"].items()}} for g in one]
    cube_err = sum(g["stats"][s]["cube"] for g in one for s in "XO")
    r, r0 = error_rates(one, ("X", "O")), error_rates(no_cube, ("X", "O"))
    assert (r["overall_memg_per_decision"]["mean"] > r0["overall_memg_per_decision"]["mean"]) == (
        cube_err > 0
    )


def test_bad_combinations():
    assert_one_line_error(run("gnubg_eval.py", "--model", CUBEFUL, "--export-only"), "--out")
    assert_one_line_error(
        run("gnubg_eval.py", "--model", CUBEFUL, "--self-play", "--opponent", "pubeval"),
        "different opponents",
    )


@needs_gnubg
def test_gnubg_rating_is_the_binarys_own_verdict(tmp_path):
    """Our rating of each game's and the session's overall rate, per player, equals the
    'Overall rating' row of gnubg's own statistics (its text export after analysis)."""
    import re
    from tdbg.gnubg.gnubg_analysis import (
        RATINGS,
        GnubgAnalysis,
        analyse_files,
        error_rates,
        gnubg_ratings,
    )

    binary = find_gnubg()
    # gnubg's thresholds (analysis.c, read by hand): 2, 5, 8, 12, 18, 26, 35 mEMG per decision
    edges = [2, 5, 8, 12, 18, 26, 35]
    probes = [e + d for e in edges for d in (-0.01, 0.01)]
    expect = [RATINGS[7 - k - (d > 0)] for k, e in enumerate(edges) for d in (-0.01, 0.01)]
    assert gnubg_ratings(probes, binary) == expect
    out = tmp_path / "exp"
    run(
        "gnubg_eval.py",
        "--model",
        CUBEFUL,
        "--self-play",
        "--games",
        8,
        "--seed",
        3,
        "--quiet",
        "--export-only",
        "--out",
        out,
        check=True,
    )
    (mat,) = sorted(str(out / n) for n in os.listdir(out) if n.endswith(".mat"))
    games = sorted(
        analyse_files([mat], GnubgAnalysis(binary, ply=0, jacoby=True)), key=lambda g: g["game"]
    )
    script = tmp_path / "export.py"
    script.write_text(
        "import gnubg\n"
        "for c in ('set jacoby on', 'set analysis chequerplay evaluation plies 0',\n"
        "          'set analysis cubedecision evaluation plies 0', 'set analysis luck off',\n"
        f"          'import mat \"{mat}\"', 'analyse match', 'export match text \"{tmp_path}/t.txt\"'):\n"
        "    gnubg.command(c)\n"
    )
    subprocess.run(
        [binary, "-t", "-q", "-r", "-p", str(script)],
        capture_output=True,
        timeout=HANG_GUARD,
        check=True,
    )
    texts = [
        (tmp_path / ("t.txt" if k == 0 else f"t_{k + 1:03d}.txt")).read_text()
        for k in range(len(games))
    ]
    n = len(games)
    for row, key, unit in (
        ("Overall rating", "overall_memg_per_decision", "decision"),
        ("Chequerplay rating", "chequer_memg_per_move", "unforced move"),
    ):
        theirs = [
            re.split(r"\s{2,}", ln.strip())[1:3]
            for t in texts
            for ln in t.splitlines()
            if ln.startswith(row)
        ]
        assert len(theirs) == n + 1  # each game's, then the session's (in the last file)
        # gnubg's first column is the .mat's first player, our side "X"
        rates = [error_rates([g], (s,), n_boot=1)[key]["mean"] for s in "XO" for g in games]
        rates += [error_rates(games, (s,), n_boot=1)[key]["mean"] for s in "XO"]
        ours = gnubg_ratings(rates, binary)
        mine = [[ours[k], ours[n + k]] for k in range(n)] + [[ours[2 * n], ours[2 * n + 1]]]
        assert mine == theirs, (row, unit)
        assert len({r for pair in theirs for r in pair}) >= 3  # the check spans several ratings


@needs_gnubg
def test_match_models_are_analysed_match_by_match_at_their_scores(tmp_path):
    """A match model's matches are written one .mat file a match, at its length: gnubg reads
    back every game at the score we played it, with the winner and points we recorded, and
    analyses them all."""
    from gnubg_python import run_gnubg_python
    from tdbg.play.players import Player
    from tdbg.play.series import ModeSpec, Series, play_series

    model = os.path.join(ROOT, "best_models", "match_256x2_outcomes.pt")
    out, js = tmp_path / "mats", tmp_path / "r.json"
    run(
        "gnubg_eval.py",
        "--model",
        model,
        "--game-mode",
        "match",
        "--match-length",
        7,
        "--games",
        6,
        "--quiet",
        "--out",
        out,
        "--json",
        js,
        check=True,
    )
    ours = play_series(
        Series(
            (Player(model), Player(model)),
            ModeSpec("match", match_length=7),
            6,
            seed=0,
            record=True,
        ),
        progress=False,
    ).records
    assert max(len(m.games) for m in ours) >= 3  # scores other than 0-0 are read back too
    finished = {m.index: m for m in ours if m.winner >= 0}

    def mirrors(m, p):  # every turn of m is p's with the seats swapped: the same games again
        return len(m.game_records) == len(p.game_records) and all(
            len(a.turns) == len(b.turns)
            and a.first != b.first
            and all(
                (
                    s1 == 1 - s2
                    and d1 == d2
                    and e1 == e2
                    and np.array_equal(b1, b2)
                    and (x1 is None) == (x2 is None)
                    and (x1 is None or np.array_equal(x1, x2))
                )
                for (s1, d1, e1, b1, x1), (s2, d2, e2, b2, x2) in zip(a.turns, b.turns, strict=True)
            )
            for a, b in zip(m.game_records, p.game_records, strict=True)
        )

    mirrored = [
        i for i in finished if i % 2 and i - 1 in finished and mirrors(finished[i], finished[i - 1])
    ]
    assert mirrored  # the same deterministic model in both seats
    distinct = [m for i, m in finished.items() if i not in mirrored]
    files = sorted(n for n in os.listdir(out) if n.endswith(".mat"))
    assert files == [
        f"match_{m.index:07d}.mat" for m in distinct
    ]  # a mirrored match is not analysed again
    body = "".join(
        f"gnubg.command('import mat \"{out / n}\"')\n"
        "emit([g['info'] for g in gnubg.match(0, 0, 0, 0)['games']])\n"
        for n in files
    )
    read = run_gnubg_python(body)
    assert len(read) == len(files)
    for m, games in zip(distinct, read, strict=True):
        assert len(games) == len(m.games) == len(m.game_records) > 0
        for (points, _, _, _, a_away, b_away), rec, info in zip(
            m.games, m.game_records, games, strict=True
        ):
            # seat 0 (agent A, the left column) is gnubg's X
            assert (info["score-X"], info["score-O"]) == (7 - a_away, 7 - b_away)
            assert info["winner"] == ("X" if points > 0 else "O")
            assert info["points-won"] == abs(rec.points) >= abs(points)
    r = json.load(open(js))
    assert r["game_mode"] == "match" and r["games"] == sum(len(m.games) for m in distinct)
    assert (r["records_played"], r["mirrored_records_skipped"]) == (len(finished), len(mirrored))
    assert r["bootstrap_units"] == len({m.index // 2 for m in distinct})
    # gnubg agrees that a mirrored match is the same match: analysed from the other chair, each
    # side's counts are its partner's exactly and its errors to float32's precision
    from tdbg.gnubg.gnubg_analysis import GnubgAnalysis, analyse_files
    from tdbg.play.matfile import write_mat

    k = mirrored[0]
    pair = [str(tmp_path / f"m{i}.mat") for i in (k - 1, k)]
    for path, i in zip(pair, (k - 1, k), strict=True):
        write_mat(path, finished[i].game_records, ("model", "model_b"), 7)
    got = analyse_files(pair, GnubgAnalysis(find_gnubg(), ply=0, jacoby=True))
    a = sorted((g for g in got if g["file"].endswith(f"m{k - 1}.mat")), key=lambda g: g["game"])
    b = sorted((g for g in got if g["file"].endswith(f"m{k}.mat")), key=lambda g: g["game"])
    assert len(a) == len(b) == len(finished[k].games)
    for ga, gb in zip(a, b, strict=True):
        assert ga["score"] == gb["score"][::-1]
        for s1, s2 in (("X", "O"), ("O", "X")):
            x, y = ga["stats"][s1], gb["stats"][s2]
            assert (x["unforced"], x["total"], x["close_cube"]) == (
                y["unforced"],
                y["total"],
                y["close_cube"],
            )
            assert x["chequer"] == pytest.approx(y["chequer"], rel=1e-4, abs=1e-6)
            assert x["cube"] == pytest.approx(y["cube"], rel=1e-4, abs=1e-6)
    assert set(r["cube_errors"]) == {
        "missed-double-below-cp",
        "missed-double-above-cp",
        "wrong-double-below-dp",
        "wrong-double-above-tg",
        "wrong-take",
        "wrong-drop",
    }
    assert r["close_cube_decisions"] > 0 and r["unforced_moves"] > 0
    # every double gnubg read back is in the by-score table, at the doubler's score
    body = "".join(
        f"gnubg.command('import mat \"{out / n}\"')\n"
        "emit([[g['info']['score-X'], g['info']['score-O'], a['player']] for g in gnubg.match(0, 0, 0, 0)"
        "['games'] for a in g['game'] if a.get('action') == 'double'])\n"
        for n in files
    )
    doubles = [d for per_file in run_gnubg_python(body) for d in per_file]
    want: dict = {}
    for x, o, player in doubles:
        key = f"{7 - x}-{7 - o}" if player == "X" else f"{7 - o}-{7 - x}"
        want[key] = want.get(key, 0) + 1
    assert doubles and {k: v["doubles"] for k, v in r["doubles_by_score"].items()} == want
    assert all(
        0 <= v["wrong"] <= v["doubles"] and v["error"] >= 0 for v in r["doubles_by_score"].values()
    )


def test_doubles_by_score_by_hand():
    """X leads 2-0 in a 7-point match (5-away, 7-away) and doubles where gnubg gives no double
    0.60 MWC and double/take 0.55: below the doubling point, 50 thousandths lost; O's double at
    0.30 / 0.35 is right.  Only the analysed sides count."""
    from tdbg.gnubg.gnubg_analysis import doubles_by_score

    games = [
        {"length": 7, "score": [2, 0], "doubles": [["X", 0.60, 0.55], ["O", 0.30, 0.35]]},
        {"length": 0, "score": [0, 0], "doubles": [["X", 0.9, 0.1]]},
    ]  # money: no score to group by
    both = doubles_by_score(games, ("X", "O"))
    assert both["5-7"] == {"doubles": 1, "wrong": 1, "error": pytest.approx(50.0)}
    assert both["7-5"] == {"doubles": 1, "wrong": 0, "error": 0.0}
    assert list(both) == ["5-7", "7-5"]  # most costly first
    assert set(doubles_by_score(games, ("X",))) == {"5-7"}


def test_match_length_needs_match_play():
    assert_one_line_error(
        run("gnubg_eval.py", "--model", CUBEFUL, "--match-length", 5), "--game-mode match"
    )


def test_luck_needs_an_opponent():
    assert_one_line_error(run("gnubg_eval.py", "--model", CUBEFUL, "--luck"), "even by symmetry")


@needs_gnubg
def test_a_binary_that_cannot_rate_is_refused_before_any_game(monkeypatch):
    import sys

    from tdbg.app import cli, eval_command
    import gnubg_eval
    from tdbg.gnubg.gnubg_binary import GnubgError

    def no_rating(rates, binary, timeout=None):
        raise GnubgError("gnubg gave no rating (exit 1)")

    def no_games(*args, **kwargs):
        raise AssertionError("games were played before the rating was checked")

    monkeypatch.setattr(eval_command, "gnubg_ratings", no_rating)
    monkeypatch.setattr(eval_command, "play_series", no_games)
    monkeypatch.setattr(sys, "argv", ["gnubg_eval.py", "--model", CUBEFUL, "--games", "2"])
    with pytest.raises(cli.UsageError, match="no rating"):
        gnubg_eval.main()


@needs_gnubg
def test_from_mat_rates_each_named_player_of_saved_files(tmp_path):
    """--from-mat analyses files already played: rating each of the two players in turn gives
    back, between them, exactly the self-play analysis of the same files (moves, doubles by
    score), whichever column gnubg put each player in; bad folders and names are refused."""
    model = os.path.join(ROOT, "best_models", "match_256x2_outcomes.pt")
    out, both = tmp_path / "mats", tmp_path / "both.json"
    run(
        "gnubg_eval.py",
        "--model",
        model,
        "--match-length",
        5,
        "--games",
        4,
        "--seed",
        3,
        "--quiet",
        "--out",
        out,
        "--json",
        both,
        check=True,
    )
    whole = json.load(open(both))
    per = {}
    for player in ("model", "model_b"):
        js = tmp_path / f"{player}.json"
        run(
            "gnubg_eval.py",
            "--from-mat",
            out,
            "--player",
            player,
            "--quiet",
            "--json",
            js,
            check=True,
        )
        per[player] = json.load(open(js))
        assert per[player]["player"] == player and per[player]["games"] == whole["games"]
    assert (
        per["model"]["unforced_moves"] + per["model_b"]["unforced_moves"] == whole["unforced_moves"]
    )
    merged: dict = {}
    for r in per.values():
        for k, v in r.get("doubles_by_score", {}).items():
            merged[k] = merged.get(k, 0) + v["doubles"]
    assert merged == {k: v["doubles"] for k, v in whole["doubles_by_score"].items()}
    assert_one_line_error(
        run("gnubg_eval.py", "--from-mat", out, "--player", "nobody"), "no player named"
    )
    assert_one_line_error(run("gnubg_eval.py", "--from-mat", tmp_path / "none"), "no such folder")
    (tmp_path / "empty").mkdir()
    assert_one_line_error(run("gnubg_eval.py", "--from-mat", tmp_path / "empty"), "no .mat files")
    assert_one_line_error(
        run("gnubg_eval.py", "--from-mat", out, "--model", model), "takes no --model"
    )
    assert_one_line_error(run("gnubg_eval.py", "--games", 3), "give --model")


def test_luck_adjusted_results_by_hand():
    """Two matches (files a, b) and the same games read as money games, with gnubg's per-game
    figures for player X: the match rate is 0.5 + each match's summed results."""
    from tdbg.gnubg.gnubg_analysis import luck_adjusted

    def game(f, i, actual, adjusted):
        return {"file": f, "game": i, "stats": {"X": {"actual": actual, "luck_adjusted": adjusted}}}

    games = [game("a", 0, 0.25, 0.05), game("a", 1, 0.25, -0.15), game("b", 0, -0.5, 0.10)]
    m = luck_adjusted(games, match_play=True, n_boot=50)
    assert m["n"] == 2 and m["actual"]["mean"] == pytest.approx(0.5)  # won a, lost b
    assert m["luck_adjusted"]["mean"] == pytest.approx((0.4 + 0.6) / 2)  # 0.5 - 0.10, 0.5 + 0.10
    assert m["luck"]["mean"] == pytest.approx(((0.5 - -0.10) + (-0.5 - 0.10)) / 2)
    g = luck_adjusted(games, match_play=False, n_boot=50)
    assert g["n"] == 3 and g["luck_adjusted"]["mean"] == pytest.approx(0.0)
    with pytest.raises(Exception, match="no luck"):
        luck_adjusted([{"file": "c", "game": 0, "stats": {"X": {}}}], match_play=True)


def test_cubeful_is_puretds_name_for_cubeful_money(monkeypatch):
    """--cubeful (PureTD's flag) plays cubeful money games: with a DMP checkpoint, whose own mode
    would be dmp, the games are played as cubeful-money with Jacoby (and without it on
    --no-jacoby).  No binary needed: preflight and the rating check are stood in for, and the
    game runner records what it was asked for and stops."""
    import sys

    import gnubg_eval
    from tdbg.app import eval_command

    class Asked(Exception):
        pass

    def runner(series, *args, **kwargs):
        raise Asked(series.mode_spec.mode, series.mode_spec.jacoby)

    monkeypatch.setattr(eval_command, "preflight", lambda binary, timeout=None: {"binary": "gnubg"})
    monkeypatch.setattr(
        eval_command, "gnubg_ratings", lambda rates, binary, timeout=None: ["Awful!"]
    )
    monkeypatch.setattr(eval_command, "play_series", runner)
    dmp = os.path.join(ROOT, "best_models", "dmp_128x2.pt")
    for extra, want in (([], ("cubeful-money", True)), (["--no-jacoby"], ("cubeful-money", False))):
        monkeypatch.setattr(
            sys, "argv", ["gnubg_eval.py", "--model", dmp, "--cubeful", "--games", "2", *extra]
        )
        with pytest.raises(Asked) as got:
            gnubg_eval.main()
        assert got.value.args == want
    monkeypatch.setattr(sys, "argv", ["gnubg_eval.py", "--model", dmp, "--games", "2"])
    with pytest.raises(Asked) as got:  # without the flag: the checkpoint's own mode
        gnubg_eval.main()
    assert got.value.args == ("dmp", True)


@pytest.mark.parametrize(
    "mode, rules",
    [
        ("cubeless-money", ["set cube use off", "set analysis cube off"]),
        ("dmp", ["set cube use off", "set analysis cube off"]),
        ("cubeful-money", []),
        (None, []),
    ],
)
def test_from_mat_analyses_with_the_cube_of_the_mode_named(monkeypatch, tmp_path, mode, rules):
    """--from-mat with --game-mode: gnubg analyses the saved games with that mode's cube (a
    .mat file does not say whether the cube was in play; cubeless games analysed with it on
    were charged every right double as a missed one, and --game-mode was taken and ignored).
    No binary needed: preflight and the rating check are stood in for, and the analysis
    records the commands it was given and stops."""
    import sys

    import gnubg_eval
    from tdbg.app import eval_report

    class Asked(Exception):
        pass

    def analyse(files, analysis):
        raise Asked(list(analysis.rules))

    (tmp_path / "g.mat").write_text(" 0 point match\n\n Game 1\n")
    monkeypatch.setattr(eval_report, "preflight", lambda binary, timeout=None: {"binary": "gnubg"})
    monkeypatch.setattr(
        eval_report, "gnubg_ratings", lambda rates, binary, timeout=None: ["Awful!"]
    )
    monkeypatch.setattr(eval_report, "analyse_files", analyse)
    monkeypatch.setattr(
        sys,
        "argv",
        ["gnubg_eval.py", "--from-mat", str(tmp_path), *(["--game-mode", mode] if mode else [])],
    )
    with pytest.raises(Asked) as got:
        gnubg_eval.main()
    assert got.value.args == (rules,)


def test_cubeful_conflicts_are_one_line_errors(tmp_path):
    assert_one_line_error(
        run("gnubg_eval.py", "--model", CUBEFUL, "--cubeful", "--game-mode", "dmp"),
        "--cubeful is --game-mode cubeful-money",
    )
    assert_one_line_error(
        run("gnubg_eval.py", "--model", CUBEFUL, "--cubeful", "--match-length", 5),
        "--game-mode match",
    )
    assert_one_line_error(run("gnubg_eval.py", "--from-mat", tmp_path, "--cubeful"), "takes no")


def _side(chequer, unforced=10, total=12):
    return {
        "unforced": unforced,
        "total": total,
        "chequer": chequer,
        "cube": 0.0,
        "close_cube": 0,
        "cube_kinds": {},
    }


def _game(name, i, x, o):
    return {
        "file": f"/tmp/an/{name}",
        "game": i,
        "stats": {"X": _side(x), "O": _side(o)},
        "score": [0, 0],
        "length": 0,
        "names": {"X": "model", "O": "model_b"},
        "doubles": [],
    }


def test_error_rates_resample_units_by_hand():
    """Three games in two units (pair 0: game 0; pair 1: games 2 and 3), 10 unforced moves a
    side.  Chequer rate = 1000 x error / unforced moves, both sides: pair 0 is
    1000 x 0.040 / 20 = 2.0, pair 1 is 1000 x (0.020 + 0 + 0.060 + 0.020) / 40 = 2.5, all
    1000 x 0.140 / 60 = 2.333.  Two units resampled give 2.0 (chance 1/4), 2.5 (1/4) or
    2.333: the CI is [2.0, 2.5].  Games resampled alone reach game 2 by itself (1000 x 0.020
    / 20 = 1.0), a unit that does not exist.  One unit: no interval."""
    from tdbg.gnubg.gnubg_analysis import error_rates

    games = [
        _game("game_0.mat", 0, 0.010, 0.030),
        _game("game_2.mat", 0, 0.020, 0.0),
        _game("game_3.mat", 0, 0.060, 0.020),
    ]
    r = error_rates(games, ("X", "O"), seed=5, units=[0, 1, 1])
    c = r["chequer_memg_per_move"]
    assert c["mean"] == pytest.approx(140 / 60) and (c["ci_low"], c["ci_high"]) == (
        pytest.approx(2.0),
        pytest.approx(2.5),
    )
    assert (r["games"], r["bootstrap_units"], r["unforced_moves"]) == (3, 2, 60)
    assert error_rates(games, ("X", "O"), seed=5)["chequer_memg_per_move"][
        "ci_low"
    ] == pytest.approx(1.0)
    one = error_rates(games[1:], ("X", "O"), units=[1, 1])["chequer_memg_per_move"]
    assert one["mean"] == pytest.approx(2.5) and one["ci_low"] is None and one["ci_high"] is None
    assert one["ci_reason"].startswith("no interval: 1 unit")


def test_self_play_analyses_each_distinct_game_once(monkeypatch, tmp_path):
    """gnubg_eval.main end to end with gnubg stood in for: four DMP self-play games with the
    same deterministic model in both seats are two games, each played from both chairs; only
    records 0 and 2 are written and analysed, and the CIs resample their two pairs.  The
    stand-in gives game k chequer errors X 0.01 x (k + 1), O 0.02 (10 unforced moves a side):
    pair 0 (0.01 + 0.02) / 20 = 1.5, pair 1 (0.03 + 0.02) / 20 = 2.5, both 80 / 40 = 2.0."""
    import sys

    import gnubg_eval
    from tdbg.app import eval_command, eval_report

    seen = []

    def analyse(files, *args, **kwargs):
        seen.extend(os.path.basename(f) for f in files)
        return [
            _game(os.path.basename(f), 0, 0.01 * (int(os.path.basename(f)[5:12]) + 1), 0.02)
            | {"file": f}
            for f in files
        ]

    monkeypatch.setattr(
        eval_command,
        "preflight",
        lambda binary, timeout=None: {"binary": "gnubg", "version": "stand-in"},
    )
    for module in (eval_command, eval_report):  # the check before any game, and the report's rating
        monkeypatch.setattr(
            module,
            "gnubg_ratings",
            lambda rates, binary, timeout=None: ["Casual player"] * len(rates),
        )
    monkeypatch.setattr(eval_command, "analyse_files", analyse)
    js = tmp_path / "r.json"
    dmp = os.path.join(ROOT, "best_models", "dmp_128x2.pt")
    monkeypatch.setattr(
        sys, "argv", ["gnubg_eval.py", "--model", dmp, "--games", "4", "--quiet", "--json", str(js)]
    )
    gnubg_eval.main()
    assert seen == ["game_0000000.mat", "game_0000002.mat"]
    r = json.loads(js.read_text())
    assert (
        r["records_played"],
        r["games"],
        r["mirrored_records_skipped"],
        r["bootstrap_units"],
    ) == (4, 2, 2, 2)
    assert r["unforced_moves"] == 40
    c = r["chequer_memg_per_move"]
    assert c["mean"] == pytest.approx(2.0) and (c["ci_low"], c["ci_high"]) == (
        pytest.approx(1.5),
        pytest.approx(2.5),
    )


def _fake_gnubg(monkeypatch, seen: list):
    """gnubg_eval's run with the binary's part stood in for: the analysis it is asked for is
    kept in ``seen``, and each .mat file written reads back as games without errors."""
    from tdbg.app import eval_command
    from tdbg.play.matfile import read_mat

    def analyse(files, analysis, folder=None):
        seen.append(analysis)
        side = {
            "unforced": 10,
            "total": 12,
            "chequer": 0.0,
            "cube": 0.0,
            "close_cube": 0,
            "cube_kinds": {},
        }
        return [
            {
                "file": f,
                "game": i,
                "stats": {"X": dict(side), "O": dict(side)},
                "names": {"X": "model", "O": ""},
            }
            for f in files
            for i in range(len(read_mat(f)))
        ]

    monkeypatch.setattr(
        eval_command, "preflight", lambda *a, **k: {"binary": "gnubg", "version": "1.08.003"}
    )
    monkeypatch.setattr(eval_command, "gnubg_ratings", lambda rates, *a: ["Expert"] * len(rates))
    monkeypatch.setattr(eval_command, "analyse_files", analyse)
    monkeypatch.setattr(
        "tdbg.app.eval_report.gnubg_ratings", lambda rates, *a: ["Expert"] * len(rates)
    )


@pytest.mark.parametrize(
    "model, cube",
    [
        ("cubeless_256x2.pt", False),
        ("prob5_128x2.pt", False),
        ("dmp_128x2.pt", False),
        ("cubeful_256x2.pt", True),
    ],
)
def test_the_analysis_has_the_cube_of_the_games_and_the_result_names_the_bytes(
    tmp_path, monkeypatch, capsys, model, cube
):
    """Games played without a cube are analysed with gnubg's cube off (with it on, every
    right double counted as a missed one against a model that could not double); the JSON
    names the md5 of the checkpoint that played; the screen says how many games were played,
    how many analysed, and why the rest were not (self-play's mirrored games)."""
    import hashlib
    import sys

    import gnubg_eval
    from tdbg.gnubg.gnubg_analysis import write_scripts

    cube_off = ["set cube use off", "set analysis cube off"]
    seen = []
    _fake_gnubg(monkeypatch, seen)
    path = os.path.join(ROOT, "best_models", model)
    out = tmp_path / "r.json"
    monkeypatch.setattr(
        sys,
        "argv",
        ["gnubg_eval.py", "--model", path, "--games", "4", "--quiet", "--json", str(out)],
    )
    gnubg_eval.main()
    assert [list(a.rules) for a in seen] == [[] if cube else cube_off]
    result = json.load(open(out))
    assert result["model_md5"] == hashlib.md5(open(path, "rb").read()).hexdigest()
    assert result["opponent_md5"] == result["model_md5"]  # self-play
    screen = capsys.readouterr().out
    assert f", 4 games played, {result['games']} games analysed by gnubg" in screen, screen
    skipped = result["mirrored_records_skipped"]
    assert skipped == 4 - result["games"] and skipped > 0
    assert (
        f"{skipped} of the games played were not analysed: each replays the one before it" in screen
    )
    # the script gnubg runs sets the cube off before it imports a file, exactly when the games had none
    write_scripts([str(tmp_path / "x.mat")], seen[0], str(tmp_path))
    text = open(tmp_path / "analyse0.py").read()
    assert all((f'"{c}"' in text or f"'{c}'" in text) != cube for c in cube_off), text
    assert cube or text.index(cube_off[0]) < text.index("import mat")


def test_a_full_disk_while_the_scripts_are_written_is_one_line_and_leaves_no_folder(tmp_path):
    """ENOSPC met as gnubg's script files are closed (it has no file name then): one line
    naming the file, exit 2, and no temporary folder left behind (cfg0.json was)."""
    from helpers import assert_one_line_error

    scratch = tmp_path / "tmp"
    scratch.mkdir()
    code = f"""
import errno, os, runpy, sys, tempfile
tempfile.tempdir = {str(scratch)!r}
from tdbg.app import eval_command
eval_command.preflight = lambda *a, **k: {{"binary": "gnubg", "version": "1.08.003"}}
eval_command.gnubg_ratings = lambda rates, *a: ["Expert"] * len(rates)
real = os.fsync
def fsync(fd):
    if "cfg" in os.readlink(f"/proc/self/fd/{{fd}}"):   # the full disk meets gnubg's first script file
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    return real(fd)
os.fsync = fsync
sys.argv = ["gnubg_eval.py", "--model", "best_models/dmp_128x2.pt", "--games", "2", "--quiet"]
runpy.run_path("gnubg_eval.py", run_name="__main__")
"""
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=HANG_GUARD
    )
    assert_one_line_error(proc, "cfg0.json: No space left on device")
    assert os.listdir(scratch) == []


@pytest.mark.parametrize(
    "opponent, words",
    [
        ("gnubg-ext", "--from-mat"),
        ("gnubg-ext-full", "--from-mat"),
        ("gnubg-nn-cubeful", "cubeful money only"),  # a DMP model's games it cannot play
        ("no-such-net", "unknown opponent"),
    ],
)
def test_an_opponent_that_cannot_play_is_refused_before_gnubg_starts(monkeypatch, opponent, words):
    """The refusal is the run's only output: the binary's preflight (which prints its line) is
    never reached, as on a machine without gnubg."""
    import sys

    from tdbg.app import cli, eval_command
    import gnubg_eval

    def no_preflight(*args, **kwargs):
        raise AssertionError("gnubg was started before the opponent was checked")

    monkeypatch.setattr(eval_command, "preflight", no_preflight)
    monkeypatch.setattr(
        sys, "argv", ["gnubg_eval.py", "--model", DMP, "--opponent", opponent, "--games", "2"]
    )
    with pytest.raises(cli.InputError, match=words):
        gnubg_eval.main()


FAKE_KILLED = r"""#!{python}
import json, os, re, signal, sys
cfg = re.search(r"/[^'\"]*cfg[0-9]+[.]json", open(sys.argv[-1]).read()).group(0)
files = json.load(open(cfg))["files"]
side = {{"unforced": 10, "total": 20, "chequer": 0.01, "cube": 0.0, "close_cube": 1,
        "cube_kinds": {{k: [0, 0.0] for k in {kinds!r}}}}}
game = {{"file": files[0], "game": 0, "stats": {{"X": side, "O": side}}, "score": [0, 0],
        "length": 0, "names": {{"X": "td", "O": "gnubg"}}, "doubles": []}}
print("@@GAME " + json.dumps(game), flush=True)  # a whole game line, as gnubg's script prints
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_gnubg_killed_while_analysing_is_named_so(tmp_path):
    """The gnubg analysing the games killed (SIGKILL) after one of two: the error says gnubg
    was killed and how far it got; it blamed the game files ("gnubg found no games in it")."""
    from tdbg.gnubg.gnubg_analysis import CUBE_KINDS, GnubgAnalysis, GnubgError, analyse_files

    fake = tmp_path / "gnubg"
    fake.write_text(FAKE_KILLED.format(python=sys.executable, kinds=CUBE_KINDS))
    fake.chmod(0o755)
    files = [str(tmp_path / f"game_{k}.mat") for k in range(2)]
    with pytest.raises(GnubgError) as err:
        analyse_files(files, GnubgAnalysis(str(fake), timeout=HANG_GUARD))
    assert "gnubg was ended by SIGKILL while analysing (1 of 2 games analysed)" in str(err.value)
