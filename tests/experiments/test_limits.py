"""The DMP diagnostics of experiments/limits: gnubg-nn's self-play decisions against
gnubg-nn's own evaluation, and the fitting script's run and refusals."""

import importlib.util
import json
import os

import numpy as np
import pytest

from helpers import ROOT, assert_one_line_error, run
from tdbg.net.model import TDNetwork, load_checkpoint, new_metadata, save_checkpoint


def dmp_decisions(*args):
    """experiments/limits/gnubg_selfplay.py's dmp_decisions, the module loaded from its file."""
    spec = importlib.util.spec_from_file_location(
        "gnubg_selfplay", os.path.join(ROOT, "experiments", "limits", "gnubg_selfplay.py")
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.dmp_decisions(*args)


def test_selfplay_decisions_carry_gnubgs_own_win_chances():
    import gnubg_nn

    seen = 0
    for game, after, win in dmp_decisions(40, np.random.default_rng(3)):
        assert len(after) == len(win) >= 2 and game >= 0
        for board, w in list(zip(after, win, strict=True))[:3]:
            if sum(board[1]) == 0:
                continue  # the mover has borne off: a won game, not evaluated here
            # the opponent on roll in row 1: gnubg-nn's P(win) is theirs, the mover's is 1 - it
            theirs = gnubg_nn.probabilities([list(board[1]), list(board[0])], 0)[0]
            assert abs((1.0 - theirs) - w) < 1e-5
            seen += 1
    assert seen > 50


@pytest.mark.slow
def test_distill_runs_and_refuses_bad_input(tmp_path):
    start = tmp_path / "dmp.pt"
    net = TDNetwork(196, [8], "probability")
    save_checkpoint(str(start), net, new_metadata(net, "dmp"))
    out = tmp_path / "fit.pt"
    proc = run(
        "experiments/limits/distill_from_gnubg.py",
        "--start",
        start,
        "--decisions",
        "1000",
        "--epochs",
        "2",
        "--lr",
        "1e-3",
        "--save",
        out,
        check=True,
    )
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert (
        report["decisions"] == 1000
        and report["train_samples"] > 1000
        and report["held_decisions"] > 0
    )
    # fitted to gnubg's values, an untrained net's error falls
    assert report["after"]["held_mse"] < report["before"]["held_mse"]
    _, meta, _ = load_checkpoint(str(out))
    assert "gnubg-nn" in meta["lineage"][-1]["diagnostic"]
    assert (tmp_path / "fit.csv").read_text().count("\n") == 3  # header and one row per epoch
    assert_one_line_error(
        run("experiments/limits/distill_from_gnubg.py", "--start", start, "--save", out), "exists"
    )
    assert_one_line_error(
        run(
            "experiments/limits/distill_from_gnubg.py",
            "--start",
            start,
            "--decisions",
            "100",
            "--save",
            tmp_path / "few.pt",
        ),
        "at least 1000",
    )
    cubeful = tmp_path / "cubeful.pt"
    net = TDNetwork(200, [8], "equity")
    save_checkpoint(str(cubeful), net, new_metadata(net, "cubeful-money"))
    assert_one_line_error(
        run(
            "experiments/limits/distill_from_gnubg.py",
            "--start",
            cubeful,
            "--save",
            tmp_path / "x.pt",
        ),
        "needs a DMP",
    )


@pytest.mark.slow
def test_distill_with_board_features_and_loss_by_class(tmp_path):
    """--board-features widens the start with zero weights (same choices before fitting); the
    fit's checkpoint reads 216 inputs and records date and commit; loss_by_class splits each
    net's loss by gnubg's position classes."""
    start = tmp_path / "dmp.pt"
    net = TDNetwork(196, [8], "probability")
    save_checkpoint(str(start), net, new_metadata(net, "dmp"))
    out = tmp_path / "fit.pt"
    proc = run(
        "experiments/limits/distill_from_gnubg.py",
        "--start",
        start,
        "--decisions",
        "1000",
        "--epochs",
        "1",
        "--board-features",
        "--save",
        out,
        check=True,
    )
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["board_features"] and report["after"]["held_mse"] < report["before"]["held_mse"]
    model, meta, _ = load_checkpoint(str(out))
    assert model.n_inputs == 216 and meta["encoder"] == "tesauro196+board20"
    assert meta["lineage"][-1]["commit"] and meta["lineage"][-1]["date"]
    proc = run(
        "experiments/limits/loss_by_class.py",
        start,
        start,
        out,
        "--decisions",
        "300",
        "--seed",
        "2",
        check=True,
    )
    rep = json.loads(proc.stdout.strip().splitlines()[-1])
    assert rep["decisions"] == 300 and abs(sum(rep["class_share"].values()) - 1) < 1e-9
    # the start model's row by hand: the same 300 decisions of gnubg-nn's self-play (their
    # P(win)s checked against gnubg_nn.probabilities above), each candidate valued one at a
    # time (the opponent on roll; a mover who bore off has won), classes from gnubg_nn.classify
    import gnubg_nn
    import torch
    from tdbg.game import backgammon_engine as be
    from tdbg.game.encoding import encode

    net, _, _ = load_checkpoint(str(start))
    names = {
        gnubg_nn.c_over: "over",
        gnubg_nn.c_bearoff: "bearoff",
        gnubg_nn.c_race: "race",
        gnubg_nn.c_crashed: "crashed",
        gnubg_nn.c_contact: "contact",
    }
    loss, classes = [], []
    for _, after, win in dmp_decisions(300, np.random.default_rng(2)):
        mine = []
        for a in np.asarray(after, dtype=np.int64):
            with torch.no_grad():
                mine.append(
                    1.0
                    if a[1].sum() == 0
                    else 1.0 - float(net(torch.from_numpy(encode(be.swap(a))[None])))
                )
        loss.append(max(win) - win[int(np.argmax(mine))])
        classes.append(
            names.get(gnubg_nn.classify([list(r) for r in after[int(np.argmax(win))]]), "other")
        )
    loss, classes = np.array(loss), np.array(classes)
    assert rep["class_share"] == pytest.approx(
        {c: float(np.mean(classes == c)) for c in set(classes)}
    )
    a, b = rep["models"][str(start)], rep["models"][str(out)]
    assert a["agreement"] == pytest.approx(np.mean(loss == 0)) and a["mean_loss"] == pytest.approx(
        loss.mean()
    )
    assert (
        0 < a["agreement"] < 1 and a["mean_loss"] > 0
    )  # an untrained net: some agreement, not all
    for c, row in a["by_class"].items():
        assert row["mean_loss"] == pytest.approx(loss[classes == c].mean())
    for r in (a, b):
        assert abs(sum(c["loss_share"] for c in r["by_class"].values()) - 1) < 1e-6
    assert_one_line_error(
        run("experiments/limits/loss_by_class.py", tmp_path / "none.pt"), "no such checkpoint"
    )
