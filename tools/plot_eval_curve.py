#!/usr/bin/env python3
"""Evaluation curve of a chain of training stages: the periodic evaluation result with
its 95% CI against episodes and against cumulative CPU-hours.

    python tools/plot_eval_curve.py stage1.csv stage2.csv ... -o curve.png [--target 0.45]

Logs are given in chain order; episodes are the model's total, CPU-hours add up
across stages.  A log without a cpu_hours column (train_online.py) contributes no
CPU axis points.
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import cli  # noqa: E402
from fileio import Output, atomic_write, check_outputs  # noqa: E402


def load_chain(paths: list[str]) -> list[dict]:
    points, cpu_offset = [], 0.0
    for path in paths:
        rows = cli.read_log(path, "eval_result", "a training log with evaluations")
        last_cpu = 0.0
        for r in rows:
            cpu = float(r["cpu_hours"]) if r.get("cpu_hours") else None
            if cpu is not None:
                last_cpu = cpu
            if r.get("eval_result"):
                points.append({"stage": os.path.splitext(os.path.basename(path))[0],
                               "episodes": float(r.get("total_episodes") or r.get("episodes")),
                               "cpu_hours": None if cpu is None else cpu_offset + cpu,
                               "result": float(r["eval_result"]), "low": float(r["eval_ci_low"]),
                               "high": float(r["eval_ci_high"]), "opponent": r.get("eval_opponent", "")})
        cpu_offset += last_cpu
    if not points:
        raise cli.UsageError("no evaluations in these logs (train with --eval-every)")
    return points


def plot(points: list[dict], out: str, title: str, target: float | None) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), constrained_layout=True)
    stages = list(dict.fromkeys(p["stage"] for p in points))
    for ax, key, label in ((axes[0], "episodes", "episodes"), (axes[1], "cpu_hours", "CPU-hours")):
        for stage in stages:
            pts = [p for p in points if p["stage"] == stage and p[key] is not None]
            if not pts:
                continue
            xs = [p[key] for p in pts]
            ax.plot(xs, [p["result"] for p in pts], marker="o", ms=3, lw=1, label=stage)
            ax.fill_between(xs, [p["low"] for p in pts], [p["high"] for p in pts], alpha=0.2)
        if target is not None:
            ax.axhline(target, color="k", ls="--", lw=0.8, label=f"target {target:g}")
        ax.set_xlabel(label)
        ax.set_ylabel(f"result vs {points[0]['opponent']}")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(title)
    with atomic_write(out, "wb") as fh:
        fig.savefig(fh, format="png", dpi=110)
    plt.close(fig)


def main() -> None:
    p = cli.Parser(description=__doc__.split("\n\n")[0])
    p.add_argument("logs", nargs="+", help="training CSV logs in chain order")
    p.add_argument("-o", "--output", required=True, help="PNG path")
    p.add_argument("--title", default="evaluation during training (95% CI)", help="figure title")
    p.add_argument("--target", type=cli.finite_float, default=None, help="draw a horizontal target line")
    p.add_argument("--overwrite", action="store_true", help="allow replacing an existing PNG")
    args = p.parse_args()
    points = load_chain(args.logs)
    check_outputs([Output("--output", args.output, "png")], args.overwrite,
                  {f"log {k + 1}": x for k, x in enumerate(args.logs)})
    plot(points, args.output, args.title, args.target)
    print(args.output)


if __name__ == "__main__":
    cli.run_main(main)
