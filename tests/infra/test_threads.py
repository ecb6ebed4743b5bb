"""Thread defaults (tdbg/infra/threads.py): the decision by hand-made cases (cores, worker
processes, net size -> threads), what overrides it and in which order, one thread in every
worker process, and the scripts: the run's settings show the chosen count and --threads
overrides it."""

import json

import pytest
import torch

from helpers import QUICK_TRAIN, run
from tdbg.infra import threads
from tdbg.infra.errors import InputError
from tdbg.infra.workers import WorkerPool

BIG = threads.SMALL_NET_PARAMS  # the first size that may use more than one thread
FIRST_SESSION_NET = 196 * 40 + 40 + 40 + 1  # README's first session: --hidden 40, 7,921 parameters


@pytest.mark.parametrize(
    "cores, workers, params, expected",
    [
        (2, 0, FIRST_SESSION_NET, 1),  # a small net: one, however many cores are free
        (2, 2, FIRST_SESSION_NET, 1),
        (16, 0, BIG - 1, 1),  # just below the line
        (16, 0, BIG, 16),  # at it: every core, no workers beside
        (2, 0, 5_000_000, 2),
        (2, 2, 5_000_000, 1),  # --workers 2 on 2 cores: the trainer gets what is left, at least one
        (2, 1, 5_000_000, 1),
        (16, 4, 5_000_000, 12),
        (1, 3, 5_000_000, 1),
        (16, 0, None, 1),  # nothing batched (online TD, playing): one
    ],
)
def test_choose(cores, workers, params, expected):
    assert threads.choose(cores, workers, params) == expected


def test_first_session_net_size():
    from tdbg.net.model import TDNetwork

    assert (
        sum(p.numel() for p in TDNetwork(196, (40,), "probability").parameters())
        == FIRST_SESSION_NET
    )


@pytest.mark.parametrize(
    "flag, env, expected",
    [
        (None, {}, (None, "default")),
        (3, {"TDBG_THREADS": "2", "OMP_NUM_THREADS": "4"}, (3, "--threads")),
        (None, {"TDBG_THREADS": "2", "OMP_NUM_THREADS": "4"}, (2, "TDBG_THREADS")),
        (None, {"OMP_NUM_THREADS": "4"}, (4, "OMP_NUM_THREADS")),
        (
            None,
            {"OMP_NUM_THREADS": "4,2"},
            (4, "OMP_NUM_THREADS"),
        ),  # OpenMP's nested form: the first level
        (
            None,
            {"OMP_NUM_THREADS": "many"},
            (None, "default"),
        ),  # OpenMP warns of it itself and ignores it
        (None, {"TDBG_THREADS": " ", "OMP_NUM_THREADS": ""}, (None, "default")),
    ],
)
def test_requested(flag, env, expected):
    assert threads.requested(flag, env) == expected


@pytest.mark.parametrize("value", ["0", "-1", "two", "1.5"])
def test_bad_tdbg_threads(value):
    with pytest.raises(InputError, match="TDBG_THREADS"):
        threads.requested(None, {"TDBG_THREADS": value})


def _threads_here(job):
    return torch.get_num_threads()


def test_workers_use_one_thread(monkeypatch):
    monkeypatch.setenv("TDBG_THREADS", "3")  # the main process's override is not the workers'
    monkeypatch.setenv("OMP_NUM_THREADS", "3")  # read by torch as each worker imports it
    with WorkerPool(2) as pool:
        assert (
            pool.results([pool.submit(_threads_here, k) for k in range(4)])
            == [threads.WORKER] * 4
            == [1] * 4
        )


def summary_of(proc) -> dict:
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture
def no_thread_env(monkeypatch):
    for name in threads.ENV_VARS:
        monkeypatch.delenv(name, raising=False)


def test_training_prints_its_threads(tmp_path, no_thread_env):
    """The README's first session's net with its default single worker, and with --workers 2:
    one thread, chosen by default; --threads and TDBG_THREADS override it."""
    for workers in ("1", "2"):
        proc = run(
            "train_batch.py",
            "--hidden",
            "40",
            "--num-episodes",
            "20",
            "--workers",
            workers,
            *QUICK_TRAIN,
            "--save",
            tmp_path / f"w{workers}.pt",
            check=True,
        )
        assert {k: summary_of(proc)[k] for k in ("threads", "threads_from")} == {
            "threads": 1,
            "threads_from": "default",
        }
    proc = run(
        "train_batch.py",
        "--hidden",
        "8",
        "--num-episodes",
        "20",
        "--threads",
        "2",
        *QUICK_TRAIN,
        "--save",
        tmp_path / "t.pt",
        check=True,
    )
    assert (summary_of(proc)["threads"], summary_of(proc)["threads_from"]) == (2, "--threads")
    proc = run(
        "train_online.py",
        "--hidden",
        "8",
        "--num-episodes",
        "10",
        "--log-every",
        "10",
        "--quiet",
        "--save",
        tmp_path / "o.pt",
        check=True,
    )
    assert (summary_of(proc)["threads"], summary_of(proc)["threads_from"]) == (1, "default")


def test_online_env_override(tmp_path, no_thread_env, monkeypatch):
    monkeypatch.setenv("TDBG_THREADS", "2")
    proc = run(
        "train_online.py",
        "--hidden",
        "8",
        "--num-episodes",
        "10",
        "--log-every",
        "10",
        "--quiet",
        "--save",
        tmp_path / "o.pt",
        check=True,
    )
    assert (summary_of(proc)["threads"], summary_of(proc)["threads_from"]) == (2, "TDBG_THREADS")


def test_play_models_settings_line(tmp_path, no_thread_env):
    args = ["--model1", "random", "--model2", "pubeval", "--games", "4", "--quiet"]
    proc = run("play_models.py", *args, "--json", tmp_path / "a.json", check=True)
    assert "mode dmp, 4 games in duplicate pairs, seed 0, 1 thread\n" in proc.stdout
    assert json.load(open(tmp_path / "a.json"))["threads"] == 1
    proc = run("play_models.py", *args, "--threads", "2", check=True)
    assert "seed 0, 2 threads\n" in proc.stdout


def test_bad_env_is_one_error_line(tmp_path, no_thread_env, monkeypatch):
    from helpers import assert_one_line_error

    monkeypatch.setenv("TDBG_THREADS", "0")
    assert_one_line_error(
        run("play_models.py", "--model1", "random", "--model2", "pubeval", "--games", "2"),
        "TDBG_THREADS",
    )


@pytest.mark.parametrize(
    "env",
    [{"TDBG_THREADS": "40000"}, {"OMP_NUM_THREADS": "100000"}, {"OMP_NUM_THREADS": "70000,2"}],
)
def test_more_threads_than_the_limit_is_refused(env):
    """About 32,768 OpenMP threads abort the process and 70,000 crash it: a count above the
    limit, from either variable, is refused before any thread starts."""
    name = next(iter(env))
    with pytest.raises(InputError, match=f"{name}=.*at most 1,024 threads"):
        threads.requested(None, env)
    assert threads.requested(None, {name: str(threads.MAX_THREADS)}) == (threads.MAX_THREADS, name)


def test_the_limits_are_one_error_line_in_a_script(no_thread_env):
    """OMP_NUM_THREADS=100000 (it aborted or crashed every script) and --threads above the
    limit: one error line and exit 2."""
    import os
    import subprocess
    import sys

    from helpers import HANG_GUARD, ROOT, assert_one_line_error

    proc = subprocess.run(
        [sys.executable, "tools/describe_model.py", "best_models/dmp_128x2.pt"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        env={**os.environ, "OMP_NUM_THREADS": "100000"},
    )
    assert_one_line_error(proc, "OMP_NUM_THREADS=100000: at most 1,024 threads")
    assert_one_line_error(
        run("play_models.py", "--model1", "random", "--model2", "pubeval", "--threads", "40000"),
        "--threads: at most 1,024 threads",
    )


@pytest.mark.parametrize("value", ["99999999999999999999", "100000"])
def test_a_thread_count_openmp_cannot_parse_is_refused_before_torch_loads(no_thread_env, value):
    """OpenMP reads OMP_NUM_THREADS as torch loads and warns about a value it cannot parse (20
    digits overflow it) in a line of its own: the entry points check the variable before any
    import of torch, so the refusal is the only line, from the console command too."""
    import os
    import subprocess
    import sys

    from helpers import HANG_GUARD, ROOT, assert_one_line_error

    env = {**os.environ, "OMP_NUM_THREADS": value}
    console = os.path.join(os.path.dirname(sys.executable), "tdbg")  # make setup installs it
    for argv in (
        [sys.executable, "tools/describe_model.py", "best_models/dmp_128x2.pt"],
        [console, "describe", "best_models/dmp_128x2.pt"],
    ):
        proc = subprocess.run(
            argv, cwd=ROOT, capture_output=True, text=True, timeout=HANG_GUARD, env=env
        )
        assert_one_line_error(proc, f"OMP_NUM_THREADS={value}: at most 1,024 threads")


def test_the_entry_points_check_reads_the_environment_without_torch():
    """The check every entry point makes first (stop_signals) reads the variables through
    thread_env, which must not load torch: that load is what OpenMP's own warning comes from."""
    import subprocess
    import sys

    from helpers import HANG_GUARD, ROOT
    from tdbg.infra import thread_env

    assert thread_env.requested is threads.requested
    code = "import sys, tdbg.infra.stop_signals; print('torch' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=HANG_GUARD
    )
    assert out.stdout.strip() == "False", out.stderr


def test_a_timeout_poll_cannot_take_is_refused_when_parsed():
    """--gnubg-timeout is waited for by poll(), which takes milliseconds in a signed 32-bit
    number: 2,147,483.647 s at most.  Larger ones (they raised an OverflowError) are refused
    as the flag is read; the limit itself fits."""
    import argparse

    from tdbg.app import cli

    assert cli.MAX_TIMEOUT * 1000 <= 2**31 - 1
    for text in ("3e6", "2147484", "inf"):
        with pytest.raises(argparse.ArgumentTypeError):
            cli.timeout_arg(text)
    assert cli.timeout_arg("1e6") == 1e6
    from helpers import assert_one_line_error

    assert_one_line_error(
        run("gnubg_eval.py", "--model", "best_models/dmp_128x2.pt", "--gnubg-timeout", "3e6"),
        "--gnubg-timeout: at most 1,000,000 seconds",
    )
    assert_one_line_error(
        run(
            "play_models.py",
            "--model1",
            "random",
            "--model2",
            "gnubg-ext",
            "--gnubg-timeout",
            "3e6",
        ),
        "--gnubg-timeout: at most",
    )
