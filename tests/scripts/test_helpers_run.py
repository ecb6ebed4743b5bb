"""helpers.run runs scripts in the test process (runpy) to save each child's start-up: the
same return code, stdout and stderr as a real child, for a success, a one-line error, an
argparse usage error and a refused training option."""

import pytest

from helpers import run

CASES = [
    ("tools/describe_model.py", ["best_models/dmp_128x2.pt"]),  # success, stdout
    (
        "play_models.py",
        ["--model1", "random", "--model2", "random", "--games", "0"],
    ),  # one line, exit 2
    ("play_models.py", ["--no-such-flag"]),  # argparse usage, exit 2
    ("train_batch.py", ["--lr", "nan", "--save", "never-written.pt"]),  # refused before any work
]


@pytest.mark.parametrize("script,args", CASES, ids=[f"{s}-{i}" for i, (s, _) in enumerate(CASES)])
def test_in_process_run_equals_a_real_child(script, args):
    inproc, child = run(script, *args), run(script, *args, subprocess_=True)
    assert (inproc.returncode, inproc.stdout, inproc.stderr) == (
        child.returncode,
        child.stdout,
        child.stderr,
    )
