"""Single-thread 0-ply decisions/s: the standalone C program, td_agent and gnubg-nn's
best_move, on the same (position, dice) pairs in one run.  Prints one JSON object last.

td_agent is measured twice: one decision per call (as the C program answers) and all
decisions in one batched call (as play_models uses it).

    python experiments/benchmarks/c_inference.py [--decisions 3000] [--hidden 128,128] [--checkpoint X.pt]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, ROOT)

import gnubg_nn  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402

import backgammon_engine as be  # noqa: E402
from model import TDNetwork, new_metadata, parse_hidden, save_checkpoint  # noqa: E402
from td_agent import TDAgent  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "tests"))
from oracle_positions import oracle_positions  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--decisions", type=int, default=3000)
    ap.add_argument("--hidden", default="128,128")
    ap.add_argument("--checkpoint")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    torch.set_num_threads(1)
    tmp = tempfile.mkdtemp()
    ckpt = args.checkpoint
    if not ckpt:
        torch.manual_seed(args.seed)
        model = TDNetwork(196, parse_hidden(args.hidden), "probability")
        ckpt = os.path.join(tmp, "m.pt")
        save_checkpoint(ckpt, model, new_metadata(model, "dmp"))
    binf = os.path.join(tmp, "m.bin")
    subprocess.run([sys.executable, os.path.join(ROOT, "tools", "export_weights.py"), ckpt, binf],
                   check=True, capture_output=True)
    subprocess.run(["make", "-s", "-C", os.path.join(ROOT, "c_inference")], check=True, capture_output=True)

    boards = oracle_positions(args.decisions, seed=args.seed + 100)
    dice = np.random.default_rng(args.seed).integers(1, 7, (len(boards), 2))
    lines = "".join(f"{be.position_id(b)} {d1} {d2}\n" for b, (d1, d2) in zip(boards, dice))
    t = time.perf_counter()
    proc = subprocess.run([os.path.join(ROOT, "c_inference", "tdbg_move"), binf], input=lines,
                          capture_output=True, text=True, check=True)
    c_secs = time.perf_counter() - t
    assert len(proc.stdout.splitlines()) == len(boards)

    agent = TDAgent.from_checkpoint(ckpt)
    t = time.perf_counter()
    for k in range(len(boards)):
        agent.choose_moves(boards[k:k + 1], dice[k:k + 1])
    td_single = time.perf_counter() - t
    t = time.perf_counter()
    agent.choose_moves(boards, dice)
    td_batch = time.perf_counter() - t

    blist, dlist = boards.tolist(), dice.tolist()
    t = time.perf_counter()
    for b, (d1, d2) in zip(blist, dlist):
        gnubg_nn.best_move(b, d1, d2)
    gnubg_secs = time.perf_counter() - t

    n = len(boards)
    print(json.dumps({
        "benchmark": "c_inference", "decisions": n, "hidden": agent.model.hidden, "threads": 1,
        "decisions_per_s": {"c_program": round(n / c_secs), "td_agent_one_per_call": round(n / td_single),
                            "td_agent_batched": round(n / td_batch), "gnubg_nn_best_move": round(n / gnubg_secs)},
        "note": "c_program time includes process start and loading the weights",
    }))


if __name__ == "__main__":
    main()
