#!/usr/bin/env python3
"""Can our DMP network play as well as gnubg-nn at all?  A diagnostic, not a training recipe.

Self-play TD has held the [512,512,256] net at 47.1-47.7% against gnubg-nn for 500k
episodes (experiments/retraining/README.md, explorations j-l).  Two things could hold it
there: the net (its raw 196 inputs and its size) cannot represent better play, or the
self-play signal does not lead it there.  This script tells them apart: it fits the same
network to gnubg-nn's own 0-ply P(win) of positions from gnubg-nn's DMP self-play
(supervised, no TD), then the result plays gnubg-nn like any checkpoint.  If the fitted
net reaches gnubg-nn's level, the representation is not the limit; if it stalls where TD
stalled, it is.  The fitted net is a diagnostic only: it learned from gnubg, so it is never a
from-scratch result and never goes to best_models/.

    python experiments/limits/distill_from_gnubg.py --start best_models/dmp_512x2x256.pt \\
        --decisions 200000 --epochs 4 --save /tmp/distilled.pt
    python play_models.py --model1 /tmp/distilled.pt --model2 gnubg-nn --games 10000 --seed 21

Data: every decision of gnubg-nn playing DMP against itself (it picks the candidate with
the highest 0-ply P(win), as agents.GnubgNNAgent does) gives its chosen after-state and
``--others`` random other candidates, each labelled with gnubg-nn's 0-ply P(win) of the
side on roll next (1 - the mover's).  Finished positions are left out (scoring gives them
their exact value).  A tenth of the games is held out: the report gives the held-out
squared error and how often the net's choice (highest P(win) for the mover) agrees with
gnubg-nn's on held-out decisions, before and after.  Prints one JSON object last; the
per-epoch log goes to the CSV beside --save.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

from tdbg.app import cli
from gnubg_selfplay import dmp_decisions
from tdbg.infra.fileio import json_text


def decision_count(text: str) -> int:
    n = cli.positive_int(text)
    if n < 1000:
        raise cli.argparse.ArgumentTypeError(
            f"must be at least 1000 (every tenth game is held out), got {n}"
        )
    return n


def build_parser() -> cli.Parser:
    p = cli.Parser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--start",
        required=True,
        help="DMP checkpoint whose architecture (and weights) to start from",
    )
    p.add_argument(
        "--fresh", action="store_true", help="re-initialise the weights (same architecture)"
    )
    p.add_argument(
        "--board-features",
        action="store_true",
        help="add the 20 board features of features.py as inputs (zero weights at first)",
    )
    p.add_argument(
        "--decisions",
        type=decision_count,
        default=200000,
        help="gnubg-nn decisions to collect (at least 1,000: about 20 games, every tenth held out)",
    )
    p.add_argument(
        "--others",
        type=cli.non_negative_int,
        default=3,
        help="random other candidates per decision",
    )
    p.add_argument("--epochs", type=cli.positive_int, default=4)
    p.add_argument(
        "--lr", type=cli.positive_float, default=1e-4, help="Adam, decayed linearly to a tenth"
    )
    p.add_argument("--batch", type=cli.positive_int, default=256)
    p.add_argument("--seed", type=cli.seed_arg, default=1)
    p.add_argument(
        "--save", required=True, help="checkpoint to write (a diagnostic; never a best model)"
    )
    p.add_argument("--overwrite", action="store_true", help="replace --save if it exists")
    return p


def collect(n_decisions: int, others: int, rng: np.random.Generator, held_out):
    """gnubg-nn DMP self-play: (boards, targets, games of the samples, held-out decisions,
    games played).  A sample is a board with the side on roll in row 1 and gnubg-nn's P(win)
    for it; a held-out decision (kept only for games where ``held_out(game)``) is (candidate
    boards with the mover in row 1, index of gnubg's choice)."""
    from tqdm import tqdm

    boards, targets, games, decisions = [], [], [], []
    game = 0
    for game, after, win in tqdm(
        dmp_decisions(n_decisions, rng),
        total=n_decisions,
        unit="dec",
        desc="gnubg-nn self-play",
        dynamic_ncols=True,
    ):
        pick = int(np.argmax(win))
        if held_out(game):
            decisions.append((np.asarray(after, dtype=np.int8), pick))
        rest = [i for i in range(len(after)) if i != pick]
        for i in [pick] + list(rng.permutation(rest)[:others]):
            if sum(after[i][1]) > 0:  # not finished: the opponent is on roll
                boards.append(np.array([after[i][1], after[i][0]], dtype=np.int8))
                targets.append(1.0 - float(win[i]))
                games.append(game)
    return (
        np.stack(boards),
        np.asarray(targets, dtype=np.float32),
        np.asarray(games),
        decisions,
        game + 1,
    )


def inputs(model, boards):
    """The model's inputs for boards with row 1 on roll: the raw 196, then the board
    features if it reads them."""
    import torch
    from tdbg.game.encoding import encode_batch, reads_board_features
    from tdbg.game.features import board_features

    x = encode_batch(boards)
    if reads_board_features(model.n_inputs):
        x = np.concatenate([x, board_features(boards)], axis=1)
    return torch.from_numpy(x)


def agreement(model, decisions) -> float:
    """Share of decisions where the net's highest P(win) for the mover is gnubg-nn's choice."""
    import torch
    from tdbg.net.scoring import segment_argmax

    boards, offsets = [], [0]
    for after, _ in decisions:
        boards.extend(after[:, ::-1])  # the opponent on roll: the net's side
        offsets.append(len(boards))
    with torch.no_grad():
        opp = np.concatenate(
            [
                model(inputs(model, np.asarray(boards[i : i + 4096]))).numpy()
                for i in range(0, len(boards), 4096)
            ]
        )
    rows, _ = segment_argmax(
        1.0 - opp, np.asarray(offsets)
    )  # the mover's best candidate of each decision
    return float(np.mean(rows - np.asarray(offsets[:-1]) == np.array([d[1] for d in decisions])))


def main(argv=None) -> None:
    args = build_parser().parse_args(argv)
    import torch
    from tdbg.infra.fileio import check_file
    from tdbg.net.model import (
        ENCODERS,
        CheckpointError,
        lineage_entry,
        load_checkpoint,
        save_checkpoint,
    )
    from tdbg.infra.runlog import CsvLog

    try:
        model, meta, _ = load_checkpoint(args.start)
    except CheckpointError as exc:
        raise cli.UsageError(str(exc)) from None
    if model.n_outputs != 1 or meta.get("game_mode") != "dmp" or model.n_inputs not in (196, 216):
        raise cli.UsageError(
            f"{args.start}: needs a DMP P(win) checkpoint (196 or 216 inputs, one output)"
        )
    if args.board_features:
        if model.n_inputs != 196:
            raise cli.UsageError(f"{args.start}: --board-features needs a 196-input checkpoint")
        from tdbg.net.net_growth import add_board_features

        model = add_board_features(model)
        meta = dict(meta, n_inputs=model.n_inputs, encoder=ENCODERS[model.n_inputs])
    check_file(args.save, "checkpoint", args.save, overwrite=args.overwrite)
    rng = np.random.default_rng(args.seed)
    torch.manual_seed(args.seed)
    if args.fresh:
        for layer in model.modules():
            if hasattr(layer, "reset_parameters"):
                layer.reset_parameters()
    t0 = time.time()
    boards, targets, sample_games, test_dec, games = collect(
        args.decisions, args.others, rng, lambda g: g % 10 == 9
    )
    if games < 10:  # a seed's unusually long games; --decisions' floor makes this rare
        raise cli.RunError(
            f"--decisions {args.decisions} gave {games} games: too few to hold out every tenth"
        )
    held = sample_games % 10 == 9
    x = inputs(model, boards[~held])
    y = torch.from_numpy(targets[~held])
    xt = inputs(model, boards[held])
    yt = torch.from_numpy(targets[held])
    collect_s = time.time() - t0

    def held_mse() -> float:
        with torch.no_grad():
            return float(((model(xt) - yt) ** 2).mean())

    report = {
        "start": args.start,
        "fresh": args.fresh,
        "board_features": args.board_features,
        "games": games,
        "decisions": args.decisions,
        "train_samples": len(y),
        "held_samples": len(yt),
        "held_decisions": len(test_dec),
        "collect_seconds": round(collect_s, 1),
        "before": {"held_mse": held_mse(), "agreement": agreement(model, test_dec)},
    }
    print(
        f"before: held-out MSE {report['before']['held_mse']:.5f}, agrees with gnubg-nn's choice in "
        f"{report['before']['agreement']:.2%} of {len(test_dec):,} held-out decisions",
        file=sys.stderr,
    )
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    steps = args.epochs * -(-len(y) // args.batch)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda k: 1.0 - 0.9 * k / steps)
    log = CsvLog(
        os.path.splitext(args.save)[0] + ".csv",
        ["epoch", "train_mse", "held_mse", "agreement", "seconds"],
    )
    from tqdm import tqdm

    for epoch in range(1, args.epochs + 1):
        order = torch.randperm(len(y))
        total = 0.0
        for i in tqdm(
            range(0, len(y), args.batch),
            desc=f"epoch {epoch}",
            unit="batch",
            dynamic_ncols=True,
            leave=False,
        ):
            idx = order[i : i + args.batch]
            loss = ((model(x[idx]) - y[idx]) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(idx)
        row = {
            "epoch": epoch,
            "train_mse": total / len(y),
            "held_mse": held_mse(),
            "agreement": agreement(model, test_dec),
            "seconds": round(time.time() - t0, 1),
        }
        log.write(row)
        print(
            f"epoch {epoch}: train MSE {row['train_mse']:.5f}, held-out {row['held_mse']:.5f}, "
            f"agreement {row['agreement']:.2%}",
            file=sys.stderr,
        )
    log.close()
    report["after"] = {"held_mse": row["held_mse"], "agreement": row["agreement"]}
    meta = dict(meta)
    entry = lineage_entry(
        0, {"diagnostic": "supervised on gnubg-nn's 0-ply P(win): not a from-scratch model"}
    )
    entry["command"] = " ".join(
        ["experiments/limits/distill_from_gnubg.py"] + (argv or sys.argv[1:])
    )
    meta["lineage"] = list(meta.get("lineage", [])) + [entry]
    save_checkpoint(args.save, model, meta)
    report["save"], report["seconds"] = args.save, round(time.time() - t0, 1)
    print(json_text(report))


if __name__ == "__main__":
    cli.run_main(main)
