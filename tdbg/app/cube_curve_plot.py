"""How match training runs' cube decisions approach gnubg-nn's, checkpoint by checkpoint, as a
figure: the ownership gap (in match-winning chances, % points), gnubg's takes the model drops,
and double / no double agreement, each against the stage's episodes, one line per run
(experiments/match/cube_curve.py measures the rows and writes them as a CSV beside the figure).
"""

from __future__ import annotations

import csv

from tdbg.app import cli, plots
from tdbg.infra.fileio import atomic_write

PNG_KEY = "tdbg:cube-curve"
COLUMNS = ("run", "episodes", "ownership_gap", "dropped_takes", "gnubg_takes", "double_agrees")
TITLE = "Match cube decisions against gnubg-nn's, 1,100 positions x 9 scores of a 7-point match"


def read_rows(path: str) -> list[dict]:
    """The rows of a cube-curve CSV, numbers as numbers; UsageError for another file."""
    rows = cli.read_log(path, "ownership_gap", "a cube-curve CSV")
    missing = [c for c in COLUMNS if c not in rows[0]]
    if missing:
        raise cli.UsageError(f"{path} is not a cube-curve CSV (no {', '.join(missing)} column)")
    try:
        return [
            {
                "run": r["run"],
                "episodes": int(r["episodes"]),
                "ownership_gap": float(r["ownership_gap"]),
                "dropped_takes": int(r["dropped_takes"]),
                "gnubg_takes": int(r["gnubg_takes"]),
                "double_agrees": float(r["double_agrees"]),
            }
            for r in rows
        ]
    except ValueError as exc:
        raise cli.UsageError(f"{path}: a row that is not numbers ({exc})") from None


def figure(rows: list[dict], title: str = TITLE):
    """(figure, what it shows): three panels against the stage's episodes, one line per run."""
    fig, axes = plots.new_figure(15, 4.4, 1, 3)
    ax_gap, ax_drops, ax_agree = axes[0]
    gap_scale = plots.UNITS["mwc"][0]  # MWC as a fraction -> % points
    series = {}
    for run in dict.fromkeys(r["run"] for r in rows):
        rr = sorted((r for r in rows if r["run"] == run), key=lambda r: r["episodes"])
        x = [r["episodes"] / 1000 for r in rr]
        series[run] = {
            "episodes": [r["episodes"] for r in rr],
            "ownership_gap": [r["ownership_gap"] * gap_scale for r in rr],
            "dropped_takes": [r["dropped_takes"] for r in rr],
            "double_agrees": [100 * r["double_agrees"] for r in rr],
        }
        ax_gap.plot(x, series[run]["ownership_gap"], marker="o", label=run)
        ax_drops.plot(x, series[run]["dropped_takes"], marker="o", label=run)
        ax_agree.plot(x, series[run]["double_agrees"], marker="o", label=run)
    ax_gap.axhline(0.0, color="grey", lw=0.8)
    ax_gap.set_ylabel(
        plots.wrap("ownership gap, match-winning chances, % points (0 = gnubg's)", 48)
    )
    ax_drops.set_ylabel(f"gnubg's {rows[0]['gnubg_takes']} takes the model drops")
    ax_agree.set_ylabel("double / no double agrees with gnubg, %")
    for ax in axes[0]:
        ax.set_xlabel("episodes in the stage (thousands)")
        ax.grid(alpha=0.3)
        ax.legend()
    fig.suptitle(title)
    shown = {
        "title": title,
        "ylabels": [ax.get_ylabel() for ax in axes[0]],
        "xlabel": ax_gap.get_xlabel(),
        "series": series,
    }
    return fig, shown


def plot(rows: list[dict], out: str, title: str = TITLE) -> dict:
    """Draw the rows into ``out``; returns what the plot shows (also in the PNG as ``tdbg:cube-curve``)."""
    fig, shown = figure(rows, title)
    plots.save_png(fig, out, PNG_KEY, shown)
    return shown


def write_rows(rows: list[dict], path: str) -> None:
    """The rows as the CSV ``read_rows`` reads."""
    with atomic_write(path, "w") as fh:
        w = csv.DictWriter(fh, fieldnames=list(COLUMNS), lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
