"""Self-play throughput against the network's own ceiling, in one run.

Self-play: ``--workers`` processes (1 torch thread each) collect episodes with a
fresh network of ``--hidden`` sizes for about ``--seconds``.  Ceiling: the same
network's batched forward rate (batch 256) in the same number of processes, one
thread each, running at the same time.  Efficiency = self-play network
evaluations/s divided by the ceiling: the share of the hardware's network
throughput that self-play turns into evaluations.  Prints one JSON object last.

    python experiments/benchmarks/selfplay_throughput.py --hidden 256,256,256 --workers 2 --seconds 30 [--oneply]
"""

from __future__ import annotations

from dataclasses import replace
import time

import numpy as np
import torch

from tdbg.app import cli
from tdbg.net.model import TDNetwork, parse_hidden
from tdbg.game.modes import GAME_MODES, game_mode
from tdbg.learn.selfplay import Collector, FP32_COLLECTION, SelfPlaySetup
from tdbg.infra.workers import WorkerPool
from tdbg.infra import threads
from tdbg.infra.fileio import json_text


def _forward_rate(job) -> float:
    n_inputs, hidden, output_mode, seconds = job
    torch.manual_seed(0)
    model = TDNetwork(n_inputs, hidden, output_mode).eval()
    x = torch.rand(256, n_inputs)
    rows, start = 0, time.perf_counter()
    with torch.inference_mode():
        for _ in range(5):
            model(x)
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            for _ in range(20):
                model(x)
            rows += 20 * 256
    return rows / (time.perf_counter() - start)


def ceiling(workers: int, n_inputs: int, hidden, output_mode: str, seconds: float) -> float:
    with WorkerPool(workers) as pool:
        tasks = [
            pool.submit(_forward_rate, (n_inputs, hidden, output_mode, seconds))
            for _ in range(workers)
        ]
        return sum(pool.results(tasks))


def main() -> None:
    ap = cli.Parser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hidden", type=cli.hidden_text, default="256,256,256")
    ap.add_argument("--workers", type=cli.workers_arg, default=2)
    ap.add_argument("--oneply", action="store_true")
    ap.add_argument("--game-mode", choices=GAME_MODES, default="dmp")
    ap.add_argument("--output", choices=("default", "prob5"), default="default")
    ap.add_argument("--prob5", action="store_true", help="same as --output prob5 (cubeless money)")
    ap.add_argument(
        "--trainer",
        choices=("batch", "online"),
        default="batch",
        help="online: TD(lambda) in one process, learning after every move",
    )
    ap.add_argument("--seconds", type=cli.positive_float, default=30.0)
    ap.add_argument("--parallel-games", type=cli.positive_int, default=128)
    ap.add_argument(
        "--episodes-per-call",
        type=cli.non_negative_int,
        default=0,
        help="0: 128 x workers (1-ply: 32 x workers)",
    )
    ap.add_argument("--seed", type=cli.seed_arg, default=0)
    args = ap.parse_args()

    if args.prob5:
        args.output, args.game_mode = "prob5", "cubeless-money"
    mode = game_mode(args.game_mode)
    hidden = parse_hidden(args.hidden)
    output_mode = {"default": mode.outputs[0]}.get(args.output, args.output)
    if args.trainer == "online":
        return online(args, mode, hidden, output_mode)
    torch.manual_seed(args.seed)
    model = TDNetwork(mode.n_inputs, hidden, output_mode).eval()
    # about what one training round gives each worker: enough games that the
    # barrier at the end of a round (waiting for the longest game) stays small
    per_call = args.episodes_per_call or (32 if args.oneply else 128) * args.workers

    collector = Collector(
        SelfPlaySetup(
            mode,
            replace(
                FP32_COLLECTION,
                oneply=args.oneply,
                parallel_games=args.parallel_games,
                workers=args.workers,
            ),
            engine="c",
        )
    )
    try:
        collector.collect(
            model, args.workers, np.random.SeedSequence(args.seed)
        )  # start the workers
        episodes = evals = samples = 0
        start = time.perf_counter()
        k = 0
        while time.perf_counter() - start < args.seconds:
            k += 1
            data = collector.collect(model, per_call, np.random.SeedSequence([args.seed, k]))
            episodes += data["stats"]["episodes"]
            evals += data["stats"]["evaluations"]
            samples += len(data["targets"])
        elapsed = time.perf_counter() - start
    finally:
        collector.close()
    ceil = ceiling(
        args.workers, mode.n_inputs, hidden, output_mode, min(10.0, max(3.0, args.seconds / 3))
    )
    evals_per_s = evals / elapsed
    print(
        json_text(
            {
                "benchmark": "selfplay_throughput",
                "trainer": "batch",
                "hidden": hidden,
                "workers": args.workers,
                "game_mode": mode.name,
                "output_mode": output_mode,
                "oneply": args.oneply,
                "seconds": round(elapsed, 1),
                "episodes": episodes,
                "episodes_per_s": round(episodes / elapsed, 2),
                "samples_per_s": round(samples / elapsed, 1),
                "evals_per_s": round(evals_per_s),
                "ceiling_evals_per_s": round(ceil),
                "efficiency": round(evals_per_s / ceil, 3),
                "torch_threads_per_worker": 1,
            }
        )
    )


def online(args, mode, hidden, output_mode) -> None:
    """Online TD(lambda) throughput: one process (it is sequential by nature), one thread.
    Evaluations count the after-states scored plus the one forward/backward per move."""
    from tdbg.learn.online_td import OnlineSelfPlay

    threads.use(None, 0, None)  # online TD's default (tdbg.infra.threads): nothing batched
    torch.manual_seed(args.seed)
    model = TDNetwork(mode.n_inputs, hidden, output_mode)
    learner = OnlineSelfPlay(model, mode, lam=0.7, alpha=0.01, engine="c")
    rng = np.random.default_rng(args.seed)
    learner.play_game(rng)
    episodes = plies = 0
    evals0 = learner.scorer.evaluations
    start = time.perf_counter()
    while time.perf_counter() - start < args.seconds:
        plies += learner.play_game(rng)["plies"]
        episodes += 1
    elapsed = time.perf_counter() - start
    evals = learner.scorer.evaluations - evals0 + plies
    ceil = ceiling(1, mode.n_inputs, hidden, output_mode, min(10.0, max(3.0, args.seconds / 3)))
    print(
        json_text(
            {
                "benchmark": "selfplay_throughput",
                "trainer": "online",
                "hidden": hidden,
                "workers": 1,
                "game_mode": mode.name,
                "output_mode": output_mode,
                "oneply": False,
                "seconds": round(elapsed, 1),
                "episodes": episodes,
                "episodes_per_s": round(episodes / elapsed, 2),
                "samples_per_s": round(plies / elapsed, 1),
                "evals_per_s": round(evals / elapsed),
                "ceiling_evals_per_s": round(ceil),
                "efficiency": round(evals / elapsed / ceil, 3),
                "torch_threads_per_worker": 1,
            }
        )
    )


if __name__ == "__main__":
    cli.run_main(main)
