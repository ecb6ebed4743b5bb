"""Accuracy of filtered 1-ply targets (--oneply-filter K) against exact 1-ply, on positions
from real self-play games of a trained checkpoint.

1. The checkpoint's move filter, if it has none, is warmed up exactly as train_batch.py
   does it (filter_training.warm_up: ``--warmup`` episodes of 0-ply self-play, their thrown
   rolls' after-states, WARMUP_EPOCHS passes).  The checkpoint itself is only read.
2. ``--games`` greedy 0-ply games of the checkpoint (other dice than the warm-up's) give
   every pre-roll position, classed contact, race (no contact) or bear-off (both sides home).
3. Each position's exact 1-ply target (Scorer.oneply) and its filtered target for each K;
   per (position, roll) the best value with and without the filter.

Reports per K: mean and max |filtered - exact target| (in the model's scalar: P(win) for
DMP), the share of (position, roll) pairs whose best move the filter's K missed (the
filtered roll value below the exact one by more than 1e-6), and the share of candidates
the main network valued.  Last line: one JSON object.

    python experiments/benchmarks/move_filter_accuracy.py \
        --model experiments/retraining/strength/s2_256x3.pt --games 360 --ks 2,3,4,6,8
"""

from __future__ import annotations

import sys
from dataclasses import replace
import time

import numpy as np

from tdbg.app import cli
from tdbg.game.dice import ALL_ROLLS, ROLL_WEIGHTS
from tdbg.learn import filter_training
from tdbg.learn.selfplay import Collector, FP32_COLLECTION, SelfPlaySetup
from tdbg.net.model import load_checkpoint, move_filter_of, set_move_filter
from tdbg.net.move_filter import FILTER_HIDDEN, FilteredOnePly, new_filter
from tdbg.net.scoring import Scorer, greedy_game_positions, segment_argmax
from tdbg.play.players import checkpoint_mode_name
from tdbg.game.modes import game_mode
from tdbg.infra import threads
from tdbg.infra.fileio import json_text

BLOCK = 128  # positions per pass (as Scorer.lookahead's blocks)


def classes(boards: np.ndarray) -> np.ndarray:
    """0 contact, 1 race, 2 bear-off (both sides' checkers all home)."""

    def back(row):  # index of each side's rearmost checker (24: the bar), -1 when none left
        occupied = boards[:, row, :] > 0
        return np.where(occupied.any(axis=1), 24 - np.argmax(occupied[:, ::-1], axis=1), -1)

    a1, a0 = back(1), back(0)
    race = a1 + a0 < 23
    home = (a1 < 6) & (a0 < 6)
    return np.where(home, 2, np.where(race, 1, 0))


def exact_oneply(scorer, boards):
    """(targets, per-roll best values) of exact 1-ply, as Scorer.oneply computes them."""
    n = len(boards)
    after, offsets, values, scalar = scorer.score(
        np.repeat(boards, len(ALL_ROLLS), axis=0), np.tile(ALL_ROLLS, (n, 1))
    )
    rows, _ = segment_argmax(scalar, offsets)
    best = values[rows].reshape(n, len(ALL_ROLLS))
    return (best * ROLL_WEIGHTS).sum(axis=1), best


def main() -> None:
    ap = cli.Parser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default="experiments/retraining/strength/s2_256x3.pt")
    ap.add_argument(
        "--games",
        type=cli.positive_int,
        default=360,
        help="greedy games whose positions are measured",
    )
    ap.add_argument(
        "--max-positions",
        type=cli.non_negative_int,
        default=0,
        help="keep only this many (an even spread); 0: all",
    )
    ap.add_argument("--ks", default="2,3,4,6,8")
    ap.add_argument(
        "--warmup",
        type=cli.positive_int,
        default=filter_training.DEFAULT_WARMUP_EPISODES,
        help="0-ply episodes the filter is warmed up on when the checkpoint has none",
    )
    ap.add_argument(
        "--filter-hidden",
        type=cli.positive_int,
        default=FILTER_HIDDEN,
        help="the warmed-up filter's hidden units",
    )
    ap.add_argument("--seed", type=cli.seed_arg, default=1)
    args = ap.parse_args()
    chosen = threads.use()  # what a user's run gets by default (tdbg.infra.threads)
    ks = [int(k) for k in args.ks.split(",")]
    model, meta, _ = load_checkpoint(args.model)
    model.eval()
    mode = game_mode(checkpoint_mode_name(model, meta))
    if model.output_mode not in ("probability", "equity", "mwc"):
        raise cli.UsageError(
            f"{args.model} has a {model.output_mode} head; this benchmark reads scalar heads only "
            f"(probability, equity, mwc)"
        )
    t0 = time.perf_counter()
    warm_note = "the checkpoint's own filter"
    if move_filter_of(model) is None:
        filt = new_filter(model, args.filter_hidden)
        set_move_filter(model, filt)
        trainer = filter_training.FilterTrainer(filt, np.random.default_rng(args.seed))
        warm = Collector(
            SelfPlaySetup(
                mode, replace(FP32_COLLECTION, parallel_games=128, workers=1), record_filter=True
            )
        )
        warm_note = filter_training.warm_up(
            model, warm, args.warmup, np.random.SeedSequence([args.seed, 1]), trainer
        )
        warm.close()
    warm_seconds = time.perf_counter() - t0
    print(warm_note, file=sys.stderr, flush=True)

    scorer = Scorer(model, mode)
    boards = greedy_game_positions(scorer, args.games, np.random.default_rng([args.seed, 2]))
    if args.max_positions and len(boards) > args.max_positions:
        boards = boards[np.linspace(0, len(boards) - 1, args.max_positions).astype(int)]
    cls = classes(boards)
    counts = {name: int((cls == i).sum()) for i, name in enumerate(("contact", "race", "bearoff"))}
    print(json_text({"positions": len(boards), **counts}), file=sys.stderr, flush=True)

    t0 = time.perf_counter()
    ex_t, ex_best = [], []
    for s in range(0, len(boards), BLOCK):
        t, b = exact_oneply(scorer, boards[s : s + BLOCK])
        ex_t.append(t)
        ex_best.append(b)
    ex_t, ex_best = np.concatenate(ex_t), np.concatenate(ex_best)
    exact_seconds = time.perf_counter() - t0
    exact_rows = scorer.evaluations

    results = {}
    for k in ks:
        f = FilteredOnePly(scorer, k=k)
        t0 = time.perf_counter()
        got_t, got_best = [], []
        for s in range(0, len(boards), BLOCK):
            t, _ = f.oneply(boards[s : s + BLOCK])
            got_t.append(t)
            got_best.append(f.last_best.reshape(-1, len(ALL_ROLLS)))
        secs = time.perf_counter() - t0
        diff = np.abs(np.concatenate(got_t) - ex_t)
        missed = (ex_best - np.concatenate(got_best)) > 1e-6
        by_class = {
            name: {
                "mean_abs_diff": float(diff[cls == i].mean()) if (cls == i).any() else None,
                "missed_share": float(missed[cls == i].mean()) if (cls == i).any() else None,
            }
            for i, name in enumerate(("contact", "race", "bearoff"))
        }
        results[k] = {
            "mean_abs_diff": float(diff.mean()),
            "max_abs_diff": float(diff.max()),
            "p99_abs_diff": float(np.quantile(diff, 0.99)),
            "missed_share": float(missed.mean()),
            "kept_share": f.kept / f.candidates,
            "seconds": round(secs, 1),
            "by_class": by_class,
        }
        print(
            json_text({"k": k, **{a: b for a, b in results[k].items() if a != "by_class"}}),
            file=sys.stderr,
            flush=True,
        )
    print(
        json_text(
            {
                **chosen,
                "benchmark": "move_filter_accuracy",
                "model": args.model,
                "game_mode": mode.name,
                "hidden": model.hidden,
                "filter": move_filter_of(model).hidden,
                "warmup_episodes": args.warmup,
                "warmup": warm_note,
                "warmup_seconds": round(warm_seconds, 1),
                "games": args.games,
                "positions": len(boards),
                "classes": counts,
                "exact_seconds": round(exact_seconds, 1),
                "exact_rows": exact_rows,
                "ks": results,
            }
        )
    )


if __name__ == "__main__":
    cli.run_main(main)
