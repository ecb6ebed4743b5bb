#!/usr/bin/env python3
"""Turn a training CSV log (train_batch.py, train_online.py, train_prob5.py) into a PNG.

Panels: loss per round, episodes/s, learning rate, and the periodic evaluation
result with its 95% CI against episodes.

    python tools/plot_training.py models/dmp.csv [-o models/dmp.png] [--title TEXT]
"""
from __future__ import annotations

import csv
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import cli  # noqa: E402
from fileio import atomic_write  # noqa: E402


def read_log(path: str) -> list[dict]:
    try:
        with open(path, newline="") as fh:
            rows = list(csv.DictReader(fh))
    except OSError as exc:
        raise cli.UsageError(f"cannot read {path}: {exc.strerror}") from None
    if not rows or "loss" not in rows[0]:
        raise cli.UsageError(f"{path} is not a training log (no rows or no 'loss' column)")
    return rows


def _col(rows, key, xkey):
    xs, ys = [], []
    for r in rows:
        try:
            x, y = float(r[xkey]), float(r[key])
        except (KeyError, TypeError, ValueError):
            continue
        xs.append(x)
        ys.append(y)
    return xs, ys


def plot(rows: list[dict], out: str, title: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    xkey = "total_episodes" if "total_episodes" in rows[0] else "episodes"
    fig, axes = plt.subplots(2, 2, figsize=(11, 7), constrained_layout=True)
    for ax, key, label in ((axes[0, 0], "loss", "loss (MSE)"), (axes[0, 1], "episodes_per_s", "episodes/s"),
                           (axes[1, 0], "lr", "learning rate")):
        xs, ys = _col(rows, key, xkey)
        ax.plot(xs, ys, lw=1)
        ax.set_xlabel("episodes")
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
    axes[0, 0].set_yscale("log")
    ax = axes[1, 1]
    xs, ys = _col(rows, "eval_result", xkey)
    _, lo = _col(rows, "eval_ci_low", xkey)
    _, hi = _col(rows, "eval_ci_high", xkey)
    if xs:
        opp = next((r.get("eval_opponent") for r in rows if r.get("eval_opponent")), "opponent")
        ax.plot(xs, ys, marker="o", ms=3, lw=1, label=f"vs {opp}")
        if len(lo) == len(xs) and len(hi) == len(xs):
            ax.fill_between(xs, lo, hi, alpha=0.2, label="95% CI")
        ax.legend()
    else:
        ax.text(0.5, 0.5, "no evaluations in this log\n(--eval-every)", ha="center", va="center",
                transform=ax.transAxes)
    ax.set_xlabel("episodes")
    ax.set_ylabel("evaluation result")
    ax.grid(alpha=0.3)
    fig.suptitle(title)
    with atomic_write(out, "wb") as fh:
        fig.savefig(fh, format="png", dpi=110)
    plt.close(fig)


def main() -> None:
    p = cli.Parser(description=__doc__.split("\n\n")[0])
    p.add_argument("csv", help="training log")
    p.add_argument("-o", "--output", help="PNG path (default: the CSV's name with .png)")
    p.add_argument("--title", default=None)
    args = p.parse_args()
    rows = read_log(args.csv)
    out = args.output or os.path.splitext(args.csv)[0] + ".png"
    plot(rows, out, args.title or os.path.basename(args.csv))
    print(out)


if __name__ == "__main__":
    cli.run_main(main)
