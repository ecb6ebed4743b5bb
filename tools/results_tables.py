#!/usr/bin/env python3
"""Write the result tables of best_models/README.md and README.md from the result files.

Every figure in these tables is read from a committed result file, never typed:

* head-to-head results: the per-game CSVs of experiments/head_to_head/results/ (the
  point estimate is recomputed from the rows and must equal the '# win_rate:' /
  '# meq_per_game:' / '# match_win_rate:' line play_models.py wrote into the header;
  the 95% CI is that header line's, made from the same rows when the file was written);
* paired differences: recomputed from two such CSVs (results_file.compare, bootstrap
  seed 0, as tools/compare_results.py prints them);
* match statistics (points per game, drops per match): the JSON beside each match CSV;
* luck-adjusted match results: gnubg_eval.py --luck JSONs in experiments/gnubg_eval/;
* decision error: experiments/benchmarks/decisions/results.jsonl (all_models.sh);
* md5: the checkpoint files themselves.

What is typed here is what no result file holds: each model's description (lineage,
architecture, episodes, CPU-hours from its training logs) and, per released figure, the
seed its model was selected on.  A table lives between the marker comments
``<!-- results_tables: NAME begin -->`` and ``<!-- results_tables: NAME end -->``.

    python tools/results_tables.py            # rewrite the tables in place
    python tools/results_tables.py --check     # exit 1 naming each table that differs
"""

from __future__ import annotations

# first: a signal during the imports ends in one line
from tdbg.infra.stop_signals import exit_on_signals

exit_on_signals(__name__)

import json
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

from tdbg.app import cli
from tdbg.app.marked_tables import markdown_table, remade, write_texts
from tdbg.app.result_figures import ResultFiles, count, read_json

H2H = "experiments/head_to_head/results"
LUCK = "experiments/gnubg_eval"
DECISIONS = "experiments/benchmarks/decisions/results.jsonl"
TARGETS = {
    "best_models": "best_models/README.md",
    "best_models_match": "best_models/README.md",
    "best_models_decisions": "best_models/README.md",
    "best_models_health": "best_models/README.md",
    "summary": "README.md",
}
UNIT_HEALTH = (
    "experiments/unit_health/best_models.json"  # experiments/unit_health/measure.py writes it
)
STRENGTH = "experiments/retraining/strength/eval"  # the strength lineage's stage ends on the selection seed
STRENGTH_MONEY = "experiments/retraining/strength_money/eval"
LIVE = "experiments/retraining/live/eval"  # the live lineage's stage ends on the selection seed
LIVE_MONEY = "experiments/retraining/live_money/eval"  # its money legs on the selection seed

# a bare name is a file of H2H; one with a folder is a path from the repository's root (the
# selection-seed points of the strength lineage stay beside its logs)
FILES = ResultFiles(ROOT, H2H, LUCK, DECISIONS)
# the tables below read their figures by these short names
seed, games, pct, meq, paired = FILES.seed, FILES.games, FILES.pct, FILES.meq, FILES.paired
capped_equal, luck, workers, decision, md5 = (
    FILES.capped_equal,
    FILES.luck,
    FILES.workers,
    FILES.decision,
    FILES.md5,
)
n = count


# ---- selection and report seeds of the released figures ---------------------------------------
# selection: the seed(s) whose games chose this model among candidates (typed: no result file
# says which runs were compared); report: the seed of the figure in the table (read from its file).

SELECTION = {
    "dmp_256x3_live.pt": (
        "1001",
        "`dmp_256x3_1ply`'s own point (e1 at 250k) and live_lineage.sh's exact 1-ply stage x1 with "
        "its twin pair folded and its dead units revived (x1r; x1 itself, 49.75%, held a twin pair), "
        "10,000 games each on seed 1001",
    ),
    "dmp_256x3_1ply.pt": (
        "1001",
        "s7 (`dmp_256x3`) and strength_exact1ply.sh's e1 (exact 1-ply targets from s7 with its "
        "twin units repaired) at 100k, 250k and 500k episodes, 10,000 games each on seed 1001",
    ),
    "dmp_256x3.pt": (
        "1001",
        "the ends of strength_dmp.sh's five stages after growth (s3-s7: 0-ply training, then 1-ply "
        "refinements and low-LR polishes), 10,000 games each on seed 1001",
    ),
    "cubeless_256x3_live.pt": (
        "1001",
        "`cubeless_256x3_1ply` (the old line's n2) and live_money.sh's n1 (3M cubeless episodes from "
        "`dmp_256x3_live`) and n2 (its exact 1-ply stage), 10,000 games each against gnubg-nn on seed 1001",
    ),
    "cubeless_256x3_1ply.pt": (
        "1001",
        "m1 (`cubeless_256x3`) and strength_money_e1.sh's n1 (cubeless from "
        "`dmp_256x3_1ply`) and n2 (its exact 1-ply stage), 10,000 games each against "
        "gnubg-nn on seed 1001",
    ),
    "cubeless_256x3.pt": (None, "the only candidate: strength_money.sh's cubeless stage (m1)"),
    "cubeful_256x3_live.pt": (
        "1001",
        "`cubeful_256x3_from_1ply` (the old line's n4) and live_money.sh's n4 (2M cubeful episodes "
        "without the Jacoby rule from n1) and n5 (its exact 1-ply stage), 10,000 games each against "
        "gnubg-nn-cubeful on seed 1001, capped mEq/game",
    ),
    "cubeful_256x3_from_1ply.pt": (
        "1001",
        "m4 (`cubeful_256x3`) and strength_money_e1.sh's three cubeful stages "
        "from n1 (n3 under the Jacoby rule, n4 without it, n5 exact 1-ply from n3), "
        "10,000 games each against gnubg-nn-cubeful on seed 1001, capped mEq/game",
    ),
    "cubeful_256x3.pt": (
        "1001",
        "strength_money.sh's three cubeful stages (m2 trained under the Jacoby "
        "rule, m3 its 1-ply refinement, m4 trained without Jacoby), 10,000 games each against "
        "gnubg-nn-cubeful on seed 1001, capped mEq/game",
    ),
    "dmp_512x2x256.pt": (
        "21",
        "about 20 DMP candidates of experiments/retraining/README.md were compared on seed 21",
    ),
    "dmp_256x2_1ply.pt": (None, "planned stage 3 of dmp_leg.sh"),
    "dmp_256x2.pt": (None, "planned stage 2 of dmp_leg.sh"),
    "dmp_128x2.pt": (None, "planned stage 1 of dmp_leg.sh"),
    "cubeless_512x2x256.pt": (
        "41",
        "the only candidate; released for beating cubeless_256x2 on seed 41",
    ),
    "cubeless_256x2.pt": (None, "planned leg of all_legs.sh"),
    "cubeful_512x2x256.pt": (
        "61",
        "the only candidate; compared with the [256,256] cubeful models on seed 61",
    ),
    "cubeful_256x2_1ply.pt": (None, "planned leg of all_legs.sh"),
    "cubeful_256x2.pt": (None, "planned leg of all_legs.sh"),
    "match_512x2x256_hold2.pt": (
        "31, 41, 51",
        "three continuations of `match_512x2x256` in big_legs.sh (b5 with cube "
        "exploration, b6 with 300k episodes more of it, b7 with 1-ply targets) ranked on seeds 31 and 41 "
        "(luck-adjusted), b5 and b6 at 1-ply on seed 51",
    ),
    "match_512x2x256.pt": (None, "planned leg b3 of big_legs.sh"),
    "match_256x2_lambda.pt": (
        None,
        "s10, chosen over its TD(0) control s9 by cube-decision measures, not by games",
    ),
    "match_256x2_outcomes.pt": (
        "31, 32",
        "match_leg.sh s7, chosen over s6 and s8 on seeds 31 and 32",
    ),
    "match_256x2.pt": ("32", "match_leg.sh s3, kept over s4 and s5 on seed 32"),
    "prob5_128x2_1ply.pt": (None, "planned 1-ply refinement"),
    "prob5_128x2.pt": (None, "planned leg of all_legs.sh"),
}


# Figures measured after the release was chosen, on dice no candidate was compared on: the
# result file, the reader of its headline figure, what a row of it is, and how the model played
# where that differs from the selection-seed figure beside it.
def _match_rate(name: str) -> str:
    return pct(name, "match_win_rate")


FRESH = {
    "dmp_256x3_live.pt": ("dmp_256x3_live_vs_gnubg-nn_seed2501", pct, "games", ""),
    "dmp_256x3_1ply.pt": ("dmp_256x3_1ply_vs_gnubg-nn_seed2401", pct, "games", ""),
    "dmp_256x3.pt": ("dmp_256x3_vs_gnubg-nn_seed2301", pct, "games", ""),
    "cubeless_256x3_live.pt": ("cubeless_256x3_live_vs_gnubg-nn_seed2602", meq, "games", ""),
    "cubeless_256x3_1ply.pt": ("cubeless_256x3_1ply_vs_gnubg-nn_seed2402", meq, "games", ""),
    "cubeless_256x3.pt": ("cubeless_256x3_vs_gnubg-nn_seed2302", meq, "games", ""),
    "cubeful_256x3_live.pt": ("cubeful_256x3_live_vs_gnubg-ext_seed2603", meq, "games", ""),
    "cubeful_256x3_from_1ply.pt": (
        "cubeful_256x3_from_1ply_vs_gnubg-ext_seed2403",
        meq,
        "games",
        "",
    ),
    "cubeful_256x3.pt": ("cubeful_256x3_vs_gnubg-ext_seed2303", meq, "games", ""),
    "dmp_512x2x256.pt": ("dmp_512x2x256_vs_gnubg-nn_seed2201", pct, "games", ""),
    "cubeless_512x2x256.pt": ("cubeless_512x2x256_vs_gnubg-nn_seed2202", meq, "games", ""),
    "cubeful_512x2x256.pt": ("cubeful_512x2x256_vs_gnubg-ext_seed2203", meq, "games", ""),
    "match_512x2x256_hold2.pt": (
        "match_512x2x256_hold2_vs_gnubg-ext_match7_seed2204",
        _match_rate,
        "matches",
        "both at 0-ply, ",
    ),
    "match_256x2_outcomes.pt": (
        "match_256x2_outcomes_vs_gnubg-ext_match7_seed2205",
        _match_rate,
        "matches",
        "",
    ),
}


def fresh_figure(model: str) -> str | None:
    """'**figure** (N games, seed S)' on fresh dice, or None where no file holds one."""
    if model not in FRESH:
        return None
    name, figure, unit, how = FRESH[model]
    return f"**{figure(name)}** ({how}{n(games(name))} {unit}, seed {seed(name)})"


def seeds_cell(model: str, *reports: str) -> str:
    """'selection S; report R' with a note where the report reused a selection seed."""
    sel, why = SELECTION[model]
    rep = ", ".join(dict.fromkeys(seed(r) for r in reports))
    if sel is None:
        return f"selection: none ({why}); report: {rep}"
    same = set(sel.split(", ")) & set(rep.split(", "))
    fresh = fresh_figure(model)
    if same:
        on_fresh = f"on fresh dice: {fresh}" if fresh else "a figure on fresh dice: not measured"
        note = f" (**{', '.join(sorted(same))} also selected it**: {why}; {on_fresh})"
    else:
        note = f" ({why})"
    return f"selection: {sel}; report: {rep}{note}"


# ---- the tables ---------------------------------------------------------------------------------


def _model_row(model, kind, arch, params, episodes, cpu, nn, pub, binary, dec=True, seed_files=()):
    return [
        f"`{model}`",
        kind,
        arch,
        n(params),
        episodes,
        cpu,
        nn,
        pub,
        binary,
        decision(model) if dec else "n/a (a match model plays by the score)",
        seeds_cell(model, *seed_files),
        md5(model),
    ]


TEN_THOUSAND = f"({n(10000)} games)"
EXT = "vs gnubg-ext 1.08.003 0-ply"
MWC_OUTCOMES = "match play, MWC read out through the payoffs (`mwc-outcomes`) / cube by the MET"


def _rate(name: str) -> str:
    return f"{pct(name)} ({n(games(name))} games)"


def _eq(name: str) -> str:
    return f"{meq(name)} ({n(games(name))} games)"


def _dmp_256x3_live_row() -> list[str]:
    """`dmp_256x3_live`: the live lineage (every unit alive) to exact 1-ply, repaired."""
    live = "dmp_256x3_live_vs_gnubg-nn_seed2501"
    puretd = "puretd_256x3_3a3c70d_vs_gnubg-nn_seed2501"
    return _model_row(
        "dmp_256x3_live.pt",
        "DMP, P(win)",
        "196-[256,256,256]-1 (the live lineage, `live_lineage.sh`: [128,128] from scratch at Adam 3e-4 "
        "(300k), widened with fresh units to [256,256] (two 500k phases, the LR restarted), its dead units "
        "revived, a third layer as identity plus noise, three 1M phases at 5e-5 -> 5e-6, then 500k episodes "
        "of exact 1-ply targets at 1e-4 -> 5e-6 (x1); its one twin pair folded and two dead units revived "
        "(x1r); every unit distinct and alive)",
        182273,
        "4,800,000",
        "5.98 (0.08 + 0.25 + 0.24 + 0.61 + 0.65 + 0.63 + 3.53)",
        f"**{pct(live)}** ({n(games(live))} games on fresh dice; on the selection seed "
        f"{pct(f'{LIVE}/x1r_256x3_exact1ply_vs_gnubg-nn_seed1001')}, paired vs `dmp_256x3_1ply`'s point there "
        f"{paired(f'{LIVE}/x1r_256x3_exact1ply_vs_gnubg-nn_seed1001', f'{STRENGTH}/e1_256x3_exact1ply_r000250_vs_gnubg-nn_seed1001')}; "
        f"head to head vs `dmp_256x3_1ply`: {pct('dmp_256x3_live_vs_dmp_256x3_1ply_seed2511')}; "
        f"head to head vs PureTD's documented [256,256,256] (upstream 3a3c70d): "
        f"{pct('dmp_256x3_live_vs_puretd_256x3_3a3c70d_seed2521')}; PureTD's net on the release's dice "
        f"{pct(puretd)}, the release minus it, paired, {paired(live, puretd)})",
        _rate("dmp_256x3_live_vs_pubeval_seed2501"),
        "n/a (DMP)",
        seed_files=(
            live,
            "dmp_256x3_live_vs_pubeval_seed2501",
            "dmp_256x3_live_vs_dmp_256x3_1ply_seed2511",
            "dmp_256x3_live_vs_puretd_256x3_3a3c70d_seed2521",
        ),
    )


def _dmp_256x3_row() -> list[str]:
    """`dmp_256x3`: the strength lineage's DMP net, measured on fresh dice, on the selection
    seed and head to head."""
    return _model_row(
        "dmp_256x3.pt",
        "DMP, P(win)",
        "196-[256,256,256]-1 (the strength lineage, `strength_dmp.sh`: [128,128] from scratch (s1), Net2Net "
        "to [256,256,256] (s2, s2b), 0-ply to 5.8M episodes (s3), 300k episodes of 1-ply targets through "
        "the move filter (s4), a polish (s5), 300k more of 1-ply at 3x the LR (s6), a polish at 5e-6 -> "
        "1e-6 (s7); experiments/retraining/README.md)",
        182273,
        "7,400,000",
        "12.68 (0.10 + 0.61 + 1.53 + 2.03 + 3.93 + 0.63 + 3.19 + 0.65; from s3's tail on a slower "
        "Intel host)",
        f"**{pct('dmp_256x3_vs_gnubg-nn_seed2301')}** ({n(games('dmp_256x3_vs_gnubg-nn_seed2301'))} games "
        f"on fresh dice; on the selection seed {pct(f'{STRENGTH}/s7_256x3_polish_vs_gnubg-nn_seed1001')}, "
        f"paired vs s3's end there "
        f"{paired(f'{STRENGTH}/s7_256x3_polish_vs_gnubg-nn_seed1001', f'{STRENGTH}/s3_256x3_vs_gnubg-nn_seed1001')}; "
        f"head to head vs `dmp_512x2x256`: {pct('dmp_256x3_vs_dmp_512x2x256_seed2311')})",
        _rate("dmp_256x3_vs_pubeval_seed2301"),
        "n/a (DMP)",
        seed_files=(
            "dmp_256x3_vs_gnubg-nn_seed2301",
            "dmp_256x3_vs_pubeval_seed2301",
            "dmp_256x3_vs_dmp_512x2x256_seed2311",
        ),
    )


def _dmp_256x3_1ply_row() -> list[str]:
    """`dmp_256x3_1ply`: `dmp_256x3` repaired and trained on exact 1-ply targets."""
    return _model_row(
        "dmp_256x3_1ply.pt",
        "DMP, P(win)",
        "196-[256,256,256]-1 (`dmp_256x3` with its twin units folded into one and the rest freed "
        "(`tools/repair_twins.py`), then 250,000 episodes of exact 1-ply targets at Adam 1e-4 -> 5e-6 (e1 "
        "of `strength_exact1ply.sh`, its 250k snapshot); all 768 hidden units distinct)",
        182273,
        "7,650,000",
        "15.65 (12.68 + 2.97: e1 to 250k)",
        f"**{pct('dmp_256x3_1ply_vs_gnubg-nn_seed2401')}** ({n(games('dmp_256x3_1ply_vs_gnubg-nn_seed2401'))} "
        f"games on fresh dice; on the selection seed "
        f"{pct(f'{STRENGTH}/e1_256x3_exact1ply_r000250_vs_gnubg-nn_seed1001')}, paired vs `dmp_256x3` (s7) there "
        f"{paired(f'{STRENGTH}/e1_256x3_exact1ply_r000250_vs_gnubg-nn_seed1001', f'{STRENGTH}/s7_256x3_polish_vs_gnubg-nn_seed1001')}; "
        f"head to head vs `dmp_256x3`: {pct('dmp_256x3_1ply_vs_dmp_256x3_seed2411')})",
        _rate("dmp_256x3_1ply_vs_pubeval_seed2401"),
        "n/a (DMP)",
        seed_files=(
            "dmp_256x3_1ply_vs_gnubg-nn_seed2401",
            "dmp_256x3_1ply_vs_pubeval_seed2401",
            "dmp_256x3_1ply_vs_dmp_256x3_seed2411",
        ),
    )


def _dmp_512x2x256_row() -> list[str]:
    """`dmp_512x2x256`: the deepened [512,512,256] DMP net."""
    return _model_row(
        "dmp_512x2x256.pt",
        "DMP, P(win)",
        "196-[512,512,256]-1 (`dmp_s4` at 554k annealed (e), Net2Net to [512,512] (g), then a 256-unit layer "
        "appended, function-preserving (j, `--expand-depth-size 256`), 357,400 episodes of 0-ply at Adam "
        "5e-5 -> 3.9e-5; experiments/retraining/README.md, exploration log)",
        495105,
        "2,151,600",
        "4.38 (1.30 + 1.29 + 0.18 + 0.29 + 1.32; j's first 16,600 episodes ran with two "
        "torch threads on a loaded machine, which inflates its CPU time)",
        f"**{pct('dmp_512x2x256_vs_gnubg-nn')}** ({n(games('dmp_512x2x256_vs_gnubg-nn'))} games; paired vs "
        f"`dmp_256x2_1ply` {paired('dmp_512x2x256_vs_gnubg-nn', 'dmp_256x2_1ply_vs_gnubg-nn')})",
        _rate("dmp_512x2x256_vs_pubeval"),
        "n/a (DMP)",
        seed_files=("dmp_512x2x256_vs_gnubg-nn", "dmp_512x2x256_vs_pubeval"),
    )


def _dmp_256x2_1ply_row() -> list[str]:
    """`dmp_256x2_1ply`: the 1-ply refinement of `dmp_256x2`."""
    return _model_row(
        "dmp_256x2_1ply.pt",
        "DMP, P(win)",
        "196-[256,256]-1 (1-ply refinement of `dmp_256x2`)",
        116481,
        "1,020,000",
        "1.30 (0.97 + 0.33)",
        f"**{pct('dmp_256x2_1ply_vs_gnubg-nn')}** {TEN_THOUSAND}",
        _rate("dmp_256x2_1ply_vs_pubeval"),
        "n/a (DMP)",
        seed_files=("dmp_256x2_1ply_vs_gnubg-nn", "dmp_256x2_1ply_vs_pubeval"),
    )


def _dmp_256x2_row() -> list[str]:
    """`dmp_256x2`: Net2Net from `dmp_128x2`."""
    return _model_row(
        "dmp_256x2.pt",
        "DMP, P(win)",
        "196-[256,256]-1 (Net2Net from `dmp_128x2`)",
        116481,
        "1,000,000",
        "0.97 (0.31 + 0.67)",
        f"**{pct('dmp_256x2_vs_gnubg-nn')}** {TEN_THOUSAND}",
        _rate("dmp_256x2_vs_pubeval"),
        "n/a (DMP)",
        seed_files=("dmp_256x2_vs_gnubg-nn", "dmp_256x2_vs_pubeval"),
    )


def _dmp_rows() -> list[list[str]]:
    """The rows of the DMP releases, best first."""
    return [
        _dmp_256x3_live_row(),
        _dmp_256x3_row(),
        _dmp_256x3_1ply_row(),
        _dmp_512x2x256_row(),
        _dmp_256x2_1ply_row(),
        _dmp_256x2_row(),
    ]


def _cubeless_256x3_row() -> list[str]:
    """`cubeless_256x3`: the equity head warm-started from the strength lineage."""
    return _model_row(
        "cubeless_256x3.pt",
        "cubeless money, equity",
        "196-[256,256,256]-1 (`--warm-start-equity` from s3's end of `dmp_256x3`'s lineage; "
        "`strength_money.sh` m1, 2M episodes, Adam 1e-4 -> 1e-5)",
        182273,
        "7,800,000",
        "7.17 (4.27 + 2.90)",
        f"**{meq('cubeless_256x3_vs_gnubg-nn_seed2302')}** ({n(games('cubeless_256x3_vs_gnubg-nn_seed2302'))} "
        f"games on fresh dice; on seed 1001: {meq(f'{STRENGTH_MONEY}/m1_cubeless_256x3_vs_gnubg-nn_seed1001')}; "
        f"head to head vs `cubeless_512x2x256`: {meq('cubeless_256x3_vs_cubeless_512x2x256_seed2312')})",
        _eq("cubeless_256x3_vs_pubeval_seed2302"),
        "n/a (cubeless)",
        seed_files=(
            "cubeless_256x3_vs_gnubg-nn_seed2302",
            "cubeless_256x3_vs_pubeval_seed2302",
            "cubeless_256x3_vs_cubeless_512x2x256_seed2312",
        ),
    )


def _cubeless_256x3_live_row() -> list[str]:
    """`cubeless_256x3_live`: the equity head warm-started from `dmp_256x3_live`."""
    fresh, point = (
        "cubeless_256x3_live_vs_gnubg-nn_seed2602",
        f"{LIVE_MONEY}/n1_cubeless_256x3_vs_gnubg-nn_seed1001",
    )
    return _model_row(
        "cubeless_256x3_live.pt",
        "cubeless money, equity",
        "196-[256,256,256]-1 (`--warm-start-equity` from `dmp_256x3_live`: 3M episodes at Adam 5e-5 -> "
        "5e-6 (n1 of `live_money.sh`); its exact 1-ply stage (n2) scored lower on the selection seed; "
        "every unit distinct and alive)",
        182273,
        "7,800,000",
        "8.16 (5.98 + 2.18)",
        f"**{meq(fresh)}** ({n(games(fresh))} games on fresh dice; on seed 1001: {meq(point)}, paired vs "
        f"`cubeless_256x3_1ply` there {paired(point, f'{STRENGTH_MONEY}/n2_cubeless_256x3_exact1ply_vs_gnubg-nn_seed1001')}; "
        f"head to head vs `cubeless_256x3_1ply`: {meq('cubeless_256x3_live_vs_cubeless_256x3_1ply_seed2612')})",
        _eq("cubeless_256x3_live_vs_pubeval_seed2602"),
        "n/a (cubeless)",
        seed_files=(
            fresh,
            "cubeless_256x3_live_vs_pubeval_seed2602",
            "cubeless_256x3_live_vs_cubeless_256x3_1ply_seed2612",
        ),
    )


def _cubeless_256x3_1ply_row() -> list[str]:
    """`cubeless_256x3_1ply`: the equity head warm-started from `dmp_256x3_1ply`."""
    return _model_row(
        "cubeless_256x3_1ply.pt",
        "cubeless money, equity",
        "196-[256,256,256]-1 (`--warm-start-equity` from `dmp_256x3_1ply`: 3M episodes at Adam 5e-5 -> "
        "5e-6 (n1 of `strength_money_e1.sh`), then 200,000 episodes of exact 1-ply targets at 1.5e-5 -> "
        "5e-6 (n2); all 768 hidden units distinct)",
        182273,
        "10,850,000",
        "20.01 (15.65 + 2.63 + 1.73)",
        f"**{meq('cubeless_256x3_1ply_vs_gnubg-nn_seed2402')}** "
        f"({n(games('cubeless_256x3_1ply_vs_gnubg-nn_seed2402'))} games on fresh dice; on seed 1001: "
        f"{meq(f'{STRENGTH_MONEY}/n2_cubeless_256x3_exact1ply_vs_gnubg-nn_seed1001')}, paired vs m1 "
        f"(`cubeless_256x3`) there "
        f"{paired(f'{STRENGTH_MONEY}/n2_cubeless_256x3_exact1ply_vs_gnubg-nn_seed1001', f'{STRENGTH_MONEY}/m1_cubeless_256x3_vs_gnubg-nn_seed1001')}; "
        f"head to head vs `cubeless_256x3`: {meq('cubeless_256x3_1ply_vs_cubeless_256x3_seed2412')})",
        _eq("cubeless_256x3_1ply_vs_pubeval_seed2402"),
        "n/a (cubeless)",
        seed_files=(
            "cubeless_256x3_1ply_vs_gnubg-nn_seed2402",
            "cubeless_256x3_1ply_vs_pubeval_seed2402",
            "cubeless_256x3_1ply_vs_cubeless_256x3_seed2412",
        ),
    )


def _cubeless_512x2x256_row() -> list[str]:
    """`cubeless_512x2x256`: the equity head warm-started from `dmp_512x2x256`."""
    return _model_row(
        "cubeless_512x2x256.pt",
        "cubeless money, equity",
        "196-[512,512,256]-1 (`--warm-start-equity` from `dmp_512x2x256`; `big_legs.sh` b1, Adam 2e-4 -> "
        "5e-5 planned over 400k episodes, ended at 203,800)",
        495105,
        "2,355,400",
        "5.16 (4.38 + 0.78)",
        f"**{meq('cubeless_512x2x256_vs_gnubg-nn')}** ({n(games('cubeless_512x2x256_vs_gnubg-nn'))} games; "
        f"paired vs `cubeless_256x2` on the same dice "
        f"{paired('cubeless_512x2x256_vs_gnubg-nn', 'cubeless_256x2_vs_gnubg-nn')})",
        _eq("cubeless_512x2x256_vs_pubeval"),
        "n/a (cubeless)",
        seed_files=("cubeless_512x2x256_vs_gnubg-nn", "cubeless_512x2x256_vs_pubeval"),
    )


def _cubeless_256x2_row() -> list[str]:
    """`cubeless_256x2`: the equity head warm-started from `dmp_256x2`."""
    return _model_row(
        "cubeless_256x2.pt",
        "cubeless money, equity",
        "196-[256,256]-1 (`--warm-start-equity` from `dmp_256x2`)",
        116481,
        "1,200,000",
        "1.15 (0.97 + 0.18)",
        _eq("cubeless_256x2_vs_gnubg-nn"),
        _eq("cubeless_256x2_vs_pubeval"),
        "n/a (cubeless)",
        seed_files=("cubeless_256x2_vs_gnubg-nn", "cubeless_256x2_vs_pubeval"),
    )


def _cubeless_rows() -> list[list[str]]:
    """The rows of the cubeless money releases (equity heads)."""
    return [
        _cubeless_256x3_row(),
        _cubeless_256x3_live_row(),
        _cubeless_256x3_1ply_row(),
        _cubeless_512x2x256_row(),
        _cubeless_256x2_row(),
    ]


def _cubeful_256x3_row() -> list[str]:
    """`cubeful_256x3`: the cube head warm-started from `cubeless_256x3`."""
    return _model_row(
        "cubeful_256x3.pt",
        "cubeful money, equity / cube",
        "200-[256,256,256]-1 (`--warm-start-cubeful` from `cubeless_256x3`; `strength_money.sh` m4: 1M "
        "episodes trained without the Jacoby rule, Adam 5e-5 -> 5e-6)",
        183297,
        "8,800,000",
        "8.84 (7.17 + 1.67)",
        "n/a (gnubg-nn has no cube)",
        "n/a (pubeval has no cube)",
        f"**{meq('cubeful_256x3_vs_gnubg-ext_seed2303')}** {EXT} "
        f"({n(games('cubeful_256x3_vs_gnubg-ext_seed2303'))} games on fresh dice"
        f"{'; capped = uncapped' if capped_equal('cubeful_256x3_vs_gnubg-ext_seed2303') else ''}); on the "
        f"selection seed 1001 vs gnubg-nn-cubeful, capped: "
        f"{meq(f'{STRENGTH_MONEY}/m4_cubeful_256x3_nojacoby_vs_gnubg-nn-cubeful_seed1001', 'capped_meq_per_game')}"
        f"; head to head vs `cubeful_512x2x256` (duplicate): "
        f"{meq('cubeful_256x3_vs_cubeful_512x2x256_seed2313', 'capped_meq_per_game')} capped",
        seed_files=(
            "cubeful_256x3_vs_gnubg-ext_seed2303",
            "cubeful_256x3_vs_cubeful_512x2x256_seed2313",
        ),
    )


def _cubeful_256x3_live_row() -> list[str]:
    """`cubeful_256x3_live`: the cube head warm-started from n1, the stage released as
    `cubeless_256x3_live`."""
    fresh, point = (
        "cubeful_256x3_live_vs_gnubg-ext_seed2603",
        f"{LIVE_MONEY}/n4_cubeful_256x3_nojacoby_vs_gnubg-nn-cubeful_seed1001",
    )
    old = f"{STRENGTH_MONEY}/n4_cubeful_256x3_nojacoby_vs_gnubg-nn-cubeful_seed1001"
    return _model_row(
        "cubeful_256x3_live.pt",
        "cubeful money, equity / cube",
        "200-[256,256,256]-1 (`--warm-start-cubeful` from `cubeless_256x3_live`; `live_money.sh` n4: 2M "
        "episodes trained without the Jacoby rule, Adam 5e-5 -> 5e-6; its exact 1-ply stage (n5) scored "
        "lower on the selection seed; every unit distinct and alive)",
        183297,
        "9,800,000",
        "9.93 (5.98 + 2.18 + 1.77)",
        "n/a (gnubg-nn has no cube)",
        "n/a (pubeval has no cube)",
        f"**{meq(fresh)}** {EXT} ({n(games(fresh))} games on fresh dice"
        f"{'; capped = uncapped' if capped_equal(fresh) else ''}); "
        f"on the selection seed 1001 vs gnubg-nn-cubeful, capped: {meq(point, 'capped_meq_per_game')}, "
        f"paired vs `cubeful_256x3_from_1ply` there {paired(point, old)}; head to head vs "
        f"`cubeful_256x3_from_1ply` (duplicate): "
        f"{meq('cubeful_256x3_live_vs_cubeful_256x3_from_1ply_seed2613', 'capped_meq_per_game')} capped",
        seed_files=(fresh, "cubeful_256x3_live_vs_cubeful_256x3_from_1ply_seed2613"),
    )


def _cubeful_256x3_from_1ply_row() -> list[str]:
    """`cubeful_256x3_from_1ply`: the cube head warm-started from n1, the cubeless stage
    under `cubeless_256x3_1ply`."""
    return _model_row(
        "cubeful_256x3_from_1ply.pt",
        "cubeful money, equity / cube",
        "200-[256,256,256]-1 (`--warm-start-cubeful` from n1, the cubeless stage under "
        "`cubeless_256x3_1ply`; `strength_money_e1.sh` n4: 2M episodes trained without the Jacoby rule, "
        "Adam 5e-5 -> 5e-6; all 768 hidden units distinct)",
        183297,
        "12,650,000",
        "20.07 (15.65 + 2.63 + 1.79)",
        "n/a (gnubg-nn has no cube)",
        "n/a (pubeval has no cube)",
        f"**{meq('cubeful_256x3_from_1ply_vs_gnubg-ext_seed2403')}** {EXT} "
        f"({n(games('cubeful_256x3_from_1ply_vs_gnubg-ext_seed2403'))} games on fresh dice"
        f"{'; capped = uncapped' if capped_equal('cubeful_256x3_from_1ply_vs_gnubg-ext_seed2403') else ''}); "
        f"on the selection seed 1001 vs gnubg-nn-cubeful, capped: "
        f"{meq(f'{STRENGTH_MONEY}/n4_cubeful_256x3_nojacoby_vs_gnubg-nn-cubeful_seed1001', 'capped_meq_per_game')}"
        f", paired vs m4 (`cubeful_256x3`) there "
        f"{paired(f'{STRENGTH_MONEY}/n4_cubeful_256x3_nojacoby_vs_gnubg-nn-cubeful_seed1001', f'{STRENGTH_MONEY}/m4_cubeful_256x3_nojacoby_vs_gnubg-nn-cubeful_seed1001')}"
        f"; head to head vs `cubeful_256x3` (duplicate): "
        f"{meq('cubeful_256x3_from_1ply_vs_cubeful_256x3_seed2413', 'capped_meq_per_game')} capped",
        seed_files=(
            "cubeful_256x3_from_1ply_vs_gnubg-ext_seed2403",
            "cubeful_256x3_from_1ply_vs_cubeful_256x3_seed2413",
        ),
    )


def _cubeful_512x2x256_row() -> list[str]:
    """`cubeful_512x2x256`: the cube head warm-started from `cubeless_512x2x256`."""
    return _model_row(
        "cubeful_512x2x256.pt",
        "cubeful money, equity / cube",
        "200-[512,512,256]-1 (`--warm-start-cubeful` from `cubeless_512x2x256`; `big_legs.sh` b2, 150k "
        "episodes, Adam 1e-4 -> 3e-5)",
        497153,
        "2,505,400",
        "5.65 (5.16 + 0.49)",
        "n/a (gnubg-nn has no cube)",
        "n/a (pubeval has no cube)",
        f"**{meq('cubeful_512x2x256_vs_gnubg-ext')}** {EXT} ({n(games('cubeful_512x2x256_vs_gnubg-ext'))} "
        f"games{'; capped = uncapped' if capped_equal('cubeful_512x2x256_vs_gnubg-ext') else ''})",
        seed_files=("cubeful_512x2x256_vs_gnubg-ext",),
    )


def _cubeful_256x2_1ply_row() -> list[str]:
    """`cubeful_256x2_1ply`: the 1-ply refinement of `cubeful_256x2`."""
    return _model_row(
        "cubeful_256x2_1ply.pt",
        "cubeful money, equity / cube",
        "200-[256,256]-1 (1-ply refinement of `cubeful_256x2`)",
        117505,
        "1,410,000",
        "1.45 (1.32 + 0.13)",
        "n/a",
        "n/a",
        f"{meq('cubeful_256x2_1ply_vs_gnubg-ext')} {EXT} ({n(games('cubeful_256x2_1ply_vs_gnubg-ext'))} "
        f"games); vs 1.07.001: {meq('cubeful_256x2_1ply_vs_gnubg-ext-1.07.001')}",
        seed_files=(
            "cubeful_256x2_1ply_vs_gnubg-ext",
            "cubeful_256x2_1ply_vs_gnubg-ext-1.07.001",
        ),
    )


def _cubeful_256x2_row() -> list[str]:
    """`cubeful_256x2`: the cube head warm-started from `cubeless_256x2`."""
    return _model_row(
        "cubeful_256x2.pt",
        "cubeful money, equity / cube",
        "200-[256,256]-1 (`--warm-start-cubeful` from `cubeless_256x2`)",
        117505,
        "1,400,000",
        "1.32 (1.15 + 0.17)",
        "n/a (gnubg-nn has no cube)",
        "n/a (pubeval has no cube)",
        f"{meq('cubeful_256x2_vs_gnubg-ext')} {EXT} ({n(games('cubeful_256x2_vs_gnubg-ext'))} games"
        f"{'; capped = uncapped' if capped_equal('cubeful_256x2_vs_gnubg-ext') else ''}); vs 1.07.001: "
        f"{meq('cubeful_256x2_vs_gnubg-ext-1.07.001')}",
        seed_files=("cubeful_256x2_vs_gnubg-ext", "cubeful_256x2_vs_gnubg-ext-1.07.001"),
    )


def _cubeful_rows() -> list[list[str]]:
    """The rows of the cubeful money releases."""
    return [
        _cubeful_256x3_live_row(),
        _cubeful_256x3_row(),
        _cubeful_256x3_from_1ply_row(),
        _cubeful_512x2x256_row(),
        _cubeful_256x2_1ply_row(),
        _cubeful_256x2_row(),
    ]


def _match_256x2_row() -> list[str]:
    """`match_256x2`: the first match-play net, from `cubeful_256x2_1ply`."""
    return _model_row(
        "match_256x2.pt",
        "match play, MWC / cube by the MET",
        "208-[256,256]-1 (`--warm-start-match` from `cubeful_256x2_1ply`, then `--cube-explore`; "
        "`experiments/retraining/match_leg.sh`)",
        119553,
        "2,083,200 (673,200 as a match model)",
        "1.95 (1.45 + 0.50)",
        "n/a (match)",
        "n/a",
        f"7-point matches {EXT}: **{pct('match_256x2_vs_gnubg-ext_match7', 'match_win_rate')}** "
        f"({n(games('match_256x2_vs_gnubg-ext_match7'))} matches); its cubeful parent in the same kind of "
        f"matches: {pct('cubeful_256x2_1ply_vs_gnubg-ext_match7', 'match_win_rate')}",
        dec=False,
        seed_files=("match_256x2_vs_gnubg-ext_match7",),
    )


def _match_512x2x256_hold2_row() -> list[str]:
    """`match_512x2x256_hold2`: `match_512x2x256` continued with cube holding and take
    exploration."""
    return _model_row(
        "match_512x2x256_hold2.pt",
        MWC_OUTCOMES,
        "208-[512,512,256]-5 (`match_512x2x256` continued to 600k (b3), then 300k episodes with "
        "`--cube-hold 0.4 --take-explore 0.4` (b5) and 300k with `--cube-hold 0.5 --take-explore 0.4`, "
        "Adam 2e-5 -> 1e-5 (b6); `big_legs.sh`)",
        502277,
        "3,705,400 (1,200,000 as a match model)",
        "10.71 (5.65 + 2.54 + 1.14 + 1.38)",
        "n/a (match)",
        "n/a",
        f"7-point matches {EXT}, ours at **1-ply over its 8 best moves** (`--oneply1 --oneply-k 8`): "
        f"**{pct('match_512x2x256_hold2_1ply_k8_vs_gnubg-ext_match7', 'match_win_rate')}** "
        f"({n(games('match_512x2x256_hold2_1ply_k8_vs_gnubg-ext_match7'))} matches), luck-adjusted "
        f"{luck('match_512x2x256_hold2_1ply_k8_vs_gnubg-ext1000_0ply_luck')}; at 0-ply: "
        f"{pct('match_512x2x256_hold2_vs_gnubg-ext_match7', 'match_win_rate')}, luck-adjusted "
        f"{luck('match_512x2x256_hold2_vs_gnubg-ext1000_0ply_luck')}; vs its cubeful ancestor "
        f"`cubeful_512x2x256` (duplicate, 0-ply): "
        f"{pct('match_512x2x256_hold2_vs_cubeful_512x2x256_match7', 'match_win_rate')}",
        dec=False,
        seed_files=(
            "match_512x2x256_hold2_1ply_k8_vs_gnubg-ext_match7",
            "match_512x2x256_hold2_vs_gnubg-ext_match7",
            "match_512x2x256_hold2_vs_cubeful_512x2x256_match7",
        ),
    )


def _match_512x2x256_row() -> list[str]:
    """`match_512x2x256`: the [512,512,256] match net with the `mwc-outcomes` head."""
    return _model_row(
        "match_512x2x256.pt",
        MWC_OUTCOMES,
        "208-[512,512,256]-5 (`--warm-start-match` from `cubeful_512x2x256` with `--match-head "
        "mwc-outcomes`, lambda-return targets `--td-lambda 0.7`, greedy cube play under the dead-cube rule, "
        "`--cube-start 0.3`, Adam 1e-4 -> 2e-5 planned over 600k; `big_legs.sh` b3, stopped at 336,800, "
        "resumable)",
        502277,
        "2,842,200 (336,800 as a match model)",
        "7.09 (5.65 + 1.44; b3's CPU time ran beside the CI tests and is inflated)",
        "n/a (match)",
        "n/a",
        f"7-point matches {EXT}: **{pct('match_512x2x256_vs_gnubg-ext_match7', 'match_win_rate')}** "
        f"({n(games('match_512x2x256_vs_gnubg-ext_match7'))} matches); vs its cubeful parent (duplicate): "
        f"{pct('match_512x2x256_vs_cubeful_512x2x256_match7', 'match_win_rate')}; vs `match_256x2_lambda`: "
        f"{pct('match_512x2x256_vs_match_256x2_lambda_match7', 'match_win_rate')}",
        dec=False,
        seed_files=(
            "match_512x2x256_vs_gnubg-ext_match7",
            "match_512x2x256_vs_cubeful_512x2x256_match7",
            "match_512x2x256_vs_match_256x2_lambda_match7",
        ),
    )


def _match_rows() -> list[list[str]]:
    """The rows of `match_256x2` and the [512,512,256] match-play releases."""
    return [_match_256x2_row(), _match_512x2x256_hold2_row(), _match_512x2x256_row()]


def _match_256x2_successor_rows() -> list[list[str]]:
    """The rows of the [256,256] match-play releases that continued `match_256x2`."""
    return [
        _model_row(
            "match_256x2_lambda.pt",
            MWC_OUTCOMES,
            "208-[256,256]-5 (`match_256x2_outcomes` + 300k episodes with lambda-return targets, `--td-lambda "
            "0.7`, greedy cube play under the dead-cube rule, `--cube-start 0.3`; `match_leg.sh` s10)",
            120581,
            "3,083,200 (1,673,200 as a match model)",
            "3.20 (2.76 + 0.44)",
            "n/a (match)",
            "n/a",
            f"7-point matches {EXT}: **{pct('match_256x2_lam_vs_gnubg-ext_match7', 'match_win_rate')}** "
            f"({n(games('match_256x2_lam_vs_gnubg-ext_match7'))} matches); vs its cubeful grandparent "
            f"(duplicate): {pct('match_256x2_lam_vs_cubeful_256x2_1ply_match7', 'match_win_rate')}; vs "
            f"`match_256x2_outcomes`: {pct('match_256x2_lambda_vs_match_256x2_outcomes_match7', 'match_win_rate')}",
            dec=False,
            seed_files=(
                "match_256x2_lam_vs_gnubg-ext_match7",
                "match_256x2_lam_vs_cubeful_256x2_1ply_match7",
                "match_256x2_lambda_vs_match_256x2_outcomes_match7",
            ),
        ),
        _model_row(
            "match_256x2_outcomes.pt",
            MWC_OUTCOMES,
            "208-[256,256]-5 (`match_256x2` converted to the `mwc-outcomes` head with `--match-head`, then 700k "
            "episodes with `--cube-start 0.3 --cube-explore 0.15`; `match_leg.sh` s6, s7)",
            120581,
            "2,783,200 (1,373,200 as a match model)",
            "2.76 (1.95 + 0.35 + 0.46)",
            "n/a (match)",
            "n/a",
            f"7-point matches {EXT}: **{pct('match_256x2_oc2_vs_gnubg-ext_match7', 'match_win_rate')}** "
            f"({n(games('match_256x2_oc2_vs_gnubg-ext_match7'))} matches); vs its cubeful parent (duplicate): "
            f"{pct('match_256x2_oc2_vs_cubeful_256x2_1ply_match7', 'match_win_rate')}; vs `match_256x2`: "
            f"{pct('match_256x2_oc2_vs_match_256x2_match7', 'match_win_rate')}",
            dec=False,
            seed_files=(
                "match_256x2_oc2_vs_gnubg-ext_match7",
                "match_256x2_oc2_vs_cubeful_256x2_1ply_match7",
                "match_256x2_oc2_vs_match_256x2_match7",
            ),
        ),
    ]


def _prob5_and_first_rows() -> list[list[str]]:
    """The rows of the prob5 releases and the first DMP net."""
    return [
        _model_row(
            "prob5_128x2_1ply.pt",
            "cubeless money, prob5",
            "196-[128,128]-5 (1-ply refinement of `prob5_128x2`)",
            42373,
            "310,000",
            "0.21 (0.14 + 0.07)",
            _eq("prob5_128x2_1ply_vs_gnubg-nn"),
            _eq("prob5_128x2_1ply_vs_pubeval"),
            "n/a (no cube)",
            seed_files=("prob5_128x2_1ply_vs_gnubg-nn", "prob5_128x2_1ply_vs_pubeval"),
        ),
        _model_row(
            "prob5_128x2.pt",
            "cubeless money, prob5",
            "196-[128,128]-5 (from scratch)",
            42373,
            "300,000",
            "0.14",
            _eq("prob5_128x2_vs_gnubg-nn"),
            _eq("prob5_128x2_vs_pubeval"),
            "n/a (no cube)",
            seed_files=("prob5_128x2_vs_gnubg-nn", "prob5_128x2_vs_pubeval"),
        ),
        _model_row(
            "dmp_128x2.pt",
            "DMP, P(win)",
            "196-[128,128]-1",
            41857,
            "400,000",
            "0.31",
            _rate("dmp_128x2_vs_gnubg-nn"),
            _rate("dmp_128x2_vs_pubeval"),
            "n/a (DMP)",
            seed_files=("dmp_128x2_vs_gnubg-nn", "dmp_128x2_vs_pubeval"),
        ),
    ]


def best_models_table() -> str:
    rows = (
        _dmp_rows()
        + _cubeless_rows()
        + _cubeful_rows()
        + _match_rows()
        + _match_256x2_successor_rows()
        + _prob5_and_first_rows()
    )
    return markdown_table(
        [
            "file",
            "type",
            "architecture",
            "params",
            "episodes",
            "CPU-hours",
            "vs gnubg-nn 0-ply",
            "vs pubeval",
            "vs gnubg binary (cubeful)",
            "decision error, mEq/decision, 0-ply [95% CI]; 1-ply (1,100 decisions)",
            "seeds: selection; report",
            "md5",
        ],
        rows,
    )


# players, result file, luck JSON (or None), bold
MATCH_ROWS = [
    (
        "**`match_512x2x256_hold2`** vs gnubg-ext 1.08.003, both at 0-ply, **on fresh dice**",
        "match_512x2x256_hold2_vs_gnubg-ext_match7_seed2204",
        None,
        True,
    ),
    (
        "**`match_512x2x256_hold2` at 1-ply** (`--oneply1 --oneply-k 8`) vs gnubg-ext 1.08.003 0-ply",
        "match_512x2x256_hold2_1ply_k8_vs_gnubg-ext_match7",
        "match_512x2x256_hold2_1ply_k8_vs_gnubg-ext1000_0ply_luck",
        True,
    ),
    (
        "`match_512x2x256_hold2` (0-ply) vs gnubg-ext 1.08.003 0-ply",
        "match_512x2x256_hold2_vs_gnubg-ext_match7",
        "match_512x2x256_hold2_vs_gnubg-ext1000_0ply_luck",
        False,
    ),
    (
        "`match_512x2x256_hold2` vs `cubeful_512x2x256`, duplicate dice, both 0-ply",
        "match_512x2x256_hold2_vs_cubeful_512x2x256_match7",
        None,
        False,
    ),
    (
        "`match_512x2x256_hold` (b5) at 1-ply (`--oneply-k 8`) vs gnubg-ext 1.08.003 0-ply",
        "match_512x2x256_hold_1ply_k8_vs_gnubg-ext_match7",
        "match_512x2x256_hold_1ply_k8_vs_gnubg-ext1000_0ply_luck",
        False,
    ),
    (
        "`match_512x2x256_hold` (b5, 0-ply) vs gnubg-ext 1.08.003 0-ply",
        "match_512x2x256_hold_vs_gnubg-ext_match7_seed41",
        "match_512x2x256_hold_vs_gnubg-ext1000_seed41_0ply_luck",
        False,
    ),
    (
        "`match_512x2x256_hold` (b5) vs `cubeful_512x2x256`, duplicate dice",
        "match_512x2x256_hold_vs_cubeful_512x2x256_match7",
        None,
        False,
    ),
    (
        "`match_512x2x256` vs gnubg-ext 1.08.003 0-ply",
        "match_512x2x256_vs_gnubg-ext_match7",
        None,
        True,
    ),
    (
        "`match_512x2x256` vs `cubeful_512x2x256`, duplicate dice",
        "match_512x2x256_vs_cubeful_512x2x256_match7",
        None,
        False,
    ),
    (
        "`match_512x2x256` vs `match_256x2_lambda`, duplicate dice",
        "match_512x2x256_vs_match_256x2_lambda_match7",
        None,
        False,
    ),
    (
        "`cubeful_512x2x256` (money rules, blind to the score) vs gnubg-ext 1.08.003 0-ply",
        "cubeful_512x2x256_vs_gnubg-ext_match7",
        None,
        False,
    ),
    (
        "`match_256x2_lambda` vs gnubg-ext 1.08.003 0-ply",
        "match_256x2_lam_vs_gnubg-ext_match7",
        None,
        True,
    ),
    (
        "`match_256x2_lambda` vs `cubeful_256x2_1ply`, duplicate dice",
        "match_256x2_lam_vs_cubeful_256x2_1ply_match7",
        None,
        False,
    ),
    (
        "`match_256x2_lambda` vs `match_256x2_outcomes`, duplicate dice",
        "match_256x2_lambda_vs_match_256x2_outcomes_match7",
        None,
        False,
    ),
    (
        "`match_256x2_outcomes` vs gnubg-ext 1.08.003 0-ply, on fresh dice",
        "match_256x2_outcomes_vs_gnubg-ext_match7_seed2205",
        None,
        True,
    ),
    (
        "`match_256x2_outcomes` vs gnubg-ext 1.08.003 0-ply",
        "match_256x2_oc2_vs_gnubg-ext_match7",
        None,
        False,
    ),
    (
        "`match_256x2_outcomes` vs `cubeful_256x2_1ply`, duplicate dice",
        "match_256x2_oc2_vs_cubeful_256x2_1ply_match7",
        None,
        False,
    ),
    (
        "`match_256x2_outcomes` vs `match_256x2`, duplicate dice",
        "match_256x2_oc2_vs_match_256x2_match7",
        None,
        False,
    ),
    (
        "`match_256x2` vs gnubg-ext 1.08.003 0-ply (gnubg's cube by its default MET, Kazaross-XG2)",
        "match_256x2_vs_gnubg-ext_match7",
        None,
        True,
    ),
    (
        "`cubeful_256x2_1ply` (money rules, blind to the score) vs gnubg-ext 1.08.003",
        "cubeful_256x2_1ply_vs_gnubg-ext_match7",
        None,
        False,
    ),
    (
        "`match_256x2` vs `cubeful_256x2_1ply`, duplicate dice",
        "match_256x2_vs_cubeful_256x2_1ply_match7",
        None,
        False,
    ),
]


def match_table() -> str:
    rows = []
    for players, name, luck_name, bold in MATCH_ROWS:
        d = FILES.match_json(name)
        ext = "gnubg-ext" in name
        how = f"gnubg's dice, seed {seed(name)}, {workers(name)}" if ext else f"seed {seed(name)}"
        rate = pct(name, "match_win_rate")
        rate = f"**{rate}**" if bold else rate
        if luck_name:
            rate += f"; luck-adjusted {luck(luck_name)}"
        drops = d["drops_per_match"]
        rows.append(
            [
                players,
                f"{n(games(name))} ({how})",
                rate,
                f"{d['points_per_game']['mean']:+.3f}",
                f"{drops['a']:.2f}, {drops['b']:.2f}",
                f"`{name}`",
            ]
        )
    return markdown_table(
        [
            "players",
            "matches",
            "match-win rate (first player) [95% CI]",
            "points/game",
            "drops per match (first, second)",
            "file",
        ],
        rows,
    )


def decisions_table() -> str:
    entries = FILES.decision_entries()
    entries.sort(key=lambda d: d["overall"]["meq"])
    rows = []
    for d in entries:
        o, c = d["overall"], d["by_class"]
        name = d["model"].split("/")[-1]
        rows.append(
            [
                f"`{name}`",
                str(d["ply"]),
                d["plays_by"],
                f"{o['meq']:.1f} [{o['ci'][0]:.1f}, {o['ci'][1]:.1f}]",
                f"{c['contact']['meq']:.1f}",
                f"{c['crashed']['meq']:.1f}",
                f"{c['race']['meq']:.1f}",
                f"{100 * o['best']:.0f}%",
                f"{100 * o['outside']:.0f}%",
            ]
        )
    return markdown_table(
        [
            "player",
            "ply",
            "plays by",
            "overall mEq [95% CI]",
            "contact",
            "crashed",
            "race",
            "best move",
            "outside",
        ],
        rows,
    )


def health_table() -> str:
    """best_models/README.md: dead, distinct and active hidden units of every release."""
    path = FILES.path(UNIT_HEALTH)
    with open(path) as fh:
        data = read_json(path, fh.read())
    models = data.get("models") if isinstance(data, dict) else None
    if not isinstance(models, dict):
        raise ValueError(f"{path}: no 'models' entry of the models measured")
    rows = []
    for name, h in sorted(models.items()):
        try:  # (a missing or odd entry was a line that named neither the file nor the entry)
            worst = max(d / w for d, w in zip(h["dead"], h["widths"], strict=True))
            rows.append(
                [
                    f"`{name}`",
                    "[" + ",".join(map(str, h["widths"])) + "]",
                    " / ".join(map(str, h["dead"])),
                    f"{100 * worst:.0f}%",
                    " / ".join(map(str, h["distinct"])),
                    " / ".join(f"{a:.2f}" for a in h["active"]),
                ]
            )
        except (KeyError, TypeError, ValueError, ZeroDivisionError) as exc:
            raise ValueError(f"{path}: models/{name} does not read ({exc!r})") from None
    return markdown_table(
        [
            "model",
            "hidden",
            "dead units per layer",
            "worst layer dead",
            "distinct units per layer",
            "mean fraction active per layer",
        ],
        rows,
    )


def summary_table() -> str:
    """README.md: the current best model per mode."""
    rows = [
        [
            "DMP (single games, P(win))",
            "[`dmp_256x3_live.pt`](best_models/dmp_256x3_live.pt)",
            f"{fresh_figure('dmp_256x3_live.pt')} of games vs gnubg-nn 0-ply playing DMP on fresh dice; "
            f"{pct(f'{LIVE}/x1r_256x3_exact1ply_vs_gnubg-nn_seed1001')} on the seed it was selected on "
            f"(`dmp_256x3`, the release before it: {fresh_figure('dmp_256x3.pt')}; head to head, "
            f"`dmp_256x3_live` wins {pct('dmp_256x3_live_vs_dmp_256x3_1ply_seed2511')} of 10,000 duplicate "
            f"games against `dmp_256x3_1ply`, seed 2511, and {pct('dmp_256x3_live_vs_puretd_256x3_3a3c70d_seed2521')} "
            f"against PureTD's documented [256,256,256], seed 2521)",
            f"{n(games('dmp_256x3_live_vs_gnubg-nn_seed2501'))} duplicate games; "
            + seeds_cell("dmp_256x3_live.pt", "dmp_256x3_live_vs_gnubg-nn_seed2501"),
        ],
        [
            "cubeless money",
            "[`cubeless_256x3_live.pt`](best_models/cubeless_256x3_live.pt)",
            f"{fresh_figure('cubeless_256x3_live.pt')} vs gnubg-nn 0-ply (cubeless equity play) on fresh dice; "
            f"{meq(f'{LIVE_MONEY}/n1_cubeless_256x3_vs_gnubg-nn_seed1001')} on the seed it was selected on "
            f"(`cubeless_256x3_1ply`, the release before it: {fresh_figure('cubeless_256x3_1ply.pt')}; head to "
            f"head {meq('cubeless_256x3_live_vs_cubeless_256x3_1ply_seed2612')} for `cubeless_256x3_live`, seed 2612)",
            f"{n(games('cubeless_256x3_live_vs_gnubg-nn_seed2602'))} duplicate games; "
            + seeds_cell("cubeless_256x3_live.pt", "cubeless_256x3_live_vs_gnubg-nn_seed2602"),
        ],
        [
            "cubeful money",
            "[`cubeful_256x3_live.pt`](best_models/cubeful_256x3_live.pt)",
            f"{fresh_figure('cubeful_256x3_live.pt')} vs the gnubg binary 1.08.003 at 0-ply on fresh dice; "
            f"{meq(f'{LIVE_MONEY}/n4_cubeful_256x3_nojacoby_vs_gnubg-nn-cubeful_seed1001', 'capped_meq_per_game')} "
            f"(capped) against gnubg-nn-cubeful on the seed it was selected on (`cubeful_256x3_from_1ply`, the "
            f"release before it: {fresh_figure('cubeful_256x3_from_1ply.pt')}; head to head "
            f"{meq('cubeful_256x3_live_vs_cubeful_256x3_from_1ply_seed2613', 'capped_meq_per_game')} capped for "
            f"`cubeful_256x3_live`, duplicate, seed 2613)",
            f"{n(games('cubeful_256x3_live_vs_gnubg-ext_seed2603'))} games on gnubg's dice; "
            + seeds_cell("cubeful_256x3_live.pt", "cubeful_256x3_live_vs_gnubg-ext_seed2603"),
        ],
        [
            "7-point matches",
            "[`match_512x2x256_hold2.pt`](best_models/match_512x2x256_hold2.pt)",
            f"{fresh_figure('match_512x2x256_hold2.pt')} of matches vs the gnubg binary 1.08.003 on fresh dice; "
            f"ours at 1-ply over its 8 best moves: {pct('match_512x2x256_hold2_1ply_k8_vs_gnubg-ext_match7', 'match_win_rate')} "
            f"(luck-adjusted {luck('match_512x2x256_hold2_1ply_k8_vs_gnubg-ext1000_0ply_luck')}) on a seed it was "
            f"selected on",
            f"{n(games('match_512x2x256_hold2_1ply_k8_vs_gnubg-ext_match7'))} matches on gnubg's dice; "
            + seeds_cell(
                "match_512x2x256_hold2.pt", "match_512x2x256_hold2_1ply_k8_vs_gnubg-ext_match7"
            ),
        ],
    ]
    return markdown_table(["mode", "model", "result [95% CI]", "games; seeds"], rows)


TABLES = {
    "best_models": best_models_table,
    "best_models_match": match_table,
    "best_models_decisions": decisions_table,
    "best_models_health": health_table,
    "summary": summary_table,
}


def update(write: bool = False) -> list[str]:
    """The tables whose committed text differs from what the result files give, as 'NAME
    (FILE)'; with ``write``, those files are rewritten (atomically) to agree."""
    changed, texts = remade(TABLES, {name: FILES.path(rel) for name, rel in TARGETS.items()})
    if write:
        write_texts(texts, sorted({FILES.path(TARGETS[name]) for name in changed}), ROOT)
    return [f"{name} ({TARGETS[name]})" for name in changed]


def main() -> None:
    p = cli.Parser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if a committed table differs"
    )
    args = p.parse_args()
    try:  # a result file missing, or edited so that it no longer reads: one line, before anything is written
        bad = update(write=not args.check)
    except OSError as exc:
        raise cli.UsageError(f"{exc.filename or 'a result file'}: {exc.strerror or exc}") from None
    except (ValueError, KeyError, TypeError, IndexError, json.JSONDecodeError) as exc:
        what = f"no {exc} entry" if isinstance(exc, KeyError) else str(exc)
        raise cli.UsageError(
            f"a result file the tables are made from does not read: {what}"
        ) from None
    if args.check:
        for b in bad:
            print(f"differs from the result files: {b}")
        sys.exit(1 if bad else 0)
    print("rewritten: " + (", ".join(bad) if bad else "nothing (every table is up to date)"))


if __name__ == "__main__":
    cli.run_main(main)
