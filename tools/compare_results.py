#!/usr/bin/env python3
"""A minus B for two per-game result files (play_models.py --csv), with a bootstrap 95% CI.

Paired (same seed and game mode, hence the same dice in every duplicate pair; the
default whenever the files allow it: the bootstrap resamples the shared pairs) or
unpaired (different dice, or games against the gnubg binary, which rolls its own: each
file's own units are resampled, its duplicate pairs, or its single games where gnubg
rolled the dice).  The JSON names what was resampled (resample_unit, units_a, units_b).  The metric is the win rate in DMP,
points per game (shown as mEq/game) in money play and the match-win rate for match
files (one entry per match; no other metric applies to them), unless --metric says otherwise.

    python tools/compare_results.py experiments/head_to_head/results/dmp_256x2_1ply_vs_gnubg-nn.csv \\
        experiments/head_to_head/results/dmp_256x2_vs_gnubg-nn.csv
"""

from __future__ import annotations

# first: a signal during the imports ends in one line
from tdbg.infra.stop_signals import exit_on_signals

exit_on_signals(__name__)

from tdbg.app import cli
from tdbg.infra import fileio
from tdbg.infra.stats import ci_text
from tdbg.play.results_file import ResultsFileError, compare, read_results


def build_parser() -> cli.Parser:
    p = cli.Parser(description=__doc__.split("\n\n")[0])
    p.add_argument("a", help="per-game result CSV (the first term)")
    p.add_argument("b", help="per-game result CSV (subtracted)")
    p.add_argument(
        "--metric",
        choices=("win", "points", "capped"),
        default=None,
        help="win rate, points per game, or points capped at +-128 (default: win in DMP, else points)",
    )
    p.add_argument(
        "--unpaired",
        action="store_true",
        help="ignore the pairing even where the dice are the same",
    )
    p.add_argument("--seed", type=cli.seed_arg, default=0, help="bootstrap seed (default: 0)")
    p.add_argument("--json", metavar="PATH", help="also write the result as JSON")
    p.add_argument(
        "--overwrite", action="store_true", help="allow replacing an existing JSON file at --json"
    )
    return p


def format_line(r: dict) -> str:
    scale, unit = (100.0, " points of win rate") if r["metric"] == "win" else (1000.0, " mEq/game")
    entries = r.get("entries", "games")
    if r["paired"]:
        kind = f"paired: resamples the {r['units_a']} shared duplicate pairs"
    else:

        def side(k):
            return f"{r['units_' + k]} {'single ' + entries if r['resample_unit'][k].startswith('single') else 'duplicate pairs'}"

        kind = f"unpaired: resamples A's {side('a')} and B's {side('b')}"
    ci = ci_text(
        {"ci_low": r["ci_low"], "ci_high": r["ci_high"], "ci_reason": r.get("ci_reason", "")},
        "{:+.2f}",
        scale,
        template="[{low}, {high}]",
    )
    label = "95% CI, " if r["ci_low"] is not None else ""
    return (
        f"A - B = {r['difference'] * scale:+.2f} {ci}{unit} "
        f"({label}{kind}; A {r['mean_a'] * scale:.2f} over {r['games_a']} {entries}, "
        f"B {r['mean_b'] * scale:.2f} over {r['games_b']})"
    )


def main() -> None:
    args = build_parser().parse_args()
    fileio.check_outputs(
        [fileio.Output("--json", args.json, "json")], args.overwrite, {"a": args.a, "b": args.b}
    )
    try:
        a, b = read_results(args.a), read_results(args.b)
        r = compare(a, b, args.metric, paired=False if args.unpaired else None, seed=args.seed)
    except ResultsFileError as exc:
        raise cli.UsageError(str(exc)) from None
    print(format_line(r))
    if args.json:
        fileio.write_json(args.json, r)


if __name__ == "__main__":
    cli.run_main(main)
