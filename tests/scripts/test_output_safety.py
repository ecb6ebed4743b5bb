"""The output policy (fileio.check_outputs) in every script: nothing this run did not
create is touched without --overwrite, nothing of another kind ever, and a bad output
path fails with one line before any work."""

import json
import os
import shutil
import stat
import subprocess
import sys

import pytest

from helpers import HANG_GUARD, QUICK_TRAIN, ROOT, assert_one_line_error, md5, run


@pytest.fixture()
def victim(tmp_path, ckpt):
    """A copy of a checkpoint that no command may change."""
    path = tmp_path / "X.pt"
    shutil.copy(ckpt, path)
    return path


def test_no_script_writes_over_a_checkpoint(tmp_path, ckpt, victim):
    before = md5(victim)
    cases = [
        ("tools/export_weights.py", [ckpt, victim]),
        ("tools/export_weights.py", [ckpt, victim, "--overwrite"]),
        (
            "play_models.py",
            ["--model1", "pubeval", "--model2", "random", "--games", "2", "--json", victim],
        ),
        (
            "play_models.py",
            [
                "--model1",
                "pubeval",
                "--model2",
                "random",
                "--games",
                "2",
                "--csv",
                victim,
                "--overwrite",
            ],
        ),
        (
            "play_models.py",
            ["--model1", "pubeval", "--model2", "gnubg-ext", "--games", "2", "--games-csv", victim],
        ),
        (
            "train_batch.py",
            [
                "--hidden",
                "8",
                "--num-episodes",
                "20",
                "--save",
                tmp_path / "n.pt",
                "--log",
                victim,
                *QUICK_TRAIN,
            ],
        ),
        (
            "train_batch.py",
            [
                "--hidden",
                "8",
                "--num-episodes",
                "20",
                "--save",
                tmp_path / "n.pt",
                "--json",
                victim,
                "--overwrite",
                *QUICK_TRAIN,
            ],
        ),
        (
            "train_online.py",
            ["--hidden", "8", "--num-episodes", "2", "--save", tmp_path / "o.pt", "--log", victim],
        ),
        ("gnubg_eval.py", ["--model", ckpt, "--json", victim]),
    ]
    log = tmp_path / "log.csv"
    log.write_text(
        "round,total_episodes,loss,lr,episodes_per_s\n1,20,0.01,0.001,150.0\n"
    )  # a training log's columns
    cases.append(("tools/plot_training.py", [log, "-o", victim, "--overwrite"]))
    for script, args in cases:
        proc = run(script, *args)
        assert_one_line_error(proc, "checkpoint")
        assert md5(victim) == before, (script, args)
    assert not (tmp_path / "n.pt").exists() and not (tmp_path / "o.pt").exists()


def test_existing_files_need_overwrite_and_kind_must_match(tmp_path, ckpt):
    out = tmp_path / "w.bin"
    run("tools/export_weights.py", ckpt, out, check=True)
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o644  # the usual permissions under umask 022
    first = md5(out)
    assert_one_line_error(run("tools/export_weights.py", ckpt, out), "--overwrite")
    run("tools/export_weights.py", ckpt, out, "--overwrite", check=True)
    assert md5(out) == first
    res = tmp_path / "r.json"
    res.write_text("{}\n")
    # a JSON file is not replaced by a CSV, nor a folder by a file
    assert_one_line_error(
        run(
            "play_models.py",
            "--model1",
            "pubeval",
            "--model2",
            "random",
            "--games",
            "2",
            "--csv",
            res,
            "--overwrite",
        ),
        "JSON",
    )
    assert_one_line_error(
        run(
            "play_models.py",
            "--model1",
            "pubeval",
            "--model2",
            "random",
            "--games",
            "2",
            "--json",
            tmp_path,
        ),
        "folder",
    )
    games = tmp_path / "games"
    games.mkdir()
    (games / "game_0000000.mat").write_text("old")
    assert_one_line_error(
        run(
            "play_models.py",
            "--model1",
            "pubeval",
            "--model2",
            "random",
            "--games",
            "2",
            "--save-games",
            games,
        ),
        "--overwrite",
    )
    assert (games / "game_0000000.mat").read_text() == "old"
    # the same path for two outputs, or an output that is the input
    assert_one_line_error(
        run(
            "train_batch.py",
            "--resume",
            ckpt,
            "--save",
            tmp_path / "s.pt",
            "--log",
            ckpt,
            *QUICK_TRAIN,
        ),
        "same file",
    )


def test_a_new_run_never_appends_to_another_runs_log(tmp_path):
    path = tmp_path / "a.pt"
    run(
        "train_batch.py",
        "--hidden",
        "8",
        "--num-episodes",
        "40",
        "--save",
        path,
        *QUICK_TRAIN,
        check=True,
    )
    os.unlink(path)  # a fresh --save whose log is still there
    log_before = md5(tmp_path / "a.csv")
    proc = run(
        "train_batch.py", "--hidden", "8", "--num-episodes", "20", "--save", path, *QUICK_TRAIN
    )
    assert_one_line_error(proc, "a.csv exists")
    assert md5(tmp_path / "a.csv") == log_before and not path.exists()
    run(
        "train_batch.py",
        "--hidden",
        "8",
        "--num-episodes",
        "20",
        "--save",
        path,
        "--overwrite",
        *QUICK_TRAIN,
        check=True,
    )
    rows = open(tmp_path / "a.csv").read().splitlines()
    assert len(rows) == 2 and rows[1].startswith(
        "1,20,20,"
    )  # header and the new run's one round, only
    # resuming the same checkpoint continues its own log
    run(
        "train_batch.py",
        "--resume",
        path,
        "--save",
        path,
        "--num-episodes",
        "20",
        *QUICK_TRAIN,
        check=True,
    )
    assert len(open(tmp_path / "a.csv").read().splitlines()) == 3


def _can_bind_readonly(folder) -> bool:
    probe = subprocess.run(
        [
            "unshare",
            "-rm",
            "sh",
            "-c",
            f'mount --bind "{folder}" "{folder}" && mount -o remount,bind,ro "{folder}" '
            f'&& ! touch "{folder}/probe" 2>/dev/null',
        ],
        capture_output=True,
    )
    return probe.returncode == 0


def _run_readonly(folder, cases):
    """Run each case (script and arguments) with ``folder`` mounted read-only (a private mount
    namespace: nothing leaks): one child for all of them, which runs each script in-process
    (helpers.run); a CompletedProcess per case."""
    driver = (
        "import json, sys\n"
        "from helpers import run\n"  # python -c puts its folder (tests/) first
        "print(json.dumps([(p.returncode, p.stdout, p.stderr) for p in "
        "(run(*c) for c in json.loads(sys.argv[1]))]))\n"
    )
    cmd = " ".join(
        f"'{a}'"
        for a in (
            sys.executable,
            "-c",
            driver.replace("'", '"'),
            json.dumps([[str(a) for a in c] for c in cases]),
        )
    )
    proc = subprocess.run(
        [
            "unshare",
            "-rm",
            "sh",
            "-c",
            f'mount --bind "{folder}" "{folder}" && mount -o remount,bind,ro "{folder}" && '
            f"exec {cmd}",
        ],
        capture_output=True,
        text=True,
        cwd=os.path.join(ROOT, "tests"),
        timeout=HANG_GUARD,
        env=dict(os.environ, TDBG_TEST_SUBPROCESS="0"),
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return [
        subprocess.CompletedProcess(c, code, out, err)
        for c, (code, out, err) in zip(
            cases, json.loads(proc.stdout.strip().splitlines()[-1]), strict=True
        )
    ]


def test_unwritable_outputs_fail_before_any_work(tmp_path, ckpt):
    """Each output in a read-only folder (a read-only bind mount: it stops root too) and
    under a regular file: one line, exit 2, and no games or training first (the counts
    here would take many minutes)."""
    ro = tmp_path / "ro"
    ro.mkdir()
    blocker = tmp_path / "file"
    blocker.write_text("x")
    log = tmp_path / "log.csv"
    log.write_text(
        "round,total_episodes,loss,lr,episodes_per_s\n1,20,0.01,0.001,150.0\n"
    )  # a training log's columns
    play = ["play_models.py", "--model1", "pubeval", "--model2", "random", "--games", "2000000"]
    cases = lambda d: [  # noqa: E731
        [*play, "--json", d / "r.json"],
        [*play, "--csv", d / "r.csv"],
        [*play, "--save-games", d / "games"],
        [
            "play_models.py",
            "--model1",
            "pubeval",
            "--model2",
            "gnubg-ext",
            "--games",
            "100000",
            "--game-mode",
            "cubeless-money",
            "--games-csv",
            d / "g.csv",
        ],
        [
            "train_batch.py",
            "--hidden",
            "8",
            "--num-episodes",
            "10000000",
            "--save",
            tmp_path / "t.pt",
            "--log",
            d / "t.csv",
            *QUICK_TRAIN,
        ],
        [
            "train_batch.py",
            "--hidden",
            "8",
            "--num-episodes",
            "10000000",
            "--save",
            d / "t.pt",
            *QUICK_TRAIN,
        ],
        [
            "train_batch.py",
            "--hidden",
            "8",
            "--num-episodes",
            "10000000",
            "--save",
            tmp_path / "t.pt",
            "--json",
            d / "t.json",
            *QUICK_TRAIN,
        ],
        ["gnubg_eval.py", "--model", ckpt, "--games", "100000", "--out", d / "mats"],
        ["gnubg_eval.py", "--model", ckpt, "--games", "100000", "--json", d / "e.json"],
        ["tools/export_weights.py", ckpt, d / "w.bin"],
        ["tools/plot_training.py", log, "-o", d / "p.png"],
    ]
    for args in cases(blocker / "sub"):
        assert_one_line_error(run(*args), "is a file")
    if not (shutil.which("unshare") and _can_bind_readonly(ro)):
        pytest.skip("cannot make a read-only bind mount here (unshare -rm)")
    for proc in _run_readonly(ro, cases(ro)):
        assert_one_line_error(proc, "cannot write")
    assert not (tmp_path / "t.pt").exists()


def test_limits(tmp_path):
    save = tmp_path / "x.pt"
    for args, words in [
        (["--workers", "100000"], "per core"),
        (["--lr", "inf"], "finite"),
        (["--lr", "nan"], "finite"),
        (["--end-lr", "1e300"], "at most"),
        (["--episodes-per-round", "10000000"], "memory"),
    ]:
        assert_one_line_error(run("train_batch.py", *args, "--save", save), words)
    assert_one_line_error(
        run(
            "play_models.py",
            "--model1",
            "pubeval",
            "--model2",
            "random",
            "--games",
            "1000000000000",
        ),
        "at most",
    )
    assert_one_line_error(run("train_online.py", "--lambda", "nan", "--save", save), "finite")
    assert not save.exists()


def test_nan_loss_stops_and_keeps_the_last_good_checkpoint(tmp_path, ckpt):
    path = tmp_path / "d.pt"
    run(
        "train_batch.py",
        "--game-mode",
        "cubeless-money",
        "--hidden",
        "8",
        "--num-episodes",
        "20",
        "--save",
        path,
        *QUICK_TRAIN,
        check=True,
    )
    before = md5(path)
    # a finished stage: a new one on its weights, with a step size that blows the equity head up
    proc = run(
        "train_batch.py",
        "--resume",
        path,
        "--save",
        path,
        "--optimizer",
        "sgd",
        "--lr",
        "100",
        "--num-episodes",
        "400",
        *QUICK_TRAIN,
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    errors = [ln for ln in proc.stderr.splitlines() if "error:" in ln]
    assert len(errors) == 1 and "keeps the last good weights" in errors[0], proc.stderr
    from tdbg.net.model import load_checkpoint

    _, meta, ts = load_checkpoint(str(path))  # loads: its weights are all finite
    assert ts["stage"]["episodes_done"] < 400
    if "round 1 " in errors[0]:
        assert md5(path) == before


def test_tensorboard_is_optional(tmp_path):
    tb = tmp_path / "tb"
    args = [
        "train_batch.py",
        "--hidden",
        "8",
        "--num-episodes",
        "20",
        "--save",
        tmp_path / "t.pt",
        "--tensorboard",
        tb,
        *QUICK_TRAIN,
    ]
    try:
        import tensorboard  # noqa: F401
    except ImportError:
        assert_one_line_error(run(*args), "tensorboard package")
        assert not (tmp_path / "t.pt").exists()
        return
    run(*args, check=True)
    assert any(name.startswith("events.") for name in os.listdir(tb))


def test_policy_units(tmp_path):
    from tdbg.infra.fileio import Output, OutputError, atomic_write, check_outputs, file_kind

    old = os.umask(0o027)
    try:
        with atomic_write(str(tmp_path / "a.json")) as fh:
            fh.write("{}")
    finally:
        os.umask(old)
    assert (
        stat.S_IMODE(os.stat(tmp_path / "a.json").st_mode) == 0o640
    )  # 0666 less the umask, as open() gives
    assert file_kind(str(tmp_path / "a.json")) == "json"
    (tmp_path / "t.csv").write_text("a,b\n")
    assert file_kind(str(tmp_path / "t.csv")) == "text"
    check_outputs(
        [Output("--csv", str(tmp_path / "t.csv"), "text", own=True)]
    )  # the run's own file
    with pytest.raises(OutputError, match="exists"):
        check_outputs([Output("--csv", str(tmp_path / "t.csv"), "text")])
    with pytest.raises(OutputError, match="same file"):
        check_outputs(
            [
                Output("--json", str(tmp_path / "n.json"), "json"),
                Output("--csv", str(tmp_path / "n.json"), "text"),
            ]
        )
    assert not any(
        n.startswith(".tmp") for n in os.listdir(tmp_path)
    )  # the write probe leaves nothing
