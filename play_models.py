#!/usr/bin/env python3
"""Head-to-head evaluation of two players with duplicate dice and bootstrap 95% CIs.

A player is a checkpoint (.pt) or one of: random, pubeval, gnubg-nn, gnubg-nn-1ply,
gnubg-nn-cubeful.

  python play_models.py --model1 models/dmp.pt --gnubg-nn --games 2000 --workers 2
  python play_models.py --model1 models/cubeful.pt --model2 models/cubeful.pt --game-mode cubeful-money \\
      --games 100 --save-games selfplay_games
"""
from __future__ import annotations

import datetime
import os

from tdbg.app import backend_flags, cli
from tdbg.app.head_to_head import GNUBG_LEVELS, format_table, run_against_gnubg, run_head_to_head, summarize_games
from tdbg.play.players import Player, checkpoint_game_mode
from tdbg.app.match_series import run_matches
from tdbg.game.modes import GAME_MODES, game_mode
from tdbg.game.movegen import BACKENDS
from tdbg.gnubg.gnubg_binary import describe, preflight
from tdbg.infra import fileio, workers
from tdbg.infra.fileio import Output, check_outputs
from tdbg.infra.provenance import file_md5, provenance
from tdbg.infra.stats import ci_text
from tdbg.net.search import DEFAULT_K1, DEFAULT_K2
from tdbg.play import opponents
from tdbg.play.agents import GNUBG_NN_PLIES
from tdbg.play.luck import format_luck, luck_summary
from tdbg.play.matches import format_matches, matches_csv_lines, summarize_matches
from tdbg.play.matfile import write_mat


MAX_GAMES = 10_000_000  # each game's record (about 300 bytes) is kept for the summary and --csv


def is_match(mode_name: str | None) -> bool:
    return bool(mode_name) and game_mode(mode_name).is_match


def check_play_outputs(args, model2: str, games_csv: str | None = None) -> None:
    """fileio's output policy for every file this run writes, before any game is played."""
    inputs = {"--model1": args.model1, "--model2": model2}
    check_outputs([Output("--json", args.json, "json"), Output("--csv", args.csv, "text"),
                   Output("--games-csv" if args.games_csv else "the games CSV", games_csv, "text"),
                   Output("--save-games", args.save_games, "folder"),
                   Output("--save-extreme-games", args.save_extreme_games, "folder")], args.overwrite,
                  {k: v for k, v in inputs.items() if v and os.path.isfile(v)})


def build_parser() -> cli.Parser:
    p = cli.Parser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model1", required=True, help=f"checkpoint or {'|'.join(opponents.NAMES)}")
    p.add_argument("--model2", help="checkpoint, a named opponent, or gnubg-ext / gnubg-ext-full (the real binary)")
    p.add_argument("--gnubg-nn", action="store_true", help="shortcut for --model2 gnubg-nn")
    p.add_argument("--games", type=cli.count_arg(MAX_GAMES, "games (each game's result is kept for the summary)"),
                   default=1000, help="games, played in duplicate pairs (an odd count's last game has no "
                   "partner: it counts as one game, not as a pair)")
    p.add_argument("--workers", type=cli.workers_arg, default=1,
                   help=f"game-playing processes (at most {workers.MAX_WORKERS_PER_CORE} per core)")
    p.add_argument("--game-mode", choices=GAME_MODES, default=None, help="default: model1's mode, else dmp")
    p.add_argument("--match-length", type=cli.match_length_arg, default=None,
                   help="--game-mode match: points per match (1-25; default 7); --games then counts matches")
    p.add_argument("--met", metavar="XML", help="match play: the match equity table our match model plays by "
                   "(default: the shipped Kazaross-XG2, data/met/)")
    p.add_argument("--jacoby", action=cli.argparse.BooleanOptionalAction, default=True,
                   help="money games: gammons count only once the cube has been turned")
    p.add_argument("--oneply1", action="store_true", help="model1 looks 1 ply ahead")
    p.add_argument("--oneply2", action="store_true", help="model2 looks 1 ply ahead")
    p.add_argument("--oneply-k", type=cli.positive_int, default=None, metavar="K",
                   help="a 1-ply player looks ahead from its K best candidates by 0-ply only (a move filter; "
                        "default: all of them)")
    p.add_argument("--oneply-filter", type=cli.positive_int, default=None, metavar="K",
                   help="a 1-ply or 2-ply checkpoint player values only each roll's K best replies in its lookahead, "
                        "ranked by its move filter (a model trained with train_batch.py --oneply-filter; "
                        "default: every reply, exact)")
    p.add_argument("--twoply1", action="store_true", help="model1 searches 2 plies (checker play and cube)")
    p.add_argument("--twoply2", action="store_true", help="model2 searches 2 plies (checker play and cube)")
    p.add_argument("--twoply-k1", type=cli.positive_int, default=DEFAULT_K1,
                   help="2-ply: our candidates searched at 2 plies, the best by 1-ply value")
    p.add_argument("--twoply-k2", type=cli.positive_int, default=DEFAULT_K2,
                   help="2-ply: replies per roll searched at 1 ply inside the search, the best by 0-ply value "
                        "(1 is gnubg's own n-ply rule)")
    p.add_argument("--plies", type=int, choices=GNUBG_NN_PLIES, default=None,
                   help="gnubg-nn's depth (0, 1 or 2; default 0): every candidate valued at that depth, the move "
                        "chosen by the game mode's objective (P(win) in DMP, cubeless equity in money)")
    p.add_argument("--n-bootstrap", type=cli.count_arg(1_000_000, "bootstrap resamples"), default=2000,
                   help="bootstrap resamples behind each 95%% CI")
    p.add_argument("--seed", type=int, default=0, help="random seed (the dice)")
    p.add_argument("--save-games", metavar="DIR", help="write the games as Jellyfish .mat files into this folder "
                   "(matches against gnubg-ext: gnubg's own record of each match, match_NNNNNN.mat)")
    p.add_argument("--save-extreme-games", metavar="DIR",
                   help="write only the games whose |result| is at least --extreme-threshold, one .mat file each")
    p.add_argument("--extreme-threshold", type=cli.positive_float, default=None, metavar="X",
                   help="points (cube included) a game must reach to be saved by --save-extreme-games")
    p.add_argument("--json", metavar="PATH", help="write the summary as JSON")
    p.add_argument("--csv", metavar="PATH", help="write one row per game under a provenance header "
                   "(command, commit, seed, games, date, summary): the record behind a published number")
    p.add_argument("--games-csv", metavar="PATH", help="gnubg-ext: one row per game, written as each game ends "
                   "(default runs/gnubg_<time>.csv); its result column is gnubg's: 1 single, 2 gammon, "
                   "3 backgammon, 0 a dropped double")
    p.add_argument("--gnubg-timeout", type=cli.positive_float, default=60.0, help="seconds to wait for gnubg")
    p.add_argument("--gnubg", metavar="PATH", help="gnubg-ext: the gnubg binary (default: $GNUBG_BINARY, else "
                   "make gnubg's 1.08.003 build, else gnubg on PATH or /usr/games/gnubg)")
    p.add_argument("--luck", nargs="?", const="gnubg-nn", metavar="REF",
                   help="also report the luck-adjusted result, luck judged by REF: gnubg-nn (the default) "
                   "or a checkpoint")
    p.add_argument("--engine", choices=BACKENDS, default="auto", help="move generator")
    p.add_argument("--overwrite", action="store_true",
                   help="allow replacing existing output files of the same kind (--json, --csv, --games-csv, "
                        "the .mat files in --save-games)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    backend_flags.add_backend_args(p, "game-playing")
    return p


def main() -> None:
    args = build_parser().parse_args()
    if args.gnubg_nn and args.model2 and args.model2 != "gnubg-nn":
        raise cli.UsageError("--gnubg-nn and --model2 name different opponents")
    model2 = "gnubg-nn" if args.gnubg_nn else args.model2
    if not model2:
        raise cli.UsageError("name the opponent with --model2 or --gnubg-nn")
    # before any game: the files that play, should their paths be overwritten later
    args.model_md5 = {"model1_md5": file_md5(args.model1), "model2_md5": file_md5(model2)}
    if bool(args.save_extreme_games) != (args.extreme_threshold is not None):
        raise cli.UsageError("--save-extreme-games DIR and --extreme-threshold X go together")
    if (args.oneply1 and args.twoply1) or (args.oneply2 and args.twoply2):
        raise cli.UsageError("a player looks 1 ply or 2 plies ahead, not both (--oneplyN or --twoplyN)")
    if args.oneply_k is not None and not (args.oneply1 or args.oneply2):
        raise cli.UsageError("--oneply-k filters a 1-ply player's candidates: use it with --oneply1 or --oneply2")
    if args.oneply_filter is not None and not (args.oneply1 or args.oneply2 or args.twoply1 or args.twoply2):
        raise cli.UsageError("--oneply-filter prunes a lookahead's replies: use it with --oneplyN or --twoplyN")
    if args.luck and args.luck != "gnubg-nn" and is_match(checkpoint_game_mode(args.luck)):  # fails before any game
        raise cli.UsageError(f"{args.luck} is a match-play model: it cannot judge the luck of single games")
    if (args.match_length is not None or args.met) and not is_match(args.game_mode or checkpoint_game_mode(args.model1)):
        raise cli.UsageError("--match-length and --met apply to --game-mode match only")
    if model2 in GNUBG_LEVELS:
        if args.backend != "local":
            raise cli.UsageError(f"{model2} games run on this machine (its gnubg binary): use --backend local")
        backend_flags.start(args)
        return against_gnubg(args, model2)
    if args.gnubg:
        raise cli.UsageError("--gnubg names the binary for --model2 gnubg-ext / gnubg-ext-full; "
                             f"{model2} is not the gnubg binary")
    mode_name = args.game_mode
    if mode_name is None:
        mode_name = checkpoint_game_mode(args.model1) or checkpoint_game_mode(model2) or "dmp"
    mode = cli.checked(lambda: game_mode(mode_name, args.jacoby, args.match_length or 7, args.met))
    if mode.is_match:
        return play_matches(args, model2, mode)
    check_play_outputs(args, model2)
    backend_flags.start(args)
    for folder in (args.save_games, args.save_extreme_games):
        if folder:
            os.makedirs(folder, exist_ok=True)
    names = (os.path.basename(args.model1), os.path.basename(model2))

    def saver(records):  # written as each batch finishes, so a crash keeps them
        if args.save_games:
            save_mat_games(args.save_games, records, names, mode)
        if args.save_extreme_games:
            save_mat_games(args.save_extreme_games, [r for r in records if abs(r.points) >= args.extreme_threshold],
                           names, mode, one_per_game=True)
        for rec in records:  # written: only the result stays in memory
            rec.turns = []

    players = the_players(args, model2, gnubg_depth=True)
    if args.plies is not None and all(p.plies is None for p in players):
        raise cli.UsageError("--plies sets gnubg-nn's depth, and neither player is gnubg-nn")
    saving = bool(args.save_games or args.save_extreme_games)
    records = run_head_to_head(players, args.games, mode_name, args.jacoby, args.seed, args.workers,
                               record=saving, progress=not args.quiet, on_records=saver if saving else None,
                               luck=args.luck, pool_backend=args.backend)
    summary = summarize_games(records, mode_name, args.jacoby, args.seed, args.n_bootstrap)
    if args.luck:
        summary["luck_adjusted"] = luck_summary(records, mode, args.luck, args.seed)
    summary.update(model1=args.model1, model2=model2, oneply1=args.oneply1, oneply2=args.oneply2,
                   oneply_k=args.oneply_k, oneply_filter=args.oneply_filter, twoply1=players[0].twoply,
                   twoply2=players[1].twoply, plies=args.plies, jacoby=args.jacoby, **provenance(), **args.model_md5)
    print(format_table(summary, args.model1, model2))
    if args.luck:
        print(format_luck(summary["luck_adjusted"]))
    if args.json:
        fileio.write_json(args.json, summary)
    if args.csv:
        write_results_csv(args.csv, summary, records)


def the_players(args, model2: str, gnubg_depth: bool = False) -> tuple[Player, Player]:
    """The two players the flags describe; ``gnubg_depth``: --plies goes to a gnubg-nn player
    (match play takes no --plies)."""
    twoply = (args.twoply_k1, args.twoply_k2)
    return tuple(Player(spec, oneply=oneply, twoply=twoply if two else None,
                        plies=args.plies if gnubg_depth and spec.startswith("gnubg-nn") else None,
                        oneply_k=args.oneply_k, oneply_filter=args.oneply_filter, engine=args.engine)
                 for spec, oneply, two in ((args.model1, args.oneply1, args.twoply1),
                                           (model2, args.oneply2, args.twoply2)))


def save_mat_games(folder: str, records, names, mode, one_per_game: bool = False) -> None:
    """Games as Jellyfish .mat files: a DMP game is a 1-point match (one file each), money
    games share a session file per batch unless ``one_per_game``."""
    if mode.match_length or one_per_game:
        for rec in records:
            write_mat(os.path.join(folder, f"game_{rec.index:07d}.mat"), [rec], names, mode.match_length)
    elif records:
        first, last = records[0].index, records[-1].index
        write_mat(os.path.join(folder, f"games_{first:07d}-{last:07d}.mat"), records, names, 0)


def play_matches(args, model2: str, mode) -> None:
    """--game-mode match: whole matches in duplicate pairs, the match-win rate with its CI."""
    if args.save_games or args.save_extreme_games or args.luck:
        raise cli.UsageError("--save-games, --save-extreme-games and --luck are not available for match play yet")
    if args.backend != "local":
        raise cli.UsageError("match play runs on this machine's workers for now: use --backend local")
    check_play_outputs(args, model2)
    records = run_matches(the_players(args, model2), args.games, mode.length, args.seed, args.workers,
                          not args.quiet, met=args.met)
    summary = summarize_matches(records, args.seed, args.n_bootstrap)
    summary.update(game_mode=mode.name, seed=args.seed, model1=args.model1, model2=model2, oneply1=args.oneply1,
                   oneply2=args.oneply2, oneply_k=args.oneply_k, oneply_filter=args.oneply_filter, met=mode.met.name,
                   **provenance(), **args.model_md5)
    print(format_matches(summary, args.model1, model2))
    if args.json:
        fileio.write_json(args.json, summary)
    if args.csv:
        fileio.write_atomic(args.csv, "\n".join(matches_csv_lines(summary, records)) + "\n")


def matches_against_gnubg(args, level: str) -> None:
    """--game-mode match against the binary: gnubg plays its own cube by match equity."""
    if args.luck or args.save_extreme_games:
        raise cli.UsageError("--luck and --save-extreme-games do not apply to matches against gnubg-ext")
    if args.save_games and any(c.isspace() for c in os.path.abspath(args.save_games)):
        raise cli.UsageError(f"--save-games {args.save_games!r}: gnubg's export needs a path without blanks")
    length = args.match_length or 7
    cli.checked(lambda: game_mode("match", False, length, args.met))  # a bad --met fails before gnubg starts
    csv_path = args.games_csv or os.path.join(
        "runs", f"gnubg_match{length}_{datetime.datetime.now().strftime('%Y%m%d_%H%M%S')}_seed{args.seed}.csv")
    check_play_outputs(args, level, csv_path)
    os.makedirs(os.path.dirname(os.path.abspath(csv_path)), exist_ok=True)
    if args.save_games:
        os.makedirs(args.save_games, exist_ok=True)
    records, errors, matches = run_against_gnubg(the_players(args, level)[0], level, args.games, "match", False,
                                                 args.seed, args.workers, csv_path, not args.quiet,
                                                 args.gnubg_timeout, binary=args.gnubg, match_length=length,
                                                 met=args.met, save_mats=args.save_games)
    for err in errors:
        print(f"play_models.py: gnubg error: {err}", file=cli.sys.stderr)
    if not matches:
        raise cli.UsageError(f"no match against gnubg finished ({errors[0] if errors else 'unknown error'})")
    summary = summarize_matches(matches, args.seed, args.n_bootstrap, paired=False)
    mismatches = [r.index for r in records if r.our_record != r.points]
    summary.update(game_mode="match", seed=args.seed, model1=args.model1, model2=level, oneply1=args.oneply1,
                   oneply_k=args.oneply_k, oneply_filter=args.oneply_filter,
                   games_csv=csv_path, errors=errors, record_mismatches=mismatches, **provenance(), **args.model_md5,
                   duplicate=False, gnubg=preflight(args.gnubg, quiet=True),
                   met="Kazaross-XG2 (ours and gnubg's default)",
                   note="gnubg rolls its own dice (seeded per worker): no duplicate pairs; CIs resample single matches")
    print(format_matches(summary, args.model1, level).replace("in duplicate pairs", "(gnubg's dice)"))
    print(f"  per-game results: {csv_path}; our record disagrees with gnubg's in {len(mismatches)} games")
    if args.json:
        fileio.write_json(args.json, summary)
    if args.csv:
        fileio.write_atomic(args.csv, "\n".join(matches_csv_lines(summary, matches)) + "\n")
    if errors:
        cli.sys.exit(1)


def write_results_csv(path: str, summary: dict, records) -> None:
    """Per-game results with the provenance of the run in '#' header lines."""
    head = {k: summary.get(k) for k in ("command", "commit", "date", "seed", "games", "game_mode", "model1",
                                          "model1_md5", "model2", "model2_md5", "oneply1", "oneply2", "oneply_k",
                                          "oneply_filter", "twoply1", "twoply2", "plies", "jacoby", "n_bootstrap",
                                          "resample_unit")
            if k in summary}
    if "gnubg" in summary:  # against the binary: which one, with which weights
        head["gnubg"] = describe(summary["gnubg"])
    lines = [f"# {k}: {v}" for k, v in head.items()]
    for key in ("win_rate", "meq_per_game", "capped_meq_per_game"):
        if key in summary:
            d = summary[key]
            lines.append(f"# {key}: {d['mean']:.6g} ({ci_text(d, '{:.6g}', template='95% CI {low} .. {high}')})")
    lines.append("game,first,points,result,cube,plies,doubles_1,doubles_2,takes_1,takes_2,drops_1,drops_2")
    for r in records:
        lines.append(",".join(str(x) for x in (r.index, r.first, r.points, r.result, r.cube, r.plies,
                                                 *r.doubles, *r.takes, *r.drops)))
    fileio.write_atomic(path, "\n".join(lines) + "\n")


def against_gnubg(args, level: str) -> None:
    """--model2 gnubg-ext / gnubg-ext-full: money games against the real binary."""
    if args.oneply2 or args.twoply2 or args.plies is not None:
        raise cli.UsageError("--oneply2, --twoply2 and --plies do not apply to gnubg-ext (it plays at its own level)")
    if args.twoply1:
        raise cli.UsageError("--twoply1 against gnubg-ext is not supported yet: the gnubg bridge plays 0- or 1-ply")
    mode_name = args.game_mode or checkpoint_game_mode(args.model1) or "cubeful-money"
    if is_match(mode_name):
        return matches_against_gnubg(args, level)
    if args.save_games or args.save_extreme_games:
        raise cli.UsageError("--save-games and --save-extreme-games apply against gnubg-ext in match play only (gnubg "
                             "keeps its own record of a money session)")
    csv_path = args.games_csv or os.path.join(
        "runs", f"gnubg_{datetime.datetime.now().strftime('%Y%m%d_%H%M%S')}_seed{args.seed}.csv")
    check_play_outputs(args, level, csv_path)
    os.makedirs(os.path.dirname(os.path.abspath(csv_path)), exist_ok=True)
    records, errors, _ = run_against_gnubg(the_players(args, level)[0], level, args.games, mode_name, args.jacoby,
                                           args.seed, args.workers, csv_path, not args.quiet, args.gnubg_timeout,
                                           luck=args.luck, binary=args.gnubg)
    for err in errors:
        print(f"play_models.py: gnubg error: {err}", file=cli.sys.stderr)
    if not records:
        raise cli.UsageError(f"no game against gnubg finished ({errors[0] if errors else 'unknown error'})")
    summary = summarize_games(records, mode_name, args.jacoby, args.seed, args.n_bootstrap, paired=False)
    if args.luck:
        judged = [r for r in records if hasattr(r, "luck")]  # a failed worker's games have no record from gnubg
        if judged:
            summary["luck_adjusted"] = luck_summary(judged, game_mode(mode_name, args.jacoby), args.luck, args.seed)
            summary["luck_adjusted"]["games"] = len(judged)
    mismatches = [r.index for r in records if r.our_record != r.points]
    summary.update(model1=args.model1, model2=level, oneply1=args.oneply1, oneply_k=args.oneply_k,
                   oneply_filter=args.oneply_filter, jacoby=args.jacoby,
                   games_csv=csv_path, errors=errors, record_mismatches=mismatches, **provenance(), **args.model_md5,
                   duplicate=False, gnubg=preflight(args.gnubg, quiet=True),
                   note="gnubg rolls its own dice (seeded per worker): no duplicate pairs; CIs resample single games")
    print(format_table(summary, args.model1, level).replace("in duplicate pairs", "(gnubg's dice)"))
    if "luck_adjusted" in summary:
        print(format_luck(summary["luck_adjusted"]) + f" ({summary['luck_adjusted']['games']} games judged; "
              "games are not paired: each unit is two consecutive games)")
    print(f"  per-game results: {csv_path}; our record disagrees with gnubg's in {len(mismatches)} games")
    if args.json:
        fileio.write_json(args.json, summary)
    if args.csv:
        write_results_csv(args.csv, summary, records)
    if errors:
        cli.sys.exit(1)


if __name__ == "__main__":
    cli.run_main(main)
