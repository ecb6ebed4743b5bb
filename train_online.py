#!/usr/bin/env python3
"""Online TD(lambda) self-play training, Tesauro's original algorithm: one game at a
time, eligibility traces on the weights, an SGD update after every move.

  python train_online.py --hidden 80 --lambda 0.7 --lr 0.1 --num-episodes 20000 --save models/online.pt
"""
from __future__ import annotations

import json
import time

import numpy as np
import torch
from tqdm import tqdm

import cli
from agents import REFERENCE_AGENTS
from evaluation import quick_eval
from model import lineage_entry, save_checkpoint
from movegen import BACKENDS
from train_batch import hidden_arg
from trainer import scheduled_lr

LOG_FIELDS = ["episodes", "total_episodes", "loss", "lr", "episodes_per_s", "mean_plies", "elapsed_seconds",
              "eval_opponent", "eval_games", "eval_result", "eval_ci_low", "eval_ci_high"]


def build_parser() -> cli.Parser:
    p = cli.Parser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game-mode", choices=("dmp", "cubeless-money"), default=None,
                   help="default: the checkpoint's mode, or dmp from scratch")
    p.add_argument("--hidden", type=hidden_arg, default="80", help="hidden layer sizes (from scratch)")
    p.add_argument("--lambda", dest="lam", type=cli.finite_float, default=0.7, help="trace decay, 0..1 (0 = TD(0))")
    p.add_argument("--lr", type=cli.learning_rate, default=0.1, help="SGD step size alpha")
    p.add_argument("--end-lr", type=cli.learning_rate, default=None,
                   help="linear anneal target per log block (default: none, a constant --lr)")
    p.add_argument("--num-episodes", type=cli.positive_int, default=10000, help="episodes in this stage")
    p.add_argument("--resume", metavar="CKPT", help="continue from a checkpoint (its unfinished stage, given the "
                   "same settings; otherwise a new stage on its weights)")
    p.add_argument("--new-stage", action="store_true",
                   help="with --resume of an unfinished stage: start a new stage on its weights instead")
    p.add_argument("--save", required=True, help="checkpoint path (written atomically every --log-every episodes)")
    p.add_argument("--overwrite", action="store_true",
                   help="allow replacing existing output files of the same kind (--save, the log)")
    p.add_argument("--seed", type=int, default=0, help="random seed (weights, dice)")
    p.add_argument("--log", help="CSV log path (default: --save with .csv)")
    p.add_argument("--tensorboard", metavar="DIR", help="also log the CSV's numbers for TensorBoard here "
                   "(needs the tensorboard package)")
    p.add_argument("--log-every", type=cli.positive_int, default=100, help="episodes per log row and save")
    p.add_argument("--eval-every", type=cli.non_negative_int, default=0, help="episodes between quick evals (0: off)")
    p.add_argument("--eval-games", type=cli.count_arg(1_000_000, "games"), default=200, help="games per quick eval")
    p.add_argument("--eval-opponent", choices=REFERENCE_AGENTS, default="pubeval", help="quick-eval opponent")
    p.add_argument("--engine", choices=BACKENDS, default="auto", help="move generator")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p


def main() -> None:
    args = build_parser().parse_args()
    if not 0.0 <= args.lam <= 1.0:
        raise cli.UsageError(f"--lambda must be between 0 and 1, got {args.lam}")
    # the model-building flags train_batch shares
    args.warm_start_equity = args.warm_start_cubeful = args.expand = None
    args.jacoby, args.hidden_given = True, any(a.startswith("--hidden") for a in cli.sys.argv[1:])
    from online_td import OnlineSelfPlay
    from run_control import Interrupted, StopSignals, check_run_outputs, log_path, plan_stage, resumes_itself
    from training_loop import build_model, check_finite

    check_run_outputs(args)
    torch.manual_seed(args.seed)
    model, meta, trainer_state, mode = build_model(args)
    if mode.cubeful or model.output_mode == "prob5":
        raise cli.UsageError("train_online.py trains scalar dmp or cubeless-money models")
    settings = {"trainer": "online", "num_episodes": args.num_episodes, "lambda": args.lam, "lr": args.lr,
                "end_lr": args.end_lr, "game_mode": mode.name}
    stage = (trainer_state or {}).get("stage")
    if plan_stage(args, stage, settings):
        done = stage["episodes_done"]
    else:
        done = 0
        stage = {"settings": settings, "episodes_done": 0}
        meta["lineage"] = list(meta.get("lineage", [])) + [lineage_entry(0, {"stage": settings})]
    learner = OnlineSelfPlay(model, mode, args.lam, args.lr, backend=args.engine)
    log = cli.CsvLog(log_path(args), LOG_FIELDS, append=resumes_itself(args), tensorboard=args.tensorboard)
    blocks = -(-args.num_episodes // args.log_every)

    def save():
        stage["episodes_done"] = done
        meta["lineage"][-1]["episodes"] = done
        save_checkpoint(args.save, model, meta, {"stage": stage})

    bar = tqdm(total=args.num_episodes, initial=done, unit="ep", disable=args.quiet, dynamic_ncols=True)
    started, interrupted = time.time(), None
    block = {}

    def log_block():
        n, secs = block["games"], time.time() - block["t0"]
        row = {"episodes": done, "total_episodes": meta["episodes"], "loss": block["sq"] / max(block["plies"], 1),
               "lr": block["lr"], "episodes_per_s": n / max(secs, 1e-9), "mean_plies": block["plies"] / max(n, 1),
               "elapsed_seconds": time.time() - started}
        check_finite(model, row["loss"], f"episodes {done - n + 1}-{done}", block["lr"], args, done - n)
        return row

    with StopSignals() as signals:
        try:
            while done < args.num_episodes:
                lr = scheduled_lr(done // args.log_every, blocks, args.lr, args.end_lr)
                learner.set_lr(lr)
                # to the next block boundary, so a run resumed mid-block keeps the same blocks
                n = min(args.log_every - done % args.log_every, args.num_episodes - done)
                block = {"t0": time.time(), "sq": 0.0, "plies": 0, "games": 0, "lr": lr}
                for _ in range(n):
                    with signals.guard():  # a signal waits for the game's end: weights and count agree
                        st = learner.play_game(np.random.default_rng([args.seed, len(meta["lineage"]), done]))
                        done += 1
                        meta["episodes"] = int(meta.get("episodes", 0)) + 1
                        block.update(sq=block["sq"] + st["sq_err"], plies=block["plies"] + st["plies"],
                                     games=block["games"] + 1)
                    bar.update(1)
                row = log_block()
                if args.eval_every and (done % args.eval_every < n or done >= args.num_episodes):
                    opp, res, lo, hi = quick_eval(model, mode, args.eval_games, args.seed + done, args.eval_opponent)
                    row.update(eval_opponent=opp, eval_games=args.eval_games, eval_result=res, eval_ci_low=lo,
                               eval_ci_high=hi)
                    bar.write(f"{done} episodes: vs {opp} {res:.4f} [{lo:.4f}, {hi:.4f}]")
                log.write(row)
                block = {}
                bar.set_postfix(loss=f"{row['loss']:.5f}", eps=f"{row['episodes_per_s']:.1f}/s")
                save()
        except (KeyboardInterrupt, Interrupted) as exc:
            interrupted = str(exc) or "SIGINT"
            bar.write(f"interrupted ({interrupted}): saving {args.save} at {done} episodes")
            if block.get("games"):
                log.write(log_block())
            save()
        finally:
            bar.close()
            log.close()
    print(json.dumps({"save": args.save, "episodes": done, "total_episodes": meta["episodes"],
                      "seconds": time.time() - started, "interrupted": interrupted}))
    if interrupted:
        cli.sys.exit(130)


if __name__ == "__main__":
    cli.run_main(main)
