"""A short training stage's fingerprint, pinned: the first rounds of train_batch.py and a
block of train_online.py from a fixed seed give the same games (samples, gammons) and the
same losses as when the training side was reshaped (issue 45: learner protocol, settings
sent whole to the workers, engine/backend words).  The discrete numbers are exact; the
losses allow float rounding of other CPUs."""

import csv

import pytest

from helpers import run

BATCH = [(1208, 0.00517801, "0.3"), (1051, 0.00482854, "0.25"), (1071, 0.00474695, "0")]


@pytest.mark.parametrize("workers", ["1", "2"])
def test_batch_stage_fingerprint(tmp_path, workers):
    save = tmp_path / "a.pt"
    run(
        "train_batch.py",
        "--hidden",
        "8",
        "--num-episodes",
        "60",
        "--episodes-per-round",
        "20",
        "--parallel-games",
        "8",
        "--seed",
        "3",
        "--workers",
        workers,
        "--lr",
        "1e-3",  # the pinned run's LR
        "--save",
        save,
        "--quiet",
        check=True,
    )
    rows = list(csv.DictReader(open(tmp_path / "a.csv")))
    if workers == "1":
        assert [(int(r["samples"]), r["gammon_rate"]) for r in rows] == [
            (s, g) for s, _, g in BATCH
        ]
        assert [float(r["loss"]) for r in rows] == pytest.approx(
            [loss for _, loss, _ in BATCH], rel=1e-4
        )
    else:  # each worker's share has its own seed: other games, as before
        assert [int(r["samples"]) for r in rows] == [1195, 1115, 1024]


def test_online_stage_fingerprint(tmp_path):
    save = tmp_path / "d.pt"
    run(
        "train_online.py",
        "--hidden",
        "8",
        "--num-episodes",
        "20",
        "--seed",
        "3",
        "--save",
        save,
        "--quiet",
        check=True,
    )
    rows = list(csv.DictReader(open(tmp_path / "d.csv")))
    assert [(r["episodes"], r["mean_plies"]) for r in rows] == [("20", "50.85")]
    assert float(rows[0]["loss"]) == pytest.approx(0.004701, rel=1e-4)
