"""Tests that would catch a wrong yardstick."""

import json

import numpy as np
import pytest
import torch

from helpers import assert_one_line_error, brute_value, run
from tdbg.game import backgammon_engine as be
from tdbg.game.dice import DiceStream
from tdbg.game.modes import game_mode
from tdbg.infra.stats import bootstrap_ci, pair_means
from tdbg.net.model import TDNetwork, new_metadata, save_checkpoint
from tdbg.net.search import Search
from tdbg.play.agents import GnubgNNAgent, PubevalAgent, RandomAgent
from tdbg.play.evaluation import quick_eval, quick_eval_game, summarize
from tdbg.play.match import play_games
from tdbg.play.td_agent import TDAgent

DMP = game_mode("dmp")


def test_random_against_itself_is_even():
    records = play_games(RandomAgent(1), RandomAgent(2), range(3000), DMP, seed=11)
    s = summarize(records, DMP)["win_rate"]
    assert s["ci_low"] <= 0.5 <= s["ci_high"], s


def test_pubeval_beats_random_nearly_always():
    records = play_games(PubevalAgent(), RandomAgent(3), range(400), DMP, seed=4)
    assert summarize(records, DMP)["win_rate"]["mean"] > 0.95


def test_known_opening_move():
    """3-1 from the start: gnubg-nn and pubeval both make the 5 point (8/5 6/5)."""
    start = be.initial_board()
    want = be.parse_move(start, 3, 1, "8/5 6/5")[1]
    for agent in (PubevalAgent(), GnubgNNAgent(DMP, 0)):
        assert np.array_equal(agent.choose_moves(start[None], np.array([[3, 1]]))[0], want), (
            agent.name
        )


def test_bootstrap_ci_coverage():
    rng = np.random.default_rng(0)
    hits = 0
    for k in range(300):
        x = rng.exponential(2.0, 150)  # skewed data with true mean 2
        _, lo, hi = bootstrap_ci(x, n_boot=500, seed=k)
        hits += lo <= 2.0 <= hi
    assert 0.90 <= hits / 300 <= 0.98, hits / 300


def test_pair_means():
    assert pair_means([0, 1, 2, 3, 4], [1, 0, 1, 1, 0]).tolist() == [0.5, 1.0, 0.0]


def test_duplicate_pair_replays_the_same_dice():
    records = play_games(RandomAgent(1), PubevalAgent(), range(6), DMP, seed=9, record=True)
    for k in range(0, 6, 2):
        a, b = records[k], records[k + 1]
        assert a.first == 0 and b.first == 1
        da = [t[1] for t in a.turns if t[2] == "move"]
        db = [t[1] for t in b.turns if t[2] == "move"]
        n = min(len(da), len(db))
        assert n > 10 and da[:n] == db[:n]
        assert da[0][0] != da[0][1]  # opening roll
    # and a different pair gets different dice
    assert [t[1] for t in records[0].turns[:5]] != [t[1] for t in records[2].turns[:5]]


def test_results_independent_of_how_games_are_split():
    full = play_games(PubevalAgent(), RandomAgent(0), range(8), DMP, seed=5)
    part = play_games(PubevalAgent(), RandomAgent(0), range(4, 8), DMP, seed=5)
    assert [r.points for r in full[4:]] == [r.points for r in part]
    assert DiceStream(5, 1).roll(30).tolist() == DiceStream(5, 1).roll(30).tolist()


def test_oneply_agent_matches_brute_force_expectimax():
    torch.manual_seed(5)
    mode = game_mode("cubeless-money")
    model = TDNetwork(196, [12], "equity").eval()
    agent = TDAgent(model, mode, Search(oneply=True))
    b = be.board_from_position_id("4HPwATDgc/ABMA")
    for dice in ((3, 1), (6, 6)):
        chosen = agent.choose_moves(b[None], np.array([dice]))[0]
        best = max(
            be.legal_moves(b, *dice),
            key=lambda mv: -brute_value(model, mode, be.swap(mv[1]), None, agent.scorer.values),
        )
        assert np.array_equal(chosen, best[1])


@pytest.fixture(scope="module")
def small_ckpt(tmp_path_factory):
    path = tmp_path_factory.mktemp("m") / "dmp.pt"
    run(
        "train_batch.py",
        "--hidden",
        "24",
        "--num-episodes",
        "1500",
        "--episodes-per-round",
        "25",
        "--quiet",
        "--save",
        path,
        check=True,
    )
    return str(path)


def test_play_models_pubeval_vs_gnubg_nn(tmp_path):
    out, results = tmp_path / "out.json", tmp_path / "results.csv"
    # 400 games (seeded: 30.50% [26.25, 35.00] at 790e572) show gnubg-nn far ahead; 2,000 showed no more
    proc = run(
        "play_models.py",
        "--model1",
        "pubeval",
        "--gnubg-nn",
        "--games",
        "400",
        "--workers",
        "2",
        "--json",
        out,
        "--csv",
        results,
        "--quiet",
        check=True,
    )
    s = json.loads(out.read_text())
    assert s["games"] == 400 and s["win_rate"]["ci_high"] < 0.40  # gnubg-nn far ahead
    assert "win rate (pubeval)" in proc.stdout
    lines = results.read_text().splitlines()
    header = {ln[2:].split(":", 1)[0] for ln in lines if ln.startswith("# ")}
    assert {"command", "commit", "seed", "games", "date", "win_rate"} <= header
    rows = [ln for ln in lines if not ln.startswith("#")][1:]
    assert len(rows) == 400
    assert abs(np.mean([float(r.split(",")[2]) > 0 for r in rows]) - s["win_rate"]["mean"]) < 1e-12


def test_play_models_checkpoint_money_and_mat_files(tmp_path, small_ckpt):
    out = tmp_path / "out.json"
    games = tmp_path / "games"
    run(
        "play_models.py",
        "--model1",
        small_ckpt,
        "--gnubg-nn",
        "--games",
        "40",
        "--quiet",
        "--json",
        out,
        "--save-games",
        games,
        check=True,
    )
    s = json.loads(out.read_text())
    assert s["game_mode"] == "dmp"
    files = sorted(games.iterdir())
    assert len(files) == 40  # DMP: one 1-point match per file
    from tdbg.play.matfile import read_mat

    # the .mat files, replayed by their own reader, tell the same story as the summary:
    # seat 0 is model1, so its win rate is the share of files seat 0 wins
    winners = [read_mat(str(f))[0]["winner"] for f in files]
    assert set(winners) <= {0, 1}
    assert np.mean([w == 0 for w in winners]) == s["win_rate"]["mean"]


def test_dmp_model_plays_cubeless_money(tmp_path, small_ckpt):
    """A DMP model is the baseline of the cubeless leg: it plays money games for P(win)."""
    out, results = tmp_path / "o.json", tmp_path / "r.csv"
    run(
        "play_models.py",
        "--model1",
        small_ckpt,
        "--model2",
        "pubeval",
        "--game-mode",
        "cubeless-money",
        "--games",
        "20",
        "--quiet",
        "--json",
        out,
        "--csv",
        results,
        check=True,
    )
    s = json.loads(out.read_text())
    assert s["game_mode"] == "cubeless-money" and s["games"] == 20
    rows = [ln.split(",") for ln in results.read_text().splitlines() if not ln.startswith("#")][1:]
    points, result = np.array([float(r[2]) for r in rows]), np.array([int(r[3]) for r in rows])
    # money scoring by hand: +-1 a single game, +-2 a gammon, +-3 a backgammon, cube never turned
    assert len(rows) == 20 and (np.abs(points) == result).all() and {int(r[4]) for r in rows} == {1}
    # the summary in thousandths of a point per game is the mean of those rows (pairs of equal size)
    assert s["meq_per_game"]["mean"] == pytest.approx(1000 * points.mean(), abs=1e-9)
    assert s["gammon_rate"] == pytest.approx(np.mean(result == 2))


def test_play_models_bad_input(tmp_path, small_ckpt):
    corrupt = tmp_path / "bad.pt"
    corrupt.write_bytes(b"\x00" * 100)
    cases = [
        (["--model1", tmp_path / "missing.pt", "--gnubg-nn"], "no such checkpoint"),
        (["--model1", corrupt, "--gnubg-nn"], "not a readable checkpoint"),
        (["--model1", "stockfish", "--gnubg-nn"], "unknown opponent"),
        (["--model1", "random", "--model2", "random", "--games", "0"], "at least 1"),
        (["--model1", "random", "--model2", "random", "--games", "-5"], "at least 1"),
        (
            ["--model1", small_ckpt, "--gnubg-nn", "--game-mode", "cubeful-money"],
            "cannot be used for cubeful-money",
        ),
        (["--model1", "random"], "--model2"),
    ]
    for args, words in cases:
        assert_one_line_error(run("play_models.py", *args, "--quiet"), words)


def test_cubeful_against_gnubg_nn_is_refused(tmp_path):
    m = TDNetwork(200, [8], "equity")
    path = tmp_path / "cf.pt"
    save_checkpoint(str(path), m, new_metadata(m, "cubeful-money"))
    assert_one_line_error(
        run("play_models.py", "--model1", path, "--gnubg-nn", "--quiet"), "gnubg-ext"
    )


def test_describe_model(small_ckpt):
    proc = run("tools/describe_model.py", small_ckpt, check=True)
    for words in (
        "[24]",
        "parameters",
        "tesauro196",
        "probability",
        "dmp",
        "1,500",
        "md5",
        "train_batch.py",
    ):
        assert words in proc.stdout
    assert_one_line_error(
        run("tools/describe_model.py", small_ckpt + ".nope"), "no such checkpoint"
    )


def test_describe_names_the_md5_of_the_bytes_it_described(tmp_path, monkeypatch):
    """A checkpoint replaced just after describe_model read it (the --save file of a running
    training, saved again): the md5 printed is of the bytes described, whose architecture
    it shows, not of the file that replaced them."""
    import hashlib

    import tools.describe_model as tool

    path = tmp_path / "x.pt"
    save_checkpoint(
        str(path),
        TDNetwork(196, [8], "probability"),
        new_metadata(TDNetwork(196, [8], "probability"), "dmp"),
    )
    described = hashlib.md5(path.read_bytes()).hexdigest()
    real = tool.load_checkpoint

    def load_then_replace(p, *args, **kwargs):
        loaded = real(p, *args, **kwargs)
        wider = TDNetwork(196, [16], "probability")
        save_checkpoint(str(path), wider, new_metadata(wider, "dmp"))
        return loaded

    monkeypatch.setattr(tool, "load_checkpoint", load_then_replace)
    d = tool.describe(str(path))
    assert d["md5"] == described and d["hidden"] == [8]
    assert hashlib.md5(path.read_bytes()).hexdigest() != described  # it was replaced


def test_cubeful_self_play_reports_cube_actions(tmp_path):
    torch.manual_seed(0)
    m = TDNetwork(200, [8], "equity")
    path = tmp_path / "cf.pt"
    save_checkpoint(str(path), m, new_metadata(m, "cubeful-money"))
    out = tmp_path / "o.json"
    proc = run(
        "play_models.py",
        "--model1",
        path,
        "--model2",
        path,
        "--games",
        "20",
        "--quiet",
        "--json",
        out,
        "--save-games",
        tmp_path / "g",
        check=True,
    )
    s = json.loads(out.read_text())
    assert s["game_mode"] == "cubeful-money" and "capped_meq_per_game" in s
    assert "capped +-128" in proc.stdout
    # every double is answered by the other side: a's doubles = b's takes + b's drops
    d, t, p = s["doubles_per_game"], s["takes_per_game"], s["drops_per_game"]
    assert np.isclose(d["a"], t["b"] + p["b"]) and np.isclose(d["b"], t["a"] + p["a"])
    assert d["a"] + d["b"] > 0
    from tdbg.play.matfile import read_mat

    games = [g for f in sorted((tmp_path / "g").iterdir()) for g in read_mat(str(f))]
    assert len(games) == 20


def test_quick_eval_of_a_cubeful_net_plays_the_cube_against_gnubg_nn_cubeful():
    """Against gnubg-nn-cubeful a cubeful stage's quick check is cubeful money, its result the
    games' mean points capped at +-128; against the cubeless reference agents it stays
    cubeless money (the cube centred)."""
    torch.manual_seed(3)
    net = TDNetwork(200, [8], "equity")  # untrained: it doubles freely, so cubes are turned
    cubeful = game_mode("cubeful-money")
    assert quick_eval_game(cubeful, "gnubg-nn")[0].name == "cubeless-money"
    assert quick_eval_game(game_mode("match"), "pubeval")[0].name == "dmp"
    play_mode, reference = quick_eval_game(cubeful, "gnubg-nn-cubeful", seed=5)
    assert play_mode == cubeful and reference.cube_capable
    records = play_games(TDAgent(net, cubeful), reference, range(12), cubeful, seed=5)
    points = np.array([r.points for r in records])
    assert max(r.cube for r in records) > 1 and sum(sum(r.doubles) for r in records) > 0
    opp, mean, low, high = quick_eval(net, cubeful, 12, 5, "gnubg-nn-cubeful")
    assert opp == "gnubg-nn-cubeful" and low <= mean <= high
    assert mean == pytest.approx(np.clip(points, -128, 128).mean())
