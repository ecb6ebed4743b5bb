"""The per-decision benchmark: its scoring rules by hand, a tiny generated set checked
against gnubg-nn's own move lists and 1-ply values and against tools/rollout.py's
rollouts of the same position and dice, resuming, the time budget, and bad input."""

import json
import os

import numpy as np
import pytest

from helpers import assert_one_line_error, run
from tdbg.game import backgammon_engine as be
from tdbg.infra.errors import InputError
from tdbg.play import decisions as ds

gnubg_nn = pytest.importorskip("gnubg_nn")

MAKE = "experiments/benchmarks/decisions/make_decisions.py"
ERROR = "experiments/benchmarks/decision_error.py"


def _decision(cls="contact"):
    """A hand-made decision: three rolled-out candidates and two other legal moves."""
    cands = [
        {"move": m, "after_id": a, "equity": e, "se": 0.001, "diff": 0.0, "diff_se": 0.0, "ply1": p}
        for m, a, e, p in (("a", "A", 0.10, 0.12), ("b", "B", 0.05, 0.11), ("c", "C", -0.02, 0.07))
    ]
    return {
        "position_id": "4HPwATDgc/ABMA",
        "dice": [3, 1],
        "class": cls,
        "candidates": cands,
        "others": [["d", "D", 0.01], ["e", "E", -0.30]],
    }


def test_loss_rules_by_hand():
    d = _decision()
    assert ds.loss(d, "A") == (0.0, "best")
    assert ds.loss(d, "C") == pytest.approx((0.12, "candidate"))
    # outside: 1-ply 0.01 shifted by the mean rollout-minus-1-ply offset of the candidates,
    # ((0.10-0.12) + (0.05-0.11) + (-0.02-0.07)) / 3 = -0.05667, so it loses 0.10 - (0.01 - 0.05667)
    lost, where = ds.loss(d, "D")
    assert where == "outside" and lost == pytest.approx(0.10 - (0.01 - 0.17 / 3))
    with pytest.raises(InputError, match="not a legal move"):
        ds.loss(d, "Z")


def test_evaluate_best_is_zero_and_worst_is_the_mean_gap():
    found = [_decision("contact"), _decision("race"), _decision("race")]
    found[1]["candidates"][2]["equity"] = -0.20
    best = ds.evaluate(found, ["A"] * 3, n_boot=200)
    assert (
        best["overall"]["meq"] == 0.0
        and best["overall"]["ci"] == [0.0, 0.0]
        and best["overall"]["best"] == 1.0
    )
    worst = ds.evaluate(found, ["C"] * 3, n_boot=200)
    assert worst["overall"]["meq"] == pytest.approx(1000 * (0.12 + 0.30 + 0.12) / 3, abs=0.01)
    assert worst["by_class"]["race"]["meq"] == pytest.approx(210.0, abs=0.01)
    assert worst["by_class"]["crashed"] == {"decisions": 0}
    low, high = worst["overall"]["ci"]
    assert 120 <= low <= worst["overall"]["meq"] <= high <= 300
    vs = ds.paired(found, ["A", "C", "B"], ["C", "C", "C"], n_boot=200)
    assert vs["overall"]["meq_diff"] == pytest.approx(-1000 * (0.12 + 0 + 0.07) / 3, abs=0.01)
    assert (
        vs["overall"]["differ"] == pytest.approx(2 / 3, abs=1e-4)
        and vs["by_class"]["contact"]["differ"] == 1.0
    )


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """Two decisions (one contact, one race), 36 trials truncated at 2 plies."""
    folder = tmp_path_factory.mktemp("decisions")
    out = folder / "d.json"
    args = [
        MAKE,
        "--out",
        out,
        "--decisions",
        2,
        "--mix",
        "contact=1,race=1",
        "--trials",
        36,
        "--truncate",
        2,
        "--seed",
        3,
        "--workers",
        1,
        "--quiet",
    ]
    first = run(*args, check=True)
    again = run(*args, check=True)  # resumes: nothing left to make
    return out, args, first, again


def test_generated_decisions_against_gnubg_nn(tiny):
    out, _, _, _ = tiny
    data = json.loads(out.read_text())
    prov, found = data["provenance"], data["decisions"]
    assert (
        prov["settings"]["trials"] == 36
        and prov["seed"] == 3
        and "make_decisions.py" in prov["command"]
    )
    assert sorted(d["class"] for d in found) == ["contact", "race"]
    names = {gnubg_nn.c_contact: "contact", gnubg_nn.c_race: "race", gnubg_nn.c_crashed: "crashed"}
    for d in found:
        board = be.board_from_position_id(d["position_id"]).tolist()
        assert names[gnubg_nn.classify(board)] == d["class"]
        # every legal move is there once, by gnubg-nn's own move list (its keys: opponent on roll)
        keys = gnubg_nn.moves(board, *d["dice"])  # its keys: the mover in row 1
        opponent_on_roll = [
            [list(r) for r in gnubg_nn.board_from_position_key(k)][::-1] for k in keys
        ]
        theirs = {gnubg_nn.position_id(b) for b in opponent_on_roll}
        ours = [c["after_id"] for c in d["candidates"]] + [o[1] for o in d["others"]]
        assert len(ours) == len(set(ours)) and set(ours) == theirs
        # the candidates are the top 5 by gnubg-nn 1-ply within 0.08 of the best
        ply1 = {}
        for opp in opponent_on_roll:
            p = gnubg_nn.probabilities(opp, 1)
            ply1[gnubg_nn.position_id(opp)] = -(2 * p[0] - 1 + p[1] + p[2] - p[3] - p[4])
        ranked = sorted(ply1, key=lambda a: -ply1[a])
        top = [a for a in ranked[:5] if ply1[a] >= ply1[ranked[0]] - 0.08]
        assert {c["after_id"] for c in d["candidates"]} == set(top)
        for c in d["candidates"]:
            assert c["ply1"] == pytest.approx(ply1[c["after_id"]], abs=1e-9)
        equities = [c["equity"] for c in d["candidates"]]
        assert equities == sorted(equities, reverse=True)


def test_generated_rollouts_equal_tools_rollout(tiny):
    """Same position, dice, seed and settings: tools/rollout.py rolls every legal move out
    to the values the benchmark stored for its candidates, in the same order."""
    out, _, _, _ = tiny
    for d in json.loads(out.read_text())["decisions"]:
        proc = run(
            "tools/rollout.py",
            "gnubg-nn",
            d["position_id"],
            "--dice",
            "".join(map(str, d["dice"])),
            "--trials",
            36,
            "--truncate",
            2,
            "--seed",
            d["rollout_seed"],
            "--game-mode",
            "cubeless-money",
            "--json",
            "--quiet",
            check=True,
        )
        board = be.board_from_position_id(d["position_id"])
        rows = {
            ds.after_id(be.apply_move(board, [tuple(s) for s in r["move"]])): r
            for r in json.loads(proc.stdout)["moves"]
        }
        for c in d["candidates"]:
            assert rows[c["after_id"]]["value_adjusted"] == pytest.approx(c["equity"], abs=1e-12)
            assert rows[c["after_id"]]["se_adjusted"] == pytest.approx(c["se"], abs=1e-12)
        mine = [c["after_id"] for c in d["candidates"]]
        assert sorted(mine, key=lambda a: -rows[a]["value_adjusted"]) == mine


def test_resume_makes_nothing_twice(tiny):
    _, _, first, again = tiny
    assert json.loads(first.stdout.splitlines()[-1])["done"] == 1
    last = json.loads(again.stdout.splitlines()[-1])
    assert last["done"] == 0 and last["skipped"] == 1 and last["decisions"] == 2


def test_decision_error_command(tiny):
    out, _, _, _ = tiny
    found = ds.load(str(out))[1]
    proc = run(ERROR, "gnubg-nn", "--ply", 1, "--data", out, check=True)
    result = json.loads(proc.stdout.splitlines()[-1])
    # gnubg-nn 1-ply picks the 1-ply best move, a candidate: it loses that candidate's gap
    want = np.mean([max(d["candidates"], key=lambda c: c["ply1"])["diff"] for d in found])
    assert result["overall"]["meq"] == pytest.approx(-1000 * want, abs=0.01)
    assert result["overall"]["outside"] == 0.0 and result["overall"]["decisions"] == 2
    proc = run(ERROR, "pubeval", "--data", out, check=True)
    result = json.loads(proc.stdout.splitlines()[-1])
    assert (
        result["model"] == "pubeval"
        and result["overall"]["decisions"] == 2
        and result["overall"]["meq"] >= 0
    )


def test_time_budget_keeps_nothing_half_done(tmp_path):
    out = tmp_path / "d.json"
    proc = run(
        MAKE,
        "--out",
        out,
        "--decisions",
        1,
        "--mix",
        "contact=1",
        "--trials",
        36,
        "--truncate",
        2,
        "--time-budget",
        0.01,
        "--quiet",
        check=True,
    )
    last = json.loads(proc.stdout.splitlines()[-1])
    assert last["dropped"] == 1 and last["decisions"] == 0
    assert os.listdir(tmp_path / "d_chunks") == []


@pytest.mark.parametrize(
    "args,words",
    [
        ([MAKE, "--out", "x.json", "--mix", "contact=1,bearoff=2"], "class mix"),
        ([MAKE, "--out", "x.json", "--mix", "contact"], "--mix"),
        ([MAKE, "--out", "x.json", "--trials", 0], "--trials"),
        ([MAKE, "--out", "best_models/dmp_128x2.pt"], "checkpoint"),
        (
            [ERROR, "pubeval", "--ply", 1, "--data", "experiments/benchmarks/decisions/pilot.json"],
            "pubeval",
        ),
        (
            [ERROR, "no_such.pt", "--data", "experiments/benchmarks/decisions/pilot.json"],
            "no such checkpoint",
        ),
        ([ERROR, "gnubg-nn", "--data", "no_such.json"], "no_such.json"),
        ([ERROR, "gnubg-nn", "--data", "best_models/README.md"], "not a decision file"),
    ],
)
def test_bad_input(args, words):
    assert_one_line_error(run(*args), words)


def test_other_settings_in_the_chunk_folder(tiny, tmp_path):
    out, args, _, _ = tiny
    proc = run(*[a if a != 36 else 72 for a in args])
    assert_one_line_error(proc, "other settings")
