"""Every script (the top-level ones, tools/ and the benchmarks) against two more kinds of bad
input: a --seed below 0 or past what the random generators take (one error line and exit 2,
from the flag's own check), and a standard output that cannot be written (``> /dev/full``:
one error line and exit 2, where a traceback, or a silent exit 0, was).

Like test_output_policy_all_scripts.py, all cases run in one Python process
(helpers.run_scripts), since each ends before any work."""

import glob
import os
import re

from helpers import ROOT, assert_one_line_error, run, run_scripts

SCRIPTS = sorted(
    [
        "train_batch.py",
        "train_online.py",
        "train_prob5.py",
        "play_models.py",
        "gnubg_eval.py",
        *(
            os.path.relpath(p, ROOT)
            for p in glob.glob(f"{ROOT}/tools/*.py")
            if not p.endswith("__init__.py")
        ),
        *(os.path.relpath(p, ROOT) for p in glob.glob(f"{ROOT}/experiments/benchmarks/*.py")),
        "experiments/benchmarks/decisions/make_decisions.py",
    ]
)
SEEDS = ("-1", "-4294967296", "4294967296", str(10**30), "1e3")


def _with_seed() -> list[str]:
    """The scripts whose --help lists --seed (read once, in one process)."""
    found = []
    for script in SCRIPTS:
        usage = run(script, "--help").stdout
        if re.search(r"--seed\b", usage):
            found.append(script)
    return found


def test_every_seed_flag_refuses_what_no_generator_takes(tmp_path):
    scripts = _with_seed()
    assert {
        "train_batch.py",
        "play_models.py",
        "gnubg_eval.py",
        "tools/rollout.py",
        "experiments/benchmarks/movegen.py",
    } <= set(scripts)
    for proc in run_scripts(
        tmp_path, [[script, ["--seed", seed]] for script in scripts for seed in SEEDS]
    ):
        assert_one_line_error(proc, "--seed")


def test_every_script_says_so_when_standard_output_is_full(tmp_path):
    """``--help > /dev/full`` for every script: one line and exit 2 (argparse drops a failed
    write of its help, so the run used to end 0 with nothing written)."""
    for proc in run_scripts(
        tmp_path, [[script, ["--help"]] for script in SCRIPTS], stdout_full=True
    ):
        assert_one_line_error(proc, "cannot write standard output")
