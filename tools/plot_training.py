#!/usr/bin/env python3
"""Turn a training CSV log (train_batch.py, train_online.py, train_prob5.py) into a PNG.

Panels: the loss (smoothed, raw values faint behind), episodes/s, the learning rate
(only when it changes; a constant one is named in the title) or else the gammon
rate, and the periodic evaluation result with its 95% CI against episodes.  The
title names the run from the checkpoint beside the log (model, game mode, hidden
sizes), when there is one.

    python tools/plot_training.py models/dmp.csv [-o models/dmp.png] [--title TEXT]
"""
from __future__ import annotations

from tdbg.infra.stop_signals import exit_on_signals  # first: a signal during the imports ends in one line
exit_on_signals(__name__)

import os

from tdbg.app import cli
from tdbg.infra.fileio import Output, atomic_write, check_outputs
from tdbg.game.modes import MODES
from tdbg.play import opponents
from tdbg.play.metrics import eval_label as mode_eval_label


# the columns every training script's log has (batch_td.LOG_FIELDS, online_td's log_fields)
TRAINING_COLUMNS = ("total_episodes", "loss", "lr", "episodes_per_s")


def read_log(path: str) -> list[dict]:
    """The rows of a training log; UsageError for a file that is not one (another CSV, a
    log whose rows were edited into something else)."""
    rows = cli.read_log(path, "loss")
    missing = [c for c in TRAINING_COLUMNS if c not in rows[0]]
    if missing:
        raise cli.UsageError(f"{path} is not a training log (no {', '.join(missing)} column)")
    for line, row in enumerate(rows, 2):
        for key in TRAINING_COLUMNS:
            try:
                value = float(row[key]) if row[key] not in ("", None) or key == "total_episodes" else 0.0
            except (TypeError, ValueError):
                value = None
            if value is None or (key == "total_episodes" and not value >= 0):
                raise cli.UsageError(f"{path}: line {line} is not a training log's row ({key} {row[key]!r})")
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
    from tdbg.net.model import CheckpointError, load_checkpoint
    try:
        _, meta, _ = load_checkpoint(ckpt)
    except CheckpointError:
        return None
    return {"name": os.path.basename(ckpt), **meta}


def run_title(log_path: str, info: dict | None) -> str:
    if not info:
        return os.path.basename(log_path)
    hidden = ",".join(str(h) for h in info.get("hidden", []))
    return (f"{info['name']}: {info.get('game_mode')} {info.get('output_mode')} [{hidden}], "
            f"{int(info.get('episodes', 0)):,} episodes")


def eval_label(rows, info) -> tuple[str, float]:
    """(y-axis label, reference line) for the evaluation panel."""
    opp = next((r.get("eval_opponent") for r in rows if r.get("eval_opponent")), "the opponent")
    mode = MODES.get((info or {}).get("game_mode"))
    if mode:
        return mode_eval_label(mode, opp, opp in opponents.CUBE_NAMES)
    return f"result vs {opp} (DMP: win rate; money: points/game)", None


def plot(rows: list[dict], out: str, title: str, info: dict | None = None) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    xkey = "total_episodes" if "total_episodes" in rows[0] else "episodes"
    fig, axes = plt.subplots(2, 2, figsize=(11, 7), constrained_layout=True)
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
    ax = axes[1, 1]
    xs, ys = _col(rows, "eval_result", xkey)
    _, lo = _col(rows, "eval_ci_low", xkey)
    _, hi = _col(rows, "eval_ci_high", xkey)
    label, ref = eval_label(rows, info)
    if xs:
        ax.plot(xs, ys, marker="o", ms=3, lw=1, label="result")
        if len(lo) == len(xs) and len(hi) == len(xs):
            ax.fill_between(xs, lo, hi, alpha=0.2, label="95% CI")
        if ref is not None:
            ax.axhline(ref, color="k", ls="--", lw=0.8, label=f"{ref:g} (even)")
        ax.legend(fontsize=8)
    else:
        ax.text(0.5, 0.5, "no evaluations in this log\n(--eval-every)", ha="center", va="center",
                transform=ax.transAxes)
    ax.set_ylabel(label)
    for ax in axes.flat:
        ax.set_xlabel("episodes (model total)")
        ax.grid(alpha=0.3)
    if constant_lr and lrs:
        title += f"; constant lr {lrs[0]:g}"
    fig.suptitle(title)
    with atomic_write(out, "wb") as fh:
        fig.savefig(fh, format="png", dpi=110)
    plt.close(fig)


def main() -> None:
    p = cli.Parser(description=__doc__.split("\n\n")[0])
    p.add_argument("csv", help="training log")
    p.add_argument("-o", "--output", help="PNG path (default: the CSV's name with .png)")
    p.add_argument("--title", default=None, help="default: the run, from the checkpoint beside the log")
    p.add_argument("--overwrite", action="store_true", help="allow replacing an existing PNG (the default one "
                   "beside the log is replaced without it: it is this tool's own output)")
    args = p.parse_args()
    rows = read_log(args.csv)
    out = args.output or os.path.splitext(args.csv)[0] + ".png"
    check_outputs([Output("--output" if args.output else "output", out, "png", own=not args.output)],
                  args.overwrite, {"the log": args.csv})
    info = run_info(args.csv)
    plot(rows, out, args.title or run_title(args.csv, info), info)
    print(out)


if __name__ == "__main__":
    cli.run_main(main)
