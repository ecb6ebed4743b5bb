"""Evaluation curve of a chain of training stages: the periodic evaluation result with its 95% CI
against episodes and against cumulative CPU-hours (tools/plot_eval_curve.py is its command).

Logs come in chain order; a log continues the one before it unless ``continues`` names another
(a branch: two stages from the same parent).  Episodes are the model's total; CPU-hours add up
along each log's own line.  Results are drawn in their game mode's unit (plots.MODE_UNITS): win
rate in % for DMP, mEq/game for money, match-winning chances in % for match play.
"""

from __future__ import annotations

import argparse
import math
import os

import matplotlib.ticker
from matplotlib.transforms import Bbox

from tdbg.app import cli, plots, training_plot
from tdbg.infra.fileio import Output, check_outputs
from tdbg.infra.stats import bootstrap_ci, pair_means
from tdbg.play.results_file import ResultsFileError, default_metric, read_results

PNG_KEY = "tdbg:curve"
# the columns of a training log the curve reads as numbers (where they are not blank)
LOG_NUMBERS = (
    "total_episodes",
    "episodes",
    "stage_episodes",
    "cpu_hours",
    "eval_result",
    "eval_ci_low",
    "eval_ci_high",
)


def base_cpu_hours(paths: list[str]) -> float:
    """CPU-hours of the stages a chain builds on (e.g. the DMP stages under a money leg)."""
    total = 0.0
    for path in paths:
        rows = cli.read_log(
            path, "cpu_hours", "a training log with CPU-hours", numbers=("cpu_hours",)
        )
        try:
            total += max((float(r["cpu_hours"]) for r in rows if r.get("cpu_hours")), default=0.0)
        except ValueError as exc:  # (was a traceback)
            raise cli.UsageError(
                f"{path} is not a training log with CPU-hours (a value that is not a number: {exc})"
            ) from None
    return total


def _stage(path: str) -> str:
    return os.path.splitext(os.path.basename(path))[0]


def _parents(n: int, continues: dict[int, int]) -> list[int]:
    """Per log (0-based), the log whose end it starts from (-1: the chain's base)."""
    return [continues.get(k, k - 1) for k in range(n)]


def load_chain(
    paths: list[str],
    old_agent_logs: int = 0,
    cpu_offset: float = 0.0,
    continues: dict[int, int] | None = None,
) -> tuple[list[dict], list[dict]]:
    """(evaluation points, one end-of-stage dict per log with its episodes and CPU-hours);
    ``cpu_offset``: CPU-hours spent before the first log; ``continues``: log -> the earlier log
    it starts from (0-based), where that is not the one before it."""
    points: list[dict] = []
    ends: list[dict] = []
    for k, (path, parent) in enumerate(
        zip(paths, _parents(len(paths), continues or {}), strict=True)
    ):
        rows = cli.read_log(
            path, "eval_result", "a training log with evaluations", numbers=LOG_NUMBERS
        )
        try:
            ends.append(
                _chain_log(path, rows, k < old_agent_logs, parent, ends, cpu_offset, points)
            )
        except (TypeError, ValueError) as exc:  # a field that is no number: was a traceback
            raise cli.UsageError(
                f"{path} is not a training log with evaluations (a value that is not a number: "
                f"{exc})"
            ) from None
    if not points:
        raise cli.UsageError("no evaluations in these logs (train with --eval-every)")
    return points, ends


def _chain_log(path, rows, old, parent, ends, cpu_offset, points) -> dict:
    """One log of load_chain: its evaluation points appended to ``points``; its end."""
    start_cpu = cpu_offset if parent < 0 else (ends[parent]["cpu_hours"] or 0.0)
    last_cpu, last_episodes = 0.0, 0.0
    marks = []  # (stage episodes, total episodes, CPU-hours so far) of every row
    for line, r in enumerate(rows, 2):
        episodes = float(r.get("total_episodes") or r.get("episodes") or 0)
        if line > 2 and episodes <= last_episodes:  # (a training log's rows go forward: rows
            # that repeat or go back are two runs' logs in one file, drawn as one curve)
            raise cli.UsageError(
                f"{path}: line {line} is at {episodes:g} episodes, not after the line before it "
                f"({last_episodes:g}); a training log's rows go forward"
            )
        last_episodes = episodes
        cpu = float(r["cpu_hours"]) if r.get("cpu_hours") else None
        if cpu is not None:
            last_cpu = cpu
        stage_episodes = float(
            r.get("stage_episodes") or r.get("episodes") or last_episodes
        )  # old logs: total
        marks.append((stage_episodes, last_episodes, start_cpu + cpu if cpu is not None else None))
        if r.get("eval_result"):
            points.append(
                {
                    "stage": _stage(path),
                    "episodes": last_episodes,
                    "cpu_hours": None if cpu is None else start_cpu + cpu,
                    "result": float(r["eval_result"]),
                    "low": _end(r["eval_ci_low"]),
                    "high": _end(r["eval_ci_high"]),
                    "opponent": r.get("eval_opponent", ""),
                    "old_agent": old,
                }
            )
    return {
        "stage": _stage(path),
        "episodes": last_episodes,
        "cpu_hours": start_cpu + last_cpu if any(r.get("cpu_hours") for r in rows) else None,
        "marks": marks,
    }


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
    if lo is None:  # no interval (one unit): the point alone
        lo = hi = float("nan")
    return {
        "episodes": where["episodes"],
        "cpu_hours": where["cpu_hours"],
        "result": m,
        "low": lo,
        "high": hi,
        "games": len(v),
        "opponent": res.header.get("model2", ""),
        "source": path,
        "metric": metric,
        "game_mode": res.game_mode,
    }


def final_results(paths: list[str], ends: list[dict], capped: bool = False) -> list[dict]:
    """Large-game results of each stage's final checkpoint, placed at the stage's end."""
    if len(paths) != len(ends):
        raise cli.UsageError(f"--final-results needs one entry per log ({len(ends)}), '-' for none")
    return [
        _result_at(path, end, capped) for path, end in zip(paths, ends, strict=True) if path != "-"
    ]


def checkpoint_results(specs: list[str], ends: list[dict], capped: bool = False) -> list[dict]:
    """Results of checkpoints inside a stage (``N:EPISODES:CSV``), placed at the first row of
    the N-th log whose stage episodes reach EPISODES."""
    out = []
    for spec in specs:
        parts = spec.split(":", 2)
        try:  # ASCII digits, as every number on the command line (int() reads 1_0 and １)
            k, episodes, path = cli.whole_number(parts[0]), cli.number(parts[1]), parts[2]
            if not 0 <= episodes < math.inf:  # (-inf placed it at the first row; nan nowhere)
                raise ValueError(episodes)
        except (ValueError, IndexError, argparse.ArgumentTypeError):
            raise cli.UsageError(
                f"--checkpoint-results {spec!r}: expected LOG_NUMBER:STAGE_EPISODES:CSV"
            ) from None
        if not 1 <= k <= len(ends):
            raise cli.UsageError(
                f"--checkpoint-results {spec!r}: there are {len(ends)} logs (numbered from 1)"
            )
        at = next((m for m in ends[k - 1]["marks"] if m[0] >= episodes), None)
        if at is None:
            raise cli.UsageError(
                f"--checkpoint-results {spec!r}: log {k} stops before {episodes:,.0f} episodes"
            )
        out.append(_result_at(path, {"episodes": at[1], "cpu_hours": at[2]}, capped))
    return out


def continues_arg(specs, n: int) -> dict[int, int]:
    """``--continues N:K`` (log N starts from log K's end, numbered from 1) as 0-based {N: K}."""
    out = {}
    for spec in specs:
        try:  # ASCII digits, as every number on the command line (int() reads 1_0 and １)
            k, parent = (cli.whole_number(x) for x in spec.split(":"))
        except (ValueError, argparse.ArgumentTypeError):
            raise cli.UsageError(
                f"--continues {spec!r}: expected LOG_NUMBER:EARLIER_LOG_NUMBER"
            ) from None
        if not 1 <= parent < k <= n:
            raise cli.UsageError(
                f"--continues {spec!r}: log {k} can continue only an earlier one of the {n} logs"
            )
        out[k - 1] = parent - 1
    return out


def chain_unit(finals: list[dict], logs: list[str]) -> str | None:
    """The unit of the results' game mode: the 10,000-game files' own, else that of the checkpoint
    beside the last log; None when neither says."""
    modes = {f["game_mode"] for f in finals if f.get("game_mode")}
    units = {plots.unit_of_mode(m) for m in modes} - {None}
    if len(units) > 1:
        raise cli.UsageError(
            f"the result files are of game modes that plot in different units: {sorted(modes)}"
        )
    logs_mode = (training_plot.run_info(logs[-1]) or {}).get("game_mode") if logs else None
    logs_unit = plots.unit_of_mode(logs_mode)
    if units and logs_unit is not None and units != {logs_unit}:
        # the logs' evaluations would be drawn in the results' unit (points per game as a rate)
        raise cli.UsageError(
            f"the result files are {' and '.join(sorted(modes))} results, the logs those of a "
            f"{logs_mode} stage ({os.path.splitext(logs[-1])[0]}.pt): they plot in different units"
        )
    return units.pop() if units else logs_unit


def _series(points: list[dict], scale: float) -> dict:
    out = {}
    for stage in dict.fromkeys(p["stage"] for p in points):
        pts = [p for p in points if p["stage"] == stage]
        out[stage] = {
            "opponent": pts[0]["opponent"],
            "episodes": [p["episodes"] for p in pts],
            "y": [p["result"] * scale for p in pts],
        }
    return out


def _place_labels(fig, notes: list, bars: list) -> None:
    """Set each value label (vertical text) above its point's CI bar, else below it, else
    further out, so that it meets no other label and no CI bar and stays inside its axes:
    ``notes`` and ``bars`` (the bars' display boxes) in the same order."""
    renderer = fig.canvas.get_renderer()
    placed: list[Bbox] = []
    for note, _bar in sorted(zip(notes, bars, strict=True), key=lambda nb: nb[0].xy[0]):
        frame = note.axes.get_window_extent(renderer)
        for k in range(24):
            above = k % 2 == 0
            note.set_va("bottom" if above else "top")
            note.xy = (note.xy[0], note._tdbg_hi if above else note._tdbg_lo)
            note.xyann = (0, (3 + 8 * (k // 2)) * (1 if above else -1))
            box = note.get_window_extent(renderer)
            inside = frame.y0 <= box.y0 and box.y1 <= frame.y1
            if inside and not any(box.overlaps(b) for b in placed + [Bbox(b) for b in bars]):
                break
        placed.append(note.get_window_extent(renderer))


def _draw_stages(ax, points: list[dict], key: str, scale: float, vs) -> None:
    for stage in dict.fromkeys(p["stage"] for p in points):
        pts = [p for p in points if p["stage"] == stage and p[key] is not None]
        if not pts:
            continue
        xs = [p[key] for p in pts]
        old = pts[0]["old_agent"]
        ax.plot(
            xs,
            [p["result"] * scale for p in pts],
            marker="o",
            ms=3,
            lw=1,
            ls="--" if old else "-",
            label=f"{stage} (old money-playing gnubg-nn)"
            if old
            else stage + vs(pts[0]["opponent"]),
        )
        ax.fill_between(
            xs,
            [p["low"] * scale for p in pts],
            [p["high"] * scale for p in pts],
            alpha=0.12 if old else 0.2,
        )


def _draw_finals(ax, finals: list[dict], key: str, unit: str) -> list:
    scale = plots.UNITS[unit][0]
    notes = []
    for f in finals:
        if f[key] is None:
            continue
        y, lo, hi = f["result"] * scale, f["low"] * scale, f["high"] * scale
        has_ci = not math.isnan(lo)
        ax.errorbar(
            [f[key]],
            [y],
            yerr=[[y - lo], [hi - y]] if has_ci else None,
            fmt="D",
            ms=6,
            color="k",
            capsize=3,
            zorder=5,
        )
        note = ax.annotate(
            plots.value_label(unit, y),
            (f[key], hi if has_ci else y),
            textcoords="offset points",
            xytext=(0, 3),
            fontsize=7,
            rotation=90,
            ha="center",
            va="bottom",
            bbox=dict(boxstyle="square,pad=0.1", fc="white", ec="none", alpha=0.8),
        )
        note._tdbg_hi, note._tdbg_lo = (hi, lo) if has_ci else (y, y)
        notes.append(note)
    if finals:
        capped = any(f.get("metric") == "capped" for f in finals)
        ax.plot(
            [],
            [],
            "D",
            color="k",
            label=f"checkpoints, {finals[0]['games']:,} games"
            + (" (cubeful: capped)" if capped else ""),
        )
    return notes


def _finals_shown(finals, scale: float, unit: str) -> list[dict]:
    """What the plot shows of each final checkpoint's result (its point and its label), as
    ``figure`` records it for tests and the PNG's metadata."""
    return [
        {
            "source": f.get("source"),
            "metric": f.get("metric"),
            "games": f["games"],
            "episodes": f["episodes"],
            "cpu_hours": f["cpu_hours"],
            "y": f["result"] * scale,
            "label": plots.value_label(unit, f["result"] * scale),
        }
        for f in finals
    ]


def _draw_panel(ax, points, finals, key: str, target, unit: str, vs) -> list:
    """One panel's data: the stages and the finals against ``key`` (episodes or CPU-hours)
    and the target line; returns the finals' value labels, to be placed once the whole figure
    is laid out."""
    scale = plots.UNITS[unit][0]
    _draw_stages(ax, points, key, scale, vs)
    notes = _draw_finals(ax, finals, key, unit)
    if target is not None:
        ax.axhline(
            target * scale,
            color="k",
            ls="--",
            lw=0.8,
            label=f"target {plots.value_label(unit, target * scale)}",
        )
    return notes


def _label_panel(ax, xlabel: str, ylabel: str, millions: bool) -> None:
    """One panel's axis labels (``millions``: the x ticks in millions), grid and legend."""
    ax.set_xlabel(xlabel)
    if millions:
        ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v / 1e6:g}"))
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)


def _place_value_labels(fig, axes, xlabels, notes) -> dict:
    """Move each panel's value labels off one another and off the CI bars, on the final
    layout (so the figure is drawn first); returns each panel's label boxes in pixels."""
    fig.canvas.draw()  # lay out first: label boxes are measured on the final layout
    for ax, label in zip(axes, xlabels, strict=True):
        to_px = ax.transData.transform
        bars = [
            [to_px((n.xy[0], n._tdbg_lo)) - (5, 0), to_px((n.xy[0], n._tdbg_hi)) + (5, 0)]
            for n in notes[label]
        ]
        _place_labels(fig, notes[label], bars)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    return {
        label: [[round(v, 1) for v in n.get_window_extent(renderer).extents] for n in notes[label]]
        for label in xlabels
    }


def figure(points: list[dict], title: str, target: float | None, finals=(), unit: str = "win-rate"):
    """(figure, what it shows) of the chain: two panels, against episodes and against CPU-hours."""
    scale = plots.UNITS[unit][0]
    opponents = list(dict.fromkeys(p["opponent"] for p in points if p["opponent"]))
    opponents += [f["opponent"] for f in finals if f["opponent"] and f["opponent"] not in opponents]
    # one opponent: named on the axis; several: in the legend, per stage and for the finals
    ylabel = plots.wrap(
        plots.axis_label(unit, opponents[0] if len(opponents) == 1 else "", "95% CI"), 48
    )
    vs = (lambda opp: f" (vs {opp})" if opp else "") if len(opponents) > 1 else (lambda opp: "")
    fig, axes = plots.new_figure(12, 4.8, 1, 2)
    big = max((p["episodes"] for p in points), default=0) >= 1e6
    xlabels = ["episodes (millions)" if big else "episodes", "CPU-hours"]
    shown: dict = {
        "title": title,
        "unit": unit,
        "ylabel": ylabel,
        "xlabels": xlabels,
        "series": _series(points, scale),
        "finals": _finals_shown(finals, scale, unit),
        "label_boxes": {},
    }
    notes = {}
    for ax, key, label in zip(axes[0], ("episodes", "cpu_hours"), xlabels, strict=True):
        notes[label] = _draw_panel(ax, points, finals, key, target, unit, vs)
        _label_panel(ax, label, ylabel, millions=key == "episodes" and big)
    fig.suptitle(plots.wrap(title, 130), fontsize=10)
    shown["label_boxes"] = _place_value_labels(fig, axes[0], xlabels, notes)
    return fig, shown


def plot(
    points: list[dict],
    out: str,
    title: str,
    target: float | None,
    finals=(),
    unit: str = "win-rate",
) -> dict:
    """Draw the chain into ``out``; returns what the plot shows (also stored in the PNG as ``tdbg:curve``)."""
    fig, shown = figure(points, title, target, finals, unit)
    plots.save_png(fig, out, PNG_KEY, shown)
    return shown


def _add_drawing_arguments(p: cli.Parser) -> None:
    """The logs to draw, the PNG, and how its y-axis reads: title, target line and unit."""
    p.add_argument("logs", nargs="+", help="training CSV logs in chain order")
    p.add_argument("-o", "--output", required=True, help="PNG path")
    p.add_argument("--title", default="evaluation during training (95% CI)", help="figure title")
    p.add_argument(
        "--target",
        type=cli.finite_float,
        default=None,
        help="draw a horizontal target line (in the logs' units: a fraction, or points per game)",
    )
    p.add_argument(
        "--unit",
        choices=sorted(plots.UNITS),
        default=None,
        help="y-axis: win-rate (percent, DMP), meq (mEq/game, money) or mwc (match-winning chances "
        "in percent, match play) (default: the game mode's, from the result files or the "
        "checkpoint beside the last log; another unit than theirs is refused)",
    )
    p.add_argument(
        "--capped",
        action="store_true",
        help="cubeful --final-results/--checkpoint-results capped at +-128 points a game",
    )


def _add_chain_arguments(p: cli.Parser) -> None:
    """How the logs chain (branches, stages beneath them, CPU-hours before them) and the
    checkpoints' 10,000-game results drawn beside them."""
    p.add_argument(
        "--old-agent-logs",
        type=cli.non_negative_int,
        default=0,
        metavar="N",
        help="the first N logs were evaluated by the pre-fix gnubg-nn agent (money equity in DMP) "
        "(default: 0)",
    )
    p.add_argument(
        "--continues",
        nargs="+",
        metavar="N:K",
        default=(),
        help="log N starts from the end of the earlier log K (numbered from 1), not from the log "
        "before it: a branch (default: each log continues the one before it)",
    )
    p.add_argument(
        "--final-results",
        nargs="+",
        metavar="CSV",
        default=(),
        help="per log, a per-game result CSV of its final checkpoint, or '-' (default: none)",
    )
    p.add_argument(
        "--base-logs",
        nargs="+",
        metavar="CSV",
        default=(),
        help="logs of the stages the chain builds on: their CPU-hours count on the CPU axis, their "
        "evaluations are not drawn (e.g. the DMP stages under a money leg)",
    )
    p.add_argument(
        "--base-cpu-hours",
        type=cli.non_negative_float,
        default=0.0,
        metavar="H",
        help="CPU-hours spent before the first log besides --base-logs (e.g. a base checkpoint taken "
        "inside a stage, whose log runs on past it)",
    )
    p.add_argument(
        "--checkpoint-results",
        nargs="+",
        metavar="N:EPISODES:CSV",
        default=(),
        help="the per-game result CSV of a checkpoint taken inside the N-th log's stage after EPISODES of "
        "its episodes (default: none)",
    )


def parser(description: str = "") -> cli.Parser:
    p = cli.Parser(description=description or __doc__.split("\n\n")[0])
    _add_drawing_arguments(p)
    _add_chain_arguments(p)
    p.add_argument("--overwrite", action="store_true", help="allow replacing an existing PNG")
    return p


def load(args) -> tuple[list[dict], list[dict]]:
    """(evaluation points, 10,000-game results) that parsed ``args`` name; UsageError for bad input."""
    if args.old_agent_logs > len(args.logs):  # (was taken: every log marked, no word)
        raise cli.UsageError(
            f"--old-agent-logs {args.old_agent_logs}: there are {len(args.logs)} logs"
        )
    continues = continues_arg(args.continues, len(args.logs))
    offset = args.base_cpu_hours + base_cpu_hours(list(args.base_logs))
    points, ends = load_chain(args.logs, args.old_agent_logs, offset, continues)
    finals = (
        final_results(list(args.final_results), ends, args.capped) if args.final_results else []
    )
    finals += checkpoint_results(list(args.checkpoint_results), ends, args.capped)
    return points, finals


def build(args, points: list[dict], finals: list[dict]):
    """(figure, what it shows) of loaded data in the unit ``args`` name or the game mode's."""
    known = chain_unit(finals, list(args.logs))  # the results' and the logs' own, if they say
    if args.unit and known and args.unit != known:  # (a DMP file's 0.65 was drawn as 650 mEq)
        raise cli.UsageError(
            f"--unit {args.unit}: the result files or the checkpoint beside the last log plot in "
            f"{known}"
        )
    unit = args.unit or known
    if unit is None:
        raise cli.UsageError(
            "cannot tell the logs' game mode (no result file, no checkpoint beside the last log): "
            "name the unit with --unit"
        )
    if unit in RATE_UNITS:  # a money log beside a DMP result file, no checkpoint to tell: -31%
        for p in points:
            if not all(
                0.0 <= p[k] <= 1.0 for k in ("result", "low", "high") if not math.isnan(p[k])
            ):
                raise cli.UsageError(
                    f"{p['stage']}: an evaluation of {p['result']:g} [{p['low']:g}, {p['high']:g}] is "
                    f"no rate, and the chain plots in {unit}: its logs are of another game mode"
                )
    return figure(points, args.title, args.target, finals, unit)


RATE_UNITS = ("win-rate", "mwc")  # fractions from 0 to 1


def make(args) -> dict:
    """Read, check and plot what parsed ``args`` name; returns what the plot shows."""
    points, finals = load(args)
    check_outputs(
        [Output("--output", args.output, "png")],
        args.overwrite,
        {f"log {k + 1}": x for k, x in enumerate(args.logs)},
    )
    fig, shown = build(args, points, finals)
    plots.save_png(fig, args.output, PNG_KEY, shown)
    return shown


def main(description: str = "") -> None:
    args = parser(description).parse_args()
    make(args)
    print(args.output)
