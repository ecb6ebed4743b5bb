#!/usr/bin/env python3
"""Where a second torch thread starts to pay: for nets of growing size, a training step
(forward, backward and Adam on a minibatch of 256) and a scoring pass (forward of 2,560
candidate positions: 128 games x about 20 candidates) timed with 1 thread and with
``--threads`` threads, interleaved, ``--seconds`` per measurement.  Prints one JSON line
per net and a last one with the smallest net from which every larger one measured faster
with more threads (null: none did).  tdbg.infra.threads.SMALL_NET_PARAMS records the answer.

    python experiments/benchmarks/thread_crossover.py --threads 2 --seconds 0.1
"""

from __future__ import annotations

import time
from functools import partial

import torch

from tdbg.app import cli
from tdbg.infra.fileio import json_text
from tdbg.infra.threads import cores
from tdbg.net.model import TDNetwork

SIZES = (
    (40,),
    (80,),
    (128,),
    (128, 128),
    (256, 256),
    (256, 256, 256),
    (512, 512, 256),
    (1024, 1024, 512),
)


def rate(fn, threads: int, seconds: float) -> float:
    """Calls of ``fn`` per second with ``threads`` torch threads."""
    torch.set_num_threads(threads)
    fn()
    calls, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        fn()
        calls += 1
    return calls / (time.perf_counter() - start)


def train_step(model, opt, batch, target):
    opt.zero_grad()
    torch.nn.functional.mse_loss(model(batch), target).backward()
    opt.step()


def score(model, candidates):
    with torch.inference_mode():
        model(candidates)


def main() -> None:
    p = cli.Parser(description=__doc__.split("\n\n")[0])
    p.add_argument("--threads", type=cli.positive_int, default=2, help="threads compared with one")
    p.add_argument(
        "--seconds", type=cli.positive_float, default=0.1, help="seconds per measurement"
    )
    p.add_argument(
        "--reps",
        type=cli.positive_int,
        default=2,
        help="interleaved repetitions (the best of each is kept)",
    )
    args = p.parse_args()
    torch.manual_seed(0)
    wins = []
    for hidden in SIZES:
        model = TDNetwork(196, hidden, "probability")
        opt = torch.optim.Adam(model.parameters(), lr=1e-4)
        batch, target, candidates = torch.rand(256, 196), torch.rand(256), torch.rand(2560, 196)

        steps = (
            ("train", partial(train_step, model, opt, batch, target)),
            ("score", partial(score, model, candidates)),
        )
        best = {}
        for _ in range(args.reps):
            for name, fn in steps:
                for t in (1, args.threads):
                    best[name, t] = max(best.get((name, t), 0.0), rate(fn, t, args.seconds))
        params = sum(p.numel() for p in model.parameters())
        speedup = {
            name: round(best[name, args.threads] / best[name, 1], 3) for name in ("train", "score")
        }
        wins.append((params, min(speedup.values()) > 1.0))
        print(
            json_text(
                {
                    "hidden": list(hidden),
                    "params": params,
                    "threads": args.threads,
                    "speedup_over_one": speedup,
                }
            ),
            flush=True,
        )
    crossover = next(
        (params for i, (params, _) in enumerate(wins) if all(w for _, w in wins[i:])), None
    )
    print(
        json_text(
            {
                "crossover_params": crossover,
                "threads": args.threads,
                "seconds": args.seconds,
                "cores": cores(),
            }
        )
    )


if __name__ == "__main__":
    cli.run_main(main)
