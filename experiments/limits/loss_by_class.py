#!/usr/bin/env python3
"""Where do our DMP nets lose to gnubg-nn?  Their move choices in gnubg-nn's own DMP self-play,
judged by gnubg-nn's 0-ply P(win), split by gnubg's position classes.

At every decision with a choice (experiments/limits/gnubg_selfplay.py) each model picks the
candidate it values most; its loss is gnubg-nn's P(win) of gnubg's pick minus that of the
model's pick (0 when they agree).  Decisions are grouped by gnubg_nn.classify of gnubg's
chosen after-state: contact, crashed (a side with few checkers left in play, still in
contact), race, bearoff (gnubg reads its bearoff database there) and over.  For each class:
its share of decisions, how often each model agrees with gnubg, its mean loss per decision,
and its share of the model's total loss.  The judge is the opponent's own evaluation, so the
losses are what gnubg-nn thinks our choices cost, not the truth; they say where the
disagreement is, which is what this is for.

    python experiments/limits/loss_by_class.py best_models/dmp_512x2x256.pt \\
        experiments/limits/distilled_features_512x2x256.pt --decisions 20000 --seed 7

Prints a table, then one JSON object.
"""

from __future__ import annotations

import os
import sys

import numpy as np

from tdbg.app import cli
from gnubg_selfplay import dmp_decisions
from tdbg.infra.fileio import json_text

CLASS_NAMES = {
    "c_over": "over",
    "c_bearoff": "bearoff",
    "c_race": "race",
    "c_crashed": "crashed",
    "c_contact": "contact",
}


def build_parser() -> cli.Parser:
    p = cli.Parser(description=__doc__.split("\n\n")[0])
    p.add_argument("models", nargs="+", help="DMP P(win) checkpoints")
    p.add_argument("--decisions", type=cli.positive_int, default=20000)
    p.add_argument("--seed", type=cli.seed_arg, default=7)
    return p


def picks(model, decisions) -> np.ndarray:
    """Index of each decision's candidate with the highest P(win) for the mover."""
    import torch
    from distill_from_gnubg import inputs
    from tdbg.net.scoring import segment_argmax

    boards, offsets = [], [0]
    for after, _ in decisions:
        boards.extend(
            np.asarray(after, dtype=np.int8)[:, ::-1]
        )  # the opponent on roll: the net's side
        offsets.append(len(boards))
    boards = np.asarray(boards)
    with torch.no_grad():
        opp = np.concatenate(
            [
                model(inputs(model, boards[i : i + 4096])).numpy()
                for i in range(0, len(boards), 4096)
            ]
        )
    opp = np.where(boards[:, 0].sum(axis=1) == 0, 0.0, opp)  # the mover bore off: it has won
    rows, _ = segment_argmax(1.0 - opp, np.asarray(offsets))
    return rows - np.asarray(offsets[:-1])


def main() -> None:
    args = build_parser().parse_args()
    import gnubg_nn
    from tdbg.net.model import CheckpointError, load_checkpoint

    models = {}
    for path in args.models:
        try:
            model, meta, _ = load_checkpoint(path)
        except CheckpointError as exc:
            raise cli.UsageError(str(exc)) from None
        if meta.get("game_mode") != "dmp" or model.output_mode != "probability":
            raise cli.UsageError(f"{path}: needs a DMP P(win) checkpoint")
        models[path] = model.eval()
    code_names = {getattr(gnubg_nn, k): v for k, v in CLASS_NAMES.items()}
    decisions, classes = [], []
    from tqdm import tqdm

    for _, after, win in tqdm(
        dmp_decisions(args.decisions, np.random.default_rng(args.seed)),
        total=args.decisions,
        unit="dec",
        desc="gnubg-nn self-play",
        dynamic_ncols=True,
    ):
        best = int(np.argmax(win))
        decisions.append((after, np.asarray(win)))
        classes.append(code_names.get(gnubg_nn.classify([list(r) for r in after[best]]), "other"))
    classes = np.asarray(classes)
    gnubg_best = np.array([w.max() for _, w in decisions])
    report = {
        "decisions": len(decisions),
        "seed": args.seed,
        "judge": "gnubg-nn 0-ply P(win)",
        "class_share": {c: float((classes == c).mean()) for c in np.unique(classes)},
        "models": {},
    }
    for path, model in models.items():
        chosen = picks(model, decisions)
        loss = gnubg_best - np.array([w[k] for (_, w), k in zip(decisions, chosen, strict=True)])
        per = {}
        for c in np.unique(classes):
            m = classes == c
            per[c] = {
                "agreement": float((loss[m] == 0).mean()),
                "mean_loss": float(loss[m].mean()),
                "loss_share": float(loss[m].sum() / max(loss.sum(), 1e-12)),
            }
        report["models"][path] = {
            "agreement": float((loss == 0).mean()),
            "mean_loss": float(loss.mean()),
            "by_class": per,
        }
    print(
        f"{'class':<10}{'share':>8}" + "".join(f"  {os.path.basename(p)[:28]:>28}" for p in models)
    )
    for c, share in report["class_share"].items():
        cells = "".join(
            f"  {r['by_class'][c]['agreement']:>8.1%} {1000 * r['by_class'][c]['mean_loss']:>6.2f}m "
            f"{r['by_class'][c]['loss_share']:>7.1%}"
            for r in report["models"].values()
        )
        print(f"{c:<10}{share:>8.1%}{cells}")
    print(
        "(each model: agreement with gnubg, mean loss per decision in thousandths of P(win), share of its loss)",
        file=sys.stderr,
    )
    print(json_text(report))


if __name__ == "__main__":
    cli.run_main(main)
