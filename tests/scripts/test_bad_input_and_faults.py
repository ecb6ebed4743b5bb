"""Issue 37, bad input and faults round two: one cause per test (each test fails on the
code before its fix)."""

import io
import os
import shutil
import zipfile

import pytest
import torch

from helpers import QUICK_TRAIN, assert_one_line_error, md5, run, spawned_workers


# --- the output policy -------------------------------------------------------------------


def test_only_sure_kinds_are_recognised(tmp_path):
    """Any zip or pickle other than torch.save's, a binary without a NUL in its first bytes,
    or bytes that are not UTF-8 are of unknown kind (never replaced); UTF-8 text cut inside
    a character at the 64th byte is still text."""
    from tdbg.infra.fileio import file_kind

    def kind(data: bytes) -> str:
        path = tmp_path / "f"
        path.write_bytes(data)
        return file_kind(str(path))

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("word/document.xml", "<x/>")
    assert kind(buf.getvalue()) == "other"
    assert kind(b"\x80\x04\x95" + b"\x01" * 40) == "other"  # a pickle, not torch.save's
    assert kind(bytes(range(128, 256))) == "other"  # not UTF-8, no NUL
    assert kind("\u20ac".encode() * 30) == "text"  # 3-byte characters: the 64th byte cuts one
    for obj, legacy in (({"a": 1}, False), ({"a": 1}, True)):
        buf = io.BytesIO()
        torch.save(obj, buf, _use_new_zipfile_serialization=not legacy)
        assert kind(buf.getvalue()) == "checkpoint", legacy


def test_a_zip_of_unknown_kind_is_never_replaced_by_a_checkpoint(tmp_path):
    victim = tmp_path / "v.pt"
    with zipfile.ZipFile(victim, "w") as zf:
        zf.writestr("notes.txt", "not a checkpoint")
    before = md5(victim)
    proc = run(
        "train_batch.py",
        "--hidden",
        "8",
        "--num-episodes",
        "20",
        "--save",
        victim,
        "--overwrite",
        *QUICK_TRAIN,
    )
    assert_one_line_error(proc, "unknown kind")
    assert md5(victim) == before


def test_resume_itself_exempts_only_the_checkpoint_and_its_log(tmp_path, ckpt):
    own = tmp_path / "X.pt"
    shutil.copy(ckpt, own)
    shutil.copy(os.path.splitext(ckpt)[0] + ".csv", tmp_path / "X.csv")
    other_json, other_log = tmp_path / "other.json", tmp_path / "other.csv"
    other_json.write_text('{"keep": 1}\n')
    other_log.write_text("a,b\n1,2\n")
    before = {p: md5(p) for p in (own, tmp_path / "X.csv", other_json, other_log)}
    base = ["--hidden", "8", "--num-episodes", "60", "--resume", own, "--save", own, *QUICK_TRAIN]
    assert_one_line_error(run("train_batch.py", *base, "--json", other_json), "--overwrite")
    assert_one_line_error(run("train_batch.py", *base, "--log", other_log), "--overwrite")
    for p, h in before.items():
        assert md5(p) == h, p


@pytest.mark.parametrize(
    "flag", ["--warm-start-equity", "--warm-start-cubeful", "--warm-start-match"]
)
def test_a_warm_start_source_is_never_its_own_save(tmp_path, ckpt, flag):
    src = tmp_path / "src.pt"
    shutil.copy(ckpt, src)
    before = md5(src)
    proc = run(
        "train_batch.py",
        flag,
        src,
        "--save",
        src,
        "--overwrite",
        "--num-episodes",
        "20",
        *QUICK_TRAIN,
    )
    assert_one_line_error(proc, "same file")
    assert md5(src) == before


def test_compare_results_keeps_the_policy(tmp_path, ckpt):
    victim = tmp_path / "X.pt"
    shutil.copy(ckpt, victim)
    before = md5(victim)
    csv = tmp_path / "r.csv"
    run(
        "play_models.py",
        "--model1",
        "pubeval",
        "--model2",
        "random",
        "--games",
        "4",
        "--csv",
        csv,
        check=True,
    )
    for extra in ([], ["--overwrite"]):
        assert_one_line_error(
            run("tools/compare_results.py", csv, csv, "--json", victim, *extra), "checkpoint"
        )
        assert md5(victim) == before


def test_a_result_writer_replaces_only_what_the_policy_cleared(tmp_path):
    """The shared writer itself refuses an existing file no check_outputs cleared."""
    from tdbg.infra import fileio
    from tdbg.infra.fileio import Output, OutputError, check_outputs

    old = tmp_path / "old.json"
    old.write_text("{}\n")
    with pytest.raises(OutputError, match="did not check"):
        fileio.write_json(str(old), {"a": 1})
    assert old.read_text() == "{}\n"
    fileio.write_json(str(tmp_path / "new.json"), {"a": 1})  # a new file needs no clearing
    check_outputs([Output("--json", str(old), "json")], overwrite=True)
    fileio.write_json(str(old), {"a": 2})
    assert '"a": 2' in old.read_text()


# --- odd game and match counts -------------------------------------------------------------


def test_a_lone_last_game_counts_as_one_game():
    """2 wins in 3 games is 2/3 (not the 3/4 of pair means 1/2 and 1); with even counts
    the numbers are those of plain pair means, bit for bit."""
    from types import SimpleNamespace

    import numpy as np

    from tdbg.play.evaluation import summarize
    from tdbg.play.matches import summarize_matches
    from tdbg.game.modes import game_mode
    from tdbg.infra.stats import bootstrap_ci, pair_means

    m, lo, hi = bootstrap_ci(pair_means([0, 1, 2], [1, 0, 1]))
    assert m == pytest.approx(2 / 3) and 0 <= lo <= hi <= 1
    assert pair_means([0, 1, 2], [1, 0, 1]).mean() == pytest.approx(2 / 3)
    assert bootstrap_ci(pair_means([0, 1, 2, 3], [1, 0, 1, 1]), seed=4) == bootstrap_ci(
        np.array([0.5, 1.0]), seed=4
    )
    games = [SimpleNamespace(index=i, points=p, result=1) for i, p in enumerate([1.0, -1.0, 1.0])]
    assert summarize(games, game_mode("dmp"))["win_rate"]["mean"] == pytest.approx(2 / 3)
    # 3 matches won by A, B, A: 2/3; points per game (+1), (-2, +1), (+3): per match 1, -1/2, 3 -> 3.5/3
    matches = [
        SimpleNamespace(
            index=i, winner=w, length=3, games=g, doubles=(0, 0), takes=(0, 0), drops=(0, 0)
        )
        for i, (w, g) in enumerate([(0, [(1, 1)]), (1, [(-2, 2), (1, 1)]), (0, [(3, 3)])])
    ]
    s = summarize_matches(matches)
    assert s["match_win_rate"]["mean"] == pytest.approx(2 / 3)
    assert s["points_per_game"]["per_match_mean"] == pytest.approx(3.5 / 3)


def test_play_models_scores_an_odd_count_game_by_game(tmp_path):
    import json

    out, csv = tmp_path / "s.json", tmp_path / "g.csv"
    run(
        "play_models.py",
        "--model1",
        "random",
        "--model2",
        "random",
        "--games",
        "5",
        "--seed",
        "0",
        "--json",
        out,
        "--csv",
        csv,
        check=True,
    )
    rows = [
        ln.split(",")
        for ln in csv.read_text().splitlines()
        if ln and not ln.startswith(("#", "game"))
    ]
    wins = [float(r[2]) > 0 for r in rows]
    assert len(wins) == 5
    pairs = [sum(wins[i : i + 2]) / len(wins[i : i + 2]) for i in (0, 2, 4)]
    assert sum(pairs) / 3 != sum(wins) / 5  # this seed tells the two apart
    assert json.loads(out.read_text())["win_rate"]["mean"] == pytest.approx(sum(wins) / 5)


# --- strict JSON ---------------------------------------------------------------------------


def _strict_loads(text):
    import json

    def refuse(name):
        raise AssertionError(f"{name} in JSON")

    return json.loads(text, parse_constant=refuse)


def test_json_text_is_strict_with_a_reason_per_null():
    from tdbg.infra import fileio

    got = _strict_loads(
        fileio.json_text({"a": float("nan"), "b": [1.0, float("inf")], "c": {"d": -float("inf")}})
    )
    assert got["a"] is None and got["b"] == [1.0, None] and got["c"]["d"] is None
    assert set(got["nulls"]) == {"a", "b[1]", "c.d"}
    assert all(got["nulls"].values())


def test_json_text_takes_numpy_numbers_nan_included():
    # numpy scalars (np.float32 is no Python float) and arrays: numbers and lists, and a numpy
    # NaN becomes null with its reason like a Python one
    import numpy as np
    from tdbg.infra import fileio

    got = _strict_loads(
        fileio.json_text(
            {
                "n": np.int64(7),
                "x": np.float32(0.5),
                "bad": np.float32("nan"),
                "v": np.array([1, 2]),
                "w": [np.float64(np.inf)],
            }
        )
    )
    assert got["n"] == 7 and got["x"] == 0.5 and got["v"] == [1, 2]
    assert got["bad"] is None and got["w"] == [None] and set(got["nulls"]) == {"bad", "w[0]"}


def test_a_one_trial_rollout_prints_strict_json(ckpt):
    proc = run(
        "tools/rollout.py", ckpt, "4HPwATDgc/ABMA", "--trials", "1", "--json", "--quiet", check=True
    )
    got = _strict_loads(proc.stdout)
    assert got["value"]["se"] is None and "value.se" in got["nulls"]


# --- one line for every failure ------------------------------------------------------------


def _run_code(code, *, stdout=None):
    import subprocess
    import sys

    from helpers import HANG_GUARD, ROOT

    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        stdout=stdout or subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        timeout=HANG_GUARD,
    )


def test_a_full_disk_on_save_is_one_line_and_leaves_no_log_row_for_the_failed_save(tmp_path):
    """The second checkpoint save meets ENOSPC (os.fsync fails as on a full disk): one
    line, exit 2, the checkpoint of round 1 kept whole, and the log's rows are round 1's."""
    from tdbg.net.model import load_checkpoint

    save = tmp_path / "c.pt"
    code = f"""
import errno, os, runpy, sys
real, calls = os.fsync, [0]
def fsync(fd):
    calls[0] += 1
    if calls[0] >= 2:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    return real(fd)
os.fsync = fsync
sys.argv = ["train_batch.py", "--hidden", "8", "--num-episodes", "60", "--save", {str(save)!r}] + {QUICK_TRAIN!r}
runpy.run_path("train_batch.py", run_name="__main__")
"""
    proc = _run_code(code)
    assert_one_line_error(proc, "no space left")
    assert "keeps the last checkpoint (round 1 of this stage)" in proc.stderr, proc.stderr
    _, meta, state = load_checkpoint(str(save))
    assert meta["episodes"] == 20 and state["stage"]["episodes_done"] == 20
    rows = (tmp_path / "c.csv").read_text().splitlines()
    assert len(rows) == 2 and rows[1].split(",")[2] == "20", (
        rows
    )  # the header and round 1 (total_episodes 20)
    assert not [n for n in os.listdir(tmp_path) if n.startswith(".tmp-")]


def test_warnings_before_an_error_and_a_two_line_error_give_one_line():
    proc = _run_code(
        "import warnings\nfrom tdbg.app import cli\n"
        "def main():\n"
        "    warnings.warn('torch says something', UserWarning)\n"
        "    raise cli.UsageError('first line\\nsecond line')\n"
        "cli.run_main(main)\n"
    )
    assert_one_line_error(proc, "first line; second line")
    proc = _run_code(
        "import warnings\nfrom tdbg.app import cli\n"
        "cli.run_main(lambda: warnings.warn('kept when nothing fails', UserWarning))\n"
    )
    assert proc.returncode == 0 and "kept when nothing fails" in proc.stderr


def test_ctrl_c_of_play_models_with_workers(tmp_path):
    """Ctrl-C reaches the whole process group (as from a terminal), once the workers are
    started: one line, exit 130, and no worker left running."""
    import signal
    import subprocess
    import sys
    import time

    from helpers import HANG_GUARD, ROOT

    proc = subprocess.Popen(
        [
            sys.executable,
            "play_models.py",
            "--model1",
            "pubeval",
            "--model2",
            "pubeval",
            "--games",
            "100000",
            "--workers",
            "2",
            "--quiet",
            "--json",
            tmp_path / "s.json",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        # SIGINT as a terminal's program has it: a test run started in the
        # background (`pytest &` from a script) ignores SIGINT, and the child
        # would inherit that and play all 100,000 games
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )

    deadline = time.monotonic() + HANG_GUARD  # a guard against a hang, not a measurement
    while (
        len(spawned_workers(proc.pid)) < 2 and proc.poll() is None and time.monotonic() < deadline
    ):
        time.sleep(0.2)
    started = spawned_workers(proc.pid)
    assert len(started) == 2
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=HANG_GUARD)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert proc.returncode == 130 and len(lines) == 1 and "interrupted" in lines[0], err
    for pid in started:
        try:
            state = open(f"/proc/{pid}/stat").read().split(")")[-1].split()[0]
        except OSError:
            continue  # gone
        assert state == "Z", (pid, state)  # at most a zombie not yet reaped
    assert not (tmp_path / "s.json").exists()


# --- limits a flag sets are honoured -------------------------------------------------------


def test_the_gnubg_preflight_honours_gnubg_timeout(tmp_path):
    """A gnubg that never answers: the preflight gives up after --gnubg-timeout (the line
    says 1 s, where it used to wait its fixed 30 s and 120 s), and leaves nothing running."""
    fake = tmp_path / "gnubg"
    fake.write_text("#!/bin/sh\nexec sleep 100000\n")
    fake.chmod(0o755)
    proc = run(
        "play_models.py",
        "--model1",
        "pubeval",
        "--model2",
        "gnubg-ext",
        "--gnubg",
        fake,
        "--game-mode",
        "cubeful-money",
        "--games",
        "2",
        "--gnubg-timeout",
        "1",
    )
    assert_one_line_error(proc, "no answer within 1 s")
    from tdbg.gnubg.gnubg_binary import GnubgError, preflight

    with pytest.raises(GnubgError, match="within 1 s"):
        preflight(str(fake), quiet=True, timeout=1)


# --- inputs that cannot be right ------------------------------------------------------------

START = "4HPwATDgc/ABMA"


def _mid(**kw):
    import numpy as np

    from tdbg.game.position_ids import GameState, match_id

    return match_id(GameState(np.zeros((2, 25), dtype=np.int64), **kw))


@pytest.mark.parametrize(
    "text, words",
    [
        (lambda: f"{START}:{_mid(dice=(5, 2), doubled=True, match_length=7)}", "double is pending"),
        (lambda: f"{START}:{_mid(match_length=7, score=(0, 0), crawford=True)}", "crawford"),
        (lambda: f"{START}:{_mid(match_length=7, score=(6, 6), crawford=True)}", "crawford"),
        (
            lambda: f"{START}:{_mid(match_length=7, score=(6, 2), crawford=True, cube=2)}",
            "crawford",
        ),
        (lambda: f"{START}:{_mid(match_length=30, score=(3, 4))}", "1 to 25"),
        (lambda: f"{START}:{_mid(match_length=0, score=(2, 0))}", "money game"),
        (
            lambda: "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:1:7:10",
            "crawford",
        ),  # Crawford at 0-0
        (lambda: "XGID=-b----E-C---eE---c-e----B-:1:0:1:00:6:0:1:7:10", "crawford"),  # cube 2 in it
        (lambda: "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:3:4:0:30:10", "1 to 25"),
    ],
)
def test_impossible_match_ids_and_xgids_are_refused(text, words):
    from tdbg.game.position_ids import parse_position

    with pytest.raises(ValueError, match=f"(?i){words}"):
        parse_position(text())


def test_a_possible_crawford_game_still_reads():
    from tdbg.game.position_ids import parse_position

    s = parse_position(f"{START}:{_mid(match_length=7, score=(6, 2), crawford=True, dice=(3, 1))}")
    assert s.crawford and s.score == (6, 2) and s.match_length == 7


def test_a_match_over_25_points_is_one_line(ckpt):
    assert_one_line_error(
        run("tools/analyse.py", ckpt, f"{START}:{_mid(match_length=30, score=(3, 4))}"), "1 to 25"
    )


@pytest.mark.parametrize(
    "content, words",
    [(bytes(range(256)), "not a .mat"), (b"hello\n", "point match"), (b"", "empty")],
)
def test_unreadable_mat_files_are_refused_before_gnubg(tmp_path, content, words):
    folder = tmp_path / "mats"
    folder.mkdir()
    (folder / "good.mat").write_text(" 1 point match\n\n Game 1\n")
    (folder / "bad.mat").write_bytes(content)
    assert_one_line_error(run("gnubg_eval.py", "--from-mat", folder), words)


@pytest.mark.parametrize("flag", ["--resume", "--warm-start-equity", "--warm-start-cubeful"])
def test_an_empty_source_path_is_refused(tmp_path, flag):
    """An empty path was taken as the flag not given: `--resume ''` trained a new network from
    scratch, exit 0, where the user meant to continue one."""
    save = tmp_path / "x.pt"
    proc = run(
        "train_batch.py",
        "--hidden",
        "8",
        "--num-episodes",
        "20",
        flag,
        "",
        "--save",
        save,
        *QUICK_TRAIN,
    )
    assert_one_line_error(proc, f"{flag} '': an empty value names nothing")
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize(
    "script, args, flag",
    [
        ("train_batch.py", ["--hidden", "8", "--num-episodes", "20", *QUICK_TRAIN], "--save"),
        ("train_batch.py", ["--hidden", "8", "--num-episodes", "20", *QUICK_TRAIN], "--log"),
        ("train_batch.py", ["--hidden", "8", "--num-episodes", "20", *QUICK_TRAIN], "--json"),
        ("play_models.py", ["--model1", "random", "--model2", "random", "--games", "2"], "--json"),
        ("tools/compare_results.py", ["{tmp}/a.json", "{tmp}/b.json"], "--json"),
    ],
)
def test_an_empty_output_path_is_refused_before_any_work(tmp_path, script, args, flag):
    """An empty output path names no file: `--save ''` trained the whole stage and then failed
    (": No such file or directory"), and `--log ''` or `--json ''` was taken as not given."""
    args = [a.format(tmp=tmp_path) for a in args]
    save = ["--save", tmp_path / "x.pt"] if script == "train_batch.py" and flag != "--save" else []
    proc = run(script, *args, *save, flag, "")
    assert_one_line_error(proc, f"{flag} '': an empty value names nothing")
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("name", ["new/", "new/.", "."])
def test_an_output_path_that_names_a_folder_is_refused_before_any_work(tmp_path, name):
    """`--save models/` (a folder that did not exist) made the folder, trained the whole
    stage, then failed: "Not a directory; training stopped"."""
    path = f"{tmp_path}/{name}"
    proc = run(
        "train_batch.py", "--hidden", "8", "--num-episodes", "20", *QUICK_TRAIN, "--save", path
    )
    assert_one_line_error(proc, "names a folder, not a file (its name ends in a slash or a dot)")
    assert os.listdir(tmp_path) == []
