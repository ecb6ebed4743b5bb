"""play_models.py's run: the checks of its settings (each misuse one error line, before any
game), then a series of games or matches between the two players on our dice, or against
the gnubg binary on its dice, with the summary printed and the result files written."""
from __future__ import annotations

import datetime
import os

from tdbg.app import backend_flags, cli
from tdbg.app.head_to_head import GNUBG_LEVELS, GnubgSide, format_table, run_against_gnubg, summarize_games
from tdbg.app.play_settings import PlaySettings
from tdbg.game.modes import game_mode
from tdbg.gnubg.gnubg_binary import describe, preflight
from tdbg.infra import fileio, run_outputs
from tdbg.infra.fileio import Output, check_outputs
from tdbg.infra.provenance import file_md5, provenance
from tdbg.play.luck import format_luck, luck_summary
from tdbg.play.matches import format_matches, summarize_matches
from tdbg.play.matfile import write_mat
from tdbg.play.players import Player, checkpoint_game_mode
from tdbg.play.results_file import write_games, write_matches
from tdbg.play.series import Series, Table, play_series


def is_match(mode_name: str | None) -> bool:
    return bool(mode_name) and game_mode(mode_name).is_match


def run(s: PlaySettings) -> None:
    """The whole of play_models.py after its flags are parsed."""
    if s.gnubg_nn and s.model2 and s.model2 != "gnubg-nn":
        raise cli.UsageError("--gnubg-nn and --model2 name different opponents")
    model2 = s.opponent
    if not model2:
        raise cli.UsageError("name the opponent with --model2 or --gnubg-nn")
    # before any game: the files that play, should their paths be overwritten later
    md5 = {"model1_md5": file_md5(s.model1), "model2_md5": file_md5(model2)}
    check_usage(s)
    if model2 in GNUBG_LEVELS:
        if s.where.backend != "local":
            raise cli.UsageError(f"{model2} games run on this machine (its gnubg binary): use --backend local")
        backend_flags.start_backend(s.where, s.workers)
        return against_gnubg(s, model2, md5)
    if s.gnubg:
        raise cli.UsageError("--gnubg names the binary for --model2 gnubg-ext / gnubg-ext-full; "
                             f"{model2} is not the gnubg binary")
    mode_name = s.game_mode
    if mode_name is None:
        mode_name = checkpoint_game_mode(s.model1) or checkpoint_game_mode(model2) or "dmp"
    mode = cli.checked(lambda: game_mode(mode_name, s.jacoby, s.match_length or 7, s.met))
    if mode.is_match:
        return play_matches(s, model2, mode, md5)
    return play_games(s, model2, mode, md5)


def check_usage(s: PlaySettings) -> None:
    """The flags' consistency, whatever the opponent."""
    if bool(s.save_extreme_games) != (s.extreme_threshold is not None):
        raise cli.UsageError("--save-extreme-games DIR and --extreme-threshold X go together")
    if (s.oneply1 and s.twoply1) or (s.oneply2 and s.twoply2):
        raise cli.UsageError("a player looks 1 ply or 2 plies ahead, not both (--oneplyN or --twoplyN)")
    if s.oneply_k is not None and not (s.oneply1 or s.oneply2):
        raise cli.UsageError("--oneply-k filters a 1-ply player's candidates: use it with --oneply1 or --oneply2")
    if s.oneply_filter is not None and not (s.oneply1 or s.oneply2 or s.twoply1 or s.twoply2):
        raise cli.UsageError("--oneply-filter prunes a lookahead's replies: use it with --oneplyN or --twoplyN")
    if s.luck and s.luck != "gnubg-nn" and is_match(checkpoint_game_mode(s.luck)):  # fails before any game
        raise cli.UsageError(f"{s.luck} is a match-play model: it cannot judge the luck of single games")
    if (s.match_length is not None or s.met) and not is_match(s.game_mode or checkpoint_game_mode(s.model1)):
        raise cli.UsageError("--match-length and --met apply to --game-mode match only")


def check_play_outputs(s: PlaySettings, model2: str, games_csv: str | None = None) -> None:
    """fileio's output policy for every file this run writes, before any game is played."""
    inputs = {"--model1": s.model1, "--model2": model2}
    check_outputs([Output("--json", s.json, "json"), Output("--csv", s.csv, "text"),
                   Output("--games-csv" if s.games_csv else "the games CSV", games_csv, "text"),
                   Output("--save-games", s.save_games, "folder"),
                   Output("--save-extreme-games", s.save_extreme_games, "folder")], s.overwrite,
                  {k: v for k, v in inputs.items() if v and os.path.isfile(v)})


def the_players(s: PlaySettings, model2: str, gnubg_depth: bool = False) -> tuple[Player, Player]:
    """The two players the flags describe; ``gnubg_depth``: --plies goes to a gnubg-nn player
    (match play takes no --plies)."""
    twoply = (s.twoply_k1, s.twoply_k2)
    return tuple(Player(spec, oneply=oneply, twoply=twoply if two else None,
                        plies=s.plies if gnubg_depth and spec.startswith("gnubg-nn") else None,
                        oneply_k=s.oneply_k, oneply_filter=s.oneply_filter, engine=s.engine)
                 for spec, oneply, two in ((s.model1, s.oneply1, s.twoply1), (model2, s.oneply2, s.twoply2)))


def play_games(s: PlaySettings, model2: str, mode, md5: dict) -> None:
    """Single games in duplicate pairs on our dice."""
    check_play_outputs(s, model2)
    backend_flags.start_backend(s.where, s.workers)
    names = (os.path.basename(s.model1), os.path.basename(model2))

    def saver(records):  # written as each batch finishes, so a crash keeps them
        if s.save_games:
            save_mat_games(s.save_games, records, names, mode)
        if s.save_extreme_games:
            save_mat_games(s.save_extreme_games, [r for r in records if abs(r.points) >= s.extreme_threshold],
                           names, mode, one_per_game=True)
        for rec in records:  # written: only the result stays in memory
            rec.turns = []

    players = the_players(s, model2, gnubg_depth=True)
    if s.plies is not None and all(p.plies is None for p in players):
        raise cli.UsageError("--plies sets gnubg-nn's depth, and neither player is gnubg-nn")
    saving = bool(s.save_games or s.save_extreme_games)
    series = Series(players, Table(mode.name, s.jacoby), s.games, s.seed, s.workers, record=saving, luck=s.luck,
                    pool=s.where.backend)
    records = play_series(series, progress=not s.quiet, on_records=saver if saving else None)
    summary = summarize_games(records, mode.name, s.jacoby, s.seed, s.n_bootstrap)
    if s.luck:
        summary["luck_adjusted"] = luck_summary(records, mode, s.luck, s.seed)
    summary.update(model1=s.model1, model2=model2, oneply1=s.oneply1, oneply2=s.oneply2, oneply_k=s.oneply_k,
                   oneply_filter=s.oneply_filter, twoply1=players[0].twoply, twoply2=players[1].twoply,
                   plies=s.plies, jacoby=s.jacoby, **provenance(), **md5)
    print(format_table(summary, s.model1, model2))
    if s.luck:
        print(format_luck(summary["luck_adjusted"]))
    if s.json:
        fileio.write_json(s.json, summary)
    if s.csv:
        write_games(s.csv, summary, records)


def save_mat_games(folder: str, records, names, mode, one_per_game: bool = False) -> None:
    """Games as Jellyfish .mat files: a DMP game is a 1-point match (one file each), money
    games share a session file per batch unless ``one_per_game``."""
    if mode.match_length or one_per_game:
        for rec in records:
            write_mat(os.path.join(folder, f"game_{rec.index:07d}.mat"), [rec], names, mode.match_length)
    elif records:
        first, last = records[0].index, records[-1].index
        write_mat(os.path.join(folder, f"games_{first:07d}-{last:07d}.mat"), records, names, 0)


def play_matches(s: PlaySettings, model2: str, mode, md5: dict) -> None:
    """--game-mode match: whole matches in duplicate pairs, the match-win rate with its CI."""
    if s.save_games or s.save_extreme_games or s.luck:
        raise cli.UsageError("--save-games, --save-extreme-games and --luck are not available for match play yet")
    if s.where.backend != "local":
        raise cli.UsageError("match play runs on this machine's workers for now: use --backend local")
    check_play_outputs(s, model2)
    series = Series(the_players(s, model2), Table("match", match_length=mode.length, met=s.met), s.games, s.seed,
                    s.workers)
    records = play_series(series, progress=not s.quiet)
    summary = summarize_matches(records, s.seed, s.n_bootstrap)
    summary.update(game_mode=mode.name, seed=s.seed, model1=s.model1, model2=model2, oneply1=s.oneply1,
                   oneply2=s.oneply2, oneply_k=s.oneply_k, oneply_filter=s.oneply_filter, met=mode.met.name,
                   **provenance(), **md5)
    print(format_matches(summary, s.model1, model2))
    if s.json:
        fileio.write_json(s.json, summary)
    if s.csv:
        write_matches(s.csv, summary, records)


def gnubg_csv_path(s: PlaySettings, what: str) -> str:
    """--games-csv, or runs/gnubg_<what><time>_seed<seed>.csv."""
    return s.games_csv or os.path.join(
        "runs", f"gnubg_{what}{datetime.datetime.now().strftime('%Y%m%d_%H%M%S')}_seed{s.seed}.csv")


def against_gnubg(s: PlaySettings, level: str, md5: dict) -> None:
    """--model2 gnubg-ext / gnubg-ext-full: money games (or matches) against the real binary."""
    if s.oneply2 or s.twoply2 or s.plies is not None:
        raise cli.UsageError("--oneply2, --twoply2 and --plies do not apply to gnubg-ext (it plays at its own level)")
    if s.twoply1:
        raise cli.UsageError("--twoply1 against gnubg-ext is not supported yet: the gnubg bridge plays 0- or 1-ply")
    mode_name = s.game_mode or checkpoint_game_mode(s.model1) or "cubeful-money"
    if is_match(mode_name):
        return matches_against_gnubg(s, level, md5)
    if s.save_games or s.save_extreme_games:
        raise cli.UsageError("--save-games and --save-extreme-games apply against gnubg-ext in match play only (gnubg "
                             "keeps its own record of a money session)")
    csv_path = gnubg_csv_path(s, "")
    check_play_outputs(s, level, csv_path)
    os.makedirs(os.path.dirname(os.path.abspath(csv_path)), exist_ok=True)
    series = Series(the_players(s, level), Table(mode_name, s.jacoby), s.games, s.seed, s.workers, luck=s.luck)
    gnubg = GnubgSide(level, s.gnubg, s.gnubg_timeout, csv_path)
    records, errors, _ = run_against_gnubg(series, gnubg, progress=not s.quiet)
    report_errors(errors, records, "game")
    summary = summarize_games(records, mode_name, s.jacoby, s.seed, s.n_bootstrap, paired=False)
    if s.luck:
        judged = [r for r in records if hasattr(r, "luck")]  # a failed worker's games have no record from gnubg
        if judged:
            summary["luck_adjusted"] = luck_summary(judged, game_mode(mode_name, s.jacoby), s.luck, s.seed)
            summary["luck_adjusted"]["games"] = len(judged)
    mismatches = [r.index for r in records if r.our_record != r.points]
    summary.update(model1=s.model1, model2=level, oneply1=s.oneply1, oneply_k=s.oneply_k,
                   oneply_filter=s.oneply_filter, jacoby=s.jacoby,
                   games_csv=csv_path, errors=errors, record_mismatches=mismatches, **provenance(), **md5,
                   duplicate=False, gnubg=preflight(s.gnubg, quiet=True),
                   note="gnubg rolls its own dice (seeded per worker): no duplicate pairs; CIs resample single games")
    print(format_table(summary, s.model1, level).replace("in duplicate pairs", "(gnubg's dice)"))
    if "luck_adjusted" in summary:
        print(format_luck(summary["luck_adjusted"]) + f" ({summary['luck_adjusted']['games']} games judged; "
              "games are not paired: each unit is two consecutive games)")
    print(f"  per-game results: {csv_path}; our record disagrees with gnubg's in {len(mismatches)} games")
    if s.json:
        fileio.write_json(s.json, summary)
    if s.csv:
        write_games(s.csv, summary, records, describe(summary["gnubg"]))
    if errors:
        cli.sys.exit(1)


def matches_against_gnubg(s: PlaySettings, level: str, md5: dict) -> None:
    """--game-mode match against the binary: gnubg plays its own cube by match equity."""
    if s.luck or s.save_extreme_games:
        raise cli.UsageError("--luck and --save-extreme-games do not apply to matches against gnubg-ext")
    if s.save_games and any(c.isspace() for c in os.path.abspath(s.save_games)):
        raise cli.UsageError(f"--save-games {s.save_games!r}: gnubg's export needs a path without blanks")
    length = s.match_length or 7
    cli.checked(lambda: game_mode("match", False, length, s.met))  # a bad --met fails before gnubg starts
    csv_path = gnubg_csv_path(s, f"match{length}_")
    check_play_outputs(s, level, csv_path)
    os.makedirs(os.path.dirname(os.path.abspath(csv_path)), exist_ok=True)
    run_outputs.claim()   # gnubg writes the match files (into --save-games, made with the first): old ones go now
    series = Series(the_players(s, level), Table("match", False, length, s.met), s.games, s.seed, s.workers)
    gnubg = GnubgSide(level, s.gnubg, s.gnubg_timeout, csv_path, save_mats=s.save_games)
    records, errors, matches = run_against_gnubg(series, gnubg, progress=not s.quiet)
    report_errors(errors, matches, "match")
    summary = summarize_matches(matches, s.seed, s.n_bootstrap, paired=False)
    mismatches = [r.index for r in records if r.our_record != r.points]
    summary.update(game_mode="match", seed=s.seed, model1=s.model1, model2=level, oneply1=s.oneply1,
                   oneply_k=s.oneply_k, oneply_filter=s.oneply_filter,
                   games_csv=csv_path, errors=errors, record_mismatches=mismatches, **provenance(), **md5,
                   duplicate=False, gnubg=preflight(s.gnubg, quiet=True),
                   met="Kazaross-XG2 (ours and gnubg's default)",
                   note="gnubg rolls its own dice (seeded per worker): no duplicate pairs; CIs resample single matches")
    print(format_matches(summary, s.model1, level).replace("in duplicate pairs", "(gnubg's dice)"))
    print(f"  per-game results: {csv_path}; our record disagrees with gnubg's in {len(mismatches)} games")
    if s.json:
        fileio.write_json(s.json, summary)
    if s.csv:
        write_matches(s.csv, summary, matches)
    if errors:
        cli.sys.exit(1)


def report_errors(errors: list[str], finished: list, what: str) -> None:
    """gnubg's errors on stderr; UsageError when not one game (match) finished."""
    for err in errors:
        print(f"play_models.py: gnubg error: {err}", file=cli.sys.stderr)
    if not finished:
        raise cli.UsageError(f"no {what} against gnubg finished ({errors[0] if errors else 'unknown error'})")
