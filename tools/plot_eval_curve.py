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

``--unit win-rate`` draws a DMP chain's results as a win rate in percent, ``--unit meq`` a money
chain's as mEq/game (the logs hold a fraction and points per game); the y-axis names the unit.
``--capped`` draws the cubeful results of ``--final-results`` capped at +-128 points a game, as
the cubeful summaries and selections read them.  Each final's value is written beside it
(above its CI bar, or below it where another label or bar is in the way), and the PNG carries what it shows (axis labels,
series, finals and their labels) as JSON in its text chunk ``tdbg:curve``, so a test can check a
committed plot against its data.
"""
from __future__ import annotations

from tdbg.infra.stop_signals import exit_on_signals  # first: a signal during the imports ends in one line
exit_on_signals(__name__)

import math
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


def _result_at(path: str, where: dict, capped: bool = False) -> dict:
    """A per-game result CSV's mean and 95% CI, placed at ``where`` (episodes, CPU-hours);
    ``capped``: a cubeful file's points capped at +-128 a game."""
    try:
        res = read_results(path)
    except ResultsFileError as exc:
        raise cli.UsageError(str(exc)) from None
    metric = default_metric(res.game_mode)
    if capped and res.game_mode == "cubeful-money":
        metric = "capped"
    v = res.metric(metric)
    m, lo, hi = bootstrap_ci(pair_means(res.games, v))
    if lo is None:   # no interval (one unit): the point alone
        lo = hi = float("nan")
    return {"episodes": where["episodes"], "cpu_hours": where["cpu_hours"], "result": m, "low": lo, "high": hi,
            "games": len(v), "opponent": res.header.get("model2", ""), "source": path, "metric": metric}


def final_results(paths: list[str], ends: list[dict], capped: bool = False) -> list[dict]:
    """Large-game results of each stage's final checkpoint, placed at the stage's end."""
    if len(paths) != len(ends):
        raise cli.UsageError(f"--final-results needs one entry per log ({len(ends)}), '-' for none")
    return [_result_at(path, end, capped) for path, end in zip(paths, ends, strict=True) if path != "-"]


def checkpoint_results(specs: list[str], ends: list[dict], capped: bool = False) -> list[dict]:
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
        out.append(_result_at(path, {"episodes": at[1], "cpu_hours": at[2]}, capped))
    return out


# --unit: (scale from the logged value, y-axis label with {opp} for the opponents, label format)
UNITS = {"result": (1.0, "result{vs}", "{:.4g}"),
         "win-rate": (100.0, "win rate{vs}, % (95% CI)", "{:.2f}%"),
         "meq": (1000.0, "mEq/game{vs} (95% CI)", "{:.1f}")}


def _place_labels(fig, notes: list, bars: list) -> None:
    """Set each value label (vertical text) above its point's CI bar, else below it, else
    further out, so that it meets no other label and no CI bar: ``notes`` and ``bars`` (the
    bars' display boxes) in the same order."""
    from matplotlib.transforms import Bbox
    renderer = fig.canvas.get_renderer()
    placed = []
    for note in sorted(notes, key=lambda n: n.xy[0]):
        for k in range(24):
            above = k % 2 == 0
            note.set_va("bottom" if above else "top")
            note.xy = (note.xy[0], note._tdbg_hi if above else note._tdbg_lo)
            note.xyann = (0, (3 + 8 * (k // 2)) * (1 if above else -1))
            box = note.get_window_extent(renderer)
            if not any(box.overlaps(b) for b in placed + [Bbox(b) for b in bars]):
                break
        placed.append(note.get_window_extent(renderer))


def plot(points: list[dict], out: str, title: str, target: float | None, finals=(), unit: str = "result") -> dict:
    """Draw the chain; returns what the plot shows (also stored in the PNG as ``tdbg:curve``)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    from tdbg.infra.fileio import json_text   # strict JSON (tests/codebase/test_strict_json_everywhere.py)
    scale, ylabel_fmt, label_fmt = UNITS[unit]
    opponents = list(dict.fromkeys(p["opponent"] for p in points if p["opponent"]))
    opponents += [f["opponent"] for f in finals if f["opponent"] and f["opponent"] not in opponents]
    # one opponent: named on the axis; several: in the legend, per stage and for the finals
    ylabel = ylabel_fmt.format(vs=f" vs {opponents[0]}" if len(opponents) == 1 else "")
    vs = (lambda opp: f" (vs {opp})" if opp else "") if len(opponents) > 1 else (lambda opp: "")
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), dpi=110, constrained_layout=True)
    stages = list(dict.fromkeys(p["stage"] for p in points))
    notes = {}
    shown = {"title": title, "unit": unit, "ylabel": ylabel, "xlabels": ["episodes", "CPU-hours"],
             "series": {}, "finals": [], "label_boxes": {}}
    for stage in stages:
        pts = [p for p in points if p["stage"] == stage]
        shown["series"][stage] = {"opponent": pts[0]["opponent"], "episodes": [p["episodes"] for p in pts],
                                  "y": [p["result"] * scale for p in pts]}
    for f in finals:
        shown["finals"].append({"source": f.get("source"), "metric": f.get("metric"), "games": f["games"],
                                "episodes": f["episodes"], "cpu_hours": f["cpu_hours"], "y": f["result"] * scale,
                                "label": label_fmt.format(f["result"] * scale)})
    for ax, key, label in ((axes[0], "episodes", "episodes"), (axes[1], "cpu_hours", "CPU-hours")):
        for stage in stages:
            pts = [p for p in points if p["stage"] == stage and p[key] is not None]
            if not pts:
                continue
            xs = [p[key] for p in pts]
            old = pts[0]["old_agent"]
            ax.plot(xs, [p["result"] * scale for p in pts], marker="o", ms=3, lw=1, ls="--" if old else "-",
                    label=f"{stage} (old money-playing gnubg-nn)" if old else stage + vs(pts[0]["opponent"]))
            ax.fill_between(xs, [p["low"] * scale for p in pts], [p["high"] * scale for p in pts],
                            alpha=0.12 if old else 0.2)
        notes[label] = []
        for f in finals:
            if f[key] is None:
                continue
            y, lo, hi = f["result"] * scale, f["low"] * scale, f["high"] * scale
            has_ci = not math.isnan(lo)   # NaN: no interval
            ax.errorbar([f[key]], [y], yerr=[[y - lo], [hi - y]] if has_ci else None,
                        fmt="D", ms=6, color="k", capsize=3, zorder=5)
            note = ax.annotate(label_fmt.format(y), (f[key], hi if has_ci else y), textcoords="offset points",
                               xytext=(0, 3), fontsize=7, rotation=90, ha="center", va="bottom",
                               bbox=dict(boxstyle="square,pad=0.1", fc="white", ec="none", alpha=0.8))
            note._tdbg_hi, note._tdbg_lo = (hi, lo) if has_ci else (y, y)
            notes[label].append(note)
        if finals:
            capped = any(f.get("metric") == "capped" for f in finals)
            ax.plot([], [], "D", color="k", label=f"checkpoints, {finals[0]['games']:,} games"
                    + (" (cubeful: capped)" if capped else ""))
        if target is not None:
            ax.axhline(target * scale, color="k", ls="--", lw=0.8,
                       label=f"target {target * scale:g}" + ("%" if unit == "win-rate" else ""))
        ax.set_xlabel(label)
        if key == "episodes" and max((p["episodes"] for p in points), default=0) >= 1e6:
            ax.set_xlabel("episodes (millions)")
            ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v / 1e6:g}"))
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.canvas.draw()   # lay out first: label boxes are measured on the final layout
    for ax, label in zip(axes, shown["xlabels"], strict=True):
        to_px = ax.transData.transform
        bars = [[to_px((n.xy[0], n._tdbg_lo)) - (5, 0), to_px((n.xy[0], n._tdbg_hi)) + (5, 0)] for n in notes[label]]
        _place_labels(fig, notes[label], bars)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for label in shown["xlabels"]:
        shown["label_boxes"][label] = [[round(v, 1) for v in n.get_window_extent(renderer).extents]
                                       for n in notes[label]]
    with atomic_write(out, "wb") as fh:
        fig.savefig(fh, format="png", dpi=110, metadata={"tdbg:curve": json_text(shown, sort_keys=True)})
    plt.close(fig)
    return shown


def parser() -> cli.Parser:
    p = cli.Parser(description=__doc__.split("\n\n")[0])
    p.add_argument("logs", nargs="+", help="training CSV logs in chain order")
    p.add_argument("-o", "--output", required=True, help="PNG path")
    p.add_argument("--title", default="evaluation during training (95% CI)", help="figure title")
    p.add_argument("--target", type=cli.finite_float, default=None,
                   help="draw a horizontal target line (in the logs' units: a fraction, or points per game)")
    p.add_argument("--unit", choices=sorted(UNITS), default="result",
                   help="y-axis: win-rate (percent, DMP), meq (mEq/game, money) or result (as logged) "
                        "(default: result)")
    p.add_argument("--capped", action="store_true",
                   help="cubeful --final-results/--checkpoint-results capped at +-128 points a game")
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
    return p


def make(args) -> dict:
    """Read, check and plot what parsed ``args`` name; returns what the plot shows."""
    points, ends = load_chain(args.logs, args.old_agent_logs, args.base_cpu_hours + base_cpu_hours(list(args.base_logs)))
    finals = final_results(list(args.final_results), ends, args.capped) if args.final_results else []
    finals += checkpoint_results(list(args.checkpoint_results), ends, args.capped)
    check_outputs([Output("--output", args.output, "png")], args.overwrite,
                  {f"log {k + 1}": x for k, x in enumerate(args.logs)})
    return plot(points, args.output, args.title, args.target, finals, args.unit)


def main() -> None:
    args = parser().parse_args()
    make(args)
    print(args.output)


if __name__ == "__main__":
    cli.run_main(main)
