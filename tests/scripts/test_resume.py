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

from helpers import HANG_GUARD, QUICK_TRAIN, ROOT, assert_one_line_error, md5, run
from tdbg.infra.errors import InputError
from tdbg.learn.run_control import plan_stage
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
    proc = run(
        "train_batch.py",
        "--resume",
        unfinished,
        "--save",
        unfinished,
        "--num-episodes",
        "100",
        *QUICK,
    )
    assert_one_line_error(proc, "num-episodes 60 -> 100")
    assert "--new-stage" in proc.stderr and md5(unfinished) == before
    proc = run(
        "train_batch.py",
        "--resume",
        unfinished,
        "--save",
        unfinished,
        "--num-episodes",
        "20",
        "--new-stage",
        *QUICK,
        check=True,
    )
    assert len(_notes(proc)) == 1 and "starting a new stage" in _notes(proc)[0]
    _, meta, ts = load_checkpoint(str(unfinished))
    assert (
        len(meta["lineage"]) == 2 and meta["episodes"] == 60 and ts["stage"]["episodes_done"] == 20
    )


def test_same_settings_continue(unfinished):
    proc = run(
        "train_batch.py",
        "--resume",
        unfinished,
        "--save",
        unfinished,
        "--num-episodes",
        "60",
        *QUICK,
        check=True,
    )
    assert (
        len(_notes(proc)) == 1 and "continuing its unfinished stage at 40 of 60" in _notes(proc)[0]
    )
    _, meta, ts = load_checkpoint(str(unfinished))
    assert (
        len(meta["lineage"]) == 1 and meta["episodes"] == 60 and ts["stage"]["episodes_done"] == 60
    )


def test_lower_episode_count_ends_the_stage_early(unfinished):
    """--num-episodes at or below what the stage has done ends it there: no game is played,
    the weights stay, and the stage then reads as finished (its planned count kept), so
    run_stage.sh goes on to the next stage."""
    model_before, _, _ = load_checkpoint(str(unfinished))
    before = md5(unfinished)
    # a lower count with other settings still needs --new-stage
    proc = run(
        "train_batch.py",
        "--resume",
        unfinished,
        "--save",
        unfinished,
        "--num-episodes",
        "40",
        "--lr",
        "1e-4",
        *QUICK,
    )
    assert_one_line_error(proc, "--new-stage")
    assert md5(unfinished) == before
    proc = run(
        "train_batch.py",
        "--resume",
        unfinished,
        "--save",
        unfinished,
        "--num-episodes",
        "40",
        *QUICK,
        check=True,
    )
    assert len(_notes(proc)) == 1 and "ending its unfinished stage at 40 of 60" in _notes(proc)[0]
    summary = json.loads(
        proc.stdout.strip().splitlines()[-1]
    )  # strict JSON: no NaN for the loss of no round
    assert summary["episodes"] == 40 and summary["loss"] is None
    model, meta, ts = load_checkpoint(str(unfinished))
    assert meta["episodes"] == 40 and ts["stage"]["episodes_done"] == 40
    assert (
        ts["stage"]["settings"]["num_episodes"] == 40
        and ts["stage"]["settings"]["planned_episodes"] == 60
    )
    assert meta["lineage"][-1]["stage"]["num_episodes"] == 40
    for (k, va), vb in zip(
        model_before.state_dict().items(), model.state_dict().values(), strict=True
    ):
        assert torch.equal(va, vb), k


def test_online_sigterm_saves_weights_and_counts_that_agree(tmp_path):
    """Interrupted and resumed, the run ends with the very weights of an uninterrupted one:
    no game was replayed and none was lost."""
    args = ["--hidden", "8", "--num-episodes", "40", "--log-every", "10", "--seed", "3", "--quiet"]
    whole, cut = tmp_path / "whole.pt", tmp_path / "cut.pt"
    run("train_online.py", *args, "--save", whole, check=True)
    proc = subprocess.Popen(
        [sys.executable, os.path.join(ROOT, "train_online.py"), *args, "--save", str(cut)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.time() + HANG_GUARD
    while not cut.exists() and time.time() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=HANG_GUARD)
    if proc.returncode == 0:
        pytest.skip("the run finished before the signal arrived")
    assert proc.returncode == 143  # 128 + SIGTERM
    _, _, ts = load_checkpoint(str(cut))
    assert 0 < ts["stage"]["episodes_done"] < 40
    run("train_online.py", *args, "--resume", cut, "--save", cut, check=True)
    a, meta_a, _ = load_checkpoint(str(whole))
    b, meta_b, _ = load_checkpoint(str(cut))
    assert meta_b["episodes"] == meta_a["episodes"] == 40
    for (k, va), vb in zip(a.state_dict().items(), b.state_dict().values(), strict=True):
        assert torch.equal(va, vb), k
    episodes = [int(r["episodes"]) for r in csv.DictReader(open(tmp_path / "cut.csv"))]
    assert episodes == sorted(set(episodes)) and episodes[-1] == 40


def _same_weights(path_a, path_b):
    a, _, _ = load_checkpoint(str(path_a))
    b, _, _ = load_checkpoint(str(path_b))
    return all(
        torch.equal(va, vb)
        for va, vb in zip(a.state_dict().values(), b.state_dict().values(), strict=True)
    )


# a stage with settings away from their defaults: a continued run that fell back to any default
# would train other weights than the run straight through
STAGE = [
    "--num-episodes",
    "60",
    "--lr",
    "3e-4",
    "--end-lr",
    "1e-4",
    "--seed",
    "5",
    "--batch-size",
    "32",
    *QUICK,
]


@pytest.fixture()
def straight_through(tmp_path):
    path = tmp_path / "whole.pt"
    run("train_batch.py", *STAGE, "--save", path, check=True)
    return path


def test_resume_alone_continues_with_the_recorded_settings(tmp_path, straight_through):
    """--resume X --save X, no other flag: the unfinished stage goes on with the settings its
    checkpoint recorded (the weights those of one run straight through); a flag given that
    differs from the record is still refused by name."""
    cut = tmp_path / "cut.pt"
    run("train_batch.py", *STAGE, "--stop-at", "40", "--save", cut, check=True)
    before = md5(cut)
    proc = run("train_batch.py", "--resume", cut, "--save", cut, "--lr", "1e-3", "--quiet")
    assert_one_line_error(proc, "lr 0.0003 -> 0.001")
    assert md5(cut) == before
    proc = run("train_batch.py", "--resume", cut, "--save", cut, "--quiet", check=True)
    assert "continuing its unfinished stage at 40 of 60" in proc.stderr
    _, meta, ts = load_checkpoint(str(cut))
    assert (
        meta["episodes"] == 60 and ts["stage"]["episodes_done"] == 60 and len(meta["lineage"]) == 1
    )
    assert _same_weights(cut, straight_through)


@pytest.mark.parametrize("flag", ["--seed", "--torch-seed"])
def test_another_seed_for_an_unfinished_stage_is_refused(tmp_path, straight_through, flag):
    """The seeds draw every round's dice and minibatches: a continued stage given another one
    would not be the stage run straight through, so it is refused by name as --lr is (it used to
    continue on the new seed's dice); the recorded seed given again continues."""
    cut = tmp_path / "cut.pt"
    run("train_batch.py", *STAGE, "--stop-at", "40", "--save", cut, check=True)
    before = md5(cut)
    proc = run("train_batch.py", "--resume", cut, "--save", cut, flag, "6", "--quiet")
    recorded = "5" if flag == "--seed" else "None"
    assert_one_line_error(proc, f"{flag[2:]} {recorded} -> 6")
    assert "--new-stage" in proc.stderr and md5(cut) == before
    proc = run("train_batch.py", *STAGE, flag, "6", "--save", cut)  # the same command, run again
    assert_one_line_error(proc, f"{flag[2:]} {recorded} -> 6")
    assert md5(cut) == before
    run("train_batch.py", "--resume", cut, "--save", cut, "--seed", "5", "--quiet", check=True)
    assert _same_weights(cut, straight_through)


def test_seeds_are_compared_only_where_the_stage_recorded_them():
    """A stage recorded before --torch-seed (its config has the seed only), or before its
    config was recorded at all, continues as before: only what its record holds is compared."""
    stage = {"episodes_done": 20, "settings": {"num_episodes": 60, "lr": 1e-3}}
    settings, config = {"num_episodes": 60, "lr": 1e-3}, {"seed": 5, "torch_seed": None}
    for record in (None, {"seed": 5}):
        with_record = {**stage, **({"config": record} if record else {})}
        assert plan_stage("s.pt", False, 60, with_record, settings, config)[0]
    with pytest.raises(InputError, match="seed 5 -> 6"):
        plan_stage("s.pt", False, 60, {**stage, "config": {"seed": 5}}, settings, {"seed": 6})


def test_same_command_without_stop_at_continues_the_stage(tmp_path, straight_through):
    """--stop-at's help: the same command without it continues the stage (not refused because
    --save exists, and not restarted)."""
    cut = tmp_path / "cut.pt"
    run("train_batch.py", *STAGE, "--stop-at", "40", "--save", cut, check=True)
    proc = run("train_batch.py", *STAGE, "--save", cut, check=True)
    assert "continuing its unfinished stage at 40 of 60" in proc.stderr
    assert _same_weights(cut, straight_through)
    rows = list(csv.DictReader(open(tmp_path / "cut.csv")))
    assert [int(r["stage_episodes"]) for r in rows] == [20, 40, 60]


def test_same_command_from_a_source_continues_from_its_save(tmp_path):
    """--resume FROM --save OUT --stop-at N, then the same without --stop-at: OUT's stage goes
    on (FROM's weights are not taken again), as one run straight through."""
    source = tmp_path / "from.pt"
    run("train_batch.py", "--num-episodes", "20", *QUICK, "--save", source, check=True)
    whole, cut = tmp_path / "whole.pt", tmp_path / "cut.pt"
    args = ["--resume", source, *STAGE]
    run("train_batch.py", *args, "--save", whole, check=True)
    run("train_batch.py", *args, "--stop-at", "40", "--save", cut, check=True)
    proc = run("train_batch.py", *args, "--save", cut, check=True)
    assert "continuing its unfinished stage at 40 of 60" in proc.stderr
    _, meta, _ = load_checkpoint(str(cut))
    assert len(meta["lineage"]) == 2 and meta["episodes"] == 80
    assert _same_weights(cut, whole)
    other = tmp_path / "other.pt"  # another source: not the stage's own, so not continued
    run(
        "train_batch.py", "--num-episodes", "20", *QUICK, "--seed", "9", "--save", other, check=True
    )
    run("train_batch.py", *args, "--stop-at", "40", "--save", tmp_path / "cut2.pt", check=True)
    proc = run("train_batch.py", "--resume", other, *STAGE, "--save", tmp_path / "cut2.pt")
    assert_one_line_error(proc, f"started with --resume {source}")


def test_overwrite_never_silently_discards_an_unfinished_stage(tmp_path):
    cut = tmp_path / "cut.pt"
    run("train_batch.py", *STAGE, "--stop-at", "40", "--save", cut, check=True)
    before = md5(cut)
    proc = run("train_batch.py", *STAGE, "--save", cut, "--overwrite")
    assert_one_line_error(proc, "holds its unfinished stage at 40 of 60 episodes")
    assert "--new-stage" in proc.stderr and md5(cut) == before
    run(
        "train_batch.py",
        *STAGE,
        "--num-episodes",
        "20",
        "--save",
        cut,
        "--overwrite",
        "--new-stage",
        check=True,
    )
    _, meta, ts = load_checkpoint(str(cut))
    assert (
        len(meta["lineage"]) == 1 and meta["episodes"] == 20 and ts["stage"]["episodes_done"] == 20
    )


@pytest.mark.parametrize(
    "growth", [["--expand", "12"], ["--expand-depth-size", "8"], ["--board-features"]]
)
def test_growth_of_an_unfinished_stage_needs_new_stage(unfinished, growth):
    """Growing the network of an unfinished stage starts a new stage: refused like any other
    change of its settings (it used to abandon the stage with a note)."""
    before = md5(unfinished)
    proc = run("train_batch.py", "--resume", unfinished, "--save", unfinished, *growth, *QUICK)
    assert_one_line_error(proc, growth[0])
    assert "--new-stage" in proc.stderr and md5(unfinished) == before
    proc = run(
        "train_batch.py",
        "--resume",
        unfinished,
        "--save",
        unfinished,
        *growth,
        "--new-stage",
        "--num-episodes",
        "20",
        *QUICK,
        check=True,
    )
    assert "starting a new stage" in proc.stderr


def test_growth_the_network_already_has_continues(unfinished):
    """The same command run again (run_stage.sh): --expand to the sizes it has changes nothing."""
    proc = run(
        "train_batch.py",
        "--resume",
        unfinished,
        "--save",
        unfinished,
        "--expand",
        "8",
        *QUICK,
        check=True,
    )
    assert "continuing its unfinished stage at 40 of 60" in proc.stderr


def test_online_resume_alone_continues_with_the_recorded_settings(tmp_path):
    """train_online.py too: its lambda (recorded as "lambda", the flag --lambda) and LR come
    from the record; the weights are those of one run straight through."""
    args = [
        "--hidden",
        "8",
        "--num-episodes",
        "30",
        "--log-every",
        "10",
        "--lambda",
        "0.5",
        "--lr",
        "0.05",
        "--seed",
        "2",
        "--quiet",
    ]
    whole, cut = tmp_path / "whole.pt", tmp_path / "cut.pt"
    run("train_online.py", *args, "--save", whole, check=True)
    run("train_online.py", *args, "--stop-at", "20", "--save", cut, check=True)
    proc = run("train_online.py", "--resume", cut, "--save", cut, "--quiet", check=True)
    assert "continuing its unfinished stage at 20 of 30" in proc.stderr
    assert _same_weights(cut, whole)


def test_a_stage_with_its_own_log_continues_it(tmp_path):
    """--log L: the same command after --stop-at appends to L (the log the stage wrote), and so
    does --resume X --save X alone (the recorded --log); the rows run on from where they stopped."""
    cut, log = tmp_path / "cut.pt", tmp_path / "elsewhere.csv"
    run("train_batch.py", *STAGE, "--stop-at", "20", "--log", log, "--save", cut, check=True)
    run("train_batch.py", *STAGE, "--stop-at", "40", "--log", log, "--save", cut, check=True)
    run("train_batch.py", "--resume", cut, "--save", cut, "--quiet", check=True)
    assert [int(r["stage_episodes"]) for r in csv.DictReader(open(log))] == [20, 40, 60]
    assert not (tmp_path / "cut.csv").exists()


def test_online_same_command_without_stop_at_continues_the_stage(tmp_path):
    """train_online.py's --stop-at help: stopped twice at round ends (rounds of --log-every
    games), the same command without it continues the stage; the weights are those of one run
    straight through, bit for bit, and the log's rows run on without a repeat."""
    args = ["--hidden", "16", "--num-episodes", "60", "--log-every", "20", "--lambda", "0.6"]
    args += ["--lr", "0.05", "--seed", "4", "--quiet"]
    whole, cut = tmp_path / "whole.pt", tmp_path / "cut.pt"
    run("train_online.py", *args, "--save", whole, check=True)
    run("train_online.py", *args, "--stop-at", "20", "--save", cut, check=True)
    run("train_online.py", *args, "--stop-at", "40", "--save", cut, check=True)
    proc = run("train_online.py", *args, "--save", cut, check=True)
    assert "continuing its unfinished stage at 40 of 60" in proc.stderr
    assert _same_weights(cut, whole)
    rows = list(csv.DictReader(open(tmp_path / "cut.csv")))
    assert [int(r["episodes"]) for r in rows] == [20, 40, 60]


def test_a_stage_continued_into_another_checkpoint_leaves_its_own_log_alone(tmp_path):
    """A stage whose first run named its --log, continued with --resume X --save Y: the log
    it recorded was taken up, refused as existing, and --overwrite replaced its rounds (those
    X holds still); a stage that logged beside X wrote a new log beside Y."""
    flags = ["--hidden", "8", "--num-episodes", "60", *QUICK_TRAIN]
    x, y, log = tmp_path / "x.pt", tmp_path / "y.pt", tmp_path / "xl.csv"
    run("train_batch.py", *flags, "--log", log, "--stop-at", "20", "--save", x, check=True)
    before = log.read_bytes()
    proc = run("train_batch.py", *flags, "--resume", x, "--save", y, check=True)
    assert json.loads(proc.stdout)["log"] == str(tmp_path / "y.csv")
    assert log.read_bytes() == before
    assert [r["round"] for r in csv.DictReader(open(tmp_path / "y.csv"))] == ["2", "3"]


@pytest.mark.parametrize("how", ["removed", "emptied"])
def test_a_continued_stage_whose_log_is_gone_is_refused(tmp_path, how):
    """--log's help: a continued stage appends to the log it wrote, which must still be there.
    A stage stopped at 40 of 60 episodes whose log was then removed (or emptied) was continued
    into a new log holding only the rows from 40 on, without a word: the rows before were lost
    from the record of the stage.  It is refused in one line, the checkpoint untouched; another
    --log takes the rows from here."""
    save, log = tmp_path / "s.pt", tmp_path / "s.csv"
    args = ["--num-episodes", "60", *QUICK, "--save", save]
    run("train_batch.py", *args, "--stop-at", "40", check=True)
    if how == "removed":
        log.unlink()
    else:
        log.write_text("")
    before = md5(save)
    proc = run("train_batch.py", *args)
    assert_one_line_error(proc, "s.csv")
    assert md5(save) == before
    assert (not log.exists()) if how == "removed" else log.read_text() == ""
    run("train_batch.py", *args, "--log", tmp_path / "rest.csv", check=True)
    assert [int(r["stage_episodes"]) for r in csv.DictReader(open(tmp_path / "rest.csv"))] == [60]


def test_resume_x_save_y_run_again_continues_y(tmp_path):
    """`--resume X --save Y --stop-at 40`, then the same command without --stop-at (as its help
    promises): Y holds X's stage further on, which was refused as "started from scratch, not
    as this command starts"; it continues Y, to the weights of one run through."""
    flags = ["--hidden", "8", "--num-episodes", "60", *QUICK_TRAIN]
    x, y, whole = tmp_path / "x.pt", tmp_path / "y.pt", tmp_path / "whole.pt"
    run("train_batch.py", *flags, "--stop-at", "20", "--save", x, check=True)
    again = ["train_batch.py", *flags, "--resume", x, "--save", y]
    run(*again, "--stop-at", "40", check=True)
    x_before = md5(x)
    proc = run(*again, check=True)
    assert "y.pt: continuing its unfinished stage at 40 of 60 episodes" in proc.stderr
    assert md5(x) == x_before
    run("train_batch.py", *flags, "--save", whole, check=True)
    got, want = (torch.load(p, weights_only=True)["state_dict"] for p in (y, whole))
    assert got.keys() == want.keys() and all(torch.equal(got[k], want[k]) for k in got)
