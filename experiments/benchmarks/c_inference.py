"""Single-thread 0-ply decisions/s: the standalone C program (now and at a baseline commit),
td_agent and gnubg-nn's best_move, on the same (position, dice) pairs in one run; and
games/s of c_inference/tdbg_play against match.play_games on the same dice.  Prints one
JSON object last.

td_agent is measured twice: one decision per call (as the C program answers) and all
decisions in one batched call (as play_models uses it).  The baseline is the C program
built from c_inference/ at --baseline (default: the commit before its decisions were
evaluated as matrices with the incremental first layer), given the weights as format
version 1, which it reads (the same ReLU network without version 2's activation field); each C timing is the best of
--reps runs, so the ratios between C programs are as little disturbed by a busy machine
as this allows.  Rates per CPU second (the process's user + system time) are given
beside the wall-clock ones: on a busy machine they say more about the code.

    python experiments/benchmarks/c_inference.py [--decisions 3000] [--hidden 256,256 512,512,256,256]
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import tempfile
import time

import gnubg_nn
import numpy as np
import torch

from tdbg.app import cli
from tdbg.game import backgammon_engine as be
from tdbg.play.match import play_games
from tdbg.net.model import TDNetwork, new_metadata, parse_hidden, save_checkpoint
from tdbg.game.modes import game_mode
from tdbg.play.players import Player
from tdbg.play.seating import evaluator
from tdbg.tools.dice_file import dice_lines
from tdbg.tools.export_weights import version1_bytes
from tdbg.infra import profiling, threads
from tdbg.infra.fileio import json_text

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def _tests_module(name: str):
    """A module of tests/ (the gnubg-drawn positions), loaded from its file."""
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, "tests", name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


oracle_positions = _tests_module("oracle_positions").oracle_positions

BASELINE = "da33cb2"  # c_inference before the matrix path (one candidate at a time, SSE2)


def build_baseline(rev: str, folder: str) -> str:
    """tdbg_move as of commit ``rev``, built in ``folder`` with the same flags."""
    for path in (
        "c_inference/tdnet.c",
        "c_inference/tdnet.h",
        "c_inference/tdbg_move.c",
        "c_engine/bgcore.c",
        "c_engine/bgcore.h",
    ):
        text = subprocess.run(
            ["git", "-C", ROOT, "show", f"{rev}:{path}"], check=True, capture_output=True
        ).stdout
        with open(os.path.join(folder, os.path.basename(path)), "wb") as fh:
            fh.write(text)
    exe = os.path.join(folder, "tdbg_move")
    subprocess.run(
        [
            "cc",
            "-O3",
            "-std=c99",
            "-I",
            folder,
            "-o",
            exe,
            *(os.path.join(folder, f) for f in ("tdbg_move.c", "tdnet.c", "bgcore.c")),
            "-lm",
        ],
        check=True,
        capture_output=True,
    )
    return exe


def timed(cmd, stdin: str, reps: int) -> tuple[float, float, str]:
    """Best wall-clock and best CPU seconds of ``reps`` runs of a program, and its output."""
    best, best_cpu, out = float("inf"), float("inf"), ""
    for _ in range(reps):
        t, c = time.perf_counter(), profiling.children_cpu()
        out = subprocess.run(cmd, input=stdin, capture_output=True, text=True, check=True).stdout
        best, best_cpu = (
            min(best, time.perf_counter() - t),
            min(best_cpu, profiling.children_cpu() - c),
        )
    return best, best_cpu, out


def decisions(hidden, args, baseline_exe, tmp) -> dict:
    torch.manual_seed(args.seed)
    model = TDNetwork(196, hidden, "probability")
    ckpt, binf = os.path.join(tmp, "m.pt"), os.path.join(tmp, "m.bin")
    save_checkpoint(ckpt, model, new_metadata(model, "dmp"))
    subprocess.run(
        [
            sys.executable,
            os.path.join(ROOT, "tools", "export_weights.py"),
            ckpt,
            binf,
            "--overwrite",
        ],
        check=True,
        capture_output=True,
    )
    binf_v1 = os.path.join(
        tmp, "m_v1.bin"
    )  # the baseline reads format version 1 (ReLU, no activation field)
    with open(binf, "rb") as src, open(binf_v1, "wb") as dst:
        dst.write(version1_bytes(src.read()))
    boards = oracle_positions(args.decisions, seed=args.seed + 100)
    dice = np.random.default_rng(args.seed).integers(1, 7, (len(boards), 2))
    lines = "".join(
        f"{be.position_id(b)} {d1} {d2}\n" for b, (d1, d2) in zip(boards, dice, strict=True)
    )
    c_secs, c_cpu, c_out = timed(
        [os.path.join(ROOT, "c_inference", "tdbg_move"), binf], lines, args.reps
    )
    base_secs, base_cpu, base_out = timed([baseline_exe, binf_v1], lines, args.reps)
    assert len(c_out.splitlines()) == len(boards)
    same = sum(
        a.split("\t")[4] == b.split("\t")[4]
        for a, b in zip(c_out.splitlines(), base_out.splitlines(), strict=True)
    )

    agent = evaluator(Player(ckpt))
    n_single = min(len(boards), args.single)
    t = time.perf_counter()
    for k in range(n_single):
        agent.choose_moves(boards[k : k + 1], dice[k : k + 1])
    td_single = time.perf_counter() - t
    td_batch = td_batch_cpu = float("inf")
    for _ in range(args.reps):
        t, c = time.perf_counter(), time.process_time()
        chosen = agent.choose_moves(boards, dice)
        td_batch, td_batch_cpu = (
            min(td_batch, time.perf_counter() - t),
            min(td_batch_cpu, time.process_time() - c),
        )
    agree = sum(
        line.split("\t")[4] == be.position_id(be.swap(c))
        for line, c in zip(c_out.splitlines(), chosen, strict=True)
    )

    blist, dlist = boards.tolist(), dice.tolist()
    t = time.perf_counter()
    for b, (d1, d2) in zip(blist, dlist, strict=True):
        gnubg_nn.best_move(b, d1, d2)
    gnubg_secs = time.perf_counter() - t

    n = len(boards)
    rate = {
        "c_program": round(n / c_secs),
        "c_program_baseline": round(n / base_secs),
        "td_agent_one_per_call": round(n_single / td_single),
        "td_agent_batched": round(n / td_batch),
        "gnubg_nn_best_move": round(n / gnubg_secs),
    }
    cpu_rate = {
        "c_program": round(n / c_cpu),
        "c_program_baseline": round(n / base_cpu),
        "td_agent_batched": round(n / td_batch_cpu),
    }
    result = {
        "hidden": hidden,
        "decisions_per_s": rate,
        "decisions_per_cpu_s": cpu_rate,
        "c_over_baseline": round(rate["c_program"] / rate["c_program_baseline"], 2),
        "c_over_td_batched": round(rate["c_program"] / rate["td_agent_batched"], 2),
        "baseline_over_td_batched": round(rate["c_program_baseline"] / rate["td_agent_batched"], 2),
        "cpu_c_over_baseline": round(cpu_rate["c_program"] / cpu_rate["c_program_baseline"], 2),
        "cpu_c_over_td_batched": round(cpu_rate["c_program"] / cpu_rate["td_agent_batched"], 2),
        "cpu_baseline_over_td_batched": round(
            cpu_rate["c_program_baseline"] / cpu_rate["td_agent_batched"], 2
        ),
        "same_choice": {"c_vs_baseline": same, "c_vs_td_agent": agree, "of": n},
    }
    if args.games:
        result["games"] = games(model, binf, args, tmp)
    return result


def games(model, binf: str, args, tmp: str) -> dict:
    """Self-play games of the network (both seats) on play_models.py's dice: tdbg_play vs play_games."""
    dice = os.path.join(tmp, "dice.txt")
    with open(dice, "w") as fh:
        fh.writelines(line + "\n" for line in dice_lines(args.games, args.seed, 600))
    c_secs, _, out = timed(
        [os.path.join(ROOT, "c_inference", "tdbg_play"), binf, binf, "--dice", dice, "--per-game"],
        "",
        1,
    )
    mode = game_mode("dmp")
    a, b = evaluator(Player("a"), mode, model=model), evaluator(Player("b"), mode, model=model)
    t = time.perf_counter()
    records = play_games(a, b, range(args.games), mode, args.seed)
    py_secs = time.perf_counter() - t
    c_points = [float(ln.split("\t")[3]) for ln in out.splitlines() if ln.startswith("game\t")]
    return {
        "games": args.games,
        "games_per_s": {
            "tdbg_play": round(args.games / c_secs, 1),
            "play_games": round(args.games / py_secs, 1),
        },
        "same_points": sum(p == r.points for p, r in zip(c_points, records, strict=True)),
        "note": "play_games batches all games' decisions per ply; tdbg_play plays one game after another",
    }


def main() -> None:
    ap = cli.Parser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--decisions", type=cli.positive_int, default=3000)
    ap.add_argument(
        "--single",
        type=cli.positive_int,
        default=1000,
        help="decisions timed one per td_agent call",
    )
    ap.add_argument(
        "--hidden", type=cli.hidden_text, nargs="+", default=["256,256", "512,512,256,256"]
    )
    ap.add_argument(
        "--games",
        type=cli.non_negative_int,
        default=0,
        help="also time this many self-play games (0: none)",
    )
    ap.add_argument(
        "--reps",
        type=cli.positive_int,
        default=2,
        help="best of this many runs for the C programs and the batch",
    )
    ap.add_argument("--baseline", default=BASELINE, help="git commit of the baseline C program")
    ap.add_argument("--seed", type=cli.seed_arg, default=0)
    args = ap.parse_args()
    chosen = threads.use()  # what a user's run gets by default (tdbg.infra.threads)
    tmp = tempfile.mkdtemp()
    subprocess.run(
        ["make", "-s", "-C", os.path.join(ROOT, "c_inference")], check=True, capture_output=True
    )
    baseline_exe = build_baseline(args.baseline, tempfile.mkdtemp())
    results = [decisions(parse_hidden(h), args, baseline_exe, tmp) for h in args.hidden]
    print(
        json_text(
            {
                **chosen,
                "benchmark": "c_inference",
                "decisions": args.decisions,
                "threads": 1,
                "baseline": args.baseline,
                "results": results,
                "note": "C program times include process start and loading the weights; best of "
                f"{args.reps} runs for C and td_agent_batched; decisions_per_cpu_s: per second of the process's "
                "own CPU time (user + system), less disturbed than wall-clock time on a shared machine",
            }
        )
    )


if __name__ == "__main__":
    cli.run_main(main)
