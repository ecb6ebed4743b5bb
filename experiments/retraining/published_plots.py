#!/usr/bin/env python3
"""Draw every published plot of experiments/retraining/ from the committed logs and result files:
the evaluation curves of chains of stages (tdbg.app.eval_curve_plot; the strength lineage's, the
[256,256] ladders', the [512,512,256] legs'), each training log's own plot (tdbg.app.training_plot)
and the match cube curve (tdbg.app.cube_curve_plot, from its CSV).  Results are drawn in one unit
per game mode: win rate in % for DMP, mEq/game for money (cubeful 10,000-game points capped at
+-128 a game, as the selections read them), match-winning chances in % for match play.

    python experiments/retraining/published_plots.py [--out-dir DIR] [PNG ...]

Without --out-dir each PNG replaces the committed one (this script's own output); with it, the
PNGs go to DIR under the same relative paths (DIR must not hold them yet).  PNG names some of
PLOTS (paths from the repository root); none: all of them.  RELEASES names the released models
(best_models/) a curve is published beside: the curve draws their chain.
tests/experiments/test_published_plots.py renders each plot from its data and checks its units,
its labels and its chain, and the committed PNGs against a fresh drawing.
"""

from __future__ import annotations

import os

from tdbg.app import cli, cube_curve_plot, eval_curve_plot, plots, training_plot
from tdbg.infra.fileio import Output, check_outputs

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

S = "experiments/retraining/strength"
M = "experiments/retraining/strength_money"
DMP_LOGS = [
    f"{S}/{x}.csv"
    for x in (
        "s1_128x2",
        "s2_256x3",
        "s2b_256x3",
        "s3_256x3",
        "s4_256x3_1ply",
        "s5_256x3_polish",
        "s6_256x3_1ply",
        "s7_256x3_polish",
    )
]
BASE_FOR_MONEY = DMP_LOGS[:4]  # the money legs start from s3's end
E1 = f"{S}/e1_256x3_exact1ply"  # exact 1-ply from s7 with its twin units repaired (s7r)
N_FROM_E1 = 250_000  # the n-legs (money) start from e1's 250,000-episode snapshot


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
    return [
        f"{M}/n1_cubeless_256x3.csv",
        *[f"{M}/{x}.csv" for x in stages],
        "--capped",
        "--target",
        "-0.06",
        "--base-logs",
        *DMP_LOGS,
        "--base-cpu-hours",
        f"{cpu_hours_at(f'{E1}.csv', N_FROM_E1):.6f}",
        "--final-results",
        f"{M}/eval/n1_cubeless_256x3_vs_gnubg-nn_seed1001.csv",
        *[f"{M}/eval/{x}_vs_gnubg-nn-cubeful_seed1001.csv" for x in stages],
        "--title",
        title,
    ]


R = "experiments/head_to_head/results"
D = "experiments/retraining/dmp"
X = "experiments/retraining/explore"
B = "experiments/retraining/big"
MONEY = "experiments/retraining/money"
DMP_LEG = [
    f"{D}/dmp_{x}.csv" for x in ("s1_128x2", "s2_256x2", "s3_256x2_1ply")
]  # dmp_leg.sh stages 1-3

# output PNG -> eval_curve_plot's arguments (tools/plot_eval_curve.py's; paths from the repository root)
CURVES = {
    f"{S}/curve.png": [
        *DMP_LOGS,
        "--target",
        "0.5",
        "--final-results",
        *[_dmp_final(x) for x in DMP_LOGS],
        "--title",
        "strength lineage (DMP) vs gnubg-nn: 1,000-game checks and 10,000-game stage ends (seed 1001)",
    ],
    f"{S}/curve_e1.png": [
        DMP_LOGS[-1],
        f"{E1}.csv",
        "--target",
        "0.5",
        "--base-logs",
        *DMP_LOGS[:-1],
        "--final-results",
        _dmp_final(DMP_LOGS[-1]),
        f"{S}/eval/e1_256x3_exact1ply_vs_gnubg-nn_seed1001.csv",
        "--checkpoint-results",
        f"2:100000:{S}/eval/e1_256x3_exact1ply_r000100_vs_gnubg-nn_seed1001.csv",
        f"2:250000:{S}/eval/e1_256x3_exact1ply_r000250_vs_gnubg-nn_seed1001.csv",
        "--title",
        "s7 (0-ply), then e1 (exact 1-ply targets, Adam 1e-4 -> 5e-6) vs gnubg-nn, seed 1001: "
        "1,000-game checks, diamonds 10,000 games",
    ],
    # the money releases: cubeless_256x3_1ply (n1, then n2) and cubeful_256x3_from_1ply (n1, then n4)
    f"{M}/curve.png": [
        f"{M}/n1_cubeless_256x3.csv",
        f"{M}/n2_cubeless_256x3_exact1ply.csv",
        f"{M}/n4_cubeful_256x3_nojacoby.csv",
        "--continues",
        "3:1",
        "--capped",
        "--target",
        "-0.06",
        "--base-logs",
        *DMP_LOGS,
        "--base-cpu-hours",
        f"{cpu_hours_at(f'{E1}.csv', N_FROM_E1):.6f}",
        "--final-results",
        f"{M}/eval/n1_cubeless_256x3_vs_gnubg-nn_seed1001.csv",
        f"{M}/eval/n2_cubeless_256x3_exact1ply_vs_gnubg-nn_seed1001.csv",
        f"{M}/eval/n4_cubeful_256x3_nojacoby_vs_gnubg-nn-cubeful_seed1001.csv",
        "--title",
        "the money releases, seed 1001: n1 (cubeless, from e1 at 250,000 episodes), then n2 (exact 1-ply: "
        "cubeless_256x3_1ply) and, from n1's end, n4 (cubeful without Jacoby: cubeful_256x3_from_1ply; "
        "checks vs gnubg-nn-cubeful, capped); diamonds 10,000 games",
    ],
    f"{M}/curve_n.png": [
        f"{M}/n1_cubeless_256x3.csv",
        f"{M}/n2_cubeless_256x3_exact1ply.csv",
        "--target",
        "-0.06",
        "--base-logs",
        *DMP_LOGS,
        "--base-cpu-hours",
        f"{cpu_hours_at(f'{E1}.csv', N_FROM_E1):.6f}",
        "--final-results",
        f"{M}/eval/n1_cubeless_256x3_vs_gnubg-nn_seed1001.csv",
        f"{M}/eval/n2_cubeless_256x3_exact1ply_vs_gnubg-nn_seed1001.csv",
        "--title",
        "money, n1 (cubeless, from e1 at 250,000 episodes) then n2 (exact 1-ply) vs gnubg-nn, seed 1001: "
        "1,000-game checks, diamonds 10,000 games",
    ],
    f"{M}/curve_n3.png": _cubeful_from_n1(
        "n3_cubeful_256x3_jacoby",
        title="money, n1 then n3 (cubeful, under Jacoby), seed 1001: n1 cubeless vs "
        "gnubg-nn, n3 cubeful vs gnubg-nn-cubeful (capped); diamonds 10,000 games",
    ),
    f"{M}/curve_n4.png": _cubeful_from_n1(
        "n4_cubeful_256x3_nojacoby",
        title="money, n1 then n4 (cubeful, trained without Jacoby), seed 1001: n1 "
        "cubeless vs gnubg-nn, n4 cubeful vs gnubg-nn-cubeful (capped); diamonds "
        "10,000 games",
    ),
    f"{M}/curve_n5.png": _cubeful_from_n1(
        "n3_cubeful_256x3_jacoby",
        "n5_cubeful_256x3_exact1ply",
        title="money, n1, n3 (cubeful, under Jacoby), then n5 (exact 1-ply cubeful), seed 1001: checks vs "
        "gnubg-nn-cubeful (capped) after n1; diamonds 10,000 games",
    ),
    f"{M}/curve_m.png": [
        f"{M}/m1_cubeless_256x3.csv",
        f"{M}/m2_cubeful_256x3.csv",
        f"{M}/m3_cubeful_256x3_1ply.csv",
        "--capped",
        "--target",
        "-0.06",
        "--base-logs",
        *BASE_FOR_MONEY,
        "--final-results",
        f"{M}/eval/m1_cubeless_256x3_vs_gnubg-nn_seed1001.csv",
        f"{M}/eval/m2_cubeful_256x3_vs_gnubg-nn-cubeful_seed1001.csv",
        f"{M}/eval/m3_cubeful_256x3_1ply_vs_gnubg-nn-cubeful_seed1001.csv",
        "--title",
        "money stages m1-m3, seed 1001: cubeless checks vs gnubg-nn (1,000 games); diamonds 10,000 games "
        "(m2, m3: cubeful vs gnubg-nn-cubeful, capped)",
    ],
    f"{M}/curve_m4.png": [
        f"{M}/m1_cubeless_256x3.csv",
        f"{M}/m4_cubeful_256x3_nojacoby.csv",
        "--capped",
        "--target",
        "-0.06",
        "--base-logs",
        *BASE_FOR_MONEY,
        "--final-results",
        f"{M}/eval/m1_cubeless_256x3_vs_gnubg-nn_seed1001.csv",
        f"{M}/eval/m4_cubeful_256x3_nojacoby_vs_gnubg-nn-cubeful_seed1001.csv",
        "--title",
        "money, m1 then m4 (cubeful, trained without Jacoby), seed 1001: m1 cubeless vs gnubg-nn, "
        "m4 cubeful vs gnubg-nn-cubeful (capped)",
    ],
    f"{D}/dmp_curve.png": [
        *DMP_LEG,
        f"{D}/dmp_s4_256x2.csv",
        "--target",
        "0.5",
        "--old-agent-logs",
        "3",
        "--final-results",
        *[f"{R}/dmp_{x}_vs_gnubg-nn.csv" for x in ("128x2", "256x2", "256x2_1ply")],
        f"{R}/dmp_s4_256x2_at_1418k_vs_gnubg-nn.csv",
        "--checkpoint-results",
        f"4:554000:{R}/dmp_s4_256x2_at_554k_vs_gnubg-nn.csv",
        "--title",
        "dmp_leg.sh stages 1-4 (dmp_128x2, dmp_256x2, dmp_256x2_1ply, then a long 0-ply polish) vs "
        "gnubg-nn: 1,000-game checks (95% CI), diamonds 10,000 games",
    ],
    f"{D}/dmp_curve_to_512x2x256.png": [
        *DMP_LEG,
        f"{D}/dmp_s4_256x2_to554k.csv",
        *[
            f"{X}/{x}.csv"
            for x in ("e_anneal_s4", "g_wide_512x2", "j_deep_512x2x256", "l_anneal_j")
        ],
        "--target",
        "0.5",
        "--old-agent-logs",
        "3",
        "--final-results",
        *[f"{R}/dmp_{x}_vs_gnubg-nn.csv" for x in ("128x2", "256x2", "256x2_1ply")],
        f"{R}/dmp_s4_256x2_at_554k_vs_gnubg-nn.csv",
        f"{R}/explore_e_anneal_s4_vs_gnubg-nn.csv",
        f"{R}/explore_g_wide_512x2_vs_gnubg-nn.csv",
        "-",
        f"{R}/explore_l_anneal_j_vs_gnubg-nn.csv",
        "--checkpoint-results",
        f"7:162600:{R}/explore_j_deep_512x2x256_at_162600_vs_gnubg-nn.csv",
        f"7:357400:{R}/dmp_512x2x256_vs_gnubg-nn.csv",
        f"7:439200:{R}/explore_j_deep_512x2x256_at_439200_vs_gnubg-nn.csv",
        f"7:539600:{R}/explore_j_deep_512x2x256_at_539600_vs_gnubg-nn.csv",
        "--title",
        "DMP ladder to dmp_512x2x256 vs gnubg-nn playing DMP: 1,000-game checks (95% CI) and "
        "10,000-game results",
    ],
    f"{MONEY}/money_curve.png": [
        f"{MONEY}/cubeless_256x2.csv",
        f"{MONEY}/cubeful_256x2.csv",
        f"{MONEY}/cubeful_256x2_1ply.csv",
        "--base-logs",
        *DMP_LEG[:2],
        "--target",
        "-0.06",
        "--final-results",
        f"{R}/cubeless_256x2_vs_gnubg-nn.csv",
        "-",
        "-",
        "--title",
        "money legs on the DMP stages 1-2: cubeless-money result vs gnubg-nn (cubeless equity; the cubeful "
        "stages without their cube), 1,000-game checks (95% CI)",
    ],
    f"{B}/money_curve_512x2x256.png": [
        f"{B}/cubeless_512x2x256.csv",
        f"{B}/cubeful_512x2x256.csv",
        "--base-cpu-hours",
        "4.38",
        "--target",
        "-0.06",
        "--final-results",
        f"{R}/cubeless_512x2x256_vs_gnubg-nn.csv",
        "-",
        "--title",
        "money legs on dmp_512x2x256 (4.38 CPU-h): cubeless-money result vs gnubg-nn (the cubeful stage "
        "without its cube), 1,000-game checks (95% CI)",
    ],
}

# the live lineage (live_lineage.sh): the chosen base, then PureTD's route, then exact 1-ply
L = "experiments/retraining/live"
LIVE = [
    "base_lr3e-4_128x2",
    "w1_256x2",
    "w2_256x2",
    "d1_256x3",
    "d2_256x3",
    "d3_256x3",
    "x1_256x3_exact1ply",
]
CURVES[f"{L}/curve.png"] = [
    *[f"{L}/{x}.csv" for x in LIVE],
    "--target",
    "0.5",
    "--final-results",
    *[
        f"{L}/eval/{x}_vs_gnubg-nn_seed1001.csv"
        if os.path.exists(os.path.join(ROOT, L, "eval", f"{x}_vs_gnubg-nn_seed1001.csv"))
        else "-"
        for x in LIVE
    ],
    "--title",
    "live lineage (DMP) vs gnubg-nn: 1,000-game checks and 10,000-game stage ends (seed 1001)",
]

# the live lineage's money legs (live_money.sh) from its DMP release x1r: n1 (cubeless, released as
# cubeless_256x3_live), n2 (its exact 1-ply stage), n4 (cubeful without Jacoby, from n1's end) and n5
# (exact 1-ply cubeful from n4); the cubeful legs' checks are against gnubg-nn-cubeful, capped
LM = "experiments/retraining/live_money"
LIVE_MONEY = ["n1_cubeless_256x3", "n2_cubeless_256x3_exact1ply"]
LIVE_CUBEFUL = ["n4_cubeful_256x3_nojacoby", "n5_cubeful_256x3_exact1ply"]
CURVES[f"{LM}/curve.png"] = [
    *[f"{LM}/{x}.csv" for x in LIVE_MONEY + LIVE_CUBEFUL],
    "--continues",
    "3:1",
    "--capped",
    "--target",
    "-0.03",
    "--base-logs",
    *[f"{L}/{x}.csv" for x in LIVE],
    "--final-results",
    *[f"{LM}/eval/{x}_vs_gnubg-nn_seed1001.csv" for x in LIVE_MONEY],
    *[f"{LM}/eval/{x}_vs_gnubg-nn-cubeful_seed1001.csv" for x in LIVE_CUBEFUL],
    "--title",
    "the live line's money legs, seed 1001: n1 (cubeless, from dmp_256x3_live: cubeless_256x3_live), "
    "then n2 (exact 1-ply) and, from n1's end, n4 (cubeful without Jacoby), then n5 (exact 1-ply); "
    "cubeful checks vs gnubg-nn-cubeful, capped; diamonds 10,000 games",
]

# training logs drawn beside themselves (LOG.png), each titled from the checkpoint beside it
TRAINING_LOGS = (
    [f"{D}/dmp_{x}.csv" for x in ("s1_128x2", "s2_256x2", "s3_256x2_1ply", "s4_256x2")]
    + [f"{X}/{x}.csv" for x in ("a_0ply_128x2", "b_1ply_128x2")]
    + [
        f"{MONEY}/{x}.csv"
        for x in (
            "cubeless_256x2",
            "cubeful_256x2",
            "cubeful_256x2_1ply",
            "prob5_128x2",
            "prob5_128x2_1ply",
        )
    ]
    + [
        f"experiments/retraining/match/match_256x2_{x}.csv"
        for x in ("live", "oc", "oc2", "lam", "lam2")
    ]
    + [f"{B}/{x}.csv" for x in ("cubeless_512x2x256", "match_512x2x256")]
)
TRAINING = {os.path.splitext(log)[0] + ".png": log for log in TRAINING_LOGS}

# the match cube curve: PNG -> its CSV (experiments/match/cube_curve.py measured the rows with gnubg-nn)
CUBE_CURVES = {
    "experiments/retraining/match/cube_curve_s9_s10.png": "experiments/retraining/match/cube_curve_s9_s10.csv"
}

PLOTS = [*CURVES, *TRAINING, *CUBE_CURVES]

# a curve published beside released models (best_models/README.md's table) -> those models: the
# curve's stages are the ones their table rows name
RELEASES = {
    f"{S}/curve.png": ["dmp_256x3.pt"],
    f"{M}/curve.png": ["cubeless_256x3_1ply.pt", "cubeful_256x3_from_1ply.pt"],
    f"{LM}/curve.png": ["cubeless_256x3_live.pt", "cubeful_256x3_live.pt"],
    f"{B}/money_curve_512x2x256.png": ["cubeless_512x2x256.pt", "cubeful_512x2x256.pt"],
}


def figure(png: str):
    """(figure, what it shows) of one published plot, read from its data (paths from the repository root)."""
    cwd = os.getcwd()
    os.chdir(ROOT)  # the inputs by their paths in the repository, as the PNG records them
    try:
        if png in CURVES:
            args = eval_curve_plot.parser().parse_args(CURVES[png] + ["-o", png])
            return eval_curve_plot.build(args, *eval_curve_plot.load(args))
        if png in TRAINING:
            log = TRAINING[png]
            info = training_plot.run_info(log)
            return training_plot.figure(
                training_plot.read_log(log), training_plot.run_title(log, info), info
            )
        return cube_curve_plot.figure(cube_curve_plot.read_rows(CUBE_CURVES[png]))
    finally:
        os.chdir(cwd)


PNG_KEYS = {
    **{p: eval_curve_plot.PNG_KEY for p in CURVES},
    **{p: training_plot.PNG_KEY for p in TRAINING},
    **{p: cube_curve_plot.PNG_KEY for p in CUBE_CURVES},
}


def draw(png: str, out_dir: str | None = None) -> dict:
    """Draw one published plot (into ``out_dir`` under its relative path, or over the committed
    PNG); returns what it shows."""
    out = os.path.abspath(os.path.join(out_dir, png)) if out_dir else os.path.join(ROOT, png)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    fig, shown = figure(png)
    plots.save_png(fig, out, PNG_KEYS[png], shown)
    return shown


def main() -> None:
    p = cli.Parser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "png",
        nargs="*",
        help="published plots to draw, by path from the repository root (default: all of them)",
    )
    p.add_argument(
        "--out-dir",
        default=None,
        help="write the PNGs under DIR instead of replacing the committed ones",
    )
    args = p.parse_args()
    unknown = [x for x in args.png if x not in PLOTS]
    if unknown:
        raise cli.UsageError(
            f"not a published plot: {unknown[0]} (see PLOTS in {os.path.relpath(__file__, ROOT)})"
        )
    chosen = args.png or PLOTS
    if args.out_dir:
        check_outputs(
            [Output("--out-dir", os.path.join(args.out_dir, png), "png") for png in chosen],
            False,
            {},
        )
    for png in chosen:
        draw(png, args.out_dir)
        print(os.path.join(args.out_dir, png) if args.out_dir else png)


if __name__ == "__main__":
    cli.run_main(main)
