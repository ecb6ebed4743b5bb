#!/usr/bin/env python3
"""Draw the strength lineage's curves from its logs and 10,000-game results:
strength/curve.png and curve_e1.png (DMP, win rate in %), strength_money/curve.png,
curve_m4.png, curve_n.png, curve_n3.png, curve_n4.png and curve_n5.png (money, mEq/game; cubeful 10,000-game points capped at +-128 a
game, as the selection read them).

    python experiments/retraining/strength_curves.py [--out-dir DIR]

Without --out-dir each PNG replaces the committed one beside its logs (this script's own
output); with it, the PNGs go to DIR under the same relative paths (DIR must not hold them yet).
tests/experiments/test_strength_curves.py reads the committed PNGs' data (tdbg:curve) and checks it against
the logs and the eval JSON files.
"""
from __future__ import annotations

import os

from tdbg.app import cli
from tdbg.tools import plot_eval_curve

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

S = "experiments/retraining/strength"
M = "experiments/retraining/strength_money"
DMP_LOGS = [f"{S}/{x}.csv" for x in ("s1_128x2", "s2_256x3", "s2b_256x3", "s3_256x3", "s4_256x3_1ply",
                                      "s5_256x3_polish", "s6_256x3_1ply", "s7_256x3_polish")]
BASE_FOR_MONEY = DMP_LOGS[:4]   # the money legs start from s3's end
E1 = f"{S}/e1_256x3_exact1ply"   # exact 1-ply from s7 with its twin units repaired (s7r)
N_FROM_E1 = 250_000               # the n-legs (money) start from e1's 250,000-episode snapshot


def cpu_hours_at(log: str, stage_episodes: int) -> float:
    """CPU-hours a stage's log records when it reached ``stage_episodes``."""
    rows = cli.read_log(os.path.join(ROOT, log), "cpu_hours", "a training log with CPU-hours")
    return next(float(r["cpu_hours"]) for r in rows if int(r["stage_episodes"]) >= stage_episodes)


def _dmp_final(log: str) -> str:
    stem = os.path.splitext(os.path.basename(log))[0]
    return "-" if stem == "s2_256x3" else f"{S}/eval/{stem}_vs_gnubg-nn_seed1001.csv"


def _cubeful_from_n1(*stages: str, title: str) -> list[str]:
    """The arguments of a curve of n1 (cubeless, against gnubg-nn) then cubeful ``stages``
    (against gnubg-nn-cubeful, capped), on the DMP lineage and e1 up to n1's start."""
    return [f"{M}/n1_cubeless_256x3.csv", *[f"{M}/{x}.csv" for x in stages], "--unit", "meq", "--capped",
            "--target", "-0.06", "--base-logs", *DMP_LOGS,
            "--base-cpu-hours", f"{cpu_hours_at(f'{E1}.csv', N_FROM_E1):.6f}",
            "--final-results", f"{M}/eval/n1_cubeless_256x3_vs_gnubg-nn_seed1001.csv",
            *[f"{M}/eval/{x}_vs_gnubg-nn-cubeful_seed1001.csv" for x in stages], "--title", title]


# output PNG -> plot_eval_curve.py arguments (paths relative to the repository root)
CURVES = {
    f"{S}/curve.png": [
        *DMP_LOGS, "--unit", "win-rate", "--target", "0.5",
        "--final-results", *[_dmp_final(x) for x in DMP_LOGS],
        "--title", "strength lineage (DMP) vs gnubg-nn: 1,000-game checks and 10,000-game stage ends (seed 1001)"],
    f"{S}/curve_e1.png": [
        DMP_LOGS[-1], f"{E1}.csv", "--unit", "win-rate", "--target", "0.5", "--base-logs", *DMP_LOGS[:-1],
        "--final-results", _dmp_final(DMP_LOGS[-1]), f"{S}/eval/e1_256x3_exact1ply_vs_gnubg-nn_seed1001.csv",
        "--checkpoint-results", f"2:100000:{S}/eval/e1_256x3_exact1ply_r000100_vs_gnubg-nn_seed1001.csv",
        f"2:250000:{S}/eval/e1_256x3_exact1ply_r000250_vs_gnubg-nn_seed1001.csv",
        "--title", "s7 (0-ply), then e1 (exact 1-ply targets, Adam 1e-4 -> 5e-6) vs gnubg-nn, seed 1001: "
                   "1,000-game checks, diamonds 10,000 games"],
    f"{M}/curve_n.png": [
        f"{M}/n1_cubeless_256x3.csv", f"{M}/n2_cubeless_256x3_exact1ply.csv", "--unit", "meq", "--target", "-0.06",
        "--base-logs", *DMP_LOGS, "--base-cpu-hours", f"{cpu_hours_at(f'{E1}.csv', N_FROM_E1):.6f}",
        "--final-results", f"{M}/eval/n1_cubeless_256x3_vs_gnubg-nn_seed1001.csv",
        f"{M}/eval/n2_cubeless_256x3_exact1ply_vs_gnubg-nn_seed1001.csv",
        "--title", "money, n1 (cubeless, from e1 at 250,000 episodes) then n2 (exact 1-ply) vs gnubg-nn, seed 1001: "
                   "1,000-game checks, diamonds 10,000 games"],
    f"{M}/curve_n3.png": _cubeful_from_n1(
        "n3_cubeful_256x3_jacoby", title="money, n1 then n3 (cubeful, under Jacoby), seed 1001: n1 cubeless vs "
                                         "gnubg-nn, n3 cubeful vs gnubg-nn-cubeful (capped); diamonds 10,000 games"),
    f"{M}/curve_n4.png": _cubeful_from_n1(
        "n4_cubeful_256x3_nojacoby", title="money, n1 then n4 (cubeful, trained without Jacoby), seed 1001: n1 "
                                           "cubeless vs gnubg-nn, n4 cubeful vs gnubg-nn-cubeful (capped); diamonds "
                                           "10,000 games"),
    f"{M}/curve_n5.png": _cubeful_from_n1(
        "n3_cubeful_256x3_jacoby", "n5_cubeful_256x3_exact1ply",
        title="money, n1, n3 (cubeful, under Jacoby), then n5 (exact 1-ply cubeful), seed 1001: checks vs "
              "gnubg-nn-cubeful (capped) after n1; diamonds 10,000 games"),
    f"{M}/curve.png": [
        f"{M}/m1_cubeless_256x3.csv", f"{M}/m2_cubeful_256x3.csv", f"{M}/m3_cubeful_256x3_1ply.csv",
        "--unit", "meq", "--capped", "--target", "-0.06", "--base-logs", *BASE_FOR_MONEY,
        "--final-results", f"{M}/eval/m1_cubeless_256x3_vs_gnubg-nn_seed1001.csv",
        f"{M}/eval/m2_cubeful_256x3_vs_gnubg-nn-cubeful_seed1001.csv",
        f"{M}/eval/m3_cubeful_256x3_1ply_vs_gnubg-nn-cubeful_seed1001.csv",
        "--title", "money legs, seed 1001: cubeless checks vs gnubg-nn (1,000 games); diamonds 10,000 games "
                   "(m2, m3: cubeful vs gnubg-nn-cubeful, capped)"],
    f"{M}/curve_m4.png": [
        f"{M}/m1_cubeless_256x3.csv", f"{M}/m4_cubeful_256x3_nojacoby.csv",
        "--unit", "meq", "--capped", "--target", "-0.06", "--base-logs", *BASE_FOR_MONEY,
        "--final-results", f"{M}/eval/m1_cubeless_256x3_vs_gnubg-nn_seed1001.csv",
        f"{M}/eval/m4_cubeful_256x3_nojacoby_vs_gnubg-nn-cubeful_seed1001.csv",
        "--title", "money, m1 then m4 (cubeful, trained without Jacoby), seed 1001: m1 cubeless vs gnubg-nn, "
                   "m4 cubeful vs gnubg-nn-cubeful (capped)"],
}


def draw(png: str, out_dir: str | None = None) -> dict:
    """Draw one curve of CURVES; returns what it shows (plot_eval_curve.plot)."""
    out = os.path.abspath(os.path.join(out_dir, png)) if out_dir else os.path.join(ROOT, png)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    argv = CURVES[png] + ["-o", out] + ([] if out_dir else ["--overwrite"])
    cwd = os.getcwd()
    os.chdir(ROOT)   # the inputs by their paths in the repository, as the PNG records them
    try:
        return plot_eval_curve.make(plot_eval_curve.parser().parse_args(argv))
    finally:
        os.chdir(cwd)


def main() -> None:
    p = cli.Parser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out-dir", default=None, help="write the PNGs under DIR instead of replacing the committed ones")
    args = p.parse_args()
    for png in CURVES:
        draw(png, args.out_dir)
        print(os.path.join(args.out_dir, png) if args.out_dir else png)


if __name__ == "__main__":
    cli.run_main(main)
