#!/usr/bin/env python3
"""Error rates of our model from GNU Backgammon's own analysis.

Plays games with the model (self-play, or against an opponent), writes them as
.mat files, has the gnubg binary import and analyse them (chequer and cube
analysis at --ply), and reports the model's error rate in mEMG per decision and
the Snowie-style error rate, with bootstrap 95% CIs over games, and gnubg's verbal
rating of the overall rate as the binary itself gives it (its errorrating()).

  python gnubg_eval.py --model models/cubeful.pt --games 200 --ply 0 --json out.json
  python gnubg_eval.py --model best_models/match_256x2_outcomes.pt --match-length 7 --games 100

Match play: --games counts matches, each written as one .mat file of its length, so
gnubg judges every decision at its score by its own match equity table.

  python gnubg_eval.py --from-mat DIR [--player td]

rates one player's decisions in .mat files already played, e.g. the matches
play_models.py --save-games DIR kept against gnubg-ext (gnubg's own record of them;
our side is named "td"): where the model loses against the binary itself.  With --luck
gnubg also judges the dice, and the player's match-win rate (money: points per game) is
reported as played and with the luck taken out (gnubg's luck-adjusted result).

Definitions (as gnubg's `show statistics`): chequer rate = 1000 x chequer error (EMG)
/ unforced moves; overall rate = 1000 x (chequer + cube error) / (unforced moves +
close or actual cube decisions); Snowie rate = 1000 x total error / all moves of
both players.  gnubg's rating (Awful! ... Supernatural) is its verdict on the overall
rate, the same per-decision error its `show statistics` rates a player by.  In DMP
files (1-point matches) gnubg states errors in match winning chances instead of EMG.
"""
from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile

from tdbg.app import cli
from tdbg.app.head_to_head import run_head_to_head
from tdbg.play.players import Player, checkpoint_game_mode
from tdbg.app.match_series import run_matches
from tdbg.game.modes import GAME_MODES, game_mode, mode_class
from tdbg.gnubg.gnubg_analysis import (analyse_files, as_player_x, error_rates, gnubg_ratings, luck_adjusted,
                                       write_scripts)
from tdbg.gnubg.gnubg_binary import GnubgError, preflight
from tdbg.gnubg.gnubg_protocol import OUR_NAME
from tdbg.infra import fileio, workers
from tdbg.infra.errors import InputError
from tdbg.infra.fileio import KIND_NAMES, Output, check_outputs, file_kind
from tdbg.infra.provenance import provenance
from tdbg.infra.stats import ci_text
from tdbg.play.match import mirror_key
from tdbg.play.matfile import write_mat

def main() -> None:
    p = cli.Parser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", help="checkpoint to analyse (it plays the games)")
    p.add_argument("--from-mat", metavar="DIR",
                   help="instead of playing, analyse the .mat files in DIR (e.g. play_models.py --save-games "
                        "against gnubg-ext) for the player named --player")
    p.add_argument("--player", default=OUR_NAME,
                   help=f"with --from-mat: whose decisions to rate (default {OUR_NAME!r}, our side in gnubg-ext's "
                        f"saved matches)")
    p.add_argument("--opponent", default="self", help="self, a named opponent or a checkpoint")
    p.add_argument("--self-play", action="store_true",
                   help="the model plays itself and both sides' decisions are analysed (the default opponent)")
    p.add_argument("--games", type=cli.count_arg(100_000, "games (each one is analysed by gnubg)"), default=100,
                   help="games to play and analyse (match play: matches)")
    p.add_argument("--game-mode", choices=GAME_MODES, default=None, help="default: the checkpoint's")
    p.add_argument("--cubeful", action="store_true",
                   help="PureTD's flag: cubeful money games (the same as --game-mode cubeful-money; Jacoby "
                        "unless --no-jacoby), for a cubeful checkpoint")
    p.add_argument("--match-length", type=cli.match_length_arg, default=None,
                   help="match play: the matches' length in points (default 7); each match is one .mat file that "
                   "gnubg analyses at its scores, by its match equity table")
    p.add_argument("--ply", type=int, choices=(0, 1, 2), default=0, help="gnubg analysis depth")
    p.add_argument("--luck", action="store_true",
                   help="gnubg also judges the dice: the rated player's actual and luck-adjusted results (match "
                        "play: match-win rate; money: points per game), not for self-play")
    p.add_argument("--jacoby", action=cli.argparse.BooleanOptionalAction, default=True,
                   help="money games: gammons count only once the cube has been turned")
    p.add_argument("--oneply", action="store_true", help="our model plays with 1-ply lookahead")
    p.add_argument("--workers", type=cli.workers_arg, default=1,
                   help=f"game-playing and gnubg processes (at most {workers.MAX_WORKERS_PER_CORE} per core)")
    p.add_argument("--seed", type=int, default=0, help="random seed (the dice)")
    p.add_argument("--gnubg-workers", type=cli.workers_arg, default=None,
                   help="gnubg processes analysing at once (default: --workers)")
    p.add_argument("--chunk-size", type=cli.positive_int, default=None,
                   help=".mat files per gnubg process (default: the files split evenly over --gnubg-workers)")
    p.add_argument("--export-only", action="store_true",
                   help="play and write the .mat files and gnubg's scripts (analyse.sh) into --out; do not run gnubg")
    p.add_argument("--keep-files", action="store_true",
                   help="keep the .mat files and gnubg's scripts (always kept with --out)")
    p.add_argument("--out", help="folder for the .mat files and scripts (default: a temporary folder, removed "
                   "after the analysis unless --keep-files)")
    p.add_argument("--gnubg", metavar="PATH", help="the gnubg binary (default: $GNUBG_BINARY, else make gnubg's "
                   "1.08.003 build, else gnubg on PATH or /usr/games/gnubg)")
    p.add_argument("--json", metavar="PATH", help="write the result as JSON")
    p.add_argument("--overwrite", action="store_true",
                   help="allow replacing existing output files of the same kind (--json, the .mat files in --out)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    args = p.parse_args()
    if args.from_mat:
        return analyse_folder(args)
    if not args.model:
        raise cli.UsageError("give --model (a checkpoint to play and analyse) or --from-mat DIR")
    if args.cubeful:  # PureTD's name for cubeful money play
        if args.game_mode not in (None, "cubeful-money"):
            raise cli.UsageError(f"--cubeful is --game-mode cubeful-money: not with --game-mode {args.game_mode}")
        args.game_mode = "cubeful-money"
    if args.self_play and args.opponent != "self":
        raise cli.UsageError("--self-play and --opponent name different opponents")
    if args.luck and args.opponent == "self":
        raise cli.UsageError("--luck rates one player against another: give --opponent, or --from-mat DIR "
                             "(in self-play the luck-adjusted result is even by symmetry)")
    if args.export_only and not args.out:
        raise cli.UsageError("--export-only needs --out DIR for the files")
    check_outputs([Output("--out", args.out, "folder"), Output("--json", args.json, "json")], args.overwrite,
                  {"--model": args.model})
    # the arguments' own consistency first: it needs no binary, so the same misuse gets the same
    # error on a machine with or without gnubg
    mode_name = args.game_mode or checkpoint_game_mode(args.model) or "dmp"
    if args.match_length is not None and not mode_class(mode_name).is_match:
        raise cli.UsageError("--match-length applies to --game-mode match only")
    try:
        info = preflight(args.gnubg)
        if not args.export_only:
            gnubg_ratings([0.0], info["binary"])   # the rating the report ends with works, before any game
    except GnubgError as exc:
        raise cli.UsageError(str(exc)) from None
    mode = game_mode(mode_name, args.jacoby, (args.match_length or 7) if mode_class(mode_name).is_match else 0)
    opponent = args.model if args.opponent == "self" else args.opponent
    # the opponent looks ahead as our model does only when it is our model
    players = (Player(args.model, oneply=args.oneply), Player(opponent, oneply=args.oneply and args.opponent == "self"))
    out_dir = args.out or tempfile.mkdtemp(prefix="gnubg_eval_games_")
    keep = bool(args.out or args.keep_files)
    os.makedirs(out_dir, exist_ok=True)
    files = []
    names = ("model", "opponent" if args.opponent != "self" else "model_b")
    # the record(s) each file holds, by index: the bootstrap's unit is the duplicate pair (index // 2)
    held: dict[str, list[int]] = {}
    # self-play: the same deterministic player in both seats makes record 2k+1 replay 2k with the
    # seats swapped; such a record is the same game again, so it is neither written nor analysed
    mirrored = Mirrors(args.opponent == "self")

    def saver(batch):  # written as each batch ends (duplicate pairs stay in one batch)
        records = mirrored.distinct(sorted(batch, key=lambda r: r.index))
        if mode.match_length:  # a DMP game is a 1-point match: one file each
            for rec in records:
                files.append(os.path.join(out_dir, f"game_{rec.index:07d}.mat"))
                write_mat(files[-1], [rec], names, mode.match_length)
                held[files[-1]] = [rec.index]
        else:
            for s in range(0, len(records), 100):
                files.append(os.path.join(out_dir, f"games_{records[s].index:07d}.mat"))
                write_mat(files[-1], records[s:s + 100], names, 0)
                held[files[-1]] = [r.index for r in records[s:s + 100]]
        for rec in batch:   # only the results stay in memory
            rec.turns = []

    if mode.is_match:  # one .mat file a match, at its length: gnubg analyses each game at its score
        try:
            played = run_matches(players, args.games, mode.match_length, args.seed, args.workers,
                                 progress=not args.quiet, record=True)
        except InputError as exc:
            raise cli.UsageError(str(exc)) from None
        for m in mirrored.distinct([m for m in played if m.winner >= 0]):
            # (an abandoned match, a game over the ply limit, has no file gnubg could finish)
            files.append(os.path.join(out_dir, f"match_{m.index:07d}.mat"))
            write_mat(files[-1], m.game_records, names, mode.match_length)
            held[files[-1]] = [m.index]   # every game of the match is the match's
        records_played = len([m for m in played if m.winner >= 0])
    else:
        records_played = args.games
        run_head_to_head(players, args.games, mode_name, args.jacoby, args.seed, args.workers, record=True,
                         progress=not args.quiet, on_records=saver)
    files.sort()
    gnubg_workers = args.gnubg_workers or args.workers
    if args.export_only:
        write_scripts(files, args.ply, args.jacoby, info["binary"], out_dir, args.chunk_size, gnubg_workers, args.luck)
        print(f"{len(files)} .mat files and gnubg's scripts in {out_dir}; run {os.path.join(out_dir, 'analyse.sh')}")
        return
    try:
        games = analyse_files(files, args.ply, args.jacoby, info["binary"], gnubg_workers, args.chunk_size,
                              out_dir if keep else None, args.luck)
    except GnubgError as exc:
        raise cli.UsageError(str(exc)) from None
    finally:
        if not keep:
            shutil.rmtree(out_dir, ignore_errors=True)
    sides = ("X", "O") if args.opponent == "self" else ("X",)
    by_path = {os.path.abspath(f): rec for f, rec in held.items()}

    def record_of(g):   # a match file's games all belong to its one record; a session's are its records in order
        recs = by_path[os.path.abspath(g["file"])]
        if len(recs) > 1 and g["game"] >= len(recs):
            raise cli.UsageError(f"gnubg read {g['game'] + 1}+ games in {g['file']}, where {len(recs)} were written")
        return recs[g["game"]] if len(recs) > 1 else recs[0]
    pairs = [record_of(g) // 2 for g in games]
    report(args, info, games, sides, mode.analysis_units, out_dir if keep else None,
           {"model": args.model, "opponent": args.opponent, "game_mode": mode_name,
            "records_played": records_played, "mirrored_records_skipped": mirrored.skipped,
            "resample_unit": PAIR_UNIT}, pairs)


PAIR_UNIT = ("duplicate pairs (records 2k and 2k+1 share their dice; where 2k+1 mirrors 2k, the pair is the one "
             "game 2k)")


class Mirrors:
    """Self-play with the same deterministic player in both seats: record 2k+1 (a game, or a
    match) replays record 2k with the seats swapped, move for move (match.mirror_key, from our
    own records: gnubg's figures for the two differ in float32's last digits, and before the
    .mat fix a drop in the left column made gnubg read another game).  ``distinct`` keeps 2k
    and drops such a 2k+1, counting it; a 2k+1 that differs (a player with randomness) stays,
    as does any record outside self-play."""

    def __init__(self, active: bool):
        self.active, self.skipped, self._keys = active, 0, {}

    def distinct(self, records: list) -> list:
        if not self.active:
            return records
        out = []
        for rec in records:
            key = mirror_key(rec.game_records if hasattr(rec, "game_records") else rec)
            if rec.index % 2 == 0:
                self._keys[rec.index] = key
            elif self._keys.pop(rec.index - 1, None) == key:
                self.skipped += 1
                continue
            out.append(rec)
        return out


def analyse_folder(args) -> None:
    """--from-mat: gnubg's analysis of saved .mat files, rating the player named --player."""
    if args.model or args.opponent != "self" or args.self_play or args.out or args.export_only or args.cubeful:
        raise cli.UsageError("--from-mat analyses saved files: it takes no --model, --opponent, --self-play, "
                             "--out, --export-only or --cubeful (the files say how they were played)")
    if not os.path.isdir(args.from_mat):
        raise cli.UsageError(f"--from-mat {args.from_mat}: no such folder")
    files = sorted(os.path.join(args.from_mat, n) for n in os.listdir(args.from_mat) if n.endswith(".mat"))
    if not files:
        raise cli.UsageError(f"--from-mat {args.from_mat}: no .mat files there")
    for path in files:  # before gnubg: it would read an unreadable file as a match of no games
        check_mat_file(path)
    check_outputs([Output("--json", args.json, "json")], args.overwrite, {})
    try:
        info = preflight(args.gnubg)
        gnubg_ratings([0.0], info["binary"])
        games = as_player_x(analyse_files(files, args.ply, args.jacoby, info["binary"],
                                          args.gnubg_workers or args.workers, args.chunk_size, luck=args.luck),
                            args.player)
    except GnubgError as exc:
        raise cli.UsageError(str(exc)) from None
    opponents = sorted({g["names"]["O"] for g in games})
    units = "MWC" if any(g.get("length") for g in games) else "EMG"
    # the games of one match are not independent (the score, the cube's value to each side): a
    # match is the unit; money games (one file may hold a session) each stand alone
    resample = [g["file"] if g.get("length") else f"{g['file']}#{g['game']}" for g in games]
    report(args, info, games, ("X",), units, args.from_mat,
           {"model": None, "player": args.player, "opponent": ", ".join(opponents), "files": len(files),
            "game_mode": "match" if units == "MWC" else "money",
            "resample_unit": "matches (a file's games)" if units == "MWC" else "games"}, resample)


def check_mat_file(path: str) -> None:
    """UsageError unless ``path`` can be read and looks like a .mat match (text with a
    "N point match" line)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(1 << 20)
    except OSError as exc:
        raise cli.UsageError(f"--from-mat: cannot read {path}: {exc.strerror}") from None
    kind = file_kind(path)
    if kind not in ("text", "json"):
        raise cli.UsageError(f"--from-mat: {path} is {KIND_NAMES.get(kind, 'empty')}, not a .mat match (text)")
    if not re.search(rb"^\s*\d+ point match\s*$", data, re.M):
        raise cli.UsageError(f"--from-mat: {path} is not a .mat match (no 'N point match' line)")


def report(args, info: dict, games: list[dict], sides: tuple[str, ...], units: str, mat_folder, about: dict,
           resample: list) -> None:
    """Print and (--json) write the error rates of ``sides`` in the analysed ``games``; the
    CIs resample the independent units ``resample`` names (one key a game)."""
    if not games:
        raise cli.UsageError(f"gnubg analysed no games in {mat_folder}: nothing to rate")
    result = error_rates(games, sides, args.seed, units=resample)
    # gnubg's 'Overall rating' and 'Chequerplay rating' rows; a higher error rate is a lower
    # rating, so the CI's ends swap
    rated = [result[k] for k in ("overall_memg_per_decision", "chequer_memg_per_move")]
    values = [d[k] for d in rated for k in ("mean", "ci_high", "ci_low")]
    try:   # no interval (fewer than 2 units): no rating of its ends either
        got = iter(gnubg_ratings([v for v in values if v is not None], info["binary"]))
        rating = [None if v is None else next(got) for v in values]
    except GnubgError as exc:   # checked before any game, so unexpected: keep the analysed rates
        print(f"gnubg_eval.py: warning: {exc}; the rates are reported without gnubg's rating", file=sys.stderr)
        rating = ["n/a"] * 6
    if args.luck:
        try:
            result["luck"] = luck_adjusted(games, units == "MWC", args.seed)
        except GnubgError as exc:
            raise cli.UsageError(str(exc)) from None
    result["gnubg_rating"] = dict(zip(("mean", "ci_low", "ci_high"), rating[:3]))
    result["gnubg_chequer_rating"] = dict(zip(("mean", "ci_low", "ci_high"), rating[3:]))
    result.update(about)
    result.update(ply=args.ply, seed=args.seed, units=units, gnubg=info, mat_folder=mat_folder,
                  **provenance())
    r = result
    who = r["model"] or f"{r['player']} in {args.from_mat}"
    print(f"{who} ({'self-play' if r['opponent'] == 'self' else 'vs ' + r['opponent']}), {r['games']} games, "
          f"gnubg {info['version']} analysis at {args.ply}-ply")
    skipped = f"{r['mirrored_records_skipped']} mirrored records not analysed again; " \
        if r.get("mirrored_records_skipped") else ""
    print(f"  {skipped}CIs resample {r['bootstrap_units']} {r['resample_unit']}")
    for key, label in (("chequer_memg_per_move", "chequer error rate (m per unforced move)"),
                       ("overall_memg_per_decision", "overall error rate (m per decision)"),
                       ("snowie_error_rate", "Snowie error rate")):
        d = r[key]
        print(f"  {label:42s} {d['mean']:8.2f}  {ci_text(d)}")
    errs = {k: v for k, v in r["cube_errors"].items() if v["count"]}
    if errs:
        print("  cube errors (count, total m): " + ", ".join(f"{k} {v['count']} ({v['error']:.0f})" for k, v in errs.items()))
    if r.get("doubles_by_score"):
        worst = list(r["doubles_by_score"].items())[:6]
        print("  doubles by score (doubler-opponent away: doubles, below gnubg's doubling point, their cost in mMWC), "
              "most costly first: "
              + ", ".join(f"{k}: {v['doubles']}, {v['wrong']}, {v['error']:.0f}" for k, v in worst))
    if "luck" in r:
        lk = r["luck"]
        for key, label in (("actual", f"actual {lk['measure']}"), ("luck_adjusted", f"luck-adjusted {lk['measure']}"),
                           ("luck", "net luck (MWC)" if units == "MWC" else "net luck")):
            d = lk[key]
            print(f"  {label:42s} {d['mean']:8.4f}  {ci_text(d, '{:.4f}')}  "
                  f"({lk['n']} {lk['units']})")
    for key, label in (("gnubg_rating", "gnubg rating (of the overall rate)"),
                       ("gnubg_chequer_rating", "gnubg chequerplay rating")):
        g = r[key]
        ends = f"95% CI: {g['ci_low']} to {g['ci_high']}" if g["ci_low"] is not None else "no interval"
        print(f"  {label:42s} {g['mean']}  ({ends})")
    if args.json:
        fileio.write_json(args.json, result)


if __name__ == "__main__":
    cli.run_main(main)
