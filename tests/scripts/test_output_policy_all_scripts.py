"""Issue 37: every script's documented outputs (the output flags its --help lists, and
positional outputs) against an existing checkpoint, a file of unknown kind, a folder it
cannot write and a name it cannot write (not UTF-8, too long): each is one error line,
exit 2, and the file is left as it was.

All cases run in one Python process per setting (helpers.run_scripts), since each fails
before any work; the read-only folder is a read-only bind mount in a private mount
namespace (it stops root too)."""

import csv
import os
import re
import shutil

import pytest

from helpers import assert_one_line_error, md5, run, run_scripts

QUICK = ["--episodes-per-round", "20", "--parallel-games", "8", "--quiet"]
OUTPUT_FLAGS = {
    "--save",
    "--log",
    "--json",
    "--csv",
    "--games-csv",
    "--save-games",
    "--save-extreme-games",
    "--out",
    "--output",
    "-o",
}
# every script that writes files; stdout-only tools (analyse, rollout, take_points, describe_model) have none
SCRIPTS = [
    "train_batch.py",
    "train_online.py",
    "train_prob5.py",
    "play_models.py",
    "gnubg_eval.py",
    "tools/export_weights.py",
    "tools/average_checkpoints.py",
    "tools/cubeless_as_cubeful.py",
    "tools/repair_twins.py",
    "tools/dice_file.py",
    "tools/plot_training.py",
    "tools/plot_eval_curve.py",
    "tools/compare_results.py",
]
STDOUT_ONLY = [
    "tools/analyse.py",
    "tools/rollout.py",
    "tools/take_points.py",
    "tools/describe_model.py",
    "tools/gnubg_player.py",
]


def cases(ck, log, results, tmp):
    """(script, output flag or 'output' for a positional, kind, args with {OUT})."""
    play = ["--model1", "pubeval", "--model2", "random", "--games", "2"]
    train = ["--hidden", "8", "--num-episodes", "20", *QUICK]
    online = ["--hidden", "8", "--num-episodes", "2", "--quiet"]
    return [
        ("train_batch.py", "--save", "checkpoint", [*train, "--save", "{OUT}"]),
        ("train_batch.py", "--log", "text", [*train, "--save", f"{tmp}/n1.pt", "--log", "{OUT}"]),
        ("train_batch.py", "--json", "json", [*train, "--save", f"{tmp}/n2.pt", "--json", "{OUT}"]),
        ("train_online.py", "--save", "checkpoint", [*online, "--save", "{OUT}"]),
        ("train_online.py", "--log", "text", [*online, "--save", f"{tmp}/n3.pt", "--log", "{OUT}"]),
        ("train_prob5.py", "--save", "checkpoint", [*train, "--save", "{OUT}"]),
        ("train_prob5.py", "--log", "text", [*train, "--save", f"{tmp}/n4.pt", "--log", "{OUT}"]),
        ("train_prob5.py", "--json", "json", [*train, "--save", f"{tmp}/n5.pt", "--json", "{OUT}"]),
        ("play_models.py", "--json", "json", [*play, "--json", "{OUT}"]),
        ("play_models.py", "--csv", "text", [*play, "--csv", "{OUT}"]),
        (
            "play_models.py",
            "--games-csv",
            "text",
            [
                "--model1",
                "pubeval",
                "--model2",
                "gnubg-ext",
                "--game-mode",
                "cubeless-money",
                "--games",
                "2",
                "--games-csv",
                "{OUT}",
            ],
        ),
        ("play_models.py", "--save-games", "folder", [*play, "--save-games", "{OUT}"]),
        (
            "play_models.py",
            "--save-extreme-games",
            "folder",
            [*play, "--extreme-threshold", "2", "--save-extreme-games", "{OUT}"],
        ),
        ("gnubg_eval.py", "--json", "json", ["--model", ck, "--games", "2", "--json", "{OUT}"]),
        ("gnubg_eval.py", "--out", "folder", ["--model", ck, "--games", "2", "--out", "{OUT}"]),
        ("tools/export_weights.py", "output", "weights", [ck, "{OUT}"]),
        ("tools/average_checkpoints.py", "-o", "checkpoint", ["-o", "{OUT}", ck, ck]),
        ("tools/cubeless_as_cubeful.py", "output", "checkpoint", [ck, "{OUT}"]),
        ("tools/repair_twins.py", "-o", "checkpoint", [ck, "-o", "{OUT}"]),
        ("tools/dice_file.py", "output", "text", ["--games", "2", "{OUT}"]),
        ("tools/plot_training.py", "-o", "png", [log, "-o", "{OUT}"]),
        ("tools/plot_eval_curve.py", "-o", "png", ["-o", "{OUT}", log, "--unit", "win-rate"]),
        ("tools/compare_results.py", "--json", "json", [results, results, "--json", "{OUT}"]),
    ]


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("in")
    ck = tmp / "c.pt"
    run("train_batch.py", "--hidden", "8", "--num-episodes", "40", "--save", ck, *QUICK, check=True)
    results = tmp / "r.csv"
    run(
        "play_models.py",
        "--model1",
        "pubeval",
        "--model2",
        "random",
        "--games",
        "2",
        "--csv",
        results,
        check=True,
    )
    with open(
        tmp / "c.csv", newline=""
    ) as fh:  # the run's log, with a quick evaluation in each row
        rows = list(csv.DictReader(fh))
    for r in rows:
        r.update(
            eval_opponent="pubeval",
            eval_games="10",
            eval_result="0.5",
            eval_ci_low="0.4",
            eval_ci_high="0.6",
        )
    with open(tmp / "e.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    return str(ck), str(tmp / "e.csv"), str(results)


def test_the_table_covers_every_documented_output():
    for script in SCRIPTS + STDOUT_ONLY:
        usage = run(script, "--help", check=True).stdout
        documented = {m.group(1) for m in re.finditer(r"(--?[\w-]+) [A-Z_]+", usage)} & OUTPUT_FLAGS
        documented = {"-o" if f == "--output" else f for f in documented}  # one option, two names
        if re.search(r"\boutput\s*$", usage.split("\n\n")[0].strip()):
            documented.add("output")
        table = {c[1] for c in cases("ck", "log", "res", "tmp") if c[0] == script}
        assert documented == table, (script, documented, table)


def test_no_output_replaces_a_checkpoint_or_a_file_of_unknown_kind(tmp_path, inputs):
    ck, log, results = inputs
    table = cases(ck, log, results, tmp_path)
    runs, victims = [], []
    for i, (script, flag, kind, argv) in enumerate(table):
        for what in ("checkpoint", "unknown"):
            victim = tmp_path / f"v{i}_{what}"
            if what == "checkpoint":
                shutil.copy(ck, victim)
            else:
                victim.write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)))
            # --overwrite too, except where it would allow what it should (a checkpoint over a checkpoint)
            extra = [] if (what == "checkpoint" and kind == "checkpoint") else ["--overwrite"]
            runs.append([script, [str(victim) if a == "{OUT}" else str(a) for a in argv] + extra])
            victims.append((script, flag, kind, what, victim, md5(victim)))
    for (script, flag, kind, what, victim, before), proc in zip(
        victims, run_scripts(tmp_path, runs), strict=True
    ):
        if kind == "folder":
            words = "is a file"
        elif what == "checkpoint":
            words = "--overwrite" if kind == "checkpoint" else "checkpoint"
        else:
            words = "unknown kind"
        assert_one_line_error(proc, words)
        assert md5(victim) == before, (script, flag, what)
    assert not [n for n in os.listdir(tmp_path) if n.startswith("n") and n.endswith(".pt")]


def test_no_output_goes_to_a_read_only_folder(tmp_path, inputs):
    from test_output_safety import _can_bind_readonly

    ro = tmp_path / "ro"
    ro.mkdir()
    if not (shutil.which("unshare") and _can_bind_readonly(ro)):
        pytest.skip("cannot make a read-only bind mount here (unshare -rm)")
    ck, log, results = inputs
    table = cases(ck, log, results, tmp_path)
    runs = [
        [script, [str(ro / f"out{i}") if a == "{OUT}" else str(a) for a in argv]]
        for i, (script, _, _, argv) in enumerate(table)
    ]
    for proc in run_scripts(tmp_path, runs, readonly=ro):
        assert_one_line_error(proc, "cannot write")
    assert os.listdir(ro) == []


@pytest.mark.parametrize(
    "name, words", [(b"out\xff", "not UTF-8 text"), (b"o" * 256, "the name is too long")]
)
def test_no_output_takes_a_name_that_cannot_be_written(tmp_path, inputs, name, words):
    """A name with a byte that is not UTF-8, or longer than a file name can be: one error line
    before any work, naming the path as given (never a temporary name), and nothing made."""
    ck, log, results = inputs
    table = cases(ck, log, results, tmp_path)
    folder = tmp_path / "outs"
    folder.mkdir()
    runs = [
        [
            script,
            [
                os.fsdecode(os.fsencode(str(folder / f"d{i}")) + b"/" + name)
                if a == "{OUT}"
                else str(a)
                for a in argv
            ],
        ]
        for i, (script, _, _, argv) in enumerate(table)
    ]
    for proc in run_scripts(tmp_path, runs):
        assert_one_line_error(proc, words)
        assert ".tmp-" not in proc.stderr, (proc.args, proc.stderr)
    assert os.listdir(folder) == []
