"""A training CSV log (train_batch.py, train_online.py, train_prob5.py) as a figure
(tools/plot_training.py is its command).

Panels: the loss (smoothed, raw values faint behind), episodes/s, the learning rate (only when it
changes; a constant one is named in the title) or else the gammon rate, and the periodic
evaluation result with its 95% CI against episodes, in the game mode's unit (plots.MODE_UNITS).
The title names the run from the checkpoint beside the log (model, game mode, hidden sizes), when
there is one.
"""

from __future__ import annotations

import os

import matplotlib.ticker

from tdbg.app import cli, plots
from tdbg.net.model import CheckpointError, load_checkpoint
from tdbg.play import opponents

PNG_KEY = "tdbg:training"

# the columns every training script's log has (batch_td.LOG_FIELDS, online_td's log_fields)
TRAINING_COLUMNS = ("total_episodes", "loss", "lr", "episodes_per_s")
# the evaluation panel's columns: blank in a round without an evaluation, else numbers
EVAL_COLUMNS = ("eval_result", "eval_ci_low", "eval_ci_high")


def read_log(path: str) -> list[dict]:
    """The rows of a training log; UsageError for a file that is not one (another CSV, a
    log whose rows were edited into something else)."""
    rows = cli.read_log(path, "loss", numbers=TRAINING_COLUMNS + EVAL_COLUMNS)
    missing = [c for c in TRAINING_COLUMNS if c not in rows[0]]
    if missing:
        raise cli.UsageError(f"{path} is not a training log (no {', '.join(missing)} column)")
    last = 0.0
    for line, row in enumerate(rows, 2):
        # (cli.read_log has refused a row without the header's fields, and a value of
        # TRAINING_COLUMNS that is no finite number: each row must still say its episodes)
        if row["total_episodes"] == "" or float(row["total_episodes"]) < 0:
            raise cli.UsageError(
                f"{path}: line {line} is not a row of a training log "
                f"(total_episodes {row['total_episodes']!r})"
            )
        episodes = float(row["total_episodes"])
        if line > 2 and episodes <= last:  # (every run's rows go forward, stage after stage:
            # rows that repeat or go back are two runs' logs in one file, drawn as one line)
            raise cli.UsageError(
                f"{path}: line {line} is at {row['total_episodes']} episodes, not after the line "
                f"before it ({last:g}); a training log's rows go forward"
            )
        last = episodes
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


def smooth(ys: list[float], alpha: float = 0.1) -> list[float]:
    """Exponential moving average (the first value starts it)."""
    out, m = [], None
    for y in ys:
        m = y if m is None else (1 - alpha) * m + alpha * y
        out.append(m)
    return out


def run_info(log_path: str) -> dict | None:
    """The metadata of the checkpoint beside the log (same name, .pt), if there is one."""
    ckpt = os.path.splitext(log_path)[0] + ".pt"
    if not os.path.isfile(ckpt):
        return None
    try:
        _, meta, _ = load_checkpoint(ckpt)
    except CheckpointError:
        return None
    return {"name": os.path.basename(ckpt), **meta}


def run_title(log_path: str, info: dict | None) -> str:
    if not info:
        return os.path.basename(log_path)
    hidden = ",".join(str(h) for h in info.get("hidden", []))
    return (
        f"{info['name']}: {info.get('game_mode')} {info.get('output_mode')} [{hidden}], "
        f"{int(info.get('episodes', 0)):,} episodes"
    )


def eval_axis(rows, info) -> tuple[str | None, str, float | None]:
    """(unit, y-axis label, even result in the unit) of the evaluation panel: the unit of the game
    mode of the checkpoint beside the log; without one, the logged value as it is."""
    opp = next((r.get("eval_opponent") for r in rows if r.get("eval_opponent")), "")
    mode = (info or {}).get("game_mode")
    unit = plots.unit_of_mode(mode)
    if unit is None:
        return (
            None,
            f"logged result vs {opp or 'the opponent'} (no checkpoint beside the log)",
            None,
        )
    # only cubeful money's quick evaluations play an opponent with a cube, and read capped points
    note = "capped at +-128, 95% CI" if opp in opponents.CUBE_NAMES else "95% CI"
    even = {"win-rate": 50.0, "mwc": 50.0, "meq": 0.0}[unit]
    return unit, plots.wrap(plots.axis_label(unit, opp, note), 44), even


def _episodes_axis(ax, big: bool) -> None:
    ax.set_xlabel("episodes, millions (model total)" if big else "episodes (model total)")
    if big:
        ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v / 1e6:g}"))
    ax.grid(alpha=0.3)


def _eval_panel(ax, rows, xkey, info) -> dict:
    unit, label, even = eval_axis(rows, info)
    scale = plots.UNITS[unit][0] if unit else 1.0
    xs, ys = _col(rows, "eval_result", xkey)
    _, lo = _col(rows, "eval_ci_low", xkey)
    _, hi = _col(rows, "eval_ci_high", xkey)
    ys = [y * scale for y in ys]
    if xs:
        ax.plot(xs, ys, marker="o", ms=3, lw=1, label="result")
        if len(lo) == len(xs) and len(hi) == len(xs):
            ax.fill_between(
                xs, [v * scale for v in lo], [v * scale for v in hi], alpha=0.2, label="95% CI"
            )
        if even is not None and unit is not None:  # eval_axis gives an even line only with a unit
            ax.axhline(
                even, color="k", ls="--", lw=0.8, label=f"{plots.value_label(unit, even)} (even)"
            )
        ax.legend(fontsize=8)
    else:
        ax.text(
            0.5,
            0.5,
            "no evaluations in this log\n(--eval-every)",
            ha="center",
            va="center",
            transform=ax.transAxes,
        )
    ax.set_ylabel(label)
    return {"unit": unit, "ylabel": label, "episodes": xs, "y": ys}


def figure(rows: list[dict], title: str, info: dict | None = None):
    """(figure, what it shows) of a training log."""
    xkey = "total_episodes" if "total_episodes" in rows[0] else "episodes"
    fig, axes = plots.new_figure(11, 7, 2, 2)
    ax = axes[0, 0]
    xs, ys = _col(rows, "loss", xkey)
    ax.plot(xs, ys, lw=0.6, alpha=0.3, color="C0", label="per round")
    ax.plot(xs, smooth(ys), lw=1.5, color="C0", label="smoothed (EMA 0.1)")
    ax.set_yscale("log")
    ax.set_ylabel("loss (MSE)")
    ax.legend(fontsize=8)
    _, lrs = _col(rows, "lr", xkey)
    constant_lr = len(set(lrs)) <= 1
    third = ("gammon_rate", "gammon rate (self-play)") if constant_lr else ("lr", "learning rate")
    for ax, (key, label) in ((axes[0, 1], ("episodes_per_s", "episodes/s")), (axes[1, 0], third)):
        xs, ys = _col(rows, key, xkey)
        if xs:
            ax.plot(xs, ys, lw=1)
        else:
            ax.set_axis_off()
        ax.set_ylabel(label)
    evaluation = _eval_panel(axes[1, 1], rows, xkey, info)
    big = max((float(r[xkey] or 0) for r in rows), default=0) >= 1e6
    for ax in axes.flat:
        _episodes_axis(ax, big)
    if constant_lr and lrs:
        title += f"; constant lr {lrs[0]:g}"
    fig.suptitle(plots.wrap(title, 110))
    shown = {
        "title": title,
        "ylabels": [ax.get_ylabel() for ax in axes.flat],
        "xlabel": axes[1, 1].get_xlabel(),
        "evaluation": evaluation,
    }
    return fig, shown


def plot(rows: list[dict], out: str, title: str, info: dict | None = None) -> dict:
    """Draw the log into ``out``; returns what the plot shows (also in the PNG as ``tdbg:training``)."""
    fig, shown = figure(rows, title, info)
    plots.save_png(fig, out, PNG_KEY, shown)
    return shown


def draw(log: str, out: str, title: str | None = None) -> dict:
    """Plot the training log ``log`` into ``out`` (no output checks: the caller's)."""
    rows = read_log(log)
    info = run_info(log)
    return plot(rows, out, title or run_title(log, info), info)
