"""experiments/benchmarks/stage_breakdown.py: its accounting by hand arithmetic, and a tiny
real run (hidden [8,8], a few episodes, one worker) whose shares are all there, non-negative
and sum to 1, printed as strict JSON.  No timing thresholds: only what the shares must be
whatever the machine's speed."""

import importlib.util
import json
import os

import pytest

from helpers import ROOT, run
from tdbg.infra import profiling

SCRIPT = "experiments/benchmarks/stage_breakdown.py"
# what the benchmark must name (the training step in its three parts), and its extras
NAMED = (
    "movegen",
    "first_layer",
    "kernel",
    "python_glue",
    "transfer",
    "train_forward",
    "train_backward",
    "train_optimizer",
    "idle",
)
EXTRAS = ("trainer_other", "worker_start_stop")


def bench():
    spec = importlib.util.spec_from_file_location("stage_breakdown", os.path.join(ROOT, SCRIPT))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def strict(text: str) -> dict:
    def no_constant(name):
        raise ValueError(f"not strict JSON: {name}")

    return json.loads(text, parse_constant=no_constant)


def test_shares_by_hand():
    # 10 s wall on 2 cores: 20 core-seconds.  Trainer 6 CPU s: training 1 + 1.5 + 0.5, transfer
    # 0.2, so 2.8 else.  Workers 9 CPU s: collection 7 (C call 2 of which a quarter is move
    # generation, kernel 3, so glue 2), transfer 0.5 + 0.3, so 1.2 start and stop.  Idle 20 - 15.
    run_ = {
        "wall": 10.0,
        "trainer_cpu": 6.0,
        "workers_cpu": 9.0,
        "episodes": 100,
        "kernel": "bf16",
        "counters": {
            "engine": 2.0,
            "kernel": 3.0,
            "collect": 7.0,
            "worker_job_setup": 0.5,
            "worker_between_jobs": 0.3,
            "transfer_trainer": 0.2,
            "train_forward": 1.0,
            "score": 5.5,
            "train_backward": 1.5,
            "train_optimizer": 0.5,
            "kernel_macs": 3e9,
            "kernel_rows": 10,
        },
    }
    out = bench().breakdown(run_, 2, 0.25, 2e9)
    assert out["shares"] == {
        "movegen": 0.025,
        "first_layer": 0.075,
        "kernel": 0.15,
        "python_glue": 0.1,
        "transfer": 0.05,
        "train_forward": 0.05,
        "train_backward": 0.075,
        "train_optimizer": 0.025,
        "trainer_other": 0.14,
        "worker_start_stop": 0.06,
        "idle": 0.25,
    }
    assert out["collection"] == {
        "movegen": round(0.5 / 7, 4),
        "first_layer": round(1.5 / 7, 4),
        "kernel": round(3 / 7, 4),
        "python_glue": round(2 / 7, 4),
    }
    assert out["python_glue_split"] == {
        "in_scorer": round(0.5 / 7, 4),
        "elsewhere": round(1.5 / 7, 4),
    }
    assert out["kernel_gmacs_per_cpu_s"] == 1.0 and out["kernel_fraction_of_peak"] == 0.5
    assert out["episodes_per_s"] == 10.0


def test_in_process_collection_is_not_counted_twice():
    # one worker collects in the trainer's process: its 4 s are collection, not trainer_other
    run_ = {
        "wall": 5.0,
        "trainer_cpu": 5.0,
        "workers_cpu": 0.0,
        "episodes": 1,
        "kernel": "torch-fp32",
        "counters": {
            "engine": 1.0,
            "kernel": 2.0,
            "collect": 4.0,
            "collect_in_trainer": 4.0,
            "train_forward": 0.5,
        },
    }
    shares = bench().breakdown(run_, 1, None, 1e9)["shares"]
    assert shares["movegen"] == 0.2 and shares["first_layer"] == 0.0  # dense: no split
    assert (
        shares["trainer_other"] == 0.1
        and shares["worker_start_stop"] == 0.0
        and shares["idle"] == 0.0
    )


def test_tiny_run(tmp_path):
    proc = run(
        SCRIPT,
        "--hidden",
        "8,8",
        "--workers",
        "1",
        "--episodes",
        "4",
        "--episodes-per-round",
        "2",
        "--oneply-episodes",
        "2",
        "--oneply-episodes-per-round",
        "1",
        "--peak-seconds",
        "0.05",
        "--split-games",
        "2",
        "--parallel-games",
        "4",
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = strict(proc.stdout.strip().splitlines()[-1])
    assert (
        out["kernel_macs_per_row"] == 8 * 8 + 8 * 1
    )  # 8x8 hidden layer, then 8 units into one output
    assert out["hidden"] == [8, 8] and out["workers"] == 1
    for name, episodes in (("zero_ply", 4), ("one_ply", 2)):
        stage = out[name]
        assert stage["episodes"] == episodes and stage["oneply"] == (name == "one_ply")
        shares = stage["shares"]
        assert set(shares) == set(NAMED + EXTRAS)
        assert all(v >= 0 for v in shares.values()), shares
        assert sum(shares.values()) == pytest.approx(1.0, abs=1e-3)  # 11 shares rounded to 4 places
        assert all(v >= 0 for v in stage["collection"].values())
        assert sum(stage["collection"].values()) == pytest.approx(1.0, abs=5e-4)
        glue = stage["python_glue_split"]
        assert min(glue.values()) >= 0 and sum(glue.values()) == pytest.approx(
            stage["collection"]["python_glue"], abs=5e-4
        )
        assert stage["kernel_rows"] > 0 and stage["kernel_fraction_of_peak"] > 0
    assert not profiling.ENABLED  # off again once the script is done (it ran in this process)


def test_nothing_to_run():
    proc = run(SCRIPT, "--episodes", "0", "--oneply-episodes", "0")
    assert proc.returncode == 2 and proc.stderr.strip().splitlines()[-1].startswith(
        "stage_breakdown.py: error: nothing to run"
    )
