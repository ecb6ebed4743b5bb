"""--resume says in one line what it will do, needs --new-stage to leave an unfinished
stage, and an interrupted online run resumes without replaying any game."""
import csv
import json
import os
import signal
import subprocess
import sys
import time

import pytest
import torch

from helpers import HANG_GUARD, ROOT, assert_one_line_error, md5, run
from tdbg.net.model import load_checkpoint, save_checkpoint

QUICK = ["--hidden", "8", "--episodes-per-round", "20", "--parallel-games", "8", "--quiet"]


@pytest.fixture()
def unfinished(tmp_path):
    """A checkpoint whose stage stopped at 40 of 60 episodes."""
    path = tmp_path / "u.pt"
    run("train_batch.py", "--num-episodes", "40", "--save", path, *QUICK, check=True)
    model, meta, ts = load_checkpoint(str(path))
    ts["stage"]["settings"]["num_episodes"] = 60
    save_checkpoint(str(path), model, meta, ts)
    return path


def _notes(proc):
    return [ln for ln in proc.stderr.splitlines() if "stage" in ln]


def test_other_settings_need_new_stage(unfinished):
    before = md5(unfinished)
    proc = run("train_batch.py", "--resume", unfinished, "--save", unfinished, "--num-episodes", "100", *QUICK)
    assert_one_line_error(proc, "num-episodes 60 -> 100")
    assert "--new-stage" in proc.stderr and md5(unfinished) == before
    proc = run("train_batch.py", "--resume", unfinished, "--save", unfinished, "--num-episodes", "20", "--new-stage",
               *QUICK, check=True)
    assert len(_notes(proc)) == 1 and "starting a new stage" in _notes(proc)[0]
    _, meta, ts = load_checkpoint(str(unfinished))
    assert len(meta["lineage"]) == 2 and meta["episodes"] == 60 and ts["stage"]["episodes_done"] == 20


def test_same_settings_continue(unfinished):
    proc = run("train_batch.py", "--resume", unfinished, "--save", unfinished, "--num-episodes", "60", *QUICK,
               check=True)
    assert len(_notes(proc)) == 1 and "continuing its unfinished stage at 40 of 60" in _notes(proc)[0]
    _, meta, ts = load_checkpoint(str(unfinished))
    assert len(meta["lineage"]) == 1 and meta["episodes"] == 60 and ts["stage"]["episodes_done"] == 60


def test_lower_episode_count_ends_the_stage_early(unfinished):
    """--num-episodes at or below what the stage has done ends it there: no game is played,
    the weights stay, and the stage then reads as finished (its planned count kept), so
    run_stage.sh goes on to the next stage."""
    model_before, _, _ = load_checkpoint(str(unfinished))
    before = md5(unfinished)
    # a lower count with other settings still needs --new-stage
    proc = run("train_batch.py", "--resume", unfinished, "--save", unfinished, "--num-episodes", "40", "--lr", "1e-4",
               *QUICK)
    assert_one_line_error(proc, "--new-stage")
    assert md5(unfinished) == before
    proc = run("train_batch.py", "--resume", unfinished, "--save", unfinished, "--num-episodes", "40", *QUICK,
               check=True)
    assert len(_notes(proc)) == 1 and "ending its unfinished stage at 40 of 60" in _notes(proc)[0]
    summary = json.loads(proc.stdout.strip().splitlines()[-1])  # strict JSON: no NaN for the loss of no round
    assert summary["episodes"] == 40 and summary["loss"] is None
    model, meta, ts = load_checkpoint(str(unfinished))
    assert meta["episodes"] == 40 and ts["stage"]["episodes_done"] == 40
    assert ts["stage"]["settings"]["num_episodes"] == 40 and ts["stage"]["settings"]["planned_episodes"] == 60
    assert meta["lineage"][-1]["stage"]["num_episodes"] == 40
    for (k, va), vb in zip(model_before.state_dict().items(), model.state_dict().values()):
        assert torch.equal(va, vb), k


def test_online_sigterm_saves_weights_and_counts_that_agree(tmp_path):
    """Interrupted and resumed, the run ends with the very weights of an uninterrupted one:
    no game was replayed and none was lost."""
    args = ["--hidden", "8", "--num-episodes", "40", "--log-every", "10", "--seed", "3", "--quiet"]
    whole, cut = tmp_path / "whole.pt", tmp_path / "cut.pt"
    run("train_online.py", *args, "--save", whole, check=True)
    proc = subprocess.Popen([sys.executable, os.path.join(ROOT, "train_online.py"), *args, "--save", str(cut)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + HANG_GUARD
    while not cut.exists() and time.time() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=HANG_GUARD)
    if proc.returncode == 0:
        pytest.skip("the run finished before the signal arrived")
    assert proc.returncode == 143   # 128 + SIGTERM
    _, _, ts = load_checkpoint(str(cut))
    assert 0 < ts["stage"]["episodes_done"] < 40
    run("train_online.py", *args, "--resume", cut, "--save", cut, check=True)
    a, meta_a, _ = load_checkpoint(str(whole))
    b, meta_b, _ = load_checkpoint(str(cut))
    assert meta_b["episodes"] == meta_a["episodes"] == 40
    for (k, va), vb in zip(a.state_dict().items(), b.state_dict().values()):
        assert torch.equal(va, vb), k
    episodes = [int(r["episodes"]) for r in csv.DictReader(open(tmp_path / "cut.csv"))]
    assert episodes == sorted(set(episodes)) and episodes[-1] == 40
