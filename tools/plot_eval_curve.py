#!/usr/bin/env python3
"""Evaluation curve of a chain of training stages: the periodic evaluation result with
its 95% CI against episodes and against cumulative CPU-hours.

    python tools/plot_eval_curve.py stage1.csv stage2.csv ... -o curve.png [--target 0.45] \
        [--old-agent-logs N] [--final-results r1.csv - r3.csv ...] [--base-logs dmp1.csv dmp2.csv] \
        [--checkpoint-results 3:357400:r.csv ...]

Logs are given in chain order; episodes are the model's total, CPU-hours add up
across stages.  A log without a cpu_hours column (train_online.py) contributes no
CPU axis points.  ``--old-agent-logs N`` marks the first N logs' evaluations as made
against the gnubg-nn agent before it played each mode's own objective (it played
money equity in DMP games), drawn dashed.  ``--final-results`` gives, per log, a
per-game result CSV (play_models.py --csv; '-' for none) of the stage's final
checkpoint, drawn as a large marker with its 95% CI at the end of that stage;
``--checkpoint-results N:EPISODES:CSV`` places the result of a checkpoint taken inside
the N-th log's stage (after EPISODES of the stage's episodes) where the log passed that
count, drawn the same way.
"""
from __future__ import annotations

import os

from tdbg.app import cli
from tdbg.infra.fileio import Output, atomic_write, check_outputs
from tdbg.play.results_file import ResultsFileError, default_metric, read_results
from tdbg.infra.stats import bootstrap_ci, pair_means


def base_cpu_hours(paths: list[str]) -> float:
    """CPU-hours of the stages a chain builds on (e.g. the DMP stages under a money leg)."""
    total = 0.0
    for path in paths:
        rows = cli.read_log(path, "cpu_hours", "a training log with CPU-hours")
        total += max((float(r["cpu_hours"]) for r in rows if r.get("cpu_hours")), default=0.0)
    return total


def load_chain(paths: list[str], old_agent_logs: int = 0, cpu_offset: float = 0.0) -> tuple[list[dict], list[dict]]:
    """(evaluation points, one end-of-stage dict per log with its episodes and CPU-hours);
    ``cpu_offset``: CPU-hours spent before the first log."""
    points, ends = [], []
    for path in paths:
        rows = cli.read_log(path, "eval_result", "a training log with evaluations")
        last_cpu, last_episodes = 0.0, 0.0
        old = len(ends) < old_agent_logs
        marks = []  # (stage episodes, total episodes, CPU-hours so far) of every row
        for r in rows:
            last_episodes = float(r.get("total_episodes") or r.get("episodes") or 0)
            cpu = float(r["cpu_hours"]) if r.get("cpu_hours") else None
            if cpu is not None:
                last_cpu = cpu
            stage_episodes = float(r.get("stage_episodes") or r.get("episodes") or last_episodes)  # old logs: total
            marks.append((stage_episodes, last_episodes, cpu_offset + cpu if cpu is not None else None))
            if r.get("eval_result"):
                points.append({"stage": os.path.splitext(os.path.basename(path))[0],
                               "episodes": float(r.get("total_episodes") or r.get("episodes")),
                               "cpu_hours": None if cpu is None else cpu_offset + cpu,
                               "result": float(r["eval_result"]), "low": _end(r["eval_ci_low"]),
                               "high": _end(r["eval_ci_high"]), "opponent": r.get("eval_opponent", ""),
                               "old_agent": old})
        cpu_offset += last_cpu
        ends.append({"stage": os.path.splitext(os.path.basename(path))[0], "episodes": last_episodes,
                     "cpu_hours": cpu_offset if any(r.get("cpu_hours") for r in rows) else None, "marks": marks})
    if not points:
        raise cli.UsageError("no evaluations in these logs (train with --eval-every)")
    return points, ends


def _end(text) -> float:
    """A logged CI end; blank (no interval: too few games for one) is NaN, which the band skips."""
    return float(text) if text not in (None, "") else float("nan")


def _result_at(path: str, where: dict) -> dict:
    """A per-game result CSV's mean and 95% CI, placed at ``where`` (episodes, CPU-hours)."""
    try:
        res = read_results(path)
    except ResultsFileError as exc:
        raise cli.UsageError(str(exc)) from None
    v = res.metric(default_metric(res.game_mode))
    m, lo, hi = bootstrap_ci(pair_means(res.games, v))
    if lo is None:   # no interval (one unit): the point alone
        lo = hi = float("nan")
    return {"episodes": where["episodes"], "cpu_hours": where["cpu_hours"], "result": m, "low": lo, "high": hi,
            "games": len(v), "opponent": res.header.get("model2", "")}


def final_results(paths: list[str], ends: list[dict]) -> list[dict]:
    """Large-game results of each stage's final checkpoint, placed at the stage's end."""
    if len(paths) != len(ends):
        raise cli.UsageError(f"--final-results needs one entry per log ({len(ends)}), '-' for none")
    return [_result_at(path, end) for path, end in zip(paths, ends) if path != "-"]


def checkpoint_results(specs: list[str], ends: list[dict]) -> list[dict]:
    """Results of checkpoints inside a stage (``N:EPISODES:CSV``), placed at the first row of
    the N-th log whose stage episodes reach EPISODES."""
    out = []
    for spec in specs:
        parts = spec.split(":", 2)
        try:
            k, episodes, path = int(parts[0]), float(parts[1]), parts[2]
        except (ValueError, IndexError):
            raise cli.UsageError(f"--checkpoint-results {spec!r}: expected LOG_NUMBER:STAGE_EPISODES:CSV") from None
        if not 1 <= k <= len(ends):
            raise cli.UsageError(f"--checkpoint-results {spec!r}: there are {len(ends)} logs (numbered from 1)")
        at = next((m for m in ends[k - 1]["marks"] if m[0] >= episodes), None)
        if at is None:
            raise cli.UsageError(f"--checkpoint-results {spec!r}: log {k} stops before {episodes:,.0f} episodes")
        out.append(_result_at(path, {"episodes": at[1], "cpu_hours": at[2]}))
    return out


def plot(points: list[dict], out: str, title: str, target: float | None, finals=()) -> None:
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
            old = pts[0]["old_agent"]
            ax.plot(xs, [p["result"] for p in pts], marker="o", ms=3, lw=1, ls="--" if old else "-",
                    label=f"{stage} (old money-playing gnubg-nn)" if old else stage)
            ax.fill_between(xs, [p["low"] for p in pts], [p["high"] for p in pts], alpha=0.12 if old else 0.2)
        for f in finals:
            if f[key] is None:
                continue
            has_ci = f["low"] == f["low"]   # NaN: no interval
            ax.errorbar([f[key]], [f["result"]], yerr=[[f["result"] - f["low"]], [f["high"] - f["result"]]] if has_ci
                        else None, fmt="D", ms=6, color="k", capsize=3, zorder=5)
            ax.annotate(f"{f['result']:.4g}", (f[key], f["result"]), textcoords="offset points", xytext=(5, -12),
                        fontsize=7)
        if finals:
            ax.plot([], [], "D", color="k", label=f"checkpoints, {finals[0]['games']:,} games")
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
    p.add_argument("--old-agent-logs", type=int, default=0, metavar="N",
                   help="the first N logs were evaluated by the pre-fix gnubg-nn agent (money equity in DMP) "
                        "(default: 0)")
    p.add_argument("--final-results", nargs="+", metavar="CSV", default=(),
                   help="per log, a per-game result CSV of its final checkpoint, or '-' (default: none)")
    p.add_argument("--base-logs", nargs="+", metavar="CSV", default=(),
                   help="logs of the stages the chain builds on: their CPU-hours count on the CPU axis, their "
                        "evaluations are not drawn (e.g. the DMP stages under a money leg)")
    p.add_argument("--base-cpu-hours", type=cli.non_negative_float, default=0.0, metavar="H",
                   help="CPU-hours spent before the first log besides --base-logs (e.g. a base checkpoint taken "
                        "inside a stage, whose log runs on past it)")
    p.add_argument("--checkpoint-results", nargs="+", metavar="N:EPISODES:CSV", default=(),
                   help="the per-game result CSV of a checkpoint taken inside the N-th log's stage after EPISODES of "
                        "its episodes (default: none)")
    p.add_argument("--overwrite", action="store_true", help="allow replacing an existing PNG")
    args = p.parse_args()
    points, ends = load_chain(args.logs, args.old_agent_logs, args.base_cpu_hours + base_cpu_hours(list(args.base_logs)))
    finals = final_results(list(args.final_results), ends) if args.final_results else []
    finals += checkpoint_results(list(args.checkpoint_results), ends)
    check_outputs([Output("--output", args.output, "png")], args.overwrite,
                  {f"log {k + 1}": x for k, x in enumerate(args.logs)})
    plot(points, args.output, args.title, args.target, finals)
    print(args.output)


if __name__ == "__main__":
    cli.run_main(main)
