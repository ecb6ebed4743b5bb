"""Where a train_batch.py stage's time goes, 0-ply and exact 1-ply, part by part, in one run.

Each stage is a real train_batch.py stage: its flags and defaults (collection precision
auto, so bf16 where the CPU has it), run by training_loop.run_stage with the BatchLearner:
``--workers`` self-play processes collect a round, this process trains one epoch on it,
saves the checkpoint and writes the log row, round after round.  The net is
``--model`` (a new stage on its weights) or a fresh ``--hidden`` one; flags this script
does not know go to train_batch.py's parser as they are (``--lr 1e-4``, ``--parallel-games 64``).
The opt-in CPU-time counters of tdbg.infra.profiling are on for the stage.

Capacity is the stage's wall time x ``--cores`` (default: the cores this process may use).
Each share is CPU seconds (every process and thread of the stage) over the capacity:

* movegen, first_layer: the C call that makes every candidate and its first hidden layer,
  split by the share move generation alone takes of that call on positions from the
  model's own play (timed here after the stage, on the same inputs for both);
* kernel: the hidden layers after the first and the head (lowp.py's kernel, or torch's
  forward at fp32; with ``--scoring dense`` it holds the first layer too);
* python_glue: the rest of collection (turn loop, numpy bookkeeping, the samples' inputs);
* transfer: weights out to the workers and samples back (pickling on both sides, each
  worker installing a round's weights and building its scorer), and joining the shares;
* train_forward, train_backward, train_optimizer: the training step's minibatch forward
  and loss, zero_grad and backward, gradient clipping and the optimizer's step;
* trainer_other: the rest of the trainer process (checkpoint and log every round, the
  epoch's shuffling, start and end of the stage);
* worker_start_stop: the workers' start (spawn, imports, their first network and scorer)
  and their exit (with the last round's samples), once per stage;
* idle: capacity not used by the stage (idle cores, or other programs' share of them).

``collection`` gives the first four as shares of collection's CPU alone, and
``python_glue_split`` its glue inside the scorer (around the C calls) and elsewhere.  The kernel's
rate is its multiply-adds per CPU second in the stage against the best per CPU second of
a tight loop of the same kernel on the same shapes (960 rows; torch: 512) in this process
after the stages.  Prints one JSON object last.

    python experiments/benchmarks/stage_breakdown.py --workers 2 --episodes 3000 --oneply-episodes 240
"""

from __future__ import annotations

import os
import sys
import tempfile
import time

import numpy as np
import torch

from tdbg.app import cli, settings_flags, training
from tdbg.game import movegen
from tdbg.game.dice import ALL_ROLLS
from tdbg.game.modes import game_mode
from tdbg.infra import profiling
from tdbg.infra.errors import InputError
from tdbg.infra.fileio import json_text
from tdbg.infra.threads import cores
from tdbg.learn.batch_td import BatchLearner
from tdbg.learn.stage_settings import BatchStage
from tdbg.learn.training_loop import run_stage
from tdbg.net import lowp
from tdbg.net.model import TDNetwork, load_checkpoint
from tdbg.net.scoring import CPU_BLOCK, Scorer, ScoringSettings, greedy_game_decisions

SHARES = (
    "movegen",
    "first_layer",
    "kernel",
    "python_glue",
    "transfer",
    "train_forward",
    "train_backward",
    "train_optimizer",
    "trainer_other",
    "worker_start_stop",
    "idle",
)
PEAK_ROWS = 960  # cache-resident rows for the C kernel's peak (as reduced_precision.py)
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def timed_stage(train_args: list[str]) -> dict:
    """Run one train_batch stage with the counters on: its wall time, the trainer's and the
    workers' CPU seconds, the counters, and what collected (from its checkpoint)."""
    ns = training.batch_parser("train_batch stage").parse_args(train_args)
    if getattr(ns, "backend", "local") != "local":
        raise InputError(
            "stage_breakdown measures worker processes on this machine: drop --backend"
        )
    stage = settings_flags.build(BatchStage, ns, hidden_given=False)
    profiling.take()
    w0, c0, k0 = time.perf_counter(), time.process_time(), profiling.children_cpu()
    summary = run_stage(stage, BatchLearner)  # the workers are joined when it returns
    wall, trainer_cpu, workers_cpu = (
        time.perf_counter() - w0,
        time.process_time() - c0,
        profiling.children_cpu() - k0,
    )
    counters = profiling.take()
    model, meta, _ = load_checkpoint(summary["save"])
    segment = meta["lineage"][-1]["segments"][-1]
    return {
        "wall": wall,
        "trainer_cpu": trainer_cpu,
        "workers_cpu": workers_cpu,
        "counters": counters,
        "model": model.eval(),
        "kernel": segment["collect_kernel"],
        "episodes": summary["episodes"],
        "scoring": stage.collection.scoring.first_layer,
        "engine": stage.run.engine,
        "trainer_threads": torch.get_num_threads(),
    }  # as the stage left them (--overlap: 1)


def best_cpu_seconds(fn, reps: int) -> float:
    """The least CPU time of ``reps`` calls of ``fn`` (another program's turns do not count)."""
    best = float("inf")
    for _ in range(reps):
        c0 = time.process_time()
        fn()
        best = min(best, time.process_time() - c0)
    return best


def movegen_fraction(
    model, scoring: str, engine: str, oneply: bool, games: int, seed: int
) -> float | None:
    """Move generation's share of the C call that also makes the first hidden layers, on the
    decisions of ``games`` greedy games of the model (1-ply: each position with all 21 rolls);
    None when the first layer is not incremental (dense: it is in the kernel)."""
    mode = game_mode("dmp")
    scorer = Scorer(model, mode, engine, scoring=ScoringSettings(first_layer=scoring))
    if scorer.first_layer != "incremental":
        return None
    # a model with other inputs (cube, board features) plays DMP here through a 196-input twin
    player = (
        scorer
        if model.n_inputs == mode.n_inputs
        else Scorer(TDNetwork(mode.n_inputs, model.hidden, "probability"), mode, engine)
    )
    boards, dice = greedy_game_decisions(player, games, np.random.default_rng(seed))
    if oneply:
        boards = np.repeat(boards[:256], len(ALL_ROLLS), axis=0)
        dice = np.tile(ALL_ROLLS, (len(boards) // len(ALL_ROLLS), 1))
    w1 = model.layers[0]
    w1t = np.ascontiguousarray(w1.weight.detach().float().numpy().T)
    b1 = w1.bias.detach().float().numpy().copy()
    moves_only = movegen.make_expander(engine, width=model.n_inputs)
    gen, both = float("inf"), float("inf")
    for _ in range(5):  # interleaved, so load from other programs hits both alike
        gen = min(gen, best_cpu_seconds(lambda: moves_only.expand(boards, dice, encode=False), 3))
        both = min(
            both,
            best_cpu_seconds(lambda: scorer.expand_first_layer(boards, dice, None, w1t, b1), 3),
        )
    return min(1.0, gen / both)


def kernel_peak(model, kernel: str, seconds: float) -> tuple[float, int]:
    """(multiply-adds per CPU second, rows): the best of many short samples of the kernel
    that collected, alone in a tight loop on the model's shapes."""
    rng = np.random.default_rng(0)
    if kernel == "torch-fp32":
        rows = CPU_BLOCK
        x = torch.from_numpy(
            np.maximum(rng.normal(size=(rows, model.hidden[0])), 0).astype(np.float32)
        )

        def run():
            with torch.inference_mode():
                model.from_first_hidden(x)
    else:
        rows = PEAK_ROWS
        mlp = lowp.LowpMLP(model, kernel, path=kernel)
        x = np.maximum(rng.normal(size=(rows, model.hidden[0])), 0).astype(np.float32)

        def run():
            mlp.logits(x)

    run()
    best, end = float("inf"), time.perf_counter() + seconds
    while time.perf_counter() < end:
        best = min(best, best_cpu_seconds(run, 1) or float("inf"))
    return rows * lowp.macs_per_row(model) / best, rows


def breakdown(run: dict, n_cores: int, split: float | None, peak: float) -> dict:
    """The shares of the module notes from one timed stage."""
    c = run["counters"]
    get = lambda name: c.get(name, 0.0)  # noqa: E731
    engine, kernel, collect = get("engine"), get("kernel"), get("collect")
    collect_in_workers = collect - get("collect_in_trainer")
    worker_transfer = get("worker_job_setup") + get("worker_between_jobs")
    train = {k: get(k) for k in ("train_forward", "train_backward", "train_optimizer")}
    total_cpu = run["trainer_cpu"] + run["workers_cpu"]
    capacity = max(run["wall"] * n_cores, total_cpu)
    gen = engine * (1.0 if split is None else split)
    cpu = {
        "movegen": gen,
        "first_layer": engine - gen,
        "kernel": kernel,
        "python_glue": collect - engine - kernel,
        "transfer": get("transfer_trainer") + worker_transfer,
        **train,
        "trainer_other": run["trainer_cpu"]
        - sum(train.values())
        - get("transfer_trainer")
        - get("collect_in_trainer"),
        "worker_start_stop": run["workers_cpu"] - worker_transfer - collect_in_workers,
    }
    cpu["idle"] = capacity - total_cpu
    rate = get("kernel_macs") / kernel if kernel > 0 else float("nan")

    def of_collection(seconds):
        return round(seconds / collect, 4) if collect > 0 else None

    return {
        "episodes": run["episodes"],
        "collect_kernel": run["kernel"],
        "first_layer_in_kernel": split is None,
        "trainer_torch_threads": run.get("trainer_threads"),
        "wall_seconds": round(run["wall"], 2),
        "episodes_per_s": round(run["episodes"] / run["wall"], 2),
        "cpu_seconds": {
            "trainer": round(run["trainer_cpu"], 2),
            "workers": round(run["workers_cpu"], 2),
        },
        "shares": {k: round(cpu[k] / capacity, 4) for k in SHARES},
        "collection": {
            k: of_collection(cpu[k]) for k in ("movegen", "first_layer", "kernel", "python_glue")
        },
        # python_glue in two: numpy and torch around the C calls inside Scorer.score (the head, conversions,
        # finished games' values), and the rest (turn loop, 1-ply's roll means, the samples' inputs)
        "python_glue_split": {
            "in_scorer": of_collection(get("score") - engine - kernel),
            "elsewhere": of_collection(collect - get("score")),
        },
        "movegen_fraction_of_engine": None if split is None else round(split, 4),
        "kernel_rows": int(get("kernel_rows")),
        "kernel_gmacs_per_cpu_s": round(rate / 1e9, 3),
        "kernel_fraction_of_peak": round(rate / peak, 3),
    }


def main() -> None:
    ap = cli.Parser(
        description=__doc__.split("\n\n")[0],
        allow_abbrev=False,
        epilog="Other flags go to train_batch.py's parser for both stages.",
    )
    ap.add_argument(
        "--model",
        default=os.path.join(ROOT, "best_models", "dmp_256x3.pt"),
        help="checkpoint: a new stage on its weights",
    )
    ap.add_argument(
        "--hidden",
        type=cli.hidden_text,
        help="a fresh DMP net of these hidden sizes instead of --model (e.g. 256,256,256)",
    )
    ap.add_argument(
        "--workers",
        type=cli.workers_arg,
        default=2,
        help="self-play worker processes (train_batch's --workers)",
    )
    ap.add_argument(
        "--episodes", type=cli.non_negative_int, default=3000, help="0-ply stage episodes (0: skip)"
    )
    ap.add_argument(
        "--episodes-per-round", type=cli.positive_int, default=200, help="0-ply stage's rounds"
    )
    ap.add_argument(
        "--oneply-episodes",
        type=cli.non_negative_int,
        default=240,
        help="exact 1-ply stage episodes (0: skip)",
    )
    ap.add_argument(
        "--oneply-episodes-per-round",
        type=cli.positive_int,
        default=40,
        help="1-ply stage's rounds",
    )
    ap.add_argument(
        "--cores",
        type=cli.positive_int,
        default=cores(),
        help="capacity: wall time x this many cores",
    )
    ap.add_argument(
        "--peak-seconds",
        type=cli.positive_float,
        default=2.0,
        help="time for the kernel's peak loop",
    )
    ap.add_argument(
        "--split-games",
        type=cli.positive_int,
        default=40,
        help="greedy games for the movegen / first-layer split",
    )
    ap.add_argument(
        "--seed", type=cli.seed_arg, default=0, help="train_batch's --seed, and the split's games"
    )
    args, train_extra = ap.parse_known_args()
    stages = [
        (oneply, n, per_round)
        for oneply, n, per_round in (
            (False, args.episodes, args.episodes_per_round),
            (True, args.oneply_episodes, args.oneply_episodes_per_round),
        )
        if n > 0
    ]
    if not stages:
        ap.error("nothing to run: --episodes and --oneply-episodes are both 0")
    net = ["--hidden", args.hidden] if args.hidden else ["--resume", args.model, "--new-stage"]
    load = os.getloadavg()
    runs = {}
    with tempfile.TemporaryDirectory() as tmp, profiling.enabled():
        for oneply, n, per_round in stages:
            name = "one_ply" if oneply else "zero_ply"
            train_args = [
                *net,
                "--workers",
                str(args.workers),
                "--num-episodes",
                str(n),
                "--episodes-per-round",
                str(per_round),
                "--seed",
                str(args.seed),
                "--quiet",
                "--save",
                os.path.join(tmp, name + ".pt"),
                *(["--oneply"] if oneply else []),
                *train_extra,
            ]
            print(f"{name}: train_batch.py {' '.join(train_args)}", file=sys.stderr, flush=True)
            runs[name] = (oneply, timed_stage(train_args))
    torch.set_num_threads(1)  # the peak and the split: one thread, as each worker
    model, kernel = runs[next(iter(runs))][1]["model"], runs[next(iter(runs))][1]["kernel"]
    peak, peak_rows = kernel_peak(model, kernel, args.peak_seconds)
    result = {
        "benchmark": "stage_breakdown",
        "model": None if args.hidden else args.model,
        "hidden": list(model.hidden),
        "workers": args.workers,
        "cores": args.cores,
        "train_batch_flags": train_extra,
        "load_average_before": [round(x, 2) for x in load],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "kernel_macs_per_row": lowp.macs_per_row(model),
        "kernel_peak": {
            "kernel": kernel,
            "rows": peak_rows,
            "gmacs_per_cpu_s": round(peak / 1e9, 3),
        },
    }
    for name, (oneply, run) in runs.items():
        split = movegen_fraction(
            run["model"], run["scoring"], run["engine"], oneply, args.split_games, args.seed
        )
        result[name] = {"oneply": oneply, **breakdown(run, args.cores, split, peak)}
    print(json_text(result))


if __name__ == "__main__":
    cli.run_main(main)
