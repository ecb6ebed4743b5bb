"""play_models.py options: --save-extreme-games keeps exactly the games whose |result|
reaches the threshold, --n-bootstrap sets the resamples behind each CI, --plies and
--twoply reach the agents."""

import json
import os

import numpy as np

from helpers import ROOT, assert_one_line_error, run
from tdbg.infra.stats import bootstrap_ci, pair_means

PROB5 = os.path.join(ROOT, "best_models", "prob5_128x2.pt")


def rows_of(csv_path):
    lines = [ln for ln in open(csv_path).read().splitlines() if not ln.startswith("#")]
    head = lines[0].split(",")
    return [dict(zip(head, ln.split(","), strict=True)) for ln in lines[1:]]


def test_extreme_games_are_exactly_those_at_the_threshold(tmp_path):
    out, csv = tmp_path / "extreme", tmp_path / "games.csv"
    run(
        "play_models.py",
        "--model1",
        PROB5,
        "--model2",
        "pubeval",
        "--game-mode",
        "cubeless-money",
        "--games",
        40,
        "--seed",
        5,
        "--quiet",
        "--save-extreme-games",
        out,
        "--extreme-threshold",
        2,
        "--csv",
        csv,
        check=True,
    )
    rows = rows_of(csv)
    want = {f"game_{int(r['game']):07d}.mat" for r in rows if abs(float(r["points"])) >= 2}
    assert want and len(want) < len(rows)  # some gammons, not only gammons: the filter is tested
    assert set(os.listdir(out)) == want
    for name in want:  # each file is one game, ending in a win of 2 or 3 points
        text = open(out / name).read()
        assert text.count(" Game ") == 1 and ("Wins 2 point" in text or "Wins 3 point" in text), (
            text[-300:]
        )


def test_n_bootstrap_sets_the_resamples(tmp_path):
    csv = tmp_path / "g.csv"
    cis = {}
    for n in (50, 4000):
        js = tmp_path / f"s{n}.json"
        run(
            "play_models.py",
            "--model1",
            PROB5,
            "--model2",
            "pubeval",
            "--game-mode",
            "cubeless-money",
            "--games",
            30,
            "--seed",
            9,
            "--quiet",
            "--n-bootstrap",
            n,
            "--json",
            js,
            "--csv",
            csv,
            "--overwrite",
            check=True,
        )
        s = json.load(open(js))
        assert s["n_bootstrap"] == n
        cis[n] = s["points_per_game"]
    rows = rows_of(csv)
    idx = np.array([int(r["game"]) for r in rows])
    pts = np.array([float(r["points"]) for r in rows])
    for n, ci in cis.items():
        m, lo, hi = bootstrap_ci(pair_means(idx, pts), n, seed=9)
        assert (ci["mean"], ci["ci_low"], ci["ci_high"]) == (m, lo, hi)
    assert cis[50]["ci_low"] != cis[4000]["ci_low"]


def test_search_options_are_checked():
    common = ("play_models.py", "--model1", PROB5, "--game-mode", "cubeless-money", "--games", 2)
    assert_one_line_error(run(*common, "--model2", "pubeval", "--plies", 2), "gnubg-nn")
    assert_one_line_error(
        run(*common, "--model2", "gnubg-nn-1ply", "--plies", 2), "gnubg-nn --plies 2"
    )
    assert_one_line_error(run(*common, "--model2", "pubeval", "--oneply1", "--twoply1"), "not both")
    assert_one_line_error(
        run(*common, "--model2", "pubeval", "--save-extreme-games", "/tmp/nowhere"), "go together"
    )
    assert_one_line_error(run(*common, "--model2", "pubeval", "--twoply-k1", 0), "at least 1")
    assert_one_line_error(
        run(*common, "--model2", "pubeval", "--oneply-k", 4), "--oneply1 or --oneply2"
    )
    assert_one_line_error(
        run(*common, "--model2", "pubeval", "--oneply1", "--oneply-k", 0), "at least 1"
    )


def test_csv_header_names_each_model_by_md5(tmp_path):
    """The per-game CSV names each checkpoint by its md5 beside its path (md5sum, outside the
    code under test, says what it must be), so the file behind a number can be identified
    after the path is overwritten; a named agent has none."""
    import subprocess

    csv, js = tmp_path / "g.csv", tmp_path / "s.json"
    run(
        "play_models.py",
        "--model1",
        PROB5,
        "--model2",
        "pubeval",
        "--game-mode",
        "cubeless-money",
        "--games",
        2,
        "--seed",
        1,
        "--quiet",
        "--csv",
        csv,
        "--json",
        js,
        check=True,
    )
    want = subprocess.run(
        ["md5sum", PROB5], capture_output=True, text=True, check=True
    ).stdout.split()[0]
    head = [ln for ln in open(csv).read().splitlines() if ln.startswith("#")]
    assert f"# model1: {PROB5}" in head and f"# model1_md5: {want}" in head
    assert "# model2: pubeval" in head and "# model2_md5: None" in head
    s = json.load(open(js))
    assert s["model1_md5"] == want and s["model2_md5"] is None


def test_games_against_gnubgs_dice_resample_single_games():
    """Games won, lost, won, lost.  In duplicate pairs (0, 1), (2, 3) each pair is one win in
    two, so every resample averages 0.5: CI [0.5, 0.5].  Against gnubg-ext (its own dice, no
    pairs) the unit is the game: four games are all losses with chance 1/16 = 6.25%, above
    the 2.5% tail, and all wins likewise: CI [0, 1]."""
    from types import SimpleNamespace

    from tdbg.game.modes import game_mode
    from tdbg.play.players import Player
    from tdbg.play.series import ModeSpec, Series
    from tdbg.play.units import summarize_games

    games = [
        SimpleNamespace(index=i, points=p, result=1) for i, p in enumerate([1.0, -1.0, 1.0, -1.0])
    ]
    series = Series((Player("random"), Player("pubeval")), ModeSpec("dmp"), 4, seed=3)
    paired = summarize_games(games, game_mode("dmp"), series)
    assert paired["win_rate"] == {"mean": 0.5, "ci_low": 0.5, "ci_high": 0.5}
    assert paired["resample_unit"].startswith("duplicate pairs")
    single = summarize_games(games, game_mode("dmp"), series, paired=False)
    assert single["win_rate"] == {"mean": 0.5, "ci_low": 0.0, "ci_high": 1.0}
    assert single["resample_unit"].startswith("single games") and single["n_bootstrap"] == 2000
