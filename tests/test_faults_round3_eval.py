"""Faults round three, the evaluation side: a result describes the model that played (its
checkpoint is read once, and its md5 is of those bytes), nothing hangs, every limit is
prompt, and bad input is one error line.  One cause per test; each fails on the code
before its fix."""
import hashlib
import os
import shutil

import pytest
import torch

from helpers import assert_one_line_error, md5, run
from tdbg.net.model import TDNetwork, new_metadata, save_checkpoint
from tdbg.play.results_file import read_results


def _net(path, seed: int, hidden=(8,)) -> str:
    """A fresh DMP net (its weights drawn with ``seed``) saved as a checkpoint."""
    torch.manual_seed(seed)
    model = TDNetwork(196, list(hidden))
    save_checkpoint(str(path), model, new_metadata(model, "dmp"))
    return str(path)


# --- kind 2: a result describes the model that played ----------------------------------------

def test_a_checkpoint_replaced_during_the_games_does_not_change_the_result(tmp_path, monkeypatch):
    """x.pt is replaced atomically (as a training save does) after play_models.py read it and
    before its games start: the games are the first file's, and so is the recorded md5.  The
    oracle is the same run on an untouched copy; a run on the replacement differs, so the
    comparison can fail."""
    import tdbg.play.series as series_module
    x, copy, other = _net(tmp_path / "x.pt", 1), tmp_path / "copy.pt", _net(tmp_path / "other.pt", 2)
    shutil.copy(x, copy)
    first_md5 = md5(x)
    games = ["--model2", "random", "--games", "200", "--seed", "5", "--quiet"]
    untouched = run("play_models.py", "--model1", copy, *games, "--csv", tmp_path / "u.csv", check=True)
    replaced_by = run("play_models.py", "--model1", other, *games, "--csv", tmp_path / "o.csv", check=True)

    real_open_pool = series_module.open_pool

    def replace_then_open(*args, **kwargs):  # the moment between reading the checkpoint and the games
        spare = tmp_path / "spare.pt"
        shutil.copy(other, spare)
        os.replace(spare, x)
        return real_open_pool(*args, **kwargs)
    monkeypatch.setattr(series_module, "open_pool", replace_then_open)
    got = run("play_models.py", "--model1", x, *games, "--csv", tmp_path / "c.csv", check=True)
    assert md5(x) == md5(other) != first_md5  # the file was replaced during the run
    played, oracle, wrong = (read_results(str(tmp_path / n)) for n in ("c.csv", "u.csv", "o.csv"))
    assert played.header["model1_md5"] == first_md5 == oracle.header["model1_md5"]
    assert list(played.points) == list(oracle.points)
    assert list(wrong.points) != list(oracle.points)
    rate = [r.stdout.splitlines()[2].split(":", 1)[1] for r in (got, untouched, replaced_by)]
    assert rate[0] == rate[1] != rate[2]


def test_workers_get_the_weights_not_the_path(tmp_path):
    """A pinned player carries its checkpoint's bytes: an agent built from it plays them even
    when the file is gone, and its md5 is theirs."""
    from tdbg.game.modes import game_mode
    from tdbg.play.players import Player, build_agent, pinned
    path = _net(tmp_path / "x.pt", 3)
    data = open(path, "rb").read()
    player = pinned(Player(path))
    assert player.data == data and player.md5 == hashlib.md5(data).hexdigest()
    os.remove(path)
    agent = build_agent(player, game_mode("dmp"))
    torch.manual_seed(3)
    assert torch.equal(agent.model.layers[0].weight, TDNetwork(196, [8]).layers[0].weight)
    assert "data" not in repr(player)  # the bytes stay out of messages


# --- kind 6: nothing hangs -------------------------------------------------------------------

HALF_SENT = r'''
import gc, multiprocessing.queues, os, struct, sys, time, warnings
from tdbg.app import cli
from tdbg.infra.workers import WorkerPool

def half_a_result(marker):
    """A worker killed while it sends a result: the message's length and its first bytes
    are in the pipe, the rest never comes."""
    warnings.simplefilter("ignore")  # (torch warns of deprecated names when gc's objects are looked at)
    pipe = [q for q in gc.get_objects() if isinstance(q, multiprocessing.queues.SimpleQueue)][0]._writer
    os.write(pipe.fileno(), struct.pack("!i", 1 << 20) + b"partial")
    open(marker, "w").close()
    time.sleep(3600)

def main():
    with WorkerPool(2) as pool:
        pool.submit(half_a_result, sys.argv[1])
        while not os.path.exists(sys.argv[1]):
            time.sleep(0.05)
        time.sleep(0.5)  # the manager thread is now blocked reading the rest of the message
        raise KeyboardInterrupt  # Ctrl-C

if __name__ == "__main__":
    cli.run_main(main)
'''


def test_ctrl_c_ends_the_run_when_a_worker_died_half_way_through_sending(tmp_path):
    """The hang after Ctrl-C: the pool's manager thread reads a result a killed worker had
    begun to send, and the interpreter's exit joins that thread with no limit.  Here the
    half-sent result is made on purpose; the run must end with the one `interrupted` line
    (the timeout is only a guard against the hang itself)."""
    import subprocess
    import sys
    script = tmp_path / "half_sent.py"
    script.write_text(HALF_SENT)
    proc = subprocess.run([sys.executable, str(script), str(tmp_path / "sent")], capture_output=True, text=True,
                          timeout=300)
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert proc.returncode == 130 and len(lines) == 1 and "interrupted" in lines[0], proc.stderr
