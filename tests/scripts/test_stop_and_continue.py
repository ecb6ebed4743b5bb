"""A stage stopped (--stop-at) and continued ends exactly as one run through, in the settings
that keep state of their own (the move filter of --oneply-filter: its optimizer and its row
generator), and --stop-at is taken only where one run through ends a round."""

import csv
import json

import pytest
import torch

from helpers import assert_one_line_error, run
from tdbg.infra.errors import InputError
from tdbg.learn.training_loop import check_stop_at
from tdbg.net.model import load_checkpoint, move_filter_of

# a stage of rounds of 20 episodes, four games at a time
QUICK = ["--episodes-per-round", "20", "--parallel-games", "4", "--quiet"]


def test_a_filtered_stage_stopped_and_continued_equals_one_run_through(tmp_path):
    """--oneply --oneply-filter: after the stop the filter trains on as before it (Adam's
    moments and the generator that samples its rows are in the checkpoint), so the filter,
    the 1-ply targets it filters and the network end equal to one run through, to the bit
    (the filter differed after the first continued round, the network one round later)."""
    args = [
        "--hidden",
        "8",
        "--num-episodes",
        "60",
        "--lr",
        "1e-3",
        "--seed",
        "4",
        "--episodes-per-round",
        "20",
        "--parallel-games",
        "4",
        "--oneply",
        "--oneply-filter",
        "2",
        "--filter-warmup",
        "4",
        "--quiet",
    ]
    whole, part = tmp_path / "whole.pt", tmp_path / "part.pt"
    run("train_batch.py", *args, "--save", whole, check=True)
    run("train_batch.py", *args, "--save", part, "--stop-at", "20", check=True)
    _, _, ts = load_checkpoint(str(part))
    assert set(ts["filter_trainer"]) == {"optimizer_state", "rng"}
    run("train_batch.py", "--resume", part, "--save", part, *args, check=True)
    a, b = load_checkpoint(str(whole))[0], load_checkpoint(str(part))[0]
    fa, fb = move_filter_of(a).state_dict(), move_filter_of(b).state_dict()
    assert all(torch.equal(fa[k], fb[k]) for k in fa), "the move filter"
    sa, sb = a.state_dict(), b.state_dict()
    assert all(torch.equal(sa[k], sb[k]) for k in sa), "the network"
    rows = [(r["samples"], r["loss"]) for r in csv.DictReader(open(tmp_path / "part.csv"))]
    assert rows == [(r["samples"], r["loss"]) for r in csv.DictReader(open(tmp_path / "whole.csv"))]


@pytest.mark.parametrize("how", ["--resume", "the same command"])
def test_a_prob5_stage_stopped_and_continued_equals_one_run_through(tmp_path, how):
    """train_prob5.py's stage continues (by --resume X --save X, or the same command run
    again) and ends as one run through: its record of --loss was checked by the --mse
    shorthand that shares its dest (a switch), so every prob5 stage was refused ("records
    --mse 'mse', which the flag refuses")."""
    args = ["--hidden", "8", "--num-episodes", "40", "--loss", "cross-entropy", "--win-weight"]
    args += ["2", "--episodes-per-round", "20", "--parallel-games", "4", "--quiet"]
    whole, part = tmp_path / "whole.pt", tmp_path / "part.pt"
    run("train_prob5.py", *args, "--save", whole, check=True)
    run("train_prob5.py", *args, "--save", part, "--stop-at", "20", check=True)
    again = ["--resume", part, "--save", part] if how == "--resume" else [*args, "--save", part]
    proc = run("train_prob5.py", *again)
    assert proc.returncode == 0, proc.stderr
    sa, sb = load_checkpoint(str(whole))[0].state_dict(), load_checkpoint(str(part))[0].state_dict()
    assert all(torch.equal(sa[k], sb[k]) for k in sa)


@pytest.mark.parametrize(
    "stop_at, words",
    [
        (
            "30",
            "--stop-at 30 is inside a round (rounds of 20 episodes): give a round's end, such as 40 or 20",
        ),
        (
            "10",
            "--stop-at 10 is inside a round (rounds of 20 episodes): give a round's end, such as 20",
        ),
        ("120", "--stop-at 120 is beyond the stage's 100 episodes"),
    ],
)
def test_stop_at_is_a_round_end_within_the_stage(tmp_path, stop_at, words):
    """Off a round boundary --stop-at split a round (rounds of 20, 10, 10, 20, 20 in the log)
    and the weights differed from a run through; beyond the stage it meant nothing."""
    args = [
        "--hidden",
        "8",
        "--num-episodes",
        "100",
        "--episodes-per-round",
        "20",
        "--parallel-games",
        "4",
        "--quiet",
    ]
    assert_one_line_error(
        run("train_batch.py", *args, "--save", tmp_path / "s.pt", "--stop-at", stop_at), words
    )
    assert not (tmp_path / "s.pt").exists() and not (tmp_path / "s.csv").exists()


@pytest.mark.parametrize(
    "stop_at, size, done, total, suggested",
    [
        (45, 20, 0, 50, "such as 50 or 40"),
        (30, 100, 0, 60, "such as 60"),
        (130, 100, 100, 150, "such as 150"),
    ],
)
def test_the_stop_suggested_is_within_the_stage(stop_at, size, done, total, suggested):
    """The round's end suggested for a --stop-at inside the stage's last, short round is the
    stage's end (it named the next multiple of the round, beyond the stage, which is refused)."""
    with pytest.raises(InputError) as err:
        check_stop_at(stop_at, size, done, total)
    assert str(err.value).endswith(suggested)


def test_stop_at_must_be_ahead_of_the_stage(tmp_path):
    """At or below the episodes the stage has, the run trained nothing and rewrote the
    checkpoint with a null loss: refused, the checkpoint untouched; the stage's own end
    (not a multiple of the round) is a stop the stage reaches anyway, and is taken."""
    args = [
        "--hidden",
        "8",
        "--num-episodes",
        "50",
        "--episodes-per-round",
        "20",
        "--parallel-games",
        "4",
        "--quiet",
    ]
    path = tmp_path / "s.pt"
    run("train_batch.py", *args, "--save", path, "--stop-at", "40", check=True)
    before = path.read_bytes()
    for stop_at in ("40", "20"):
        assert_one_line_error(
            run("train_batch.py", "--resume", path, "--save", path, *args, "--stop-at", stop_at),
            "already has 40 episodes",
        )
    assert path.read_bytes() == before
    run("train_batch.py", "--resume", path, "--save", path, *args, "--stop-at", "50", check=True)
    assert load_checkpoint(str(path))[2]["stage"]["episodes_done"] == 50


def test_growth_without_expand_is_refused(tmp_path, ckpt):
    """--growth says how --expand makes new units: alone it was ignored without a word."""
    assert_one_line_error(
        run(
            "train_batch.py",
            "--resume",
            ckpt,
            "--growth",
            "net2net",
            "--num-episodes",
            "20",
            "--save",
            tmp_path / "g.pt",
            "--quiet",
        ),
        "--growth net2net says how --expand",
    )
    assert_one_line_error(
        run(
            "train_batch.py",
            "--hidden",
            "8",
            "--growth",
            "net2net",
            "--num-episodes",
            "20",
            "--save",
            tmp_path / "g.pt",
            "--quiet",
        ),
        "give --expand",
    )
    assert not (tmp_path / "g.pt").exists()
    assert_one_line_error(
        run(
            "train_batch.py",
            "--hidden",
            "8",
            "--expand",
            "16,,16",
            "--num-episodes",
            "20",
            "--save",
            tmp_path / "g.pt",
            "--quiet",
        ),
        "comma-separated whole numbers",
    )


def test_a_prob5_stage_stopped_twice_equals_one_run_through(tmp_path):
    """train_prob5.py stopped twice (--stop-at, then --resume X --save X --stop-at) and
    continued ends equal to one run through, weights and log.  The continue was refused:
    the record of --loss was checked against the script's --mse switch, an alias of the
    same setting ("records --mse 'mse', which the flag refuses")."""
    args = ["--hidden", "8", "--num-episodes", "60", "--seed", "2", *QUICK]
    whole, part = tmp_path / "whole.pt", tmp_path / "part.pt"
    run("train_prob5.py", *args, "--save", whole, check=True)
    run("train_prob5.py", *args, "--save", part, "--stop-at", "20", check=True)
    run("train_prob5.py", "--resume", part, "--save", part, "--stop-at", "40", check=True)
    run("train_prob5.py", "--resume", part, "--save", part, check=True)
    sa, sb = load_checkpoint(str(whole))[0].state_dict(), load_checkpoint(str(part))[0].state_dict()
    assert all(torch.equal(sa[k], sb[k]) for k in sa)
    rows = [(r["samples"], r["loss"]) for r in csv.DictReader(open(tmp_path / "part.csv"))]
    assert rows == [(r["samples"], r["loss"]) for r in csv.DictReader(open(tmp_path / "whole.csv"))]


@pytest.mark.parametrize(
    "flag, old, new", [("--workers", "1", "2"), ("--parallel-games", "4", "8")]
)
def test_a_continue_with_other_games_is_refused(tmp_path, flag, old, new):
    """--workers and --parallel-games decide which games a round plays (how its games are shared
    out and batched): a stage stopped with one and continued with another was taken without a
    word and ended equal to neither run through.  Refused by name, as another
    seed is; the same command continues."""
    args = ["--hidden", "8", "--num-episodes", "60", "--episodes-per-round", "20", "--quiet"]
    part = tmp_path / "part.pt"
    given = {"--parallel-games": "4", "--workers": "1", flag: old}
    mine = [x for k, v in given.items() for x in (k, v)]
    run("train_batch.py", *args, *mine, "--save", part, "--stop-at", "20", check=True)
    before = part.read_bytes()
    assert_one_line_error(
        run("train_batch.py", "--resume", part, "--save", part, flag, new),
        f"{flag[2:]} {old} -> {new}",
    )
    assert part.read_bytes() == before
    run("train_batch.py", "--resume", part, "--save", part, check=True)


@pytest.mark.parametrize(
    "script, flag, old, new",
    [
        ("train_batch.py", "--scoring", "auto", "dense"),
        ("train_batch.py", "--engine", "auto", "python"),
        ("train_batch.py", "--batch-size", "256", "64"),
        ("train_prob5.py", "--epochs", "1", "2"),
        ("train_online.py", "--log-every", "20", "10"),
    ],
)
def test_a_continue_with_another_flag_that_changes_the_training_is_refused(
    tmp_path, script, flag, old, new
):
    """Every recorded flag that decides a stage's games or steps is compared when it continues,
    not only the learner's settings and the seeds: --scoring dense (dense and incremental sums
    round apart; --engine's auto picks the first layer), another --batch-size or --epochs was
    taken without a word and the stage ended equal to neither run through; online's
    --log-every (its round) was refused as a damaged round count.  Refused by name; the same
    command continues."""
    args = ["--hidden", "8", "--num-episodes", "60", "--quiet"]
    args += ["--log-every", "20"] if script == "train_online.py" else QUICK
    part = tmp_path / "part.pt"
    run(script, *args, "--save", part, "--stop-at", "20", check=True)
    before = part.read_bytes()
    assert_one_line_error(
        run(script, "--resume", part, "--save", part, flag, new), f"{flag[2:]} {old} -> {new}"
    )
    assert part.read_bytes() == before
    run(script, "--resume", part, "--save", part, check=True)


def test_a_continue_may_change_what_only_watches_the_training(tmp_path):
    """Quick evaluations, unit-health rows and snapshots draw no dice of the stage's: a
    continue given them goes on, and ends with the weights of one run through."""
    args = ["--hidden", "8", "--num-episodes", "60", *QUICK]
    whole, part = tmp_path / "whole.pt", tmp_path / "part.pt"
    run("train_batch.py", *args, "--save", whole, check=True)
    run("train_batch.py", *args, "--save", part, "--stop-at", "20", check=True)
    watch = ["--eval-every", "1", "--eval-games", "2", "--health-every", "1", "--save-every", "1"]
    run("train_batch.py", "--resume", part, "--save", part, *watch, check=True)
    sa, sb = load_checkpoint(str(whole))[0].state_dict(), load_checkpoint(str(part))[0].state_dict()
    assert all(torch.equal(sa[k], sb[k]) for k in sa)


def test_the_same_command_with_json_continues_the_stage_it_stopped(tmp_path):
    """--stop-at's help: the same command without it continues the stage.  With --json the
    stopped run had written its summary there, and the same command was refused for that file
    ("exists; pass --overwrite"), and with --overwrite for the unfinished stage ("drop
    --overwrite"): no command continued it.  The summary the stage recorded is the run's own;
    it is rewritten with the stage's end, and another existing --json is still refused."""
    args = ["--hidden", "8", "--num-episodes", "60", *QUICK, "--save", tmp_path / "s.pt"]
    summary = tmp_path / "r.json"
    run("train_batch.py", *args, "--json", summary, "--stop-at", "20", check=True)
    assert json.loads(summary.read_text())["total_episodes"] == 20
    other = tmp_path / "other.json"
    other.write_text('{"x": 1}\n')
    assert_one_line_error(run("train_batch.py", *args, "--json", other), "exists")
    run("train_batch.py", *args, "--json", summary, check=True)
    assert json.loads(summary.read_text())["total_episodes"] == 60
    assert other.read_text() == '{"x": 1}\n'


def test_overwrites_help_says_it_never_takes_an_unfinished_stage(tmp_path):
    """--overwrite's help said "an unfinished stage at --save is continued", where the run
    refuses the flag with an unfinished stage at --save (drop it to continue the stage)."""
    save = tmp_path / "s.pt"
    args = ["--hidden", "8", "--num-episodes", "40", *QUICK, "--save", save]
    run("train_batch.py", *args, "--stop-at", "20", check=True)
    assert_one_line_error(run("train_batch.py", *args, "--overwrite"), "drop --overwrite")
    text = " ".join(run("train_batch.py", "--help", check=True).stdout.split())
    start = text.index("--overwrite allow")
    help_of = text[start : text.index("--log LOG", start)]
    assert "is continued" not in help_of and "never an unfinished stage" in help_of


@pytest.mark.parametrize(
    "script, growth",
    [
        ("train_batch.py", ["--expand-depth-size", "8"]),
        ("train_batch.py", ["--expand", "12"]),
        ("train_online.py", ["--expand-depth-size", "8"]),
    ],
)
def test_a_stage_grown_from_scratch_continues_by_the_same_command(tmp_path, script, growth):
    """--stop-at's help: the same command without it continues the stage.  A stage begun from
    scratch with growth (--hidden 8 --expand-depth-size 8 makes [8, 8]) was refused by it:
    its --hidden was compared with the grown network ("--hidden 8 differs from the
    checkpoint's 8,8; use --expand").  That --hidden made the stage's network; it continues
    and ends as one run through, to the bit, and so does --resume X --save X with the flags."""
    rounds = ["--log-every", "20", "--quiet"] if script == "train_online.py" else QUICK
    args = ["--hidden", "8", *growth, "--num-episodes", "40", *rounds]
    whole, part, other = tmp_path / "whole.pt", tmp_path / "part.pt", tmp_path / "other.pt"
    run(script, *args, "--save", whole, check=True)
    run(script, *args, "--save", part, "--stop-at", "20", check=True)
    run(script, *args, "--save", part, check=True)
    run(script, *args, "--save", other, "--stop-at", "20", check=True)
    run(script, *args, "--resume", other, "--save", other, check=True)
    for path in (part, other):
        a, b = (
            load_checkpoint(str(whole))[0].state_dict(),
            load_checkpoint(str(path))[0].state_dict(),
        )
        assert all(torch.equal(a[k], b[k]) for k in a), path
