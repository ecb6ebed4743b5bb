"""Every script (the top-level ones, tools/ and the benchmarks) against two more kinds of bad
input: a --seed below 0 or past what the random generators take (one error line and exit 2,
from the flag's own check), and a standard output that cannot be written (``> /dev/full``:
one error line and exit 1, where a traceback, or a silent exit 0, was).

Like test_output_policy_all_scripts.py, all cases run in one Python process (runpy, as
``python script.py`` would), since each ends before any work."""
import glob
import json
import os
import re
import subprocess
import sys

from helpers import HANG_GUARD, ROOT, run
from test_output_policy_all_scripts import _drive

SCRIPTS = sorted(["train_batch.py", "train_online.py", "train_prob5.py", "play_models.py", "gnubg_eval.py",
                  *(os.path.relpath(p, ROOT) for p in glob.glob(f"{ROOT}/tools/*.py") if not p.endswith("__init__.py")),
                  *(os.path.relpath(p, ROOT) for p in glob.glob(f"{ROOT}/experiments/benchmarks/*.py")),
                  "experiments/benchmarks/decisions/make_decisions.py"])
SEEDS = ("-1", "-4294967296", "4294967296", str(10 ** 30), "1e3")


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
    assert {"train_batch.py", "play_models.py", "gnubg_eval.py", "tools/rollout.py",
            "experiments/benchmarks/movegen.py"} <= set(scripts)
    runs = [[script, ["--seed", seed]] for script in scripts for seed in SEEDS]
    for (script, argv), (code, err) in zip(runs, _drive(tmp_path, runs)):
        lines = [ln for ln in err.splitlines() if ln.strip()]
        assert code == 2 and len(lines) == 1 and "Traceback" not in err, (script, argv, code, err)
        assert "--seed" in lines[0], (script, argv, lines[0])


FULL_DRIVER = r'''
import contextlib, io, json, runpy, sys, warnings
warnings.simplefilter("ignore")
job, res = sys.argv[1:3]
out = []
for script, argv in json.load(open(job)):
    err = io.StringIO()
    code = 0
    sys.argv = [script, *argv]
    full = open("/dev/full", "w")
    with contextlib.redirect_stdout(full), contextlib.redirect_stderr(err):
        try:
            runpy.run_path(script, run_name="__main__")
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        except BaseException as exc:
            code, err = -1, io.StringIO(f"Traceback: {exc!r}")
    try:
        full.close()
    except OSError:
        pass
    out.append([code, err.getvalue()])
json.dump(out, open(res, "w"))
'''


def test_every_script_says_so_when_standard_output_is_full(tmp_path):
    """``--help > /dev/full`` for every script: one line and exit 1 (argparse drops a failed
    write of its help, so the run used to end 0 with nothing written)."""
    job, res, drv = tmp_path / "job.json", tmp_path / "res.json", tmp_path / "driver.py"
    job.write_text(json.dumps([[script, ["--help"]] for script in SCRIPTS]))
    drv.write_text(FULL_DRIVER)
    subprocess.run([sys.executable, str(drv), str(job), str(res)], cwd=ROOT, timeout=HANG_GUARD, check=True,
                   capture_output=True)
    for script, (code, err) in zip(SCRIPTS, json.loads(res.read_text())):
        lines = [ln for ln in err.splitlines() if ln.strip()]
        assert code == 1 and len(lines) == 1 and "cannot write standard output" in lines[0], (script, code, err)
