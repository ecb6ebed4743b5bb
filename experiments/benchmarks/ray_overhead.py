"""What --backend ray costs against local worker processes, in one run on one machine.

Self-play: the same rounds (a fresh --hidden network, --episodes per round over
--workers workers) collected alternately by the local backend (workers.WorkerPool)
and by Ray actors (a local Ray started here), after one warm-up round each; the two
backends' data are checked to be identical.  Broadcast: the time to hand every
worker the weights of a --broadcast-hidden network, Ray (ray.put once, each actor
fetches and loads them) against the local backend (the weights pickled into each
job), both minus an empty job's round trip.  Prints one JSON object last.

    python experiments/benchmarks/ray_overhead.py --hidden 256,256 --workers 2 --episodes 200 --rounds 3
"""

from __future__ import annotations

from dataclasses import replace
import os
import time

import numpy as np
import torch

from tdbg.app import cli
from tdbg.infra.backends import Backend, open_pool
from tdbg.infra.provenance import git_commit
from tdbg.net.model import TDNetwork, parse_hidden
from tdbg.game.modes import game_mode
from tdbg.learn.selfplay import Collector, FP32_COLLECTION, SelfPlaySetup
from tdbg.infra import threads
from tdbg.infra.fileio import json_text


def _load_state(job: dict) -> int:
    """A worker receives a state dict and loads it into a network of its shape."""
    if job.get("state") is None:
        return 0
    model = TDNetwork(job["n_inputs"], job["hidden"], "probability")
    model.load_state_dict({k: torch.tensor(v) for k, v in job["state"].items()})
    return sum(v.nbytes for v in job["state"].values())


def broadcast_seconds(
    pool, workers: int, state: dict, n_inputs: int, hidden, repeats: int
) -> tuple[float, float]:
    """(median seconds to give every worker ``state``, median seconds of an empty round trip)."""

    def once(with_state: bool) -> float:
        start = time.perf_counter()
        shared = pool.share(state) if with_state else None
        jobs = [{"state": shared, "n_inputs": n_inputs, "hidden": hidden} for _ in range(workers)]
        pool.results([pool.submit(_load_state, job) for job in jobs])
        return time.perf_counter() - start

    once(True)  # warm-up: workers started, torch imported
    return (
        float(np.median([once(True) for _ in range(repeats)])),
        float(np.median([once(False) for _ in range(repeats)])),
    )


def main() -> None:
    ap = cli.Parser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hidden", type=cli.hidden_text, default="256,256", help="self-play network")
    ap.add_argument("--workers", type=cli.workers_arg, default=2)
    ap.add_argument("--episodes", type=cli.positive_int, default=200, help="episodes per round")
    ap.add_argument(
        "--rounds",
        type=cli.positive_int,
        default=3,
        help="timed rounds per backend (after one warm-up)",
    )
    ap.add_argument("--parallel-games", type=cli.positive_int, default=128)
    ap.add_argument("--broadcast-hidden", type=cli.hidden_text, default="512,512,256,256")
    ap.add_argument("--repeats", type=cli.positive_int, default=5, help="broadcasts timed (median)")
    ap.add_argument("--seed", type=cli.seed_arg, default=0)
    args = ap.parse_args()

    from tdbg.infra import ray_backend

    ray_backend.connect(None, args.workers)
    mode = game_mode("dmp")
    torch.manual_seed(args.seed)
    model = TDNetwork(mode.n_inputs, parse_hidden(args.hidden), mode.outputs[0]).eval()
    chosen = threads.use(
        None, args.workers, sum(p.numel() for p in model.parameters())
    )  # train_batch.py's default
    collectors = {
        b: Collector(
            SelfPlaySetup(
                mode,
                replace(FP32_COLLECTION, parallel_games=args.parallel_games, workers=args.workers),
            ),
            where=Backend(backend=b),
        )
        for b in ("local", "ray")
    }
    seconds, episodes, same = {"local": 0.0, "ray": 0.0}, {"local": 0, "ray": 0}, True
    # inside the workers: wall seconds of collection (summed over workers) and their CPU seconds
    inside = {name: {"collect_seconds": 0.0, "cpu_seconds": 0.0} for name in seconds}
    try:
        for k in range(
            args.rounds + 1
        ):  # round 0 warms both up; rounds alternate between the backends
            seed = np.random.SeedSequence([args.seed, k])
            got = {}
            for name, collector in collectors.items():
                start = time.perf_counter()
                got[name] = collector.collect(model, args.episodes, seed)
                if k:
                    seconds[name] += time.perf_counter() - start
                    episodes[name] += got[name]["stats"]["episodes"]
                    for key in inside[name]:
                        inside[name][key] += got[name]["stats"][key]
            same &= bool(
                np.array_equal(got["local"]["features"], got["ray"]["features"])
                and np.array_equal(got["local"]["targets"], got["ray"]["targets"])
            )
    finally:
        for collector in collectors.values():
            collector.close()
    rate = {name: episodes[name] / seconds[name] for name in seconds}

    hidden = parse_hidden(args.broadcast_hidden)
    big = TDNetwork(mode.n_inputs, hidden, "probability")
    state = {k: v.detach().numpy().copy() for k, v in big.state_dict().items()}
    broadcast = {}
    for name in ("local", "ray"):
        pool = open_pool(name, args.workers, "benchmark worker")
        try:
            full, empty = broadcast_seconds(
                pool, args.workers, state, mode.n_inputs, hidden, args.repeats
            )
        finally:
            pool.close()
        broadcast[name] = {
            "seconds": full,
            "empty_job_seconds": empty,
            "weights_seconds": full - empty,
        }
    print(
        json_text(
            {
                **chosen,
                "benchmark": "ray_overhead",
                "commit": git_commit(),
                "workers": args.workers,
                "hidden": args.hidden,
                "episodes_per_round": args.episodes,
                "rounds": args.rounds,
                "cores": os.cpu_count(),
                "episodes_per_s": rate,
                "ray_over_local": rate["ray"] / rate["local"],
                "identical_data": same,
                "round_seconds": seconds,
                "inside_workers": inside,
                "broadcast_hidden": args.broadcast_hidden,
                "broadcast_megabytes": sum(v.nbytes for v in state.values()) / 1e6,
                "broadcast": broadcast,
            }
        )
    )


if __name__ == "__main__":
    cli.run_main(main)
