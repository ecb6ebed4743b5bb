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

Definitions (as gnubg's `show statistics`): chequer rate = 1000 x chequer error (EMG)
/ unforced moves; overall rate = 1000 x (chequer + cube error) / (unforced moves +
close or actual cube decisions); Snowie rate = 1000 x total error / all moves of
both players.  gnubg's rating (Awful! ... Supernatural) is its verdict on the overall
rate, the same per-decision error its `show statistics` rates a player by.  In DMP
files (1-point matches) gnubg states errors in match winning chances instead of EMG.
"""
from __future__ import annotations

import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

import cli
from fileio import Output, check_outputs
from gnubg_binary import GnubgError, preflight
from head_to_head import checkpoint_game_mode, run_head_to_head
from model import git_commit
from workers import child_dies_with_us
from modes import GAME_MODES, game_mode

GNUBG_PY = r'''
import json
import gnubg
cfg = json.load(open(%(cfg)r))
CUBE_KINDS = %(cube_kinds)r
gnubg.command("set jacoby %(jacoby)s")
gnubg.command("set analysis chequerplay evaluation plies %(ply)d")
gnubg.command("set analysis cubedecision evaluation plies %(ply)d")
gnubg.command("set analysis luck off")
for path in cfg["files"]:
    try:
        gnubg.command('import mat "%%s"' %% path)
        gnubg.command("analyse match")
        m = gnubg.match(1, 0, 1, 0)
    except Exception as exc:
        print("@@FAIL " + json.dumps({"file": path, "error": str(exc)}), flush=True)
        continue
    for i, g in enumerate(m.get("games", [])):
        out = {"file": path, "game": i, "stats": {}}
        for side in ("X", "O"):
            s = g["stats"].get(side, {})
            mv, cb = s.get("moves", {}), s.get("cube", {})
            cube_err = sum(v for k, v in cb.items() if k.startswith("err-") and k.endswith("-skill"))
            out["stats"][side] = {"unforced": mv.get("unforced-moves", 0), "total": mv.get("total-moves", 0),
                                  "chequer": abs(mv.get("error-skill", 0.0)), "cube": abs(cube_err),
                                  "close_cube": cb.get("close-cube", 0),
                                  "cube_kinds": {k: [cb.get(k, 0), abs(cb.get("err-" + k + "-skill", 0.0))]
                                                 for k in CUBE_KINDS}}
        info = g.get("info", {})
        out["score"] = [info.get("score-X", 0), info.get("score-O", 0)]
        out["length"] = m.get("match-info", {}).get("match-length", 0)
        # each double with gnubg's cubeful values of no double and double/take (match play: MWC)
        out["doubles"] = [[a["player"], a["analysis"]["nd-cubeful-eq"], a["analysis"]["dt-cubeful-eq"]]
                          for a in g.get("game", []) if a.get("action") == "double"
                          and "nd-cubeful-eq" in a.get("analysis", {})]
        print("@@GAME " + json.dumps(out), flush=True)
'''


# gnubg's kinds of cube error (its statistics' dict keys; each has a count and an error)
CUBE_KINDS = ("missed-double-below-cp", "missed-double-above-cp", "wrong-double-below-dp", "wrong-double-above-tg",
              "wrong-take", "wrong-drop")

# gnubg's verbal ratings, indexed by its errorrating() (analysis.c: aszRating, arThrsRating)
RATINGS = ("Awful!", "Beginner", "Casual player", "Intermediate", "Advanced", "Expert", "World class",
           "Supernatural")


def gnubg_ratings(rates: list[float], binary: str) -> list[str]:
    """gnubg's verbal rating of each error rate (milli-units per decision, normalised: the
    overall rate), from the binary's own errorrating(), so our reading of its thresholds
    never stands in for them."""
    with tempfile.TemporaryDirectory(prefix="gnubg_rating_") as tmp:
        script = os.path.join(tmp, "rating.py")
        with open(script, "w") as fh:
            fh.write("import json, gnubg\n"
                     f"print('@@RATING ' + json.dumps([gnubg.errorrating(r / 1000.0) for r in {list(map(float, rates))!r}]))\n")
        proc = subprocess.run([binary, "-t", "-q", "-r", "-p", script], capture_output=True, text=True,
                              preexec_fn=child_dies_with_us())
    for line in proc.stdout.splitlines():
        if line.startswith("@@RATING "):
            return [RATINGS[i] if 0 <= i < len(RATINGS) else "n/a" for i in json.loads(line[9:])]
    raise GnubgError(f"gnubg gave no rating (exit {proc.returncode}): {proc.stderr.strip().splitlines()[-1:]}")


def write_scripts(files: list[str], ply: int, jacoby: bool, binary: str, folder: str,
                  chunk_size: int | None = None, workers: int = 1) -> list[str]:
    """gnubg's analysis scripts for the .mat files in chunks (``chunk_size`` files each, else
    one chunk per worker), and ``analyse.sh`` running them with ``workers`` gnubg at a time."""
    size = chunk_size or max(1, -(-len(files) // workers))
    scripts = []
    for k, s in enumerate(range(0, len(files), size)):
        cfg = os.path.join(folder, f"cfg{k}.json")
        with open(cfg, "w") as fh:
            json.dump({"files": [os.path.abspath(f) for f in files[s:s + size]]}, fh)
        scripts.append(os.path.join(folder, f"analyse{k}.py"))
        with open(scripts[-1], "w") as fh:
            fh.write(GNUBG_PY % {"cfg": os.path.abspath(cfg), "jacoby": "on" if jacoby else "off", "ply": ply,
                                 "cube_kinds": CUBE_KINDS})
    with open(os.path.join(folder, "analyse.sh"), "w") as fh:
        fh.write("#!/bin/sh\n# gnubg's analysis of these .mat files; each line of output starting @@GAME is one game\n"
                 f"cd \"$(dirname \"$0\")\"\nls analyse*.py | xargs -P {workers} -I{{}} "
                 f"{binary} -t -q -r -p {{}}\n")
    return scripts


def analyse_files(files: list[str], ply: int, jacoby: bool, binary: str, workers: int = 1,
                  chunk_size: int | None = None, folder: str | None = None) -> list[dict]:
    """Per-game statistics from gnubg's analysis of the .mat files: chunks of ``chunk_size``
    files, ``workers`` gnubg processes at a time; the scripts go into ``folder``."""
    tmp = folder or tempfile.mkdtemp(prefix="gnubg_eval_")
    scripts = write_scripts(files, ply, jacoby, binary, tmp, chunk_size, workers)
    games, failures, warnings = [], [], []
    running, pending = [], list(scripts)
    while pending or running:
        while pending and len(running) < workers:
            running.append(subprocess.Popen([binary, "-t", "-q", "-r", "-p", pending.pop(0)], stdout=subprocess.PIPE,
                                            stderr=subprocess.PIPE, text=True, preexec_fn=child_dies_with_us()))
        p = running.pop(0)
        out, err = p.communicate()
        for line in out.splitlines():
            if line.startswith("@@GAME "):
                games.append(json.loads(line[7:]))
            elif line.startswith("@@FAIL "):
                failures.append(json.loads(line[7:]))
        warnings += [ln for ln in err.splitlines() if "WARNING" in ln.upper() or "invalid" in ln.lower()]
        if p.returncode not in (0, None) and not games:
            raise GnubgError(f"gnubg analysis failed (exit {p.returncode}): {err.strip().splitlines()[-1:]}")
    if not folder:
        shutil.rmtree(tmp, ignore_errors=True)
    if failures or warnings:
        raise GnubgError(f"gnubg could not import/analyse {len(failures)} file(s): "
                         f"{(failures[:1] or warnings[:1])}")
    return games


def error_rates(games: list[dict], sides: tuple[str, ...], seed: int = 0, n_boot: int = 2000) -> dict:
    """Ratio-of-sums error rates with a bootstrap over games."""
    cheq = np.array([sum(g["stats"][s]["chequer"] for s in sides) for g in games])
    cube = np.array([sum(g["stats"][s]["cube"] for s in sides) for g in games])
    unforced = np.array([sum(g["stats"][s]["unforced"] for s in sides) for g in games], dtype=float)
    close = np.array([sum(g["stats"][s]["close_cube"] for s in sides) for g in games], dtype=float)
    all_moves = np.array([g["stats"]["X"]["total"] + g["stats"]["O"]["total"] for g in games], dtype=float)
    per_side = len(sides)

    def rates(idx):
        u, c = unforced[idx].sum(), close[idx].sum()
        return (1000 * cheq[idx].sum() / max(u, 1),
                1000 * (cheq[idx].sum() + cube[idx].sum()) / max(u + c, 1),
                1000 * (cheq[idx].sum() + cube[idx].sum()) / per_side / max(all_moves[idx].sum(), 1))

    point = rates(np.arange(len(games)))
    rng = np.random.default_rng(seed)
    boots = np.array([rates(rng.integers(0, len(games), len(games))) for _ in range(n_boot)])
    lo, hi = np.quantile(boots, [0.025, 0.975], axis=0)
    names = ("chequer_memg_per_move", "overall_memg_per_decision", "snowie_error_rate")
    out = {n: {"mean": float(point[k]), "ci_low": float(lo[k]), "ci_high": float(hi[k])} for k, n in enumerate(names)}
    out.update(games=len(games), unforced_moves=int(unforced.sum()), close_cube_decisions=int(close.sum()))
    # where the cube error comes from: gnubg's count and total error (milli, as the rates) of each kind
    kinds = {}
    for kind in CUBE_KINDS:
        pairs = [g["stats"][s].get("cube_kinds", {}).get(kind, (0, 0.0)) for g in games for s in sides]
        kinds[kind] = {"count": int(sum(c for c, _ in pairs)), "error": 1000 * float(sum(e for _, e in pairs))}
    out["cube_errors"] = kinds
    by_score = doubles_by_score(games, sides)
    if by_score:
        out["doubles_by_score"] = by_score
    return out


def doubles_by_score(games: list[dict], sides: tuple[str, ...]) -> dict:
    """Match play: the analysed sides' doubles grouped by the score, "doubler's away-opponent's
    away" (e.g. "5-7"): how many, how many were below gnubg's doubling point (no double worth
    more to the doubler than double/take), and what those cost in thousandths of match-winning
    chance.  gnubg's cube equities in a match are MWC (its statistics convert them to EMG,
    which weighs a cube-4 error far more); a double that is too good (the opponent should pass)
    is not counted here, as gnubg does not report the pass's MWC."""
    out: dict = {}
    for g in games:
        length = g.get("length") or 0
        if not length:
            continue
        for player, nd, dt in g.get("doubles", []):
            if player not in sides:
                continue
            mine, theirs = g["score"] if player == "X" else g["score"][::-1]
            row = out.setdefault(f"{length - mine}-{length - theirs}", {"doubles": 0, "wrong": 0, "error": 0.0})
            row["doubles"] += 1
            loss = nd - dt
            if loss > 0:
                row["wrong"] += 1
                row["error"] += 1000 * loss
    return dict(sorted(out.items(), key=lambda kv: -kv[1]["error"]))


def main() -> None:
    p = cli.Parser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", required=True, help="checkpoint to analyse")
    p.add_argument("--opponent", default="self", help="self, a named opponent or a checkpoint")
    p.add_argument("--self-play", action="store_true",
                   help="the model plays itself and both sides' decisions are analysed (the default opponent)")
    p.add_argument("--games", type=cli.count_arg(100_000, "games (each one is analysed by gnubg)"), default=100,
                   help="games to play and analyse (match play: matches)")
    p.add_argument("--game-mode", choices=GAME_MODES, default=None, help="default: the checkpoint's")
    p.add_argument("--match-length", type=cli.match_length_arg, default=None,
                   help="match play: the matches' length in points (default 7); each match is one .mat file that "
                   "gnubg analyses at its scores, by its match equity table")
    p.add_argument("--ply", type=int, choices=(0, 1, 2), default=0, help="gnubg analysis depth")
    p.add_argument("--jacoby", action=cli.argparse.BooleanOptionalAction, default=True,
                   help="money games: gammons count only once the cube has been turned")
    p.add_argument("--oneply", action="store_true", help="our model plays with 1-ply lookahead")
    p.add_argument("--workers", type=cli.workers_arg, default=1,
                   help=f"game-playing and gnubg processes (at most {cli.MAX_WORKERS_PER_CORE} per core)")
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
    if args.self_play and args.opponent != "self":
        raise cli.UsageError("--self-play and --opponent name different opponents")
    if args.export_only and not args.out:
        raise cli.UsageError("--export-only needs --out DIR for the files")
    check_outputs([Output("--out", args.out, "folder"), Output("--json", args.json, "json")], args.overwrite,
                  {"--model": args.model})
    try:
        info = preflight(args.gnubg)
        if not args.export_only:
            gnubg_ratings([0.0], info["binary"])   # the rating the report ends with works, before any game
    except GnubgError as exc:
        raise cli.UsageError(str(exc)) from None
    mode_name = args.game_mode or checkpoint_game_mode(args.model) or "dmp"
    if args.match_length is not None and mode_name != "match":
        raise cli.UsageError("--match-length applies to --game-mode match only")
    mode = game_mode(mode_name, args.jacoby, (args.match_length or 7) if mode_name == "match" else 0)
    opponent = args.model if args.opponent == "self" else args.opponent
    out_dir = args.out or tempfile.mkdtemp(prefix="gnubg_eval_games_")
    keep = bool(args.out or args.keep_files)
    os.makedirs(out_dir, exist_ok=True)
    from matfile import write_mat
    files = []
    names = ("model", "opponent" if args.opponent != "self" else "model_b")

    def saver(records):  # written as each batch ends; only the results stay in memory
        if mode.match_length:  # a DMP game is a 1-point match: one file each
            for rec in records:
                files.append(os.path.join(out_dir, f"game_{rec.index:07d}.mat"))
                write_mat(files[-1], [rec], names, mode.match_length)
        else:
            for s in range(0, len(records), 100):
                files.append(os.path.join(out_dir, f"games_{records[s].index:07d}.mat"))
                write_mat(files[-1], records[s:s + 100], names, 0)
        for rec in records:
            rec.turns = []

    if mode.is_match:  # one .mat file a match, at its length: gnubg analyses each game at its score
        from errors import InputError
        from matches import run_matches
        try:
            played = run_matches(args.model, opponent, args.games, mode.match_length, args.oneply,
                                 args.oneply and args.opponent == "self", args.seed, args.workers,
                                 progress=not args.quiet, record=True)
        except InputError as exc:
            raise cli.UsageError(str(exc)) from None
        for m in played:
            if m.winner < 0:
                continue   # abandoned (a game over the ply limit): no file gnubg could finish
            files.append(os.path.join(out_dir, f"match_{m.index:07d}.mat"))
            write_mat(files[-1], m.game_records, names, mode.match_length)
    else:
        run_head_to_head(args.model, opponent, args.games, mode_name, args.jacoby, args.oneply,
                         args.oneply and args.opponent == "self", args.seed, args.workers, record=True,
                         progress=not args.quiet, on_records=saver)
    files.sort()
    gnubg_workers = args.gnubg_workers or args.workers
    if args.export_only:
        write_scripts(files, args.ply, args.jacoby, info["binary"], out_dir, args.chunk_size, gnubg_workers)
        print(f"{len(files)} .mat files and gnubg's scripts in {out_dir}; run {os.path.join(out_dir, 'analyse.sh')}")
        return
    try:
        games = analyse_files(files, args.ply, args.jacoby, info["binary"], gnubg_workers, args.chunk_size,
                              out_dir if keep else None)
    except GnubgError as exc:
        raise cli.UsageError(str(exc)) from None
    finally:
        if not keep:
            shutil.rmtree(out_dir, ignore_errors=True)
    sides = ("X", "O") if args.opponent == "self" else ("X",)
    result = error_rates(games, sides, args.seed)
    # gnubg's 'Overall rating' and 'Chequerplay rating' rows; a higher error rate is a lower
    # rating, so the CI's ends swap
    rated = [result[k] for k in ("overall_memg_per_decision", "chequer_memg_per_move")]
    try:
        rating = gnubg_ratings([d[k] for d in rated for k in ("mean", "ci_high", "ci_low")], info["binary"])
    except GnubgError as exc:   # checked before any game, so unexpected: keep the analysed rates
        print(f"gnubg_eval.py: warning: {exc}; the rates are reported without gnubg's rating", file=sys.stderr)
        rating = ["n/a"] * 6
    result["gnubg_rating"] = dict(zip(("mean", "ci_low", "ci_high"), rating[:3]))
    result["gnubg_chequer_rating"] = dict(zip(("mean", "ci_low", "ci_high"), rating[3:]))
    result.update(model=args.model, opponent=args.opponent, game_mode=mode_name, ply=args.ply, seed=args.seed,
                  units=mode.analysis_units, gnubg=info, mat_folder=out_dir if keep else None,
                  commit=git_commit(), command=" ".join(sys.argv),
                  date=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"))
    r = result
    print(f"{args.model} ({'self-play' if args.opponent == 'self' else 'vs ' + args.opponent}), {r['games']} games, "
          f"gnubg {info['version']} analysis at {args.ply}-ply")
    for key, label in (("chequer_memg_per_move", "chequer error rate (m per unforced move)"),
                       ("overall_memg_per_decision", "overall error rate (m per decision)"),
                       ("snowie_error_rate", "Snowie error rate")):
        d = r[key]
        print(f"  {label:42s} {d['mean']:8.2f}  95% CI [{d['ci_low']:.2f}, {d['ci_high']:.2f}]")
    errs = {k: v for k, v in r["cube_errors"].items() if v["count"]}
    if errs:
        print("  cube errors (count, total m): " + ", ".join(f"{k} {v['count']} ({v['error']:.0f})" for k, v in errs.items()))
    if r.get("doubles_by_score"):
        worst = list(r["doubles_by_score"].items())[:6]
        print("  doubles by score (doubler-opponent away: doubles, below gnubg's doubling point, their cost in mMWC), "
              "most costly first: "
              + ", ".join(f"{k}: {v['doubles']}, {v['wrong']}, {v['error']:.0f}" for k, v in worst))
    for key, label in (("gnubg_rating", "gnubg rating (of the overall rate)"),
                       ("gnubg_chequer_rating", "gnubg chequerplay rating")):
        g = r[key]
        print(f"  {label:42s} {g['mean']}  (95% CI: {g['ci_low']} to {g['ci_high']})")
    if args.json:
        cli.write_json(args.json, result)


if __name__ == "__main__":
    cli.run_main(main)
