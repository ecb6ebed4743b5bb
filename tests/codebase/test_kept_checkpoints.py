"""The clone stops growing by snapshots: no checkpoint is tracked outside best_models/ but the
stage ends experiments/kept_checkpoints.txt lists, and --save-every's mid-stage snapshots under
experiments/ are ignored by git."""

from __future__ import annotations

import os
import subprocess

import pytest

from helpers import ROOT

KEPT = os.path.join(ROOT, "experiments", "kept_checkpoints.txt")


def git(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)


def tracked_checkpoints() -> set[str]:
    proc = git("ls-files", "-z", "--", "*.pt")
    if proc.returncode != 0:
        pytest.skip("not a git checkout: no tracked files to check")
    return {p for p in proc.stdout.split("\0") if p}


def kept() -> set[str]:
    with open(KEPT) as fh:
        return {ln.strip() for ln in fh if ln.strip() and not ln.startswith("#")}


def test_no_checkpoint_is_tracked_outside_best_models_and_the_kept_list():
    extra = {p for p in tracked_checkpoints() if not p.startswith("best_models/")} - kept()
    assert not extra, (
        "checkpoints tracked that experiments/kept_checkpoints.txt does not list (a stage end: "
        f"add it there; a mid-stage snapshot: leave it untracked): {sorted(extra)}"
    )


def test_the_kept_list_names_only_tracked_checkpoints_under_experiments():
    listed = kept()
    assert all(p.startswith("experiments/") and p.endswith(".pt") for p in listed), sorted(listed)
    assert not listed - tracked_checkpoints(), sorted(listed - tracked_checkpoints())


@pytest.mark.parametrize(
    "path, ignored",
    [
        (
            "experiments/retraining/dmp/s1_128x2_r000500.pt",
            True,
        ),  # a mid-stage snapshot, any folder
        ("experiments/new_lineage/deep/x_r123456.pt", True),
        ("experiments/retraining/dmp/s1_128x2.pt", False),  # a stage end is committed
        ("experiments/retraining/dmp/s1_128x2_r5.pt", False),  # not --save-every's six digits
    ],
)
def test_mid_stage_snapshots_under_experiments_are_ignored(path, ignored):
    proc = git("check-ignore", "--no-index", "-q", path)
    if proc.returncode not in (0, 1):
        pytest.skip("not a git checkout")
    assert (proc.returncode == 0) == ignored, path
