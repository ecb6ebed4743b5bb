"""train_batch.py end to end: bad input, resume, interruption, the warm-start chain."""

import csv
import os
import signal
import subprocess
import sys
import time

import pytest
import torch

from helpers import HANG_GUARD, ROOT, assert_one_line_error, md5, run
from tdbg.net.model import load_checkpoint

QUICK = ["--episodes-per-round", "50", "--quiet", "--parallel-games", "16"]


@pytest.fixture(scope="module")
def dmp_ckpt(tmp_path_factory):
    d = tmp_path_factory.mktemp("dmp")
    path = d / "dmp.pt"
    run(
        "train_batch.py",
        "--hidden",
        "16",
        "--num-episodes",
        "100",
        "--save",
        path,
        *QUICK,
        check=True,
    )
    return str(path)


def test_bad_inputs_one_line_exit_2(tmp_path, dmp_ckpt):
    keep = tmp_path / "keep.pt"
    keep.write_bytes(open(dmp_ckpt, "rb").read())
    before = md5(keep)
    trunc = tmp_path / "trunc.pt"
    trunc.write_bytes(open(dmp_ckpt, "rb").read()[:300])
    junk = tmp_path / "junk.pt"
    junk.write_text("hello")
    cases = [
        (["--resume", trunc], "not a readable checkpoint"),
        (["--resume", junk], "not a readable checkpoint"),
        (["--resume", tmp_path / "nope.pt"], "no such checkpoint"),
        (
            ["--resume", dmp_ckpt, "--game-mode", "cubeful-money"],
            "cannot be used for cubeful-money",
        ),
        (["--warm-start-cubeful", dmp_ckpt], "warm-start-equity"),
        (["--hidden", "0"], "hidden"),
        (["--hidden", "abc"], "hidden"),
        (["--resume", dmp_ckpt, "--expand", "8"], "narrow"),
        (["--resume", dmp_ckpt, "--expand", "16,1"], "at least 2 units"),
        (["--num-episodes", "0"], "at least 1"),
        (["--lr", "-1"], "positive"),
        (["--resume", dmp_ckpt, "--warm-start-equity", dmp_ckpt], "only one"),
        (["--scoring", "sparse"], "invalid choice"),
        (["--filter-warmup", "20"], "add --oneply-filter"),  # it was ignored without a word
        # refused before the first round, not at the first quick check
        (["--eval-every", "1", "--eval-opponent", "gnubg-nn-cubeful"], "plays cubeful money only"),
    ]
    for extra, words in cases:
        # --overwrite: even when allowed to replace it, a failed run leaves the file alone
        proc = run("train_batch.py", *extra, "--save", keep, "--overwrite", *QUICK)
        assert_one_line_error(proc, words)
        assert md5(keep) == before, extra
    # an existing file is never replaced without --overwrite
    proc = run("train_batch.py", "--hidden", "8", "--num-episodes", "50", "--save", keep, *QUICK)
    assert_one_line_error(proc, "exists")
    assert md5(keep) == before


def test_resume_continues_count_and_schedule(tmp_path, dmp_ckpt):
    path = tmp_path / "r.pt"
    args = [
        "--hidden",
        "16",
        "--num-episodes",
        "400",
        "--lr",
        "1e-3",
        "--end-lr",
        "1e-4",
        "--save",
        path,
        *QUICK,
    ]
    proc = subprocess.Popen(
        [
            sys.executable,
            os.path.join(ROOT, "train_batch.py"),
            *map(str, args),
            "--episodes-per-round",
            "20",
            "--parallel-games",
            "4",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.time() + HANG_GUARD
    while not path.exists() and time.time() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=HANG_GUARD)
    _, meta, ts = load_checkpoint(str(path))
    done = ts["stage"]["episodes_done"]
    if proc.returncode == 0:
        pytest.skip("the run finished before the signal arrived")
    assert proc.returncode == 143 and "interrupted" in out + err and 0 < done < 400  # 128 + SIGTERM
    again = run(
        "train_batch.py",
        "--resume",
        path,
        *args[2:],
        "--episodes-per-round",
        "20",
        "--parallel-games",
        "4",
        check=True,
    )
    _, meta, ts = load_checkpoint(str(path))
    assert ts["stage"]["episodes_done"] == 400 and meta["episodes"] == 400
    assert len(meta["lineage"]) == 1
    # both starts of the stage are on record: where each began, the commit, the CPU, the kernel
    first, second = meta["lineage"][0]["segments"]
    assert (first["from_episode"], second["from_episode"]) == (0, done)
    assert first["commit"] == second["commit"] == meta["lineage"][0]["commit"]
    assert "--resume" in second["command"] and "--resume" not in first["command"]
    if os.path.exists("/proc/cpuinfo"):
        assert f": {second['cpu']}\n" in open("/proc/cpuinfo").read()
    said = {"AMX-BF16 tiles": "bf16-amx", "vdpbf16ps": "bf16", "float32 C fallback": "fp32-c"}
    want = next((k for line, k in said.items() if line in again.stderr), "torch-fp32")
    assert first["collect_kernel"] == second["collect_kernel"] == want
    rows = list(csv.DictReader(open(tmp_path / "r.csv")))
    assert [int(r["round"]) for r in rows] == list(range(1, len(rows) + 1))
    assert float(rows[-1]["lr"]) == pytest.approx(1e-4)


def test_stop_at_ends_the_run_and_the_same_command_goes_on(tmp_path):
    """--stop-at 40 of a 100-episode stage: exit 0 with the stage unfinished at 40 episodes
    (two rounds logged); the same command without it continues to the end, on the full
    stage's LR schedule, its dice and its minibatch shuffles: the log's losses and the final
    weights equal an uninterrupted run's to the bit."""
    args = [
        "--hidden",
        "8",
        "--num-episodes",
        "100",
        "--lr",
        "1e-3",
        "--end-lr",
        "1e-4",
        "--seed",
        "3",
        "--episodes-per-round",
        "20",
        "--parallel-games",
        "4",
        "--quiet",
    ]
    whole, part = tmp_path / "whole.pt", tmp_path / "part.pt"
    run("train_batch.py", *args, "--save", whole, check=True)
    run("train_batch.py", *args, "--save", part, "--stop-at", "40", check=True)
    _, _, ts = load_checkpoint(str(part))
    assert (ts["stage"]["episodes_done"], ts["stage"]["rounds_done"]) == (40, 2)
    assert len(list(csv.DictReader(open(tmp_path / "part.csv")))) == 2
    run("train_batch.py", "--resume", part, "--save", part, *args, check=True)
    _, meta, ts = load_checkpoint(str(part))
    assert ts["stage"]["episodes_done"] == 100 and len(meta["lineage"]) == 1
    rows = list(csv.DictReader(open(tmp_path / "part.csv")))
    full = list(csv.DictReader(open(tmp_path / "whole.csv")))
    assert [(r["stage_episodes"], r["lr"]) for r in rows] == [
        (r["stage_episodes"], r["lr"]) for r in full
    ]
    assert (
        rows[2]["samples"] == full[2]["samples"]
    )  # the first round after the stop plays the same games
    assert [(r["samples"], r["loss"]) for r in rows] == [(r["samples"], r["loss"]) for r in full]
    a, b = load_checkpoint(str(whole))[0].state_dict(), load_checkpoint(str(part))[0].state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_an_overlapped_stage_stopped_and_continued_equals_one_run_through(tmp_path, workers):
    """With --overlap the round after a stop was collected on the weights before the last
    round's training; the checkpoint keeps them, so the continued stage plays the same games
    and ends with the same weights to the bit (it used to collect that round on newer ones).
    One worker runs in a process of its own then."""
    args = [
        "--hidden",
        "8",
        "--num-episodes",
        "80",
        "--lr",
        "1e-3",
        "--seed",
        "5",
        "--episodes-per-round",
        "20",
        "--parallel-games",
        "4",
        "--workers",
        workers,
        "--overlap",
        "--quiet",
    ]
    whole, part = tmp_path / "whole.pt", tmp_path / "part.pt"
    run("train_batch.py", *args, "--save", whole, check=True)
    run("train_batch.py", *args, "--save", part, "--stop-at", "40", check=True)
    _, _, ts = load_checkpoint(str(part))
    assert ts["stage"]["settings"]["overlap"] is True  # recorded: a continued stage needs it too
    assert ts["stage"]["episodes_done"] == 40 and set(ts["overlap_weights"]["model"]) == set(
        load_checkpoint(str(part))[0].state_dict()
    )
    other_lr = [a if a != "1e-3" else "2e-3" for a in args]
    assert_one_line_error(
        run("train_batch.py", "--resume", part, "--save", part, *other_lr), "lr 0.001 -> 0.002"
    )
    # --overlap left out: the continued stage takes it from its record, as every setting not given
    without = [a for a in args if a != "--overlap"]
    run("train_batch.py", "--resume", part, "--save", part, *without, check=True)
    rows = list(csv.DictReader(open(tmp_path / "part.csv")))
    full = list(csv.DictReader(open(tmp_path / "whole.csv")))
    assert [(r["samples"], r["loss"]) for r in rows] == [(r["samples"], r["loss"]) for r in full]
    a, b = load_checkpoint(str(whole))[0].state_dict(), load_checkpoint(str(part))[0].state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert (
        "overlap_weights" not in load_checkpoint(str(part))[2]
    )  # the stage ended: nothing was pending


def test_resume_of_finished_stage_starts_a_new_one(tmp_path, dmp_ckpt):
    path = tmp_path / "next.pt"
    run(
        "train_batch.py",
        "--resume",
        dmp_ckpt,
        "--oneply",
        "--num-episodes",
        "20",
        "--save",
        path,
        *QUICK,
        check=True,
    )
    _, meta, ts = load_checkpoint(str(path))
    assert meta["episodes"] == 120 and len(meta["lineage"]) == 2
    assert meta["lineage"][1]["stage"]["oneply"] is True and meta["lineage"][1]["episodes"] == 20


@pytest.mark.slow
def test_warm_start_chain_and_cubeful_cube_actions(tmp_path):
    """DMP -> cubeless (warm-start-equity) -> cubeful (warm-start-cubeful, with expansion):
    the cubeful run offers doubles and sees both takes and drops."""
    dmp, cubeless, cubeful = tmp_path / "dmp.pt", tmp_path / "cl.pt", tmp_path / "cf.pt"
    common = [
        "--episodes-per-round",
        "100",
        "--quiet",
        "--seed",
        "1",
        "--lr",
        "1e-3",
    ]  # a quick chain: a fast LR
    run(
        "train_batch.py",
        "--hidden",
        "32",
        "--num-episodes",
        "1500",
        "--save",
        dmp,
        *common,
        check=True,
    )
    run(
        "train_batch.py",
        "--warm-start-equity",
        dmp,
        "--num-episodes",
        "1000",
        "--save",
        cubeless,
        *common,
        check=True,
    )
    run(
        "train_batch.py",
        "--warm-start-cubeful",
        cubeless,
        "--expand",
        "48",
        "--warmup-cycles",
        "2",
        "--num-episodes",
        "400",
        "--save",
        cubeful,
        *common,
        check=True,
    )
    model, meta, _ = load_checkpoint(str(cubeful))
    assert model.n_inputs == 200 and model.hidden == [48] and meta["game_mode"] == "cubeful-money"
    assert len(meta["lineage"]) == 3 and meta["episodes"] == 2900
    rows = list(csv.DictReader(open(tmp_path / "cf.csv")))
    totals = {k: sum(int(r[k]) for r in rows) for k in ("doubles", "takes", "drops")}
    assert all(v > 0 for v in totals.values()), totals
    assert totals["takes"] + totals["drops"] == totals["doubles"]


def test_cuda_request_without_cuda(tmp_path):
    import torch

    if torch.cuda.is_available():
        pytest.skip("a CUDA device is present")
    proc = run("train_batch.py", "--device", "cuda", "--save", tmp_path / "x.pt", *QUICK)
    assert_one_line_error(proc, "cuda")
    assert not (tmp_path / "x.pt").exists()


def test_run_stage_script_skips_finished_stages(tmp_path):
    script = os.path.join(ROOT, "experiments", "retraining", "run_stage.sh")
    env = dict(os.environ, PY=sys.executable)
    out = tmp_path / "s.pt"
    args = [
        script,
        "train_batch.py",
        str(out),
        "-",
        "--hidden",
        "8",
        "--num-episodes",
        "40",
        *QUICK,
    ]
    first = subprocess.run(args, capture_output=True, text=True, env=env, timeout=HANG_GUARD)
    assert first.returncode == 0, first.stderr
    again = subprocess.run(args, capture_output=True, text=True, env=env, timeout=HANG_GUARD)
    assert again.returncode == 0 and "stage finished" in again.stdout
    nxt = tmp_path / "t.pt"
    third = subprocess.run(
        [script, "train_batch.py", str(nxt), str(out), "--num-episodes", "20", *QUICK],
        capture_output=True,
        text=True,
        env=env,
        timeout=HANG_GUARD,
    )
    assert third.returncode == 0, third.stderr
    _, meta, _ = load_checkpoint(str(nxt))
    assert meta["episodes"] == 60 and len(meta["lineage"]) == 2


def test_run_stage_script_continues_a_match_warm_start(tmp_path):
    """Continuing a stage drops the warm start's flags, --match-head included: the checkpoint
    already holds the head it set (before, big_legs.sh's b3 could not be resumed)."""
    from tdbg.net.model import TDNetwork, new_metadata, save_checkpoint

    script = os.path.join(ROOT, "experiments", "retraining", "run_stage.sh")
    env = dict(os.environ, PY=sys.executable)
    cubeful, out = tmp_path / "c.pt", tmp_path / "m.pt"
    net = TDNetwork(200, [8], "equity")
    save_checkpoint(str(cubeful), net, new_metadata(net, "cubeful-money"))
    args = [
        script,
        "train_batch.py",
        str(out),
        "-",
        "--warm-start-match",
        str(cubeful),
        "--match-head",
        "mwc-outcomes",
        "--game-mode",
        "match",
        *QUICK,
        "--episodes-per-round",  # rounds of 20: the 20 episodes done are a whole round of 40
        "20",
    ]
    first = subprocess.run(
        args + ["--num-episodes", "20"], capture_output=True, text=True, env=env, timeout=HANG_GUARD
    )
    assert first.returncode == 0, first.stderr
    model, meta, ts = load_checkpoint(str(out))
    ts["stage"]["settings"]["num_episodes"] = 40  # as if stopped at 20 of 40
    save_checkpoint(str(out), model, meta, ts)
    again = subprocess.run(
        args + ["--num-episodes", "40"], capture_output=True, text=True, env=env, timeout=HANG_GUARD
    )
    assert again.returncode == 0, again.stderr
    assert "continuing" in again.stdout
    _, meta, ts = load_checkpoint(str(out))
    assert ts["stage"]["episodes_done"] == 40 and len(meta["lineage"]) == 1  # one stage, continued


def test_overlap_collects_every_round(tmp_path):
    path = tmp_path / "ov.pt"
    run(
        "train_batch.py",
        "--hidden",
        "8",
        "--num-episodes",
        "150",
        "--episodes-per-round",
        "50",
        "--workers",
        "2",
        "--overlap",
        "--quiet",
        "--save",
        path,
        check=True,
    )
    _, meta, ts = load_checkpoint(str(path))
    assert meta["episodes"] == 150 and ts["stage"]["rounds_done"] == 3
    rows = list(csv.DictReader(open(tmp_path / "ov.csv")))
    assert [int(r["stage_episodes"]) for r in rows] == [50, 100, 150] and all(
        int(r["samples"]) > 0 for r in rows
    )


def test_autos_choice_is_shown_only_when_the_run_starts(tmp_path):
    """`--collect-precision auto` (the default) says why it chose float32; that line came
    before a refusal found after it (an --stop-at past the stage), beside the error line."""
    args = ["--hidden", "8", "--num-episodes", "20", "--episodes-per-round", "20"]
    refused = run("train_batch.py", *args, "--stop-at", "40", "--save", tmp_path / "a.pt")
    assert_one_line_error(refused, "--stop-at 40 is beyond")
    ran = run("train_batch.py", *args, "--save", tmp_path / "a.pt", check=True)
    assert "collect precision fp32 (auto, not bf16: " in ran.stderr
