"""How match training runs' cube play approaches gnubg's, checkpoint by checkpoint:
take_vs_gnubg.py's ownership gap, dropped takes and double/no double agreement (gnubg-nn's
0-ply match cube decisions on the 1,100 benchmark positions at nine scores of a 7-point
match) against each run's episodes, one line per run, in one figure and a CSV (the figure drawn by tdbg.app.cube_curve_plot from
the CSV, which experiments/retraining/published_plots.py redraws without gnubg).

    python experiments/match/cube_curve.py --run "TD(0)" 'experiments/retraining/match/match_256x2_live_r*.pt' \
        --run "lambda 0.7" 'experiments/retraining/match/match_256x2_lam_r*.pt' \
        --start experiments/retraining/match/match_256x2_oc2.pt -o experiments/retraining/match/cube_curve.png
"""

import argparse
import glob
import os
import sys

from tdbg.app import cube_curve_plot
from tdbg.net.model import load_checkpoint
from take_vs_gnubg import agreement, benchmark_boards, gnubg_cube_evals  # beside this script


def stage_episodes(path: str) -> int:
    """Episodes of the checkpoint's current stage (0 for a finished earlier stage's start)."""
    _, _, ts = load_checkpoint(path)
    return int(((ts or {}).get("stage") or {}).get("episodes_done", 0))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--run",
        nargs=2,
        action="append",
        metavar=("LABEL", "GLOB"),
        required=True,
        help="a run's label and a glob of its checkpoints (quote it)",
    )
    p.add_argument("--start", help="the checkpoint every run starts from (plotted at 0 episodes)")
    p.add_argument("-o", "--out", required=True, help="figure (.png); the CSV is written beside it")
    args = p.parse_args()
    boards = benchmark_boards()
    evals = gnubg_cube_evals(boards)
    rows = []
    start = agreement(args.start, boards, evals)["total"] if args.start else None
    for label, pattern in args.run:
        paths = sorted(glob.glob(pattern))
        if not paths:
            sys.exit(f"cube_curve.py: error: no checkpoint matches {pattern}")
        points = [(0, start)] if start else []
        points += [
            (stage_episodes(path), agreement(path, boards, evals)["total"]) for path in paths
        ]
        for episodes, t in sorted(points, key=lambda x: x[0]):
            rows.append(
                {
                    "run": label,
                    "episodes": episodes,
                    "ownership_gap": t["ownership_gap"],
                    "dropped_takes": t["we_drop_its_takes"],
                    "gnubg_takes": t["gnubg_takes"],
                    "double_agrees": t["double_agrees"] / t["positions"],
                }
            )
            print(
                f"{label:>12} {episodes:8d}: gap {t['ownership_gap']:+.4f}, drops {t['we_drop_its_takes']}, "
                f"double agrees {rows[-1]['double_agrees']:.3f}",
                flush=True,
            )
    base = os.path.splitext(args.out)[0]
    cube_curve_plot.write_rows(rows, base + ".csv")
    cube_curve_plot.plot(rows, args.out)
    print(f"wrote {args.out} and {base}.csv")


if __name__ == "__main__":
    main()
