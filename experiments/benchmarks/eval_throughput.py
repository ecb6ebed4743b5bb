"""Evaluation throughput: a [256,256,256] checkpoint against gnubg-nn at 0-ply.

Two measurements in one run: games/s with ``--workers`` processes (what
play_models.py does), and, in one process on the same games, the share of time
spent in our network, our engine (move generation + encoding) and gnubg-nn; the
rest is the game loop.  Prints one JSON object as its last line.

    python experiments/benchmarks/eval_throughput.py [--games 400] [--workers 2] [--hidden 256,256,256]
"""

from __future__ import annotations

import os
import tempfile
import time

import torch


from tdbg.app import cli
from tdbg.play.series import ModeSpec, Series, play_series
from tdbg.play.match import play_games
from tdbg.net.model import TDNetwork, new_metadata, parse_hidden, save_checkpoint
from tdbg.game.modes import game_mode
from tdbg.play.players import Player
from tdbg.play.seating import evaluator
from tdbg.infra import threads
from tdbg.infra.fileio import json_text


def main() -> None:
    ap = cli.Parser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=cli.positive_int, default=400)
    ap.add_argument("--workers", type=cli.workers_arg, default=2)
    ap.add_argument("--hidden", type=cli.hidden_text, default="256,256,256")
    ap.add_argument("--checkpoint", help="use this DMP checkpoint instead of a fresh network")
    ap.add_argument("--seed", type=cli.seed_arg, default=0)
    args = ap.parse_args()

    tmp = tempfile.mkdtemp()
    path = args.checkpoint
    if not path:
        torch.manual_seed(args.seed)
        model = TDNetwork(196, parse_hidden(args.hidden), "probability")
        path = os.path.join(tmp, "bench.pt")
        save_checkpoint(path, model, new_metadata(model, "dmp"))
    mode = game_mode("dmp")

    t0 = time.perf_counter()
    records = play_series(
        Series(
            (Player(path), Player("gnubg-nn")),
            ModeSpec("dmp"),
            args.games,
            seed=args.seed,
            workers=args.workers,
        ),
        progress=False,
    ).records
    parallel = time.perf_counter() - t0

    chosen = threads.use()  # what a user's run gets by default (tdbg.infra.threads)
    ours, theirs = evaluator(Player(path)), evaluator(Player("gnubg-nn"), mode)
    t0 = time.perf_counter()
    single = play_games(ours, theirs, range(args.games), mode, args.seed)
    total = time.perf_counter() - t0
    net, engine, gnubg = ours.scorer.net_seconds, ours.scorer.engine_seconds, theirs.seconds
    plies = sum(r.plies for r in single)
    print(
        json_text(
            {
                **chosen,
                "benchmark": "eval_throughput",
                "checkpoint": args.checkpoint or f"fresh [{args.hidden}]",
                "hidden": ours.model.hidden,
                "games": args.games,
                "workers": args.workers,
                "games_per_s": round(len(records) / parallel, 2),
                "single_process_games_per_s": round(args.games / total, 2),
                "plies_per_game": round(plies / args.games, 1),
                "time_share": {
                    "our_network": round(net / total, 3),
                    "our_engine": round(engine / total, 3),
                    "gnubg_nn": round(gnubg / total, 3),
                    "game_loop_and_other": round(1 - (net + engine + gnubg) / total, 3),
                },
            }
        )
    )


if __name__ == "__main__":
    cli.run_main(main)
