"""Reduced-precision self-play (lowp.py) against today's float32 path, and the machine's peak, in one run.

Self-play in this process (one torch thread, like one self-play worker), 0-ply
(sampled TD targets) on a ``--hidden`` DMP net (fresh, seeded; or ``--model``):
each precision collects ``--episodes`` episodes per round from the same seeds (so
the same games up to near-ties), the precisions interleaved round by round in
alternating order over ``--reps`` rounds, so load from other programs hits all
alike.  ``fp32`` is today's path (incremental first layer in C, torch float32 for
the rest); ``fp32-c``, ``bf16`` and ``int8`` run the rest in mlp_lowp.c (here ``bf16``
is always the C kernel), ``bf16-amx`` in torch's bfloat16 matmul (AMX tiles where the CPU
has them: the arm is added by default there; it is what ``bf16`` runs on such a CPU).
Optionally (``--oneply-episodes``) the same for exact 1-ply targets.

The limit, printed: multiply-adds of the network passes after the first layer
(hidden layers and head, per row: sum h_i h_(i+1) + h_last x outputs) per second
of the time inside them (``net_seconds``), turned into per CPU second by the arm's
share of a core while collecting (the machine is shared: wall time counts other
programs' turns), against peaks measured in the same run, per CPU second, best of
many short samples with the kinds interleaved:

* ``gemm``: the best this machine does on the same shapes in the same precision:
  torch's float32 matmul in blocks of 512 rows for fp32, our own kernel on 960
  cache-resident rows for the C paths (``fraction_of_fp32_peak``: against the faster
  of the two float32 ones);
* ``instruction``: the precision's multiply-add instruction alone (24 independent
  accumulators in registers, no loads): the core's ceiling.

Time split of each arm: engine (C move generation + first layer), net (the rest
of the network, including its Python call), other (Python bookkeeping).
Prints one JSON object last.

    python experiments/benchmarks/reduced_precision.py --hidden 256,256,256 --episodes 300 --reps 3 --oneply-episodes 8
"""

from __future__ import annotations

import math
from dataclasses import replace
import os
import sys
import time
from itertools import pairwise

import numpy as np
import torch

from tdbg.app import cli
from tdbg.net import lowp
from tdbg.net.model import TDNetwork, load_checkpoint, parse_hidden
from tdbg.game.modes import game_mode
from tdbg.learn.selfplay import FP32_COLLECTION, SelfPlay, SelfPlaySetup
from tdbg.infra import threads
from tdbg.infra.fileio import json_text

ARMS = ("fp32", "fp32-c", "bf16", "int8")
AMX_ARMS = ARMS + ("bf16-amx",)  # on a CPU with AMX-BF16


def macs_per_row(model) -> int:
    sizes = list(model.hidden)
    return sum(a * b for a, b in pairwise(sizes)) + sizes[-1] * model.n_outputs


def collect(model, mode, precision: str, oneply: bool, episodes: int, seed: int) -> dict:
    sp = SelfPlay(
        model,
        SelfPlaySetup(
            mode,
            replace(
                FP32_COLLECTION,
                oneply=oneply,
                parallel_games=128,
                scoring=replace(
                    FP32_COLLECTION.scoring, first_layer="incremental", precision=precision
                ),
            ),
            engine="c",
        ),
    )
    t0, c0 = time.perf_counter(), time.process_time()
    out = sp.collect(episodes, np.random.default_rng(seed))
    st = out["stats"]
    return {
        "seconds": time.perf_counter() - t0,
        "cpu_seconds": time.process_time() - c0,
        "episodes": st["episodes"],
        "evaluations": st["evaluations"],
        "engine_seconds": st["engine_seconds"],
        "net_seconds": st["net_seconds"],
        "collect_seconds": st["collect_seconds"],
        "samples": len(out["targets"]),
    }


def run_arms(model, mode, arms, oneply: bool, episodes: int, reps: int, seed: int) -> dict:
    acc = {a: {} for a in arms}
    collect(
        model, mode, arms[0], oneply, max(2, episodes // 10), seed
    )  # warm caches and lazy imports
    for rep in range(reps):
        for arm in arms if rep % 2 == 0 else arms[::-1]:
            r = collect(model, mode, arm, oneply, episodes, seed + rep)
            for k, v in r.items():
                acc[arm][k] = acc[arm].get(k, 0) + v
            print(
                json_text(
                    {
                        "rep": rep,
                        "arm": arm,
                        "oneply": oneply,
                        "episodes_per_s": round(r["episodes"] / r["seconds"], 2),
                    }
                ),
                file=sys.stderr,
                flush=True,
            )
    return acc


def best_rate(fn, work: float, seconds: float) -> float:
    """The best of many short samples of ``work`` / CPU seconds of ``fn()`` (CPU time, so
    another program's share of the core does not count against the peak)."""
    fn()
    best, end = 0.0, time.perf_counter() + seconds
    while time.perf_counter() < end:
        c0 = time.process_time()
        fn()
        dt = time.process_time() - c0
        if dt > 0:
            best = max(best, work / dt)
    return best


def gemm_peak_torch(sizes, seconds: float = 1.0) -> float:
    """multiply-adds per CPU second of torch float32 matmul on the hidden shapes, 512-row
    blocks, ReLU between."""
    ws = [torch.randn(a, b) / a**0.5 for a, b in pairwise(sizes)]
    x = torch.rand(512, sizes[0])
    macs = 512 * sum(a * b for a, b in pairwise(sizes))

    def run():
        with torch.inference_mode():
            for _ in range(4):
                h = x
                for w in ws:
                    h = torch.relu(h @ w)

    return best_rate(run, 4 * macs, seconds)


def gemm_peak_kernel(model, kernel: str, seconds: float = 1.0) -> float:
    """multiply-adds per CPU second of our kernel on 960 cache-resident rows of the model's shape."""
    mlp = lowp.LowpMLP(model, kernel)
    x = np.maximum(np.random.default_rng(0).normal(size=(960, model.hidden[0])), 0).astype(
        np.float32
    )
    return best_rate(lambda: mlp.logits(x), len(x) * macs_per_row(model), seconds)


def instruction_peak(kernel: str, seconds: float = 0.5) -> float:
    """multiply-adds per CPU second of the precision's instruction alone (mlp_lowp.c lp_peak_loop)."""
    from tdbg.game._bgcore import lib

    path = {"fp32-c": lib.LP_FP32, "bf16": lib.LP_BF16, "int8": lib.LP_INT8}.get(kernel)
    if path is None:  # bf16-amx: oneDNN's tiles, no loop of ours to time
        return float("nan")
    iters = 200_000
    macs = lib.lp_peak_loop(path, 1)
    if macs < 0:
        return float("nan")
    return best_rate(lambda: lib.lp_peak_loop(path, iters), macs * iters, seconds)


def measure_peaks(model, arms, rounds: int = 4) -> dict:
    """Each arm's peaks, the kinds interleaved over ``rounds`` (best of all): gemm (torch for
    fp32, our kernel for the others) and the bare instruction."""
    sizes = list(model.hidden)
    peaks = {a: {"gemm": 0.0, "instruction": 0.0} for a in arms}
    for _ in range(rounds):
        for arm in arms:
            kernel = lowp.resolve("fp32-c" if arm == "fp32" else arm)
            g = gemm_peak_torch(sizes) if arm == "fp32" else gemm_peak_kernel(model, kernel)
            peaks[arm]["gemm"] = max(peaks[arm]["gemm"], g)
            peak = instruction_peak(kernel)  # NaN where no loop of ours times the instruction
            peaks[arm]["instruction"] = (
                peak if math.isnan(peak) else max(peaks[arm]["instruction"], peak)
            )
    return peaks


def summarise(acc: dict, model, peaks: dict, base: str = "fp32") -> dict:
    mpr = macs_per_row(model)
    out = {}
    for arm, a in acc.items():
        busy = max(a["collect_seconds"], 1e-9)
        cpu_share = min(1.0, a["cpu_seconds"] / a["seconds"])  # of one core, while collecting
        net_macs = (
            a["evaluations"] * mpr / max(a["net_seconds"], 1e-9)
        )  # per wall second in the passes
        net_macs_cpu = net_macs / cpu_share  # per CPU second (the peaks are per CPU second too)
        out[arm] = {
            "episodes_per_s": round(a["episodes"] / a["seconds"], 2),
            "evals_per_s": round(a["evaluations"] / a["seconds"]),
            "speedup_episodes": round(
                (a["episodes"] / a["seconds"]) / (acc[base]["episodes"] / acc[base]["seconds"]), 3
            ),
            "speedup_episodes_per_cpu_s": round(
                (a["episodes"] / a["cpu_seconds"])
                / (acc[base]["episodes"] / acc[base]["cpu_seconds"]),
                3,
            ),
            "cpu_share": round(cpu_share, 3),
            "time_split": {
                "engine": round(a["engine_seconds"] / busy, 3),
                "net": round(a["net_seconds"] / busy, 3),
                "other": round(1 - (a["engine_seconds"] + a["net_seconds"]) / busy, 3),
            },
            "net_gmacs_per_s": round(net_macs / 1e9, 2),
            "net_gmacs_per_cpu_s": round(net_macs_cpu / 1e9, 2),
            "fraction_of_gemm": round(net_macs_cpu / peaks[arm]["gemm"], 3),
            "fraction_of_instruction_peak": (
                round(net_macs_cpu / peaks[arm]["instruction"], 3)
                if peaks[arm]["instruction"] > 0
                else None
            ),
            # against the best float32 this machine does (torch or our FMA kernel, whichever is faster)
            "fraction_of_fp32_peak": round(
                net_macs_cpu / max(peaks[k]["gemm"] for k in peaks if "fp32" in k), 3
            ),
        }
    return out


def main() -> None:
    ap = cli.Parser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hidden", type=cli.hidden_text, default="256,256,256")
    ap.add_argument("--model", help="a DMP checkpoint instead of a fresh --hidden net")
    ap.add_argument(
        "--episodes", type=cli.positive_int, default=300, help="0-ply episodes per arm per round"
    )
    ap.add_argument(
        "--oneply-episodes",
        type=cli.non_negative_int,
        default=0,
        help="1-ply episodes per arm per round (0: skip)",
    )
    ap.add_argument("--reps", type=cli.positive_int, default=3)
    ap.add_argument("--arms", default=",".join(AMX_ARMS if lowp.amx_present() else ARMS))
    ap.add_argument("--seed", type=cli.seed_arg, default=0)
    args = ap.parse_args()
    os.environ["TDBG_LOWP_AMX"] = "0"  # the arm bf16 is the C kernel; bf16-amx is asked for by name
    mode = game_mode("dmp")
    if args.model:
        model = load_checkpoint(args.model)[0].eval()
    else:
        torch.manual_seed(args.seed)
        model = TDNetwork(mode.n_inputs, parse_hidden(args.hidden), mode.outputs[0]).eval()
    # what train_batch.py with one worker gets by default for this net (tdbg.infra.threads)
    chosen = threads.use(None, 0, sum(p.numel() for p in model.parameters()))
    arms = [a for a in args.arms.split(",") if a]
    runs = dict(lowp.available(), **{"bf16-amx": lowp.amx_present()})
    print(
        json_text({"kernels": runs, "lines": {a: lowp.describe(a) for a in arms if a != "fp32"}}),
        file=sys.stderr,
        flush=True,
    )
    acc0 = run_arms(model, mode, arms, False, args.episodes, args.reps, args.seed)
    acc1 = (
        run_arms(model, mode, arms, True, args.oneply_episodes, args.reps, args.seed)
        if args.oneply_episodes
        else None
    )
    sizes = list(model.hidden)
    peaks = measure_peaks(model, arms)
    result = {
        **chosen,
        "benchmark": "reduced_precision",
        "hidden": sizes,
        "model": args.model,
        "output_mode": model.output_mode,
        "episodes_per_round": args.episodes,
        "oneply_episodes_per_round": args.oneply_episodes,
        "reps": args.reps,
        "torch_threads": 1,
        "kernels_available": runs,
        "macs_per_row": macs_per_row(model),
        "peaks_gmacs": {a: {k: round(v / 1e9, 2) for k, v in p.items()} for a, p in peaks.items()},
        "zero_ply": summarise(acc0, model, peaks, arms[0]),
    }
    if acc1:
        result["one_ply"] = summarise(acc1, model, peaks, arms[0])
    print(json_text(result))


if __name__ == "__main__":
    cli.run_main(main)
