"""Faults rerun twelve, the command line's inputs: numbers in ASCII digits only, thread counts
from the environment read as --threads reads them, an empty value never taken as a flag left
out, input files never read whole past what they can hold, a file the run reads never one of
its outputs, a flag for one opponent never ignored with another, and closed standard streams
met with one line.  One cause per test; each failed on the code before its fix."""

import os
import resource
import subprocess
import sys

import pytest

from helpers import HANG_GUARD, ROOT, assert_one_line_error, md5, run

MODEL = os.path.join(ROOT, "best_models", "dmp_128x2.pt")
MATCH_MODEL = os.path.join(ROOT, "best_models", "match_256x2.pt")
MET = os.path.join(ROOT, "data", "met", "Kazaross-XG2.xml")
POSITION = ["4HPwATDgc/ABMA", "--dice", "31"]
TRAIN = ["--hidden", "8", "--num-episodes", "20", "--episodes-per-round", "10", "--quiet"]


def _child(script, *args, env=None, preexec=None):
    """``python script args`` in a child process of its own (what the environment, closed
    descriptors or a memory limit need)."""
    return subprocess.run(
        [sys.executable, os.path.join(ROOT, script), *map(str, args)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        preexec_fn=preexec,
        timeout=HANG_GUARD,
    )


@pytest.mark.parametrize(
    "script, args",
    [
        ("train_batch.py", [*TRAIN, "--lr", "1_0"]),  # was read as 10
        ("train_batch.py", [*TRAIN, "--lr", "٠.٠١"]),  # Arabic-Indic digits: 0.01
        ("train_prob5.py", [*TRAIN, "--lr", "０.１"]),  # fullwidth digits
        ("tools/analyse.py", [MODEL, *POSITION, "--ply", "١"]),  # a type=int flag with choices
        ("tools/rollout.py", [MODEL, *POSITION, "--ply", "0_1"]),
        ("play_models.py", ["--model1", "random", "--model2", "random", "--gnubg-timeout", "1_0"]),
    ],
)
def test_number_flags_read_ascii_digits_only(tmp_path, script, args):
    """Python's int() and float() read 1_0 as 10 and digits of any script: `--lr 1_0` trained
    at 10, `--ply ١` looked one ply ahead, where the whole-number flags refused them."""
    if script.startswith("train"):
        args = [*args, "--save", tmp_path / "s.pt"]
    proc = run(script, *args)
    assert_one_line_error(proc, "expected a")
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("value", ["²", "١", "１２", "0"])
def test_thread_counts_from_the_environment_read_ascii_digits_with_the_programs_name(value):
    """TDBG_THREADS=² was a ValueError traceback (str.isdigit passes it, int() does not), ١
    ran one thread where --threads ١ is refused, and the refusal read "error: ..." without
    the program's name."""
    proc = _child("tools/describe_model.py", MODEL, env={"TDBG_THREADS": value})
    assert_one_line_error(proc, "TDBG_THREADS")
    assert proc.stderr.startswith("describe_model.py: error: "), proc.stderr


@pytest.mark.parametrize(
    "script, args, flag",
    [
        ("train_batch.py", [*TRAIN, "--save", "{tmp}/s.pt"], "--config"),  # trained from defaults
        (
            "train_online.py",
            ["--hidden", "8", "--num-episodes", "4", "--save", "{tmp}/s.pt"],
            "--config",
        ),
        ("train_batch.py", [*TRAIN, "--save", "{tmp}/s.pt"], "--tensorboard"),  # trained, no log
        ("gnubg_eval.py", ["--model", MODEL, "--games", "2"], "--gnubg"),  # the default binary
        ("play_models.py", ["--model1", "random", "--model2", "random", "--games", "2"], "--luck"),
        ("tools/gnubg_player.py", [MATCH_MODEL, "--port", "1"], "--host"),  # every interface
    ],
)
def test_an_empty_value_is_refused_not_taken_as_the_flag_left_out(tmp_path, script, args, flag):
    """`--config ''` trained a stage from the defaults, `--gnubg ''` ran the default binary,
    `--host ''` served on every interface: each as if the flag was not given, exit 0."""
    proc = run(script, *[a.replace("{tmp}", str(tmp_path)) for a in args], flag, "")
    assert_one_line_error(proc, f"{flag} '': an empty value names nothing")
    assert os.listdir(tmp_path) == []


def _limit_memory():
    """A child whose memory is capped where the test machine's is not: a file read whole
    fails at once with MemoryError instead of swapping."""
    cap = 6 * 2**30
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


@pytest.mark.parametrize(
    "script, args, words",
    [
        ("tools/compare_results.py", ["{big}", "{big}"], "more than a result file can"),
        (
            "train_batch.py",
            [*TRAIN, "--config", "{big}", "--save", "{tmp}/s.pt"],
            "more than a TOML",
        ),
        (
            "play_models.py",
            ["--model1", MATCH_MODEL, "--model2", MATCH_MODEL, "--games", "2", "--met", "{big}"],
            "more than a match equity table can",
        ),
        (
            "tools/describe_model.py",
            ["{big}"],
            "not a readable checkpoint: it is a file of unknown",
        ),
    ],
)
def test_a_huge_input_file_is_refused_unread(tmp_path, script, args, words):
    """A 10 GB file (`truncate -s 10G`) named as a result file, a stage file, a match equity
    table or a checkpoint was read whole: a MemoryError traceback, or minutes of swapping."""
    big = tmp_path / "big.in"
    with open(big, "wb") as fh:
        fh.truncate(10 * 2**30)  # sparse: no disk used
    args = [a.replace("{big}", str(big)).replace("{tmp}", str(tmp_path)) for a in args]
    proc = _child(script, *args, preexec=_limit_memory)
    assert_one_line_error(proc, words)
    assert sorted(os.listdir(tmp_path)) == ["big.in"]


def test_a_stage_file_is_no_output_of_the_run_that_reads_it(tmp_path):
    """`--config c.toml --log c.toml --overwrite` replaced the stage file with the run's log."""
    config = tmp_path / "c.toml"
    config.write_text('hidden = "8"\nnum_episodes = 20\nepisodes_per_round = 10\n')
    before = md5(config)
    proc = run(
        "train_batch.py",
        "--config",
        config,
        "--save",
        tmp_path / "s.pt",
        "--log",
        config,
        "--overwrite",
        "--quiet",
    )
    assert_one_line_error(proc, "the same file as")
    assert md5(config) == before and sorted(os.listdir(tmp_path)) == ["c.toml"]


@pytest.mark.parametrize("when", ["named first", "read after the outputs were checked"])
def test_a_match_equity_table_is_no_output_of_the_run_that_reads_it(tmp_path, when):
    """`--met m.xml --csv m.xml --overwrite` played the games and replaced the table with the
    result CSV; a training run's --log over its --met is refused too, where the table is read
    after the outputs were checked."""
    met = tmp_path / "m.xml"
    met.write_bytes(open(MET, "rb").read())
    if when == "named first":
        args = ["play_models.py", "--model1", MATCH_MODEL, "--model2", MATCH_MODEL]
        args += ["--games", "2", "--met", met, "--csv", met, "--overwrite", "--quiet"]
    else:
        args = [
            "train_batch.py",
            "--warm-start-match",
            os.path.join(ROOT, "best_models", "cubeful_256x2.pt"),
        ]
        args += ["--num-episodes", "10", "--episodes-per-round", "10", "--quiet"]
        args += ["--met", met, "--log", met, "--save", tmp_path / "s.pt", "--overwrite"]
    proc = run(*args)
    assert_one_line_error(proc, "the same file as")
    assert md5(met) == md5(MET) and sorted(os.listdir(tmp_path)) == ["m.xml"]


def test_games_csv_without_gnubg_ext_is_refused(tmp_path):
    """--games-csv is the per-game record of games against the gnubg binary; against any
    other opponent it was ignored (no file, exit 0)."""
    proc = run(
        "play_models.py",
        "--model1",
        "random",
        "--model2",
        "random",
        "--games",
        "2",
        "--games-csv",
        tmp_path / "g.csv",
    )
    assert_one_line_error(proc, "--games-csv")
    assert os.listdir(tmp_path) == []


def test_a_closed_stdout_is_one_line():
    """`describe_model.py X >&-`: Python's sys.stdout is None, and print() to it was an
    AttributeError traceback."""
    proc = _child("tools/describe_model.py", MODEL, preexec=lambda: os.close(1))
    assert_one_line_error(proc, "cannot write standard output")
    tdbg = os.path.join(os.path.dirname(sys.executable), "tdbg")
    proc = subprocess.run(
        [tdbg, "describe", MODEL],
        capture_output=True,
        text=True,
        cwd=ROOT,
        preexec_fn=lambda: os.close(1),
        timeout=HANG_GUARD,
    )
    assert_one_line_error(proc, "cannot write standard output")
    assert proc.stderr.startswith("tdbg describe: error: ")


def test_a_closed_stdin_ends_the_terminal_game_as_an_empty_one():
    """`tdbg play X <&-`: input() raised "lost sys.stdin", a traceback; it now reads as an
    empty input does (the game ends, exit 0)."""
    proc = _child("play_terminal.py", MODEL, "--seed", "1", preexec=lambda: os.close(0))
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
