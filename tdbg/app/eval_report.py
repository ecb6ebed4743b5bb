"""gnubg_eval.py's report (the error rates of the analysed games, gnubg's rating of them,
the luck-adjusted result) and its --from-mat run over .mat files already played."""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass

from tdbg.app import cli
from tdbg.app.eval_settings import EvalSettings
from tdbg.game.modes import game_mode
from tdbg.gnubg.gnubg_analysis import (
    analyse_files,
    as_player_x,
    error_rates,
    gnubg_ratings,
    luck_adjusted,
)
from tdbg.gnubg.gnubg_binary import GnubgError, preflight
from tdbg.gnubg.gnubg_rules import analysis_rules
from tdbg.infra import fileio, threads
from tdbg.infra.errors import InputError
from tdbg.infra.fileio import KIND_NAMES, Output, check_input, check_outputs, file_kind
from tdbg.infra.provenance import provenance
from tdbg.infra.stats import ci_text
from tdbg.play.matfile import read_mat


@dataclass(frozen=True)
class Analysed:
    """gnubg's analysis as the report rates it."""

    games: list[dict]  # analyse_files' per-game statistics
    sides: tuple[str, ...]  # the rated seats: X, or X and O in self-play
    units: str  # of the errors: EMG (money) or MWC (match play)
    resample: list  # the independent unit of each game (one key a game): what the CIs resample


def analyse_folder(s: EvalSettings) -> None:
    """--from-mat: gnubg's analysis of saved .mat files, rating the player named --player."""
    if s.model or s.opponent != "self" or s.self_play or s.out or s.export_only or s.cubeful:
        raise cli.UsageError(
            "--from-mat analyses saved files: it takes no --model, --opponent, --self-play, "
            "--out, --export-only or --cubeful (the files say how they were played)"
        )
    folder = s.from_mat
    if folder is None or not os.path.isdir(folder):
        raise cli.UsageError(f"--from-mat {folder}: no such folder")
    files = sorted(os.path.join(folder, n) for n in os.listdir(folder) if n.endswith(".mat"))
    if not files:
        raise cli.UsageError(f"--from-mat {s.from_mat}: no .mat files there")
    for path in files:  # before gnubg: it would read an unreadable file as a match of no games
        check_mat_file(path)
    check_outputs([Output("--json", s.json, "json")], s.overwrite, {})
    try:
        info = preflight(s.gnubg, timeout=s.gnubg_timeout)
        gnubg_ratings([0.0], info["binary"], s.gnubg_timeout)
        games = as_player_x(
            analyse_files(files, s.analysis(info["binary"], saved_games_rules(s))), s.player
        )
    except GnubgError as exc:
        raise cli.UsageError(str(exc)) from None
    opponents = sorted({g["names"]["O"] for g in games})
    units = "MWC" if any(g.get("length") for g in games) else "EMG"
    # the games of one match are not independent (the score, the cube's value to each side): a
    # match is the unit; money games (one file may hold a session) each stand alone
    resample = [g["file"] if g.get("length") else f"{g['file']}#{g['game']}" for g in games]
    report(
        s,
        info,
        Analysed(games, ("X",), units, resample),
        s.from_mat,
        {
            "model": None,
            "player": s.player,
            "opponent": ", ".join(opponents),
            "files": len(files),
            "game_mode": "match" if units == "MWC" else "money",
            "resample_unit": "matches (a file's games)" if units == "MWC" else "games",
        },
    )


def saved_games_rules(s: EvalSettings) -> list[str]:
    """The gnubg commands the analysis of saved files needs first: those of the game mode
    --game-mode names.  A .mat file does not say whether the cube was in play, and games
    played without one, analysed with it, are charged every right double as a missed one."""
    return analysis_rules(game_mode(s.game_mode, s.jacoby)) if s.game_mode else []


def check_mat_file(path: str) -> None:
    """UsageError unless ``path`` can be read and looks like a .mat match (text with a
    "N point match" line)."""
    try:
        check_input(path, "a .mat file")
    except InputError as exc:
        raise cli.UsageError(f"--from-mat: {exc}") from None
    try:
        with open(path, "rb") as fh:
            data = fh.read(1 << 20)
    except OSError as exc:
        raise cli.UsageError(f"--from-mat: cannot read {path}: {exc.strerror}") from None
    kind = file_kind(path)
    if kind not in ("text", "json"):
        raise cli.UsageError(
            f"--from-mat: {path} is {KIND_NAMES.get(kind, 'empty')}, not a .mat match (text)"
        )
    if not re.search(rb"^\s*\d+ point match\s*$", data, re.M):
        raise cli.UsageError(f"--from-mat: {path} is not a .mat match (no 'N point match' line)")
    try:  # gnubg imports a move it cannot read or play as "garbage" (a line the analysis does
        # not read) and rates the rest: a game of moves written 24-18 was rated over no moves
        read_mat(path)
    except ValueError as exc:  # (UnicodeDecodeError included)
        raise cli.UsageError(
            f"--from-mat: {path} holds a game gnubg would import as garbage: {exc}"
        ) from None


def rate(s: EvalSettings, info: dict, analysed: Analysed) -> dict:
    """The error rates of the analysed sides, gnubg's ratings of them and (--luck) the
    luck-adjusted result; the CIs resample the independent units ``analysed.resample`` names."""
    games, units = analysed.games, analysed.units
    result = error_rates(games, analysed.sides, s.seed, units=analysed.resample)
    # gnubg's 'Overall rating' and 'Chequerplay rating' rows; a higher error rate is a lower
    # rating, so the CI's ends swap
    rated = [result[k] for k in ("overall_memg_per_decision", "chequer_memg_per_move")]
    values = [d[k] for d in rated for k in ("mean", "ci_high", "ci_low")]
    try:  # no interval (fewer than 2 units): no rating of its ends either
        got = iter(
            gnubg_ratings([v for v in values if v is not None], info["binary"], s.gnubg_timeout)
        )
        rating = [None if v is None else next(got) for v in values]
    except GnubgError as exc:  # checked before any game, so unexpected: keep the analysed rates
        print(
            f"gnubg_eval.py: warning: {exc}; the rates are reported without gnubg's rating",
            file=sys.stderr,
        )
        rating = ["n/a"] * 6
    if s.luck:
        try:
            result["luck"] = luck_adjusted(games, units == "MWC", s.seed)
        except GnubgError as exc:
            raise cli.UsageError(str(exc)) from None
    result["gnubg_rating"] = dict(zip(("mean", "ci_low", "ci_high"), rating[:3], strict=True))
    result["gnubg_chequer_rating"] = dict(
        zip(("mean", "ci_low", "ci_high"), rating[3:], strict=True)
    )
    return result


def _figures(s: EvalSettings, info: dict, analysed: Analysed, mat_folder, about: dict) -> dict:
    """The report's figures: the error rates, ``about``, and how they were measured (ply, seed,
    units, gnubg's version, threads, provenance), as --json writes them."""
    r = rate(s, info, analysed)
    r.update(about)
    r.update(
        ply=s.ply,
        seed=s.seed,
        units=analysed.units,
        gnubg=info,
        mat_folder=mat_folder,
        **threads.current(),
        **provenance(),
    )
    return r


def _print_what_was_analysed(r: dict, s: EvalSettings, info: dict) -> None:
    """Who played whom, how many games gnubg analysed and at what ply, and what the CIs
    resample."""
    who = r["model"] or f"{r['player']} in {s.from_mat}"
    played = f"{r['records_played']} {r['records']} played, " if r.get("records_played") else ""
    print(
        f"{who} ({'self-play' if r['opponent'] == 'self' else 'vs ' + r['opponent']}), {played}{r['games']} "
        f"games analysed by gnubg {info['version']} at {s.ply}-ply{threads.text(r)}"
    )
    if r.get("mirrored_records_skipped"):
        print(
            f"  {r['mirrored_records_skipped']} of the {r['records']} played were not analysed: each replays the "
            f"one before it move for move with the seats swapped (one deterministic player in both seats), so "
            f"gnubg rates that play once"
        )
    print(f"  CIs resample {r['bootstrap_units']} {r['resample_unit']}")


def _print_error_rates(r: dict) -> None:
    """The chequer, overall and Snowie error rates, the cube errors and the costliest doubles
    by score."""
    for key, label in (
        ("chequer_memg_per_move", "chequer error rate (m per unforced move)"),
        ("overall_memg_per_decision", "overall error rate (m per decision)"),
        ("snowie_error_rate", "Snowie error rate"),
    ):
        d = r[key]
        print(f"  {label:42s} {d['mean']:8.2f}  {ci_text(d)}")
    errs = {k: v for k, v in r["cube_errors"].items() if v["count"]}
    if errs:
        print(
            "  cube errors (count, total m): "
            + ", ".join(f"{k} {v['count']} ({v['error']:.0f})" for k, v in errs.items())
        )
    if r.get("doubles_by_score"):
        worst = list(r["doubles_by_score"].items())[:6]
        print(
            "  doubles by score (doubler-opponent away: doubles, below gnubg's doubling point, their cost in mMWC), "
            "most costly first: "
            + ", ".join(f"{k}: {v['doubles']}, {v['wrong']}, {v['error']:.0f}" for k, v in worst)
        )


def _print_luck(lk: dict, units: str) -> None:
    """The actual and luck-adjusted results and the net luck, each with its CI."""
    for key, label in (
        ("actual", f"actual {lk['measure']}"),
        ("luck_adjusted", f"luck-adjusted {lk['measure']}"),
        ("luck", "net luck (MWC)" if units == "MWC" else "net luck"),
    ):
        d = lk[key]
        print(f"  {label:42s} {d['mean']:8.4f}  {ci_text(d, '{:.4f}')}  ({lk['n']} {lk['units']})")


def _print_ratings(r: dict) -> None:
    """gnubg's ratings (of the overall and of the chequer-play error rate)."""
    for key, label in (
        ("gnubg_rating", "gnubg rating (of the overall rate)"),
        ("gnubg_chequer_rating", "gnubg chequerplay rating"),
    ):
        g = r[key]
        ends = (
            f"95% CI: {g['ci_low']} to {g['ci_high']}" if g["ci_low"] is not None else "no interval"
        )
        print(f"  {label:42s} {g['mean']}  ({ends})")


def report(s: EvalSettings, info: dict, analysed: Analysed, mat_folder, about: dict) -> None:
    """Print and (--json) write the error rates of the analysed sides, with ``about`` (what
    was played or read) among the figures."""
    if not analysed.games:
        raise cli.UsageError(f"gnubg analysed no games in {mat_folder}: nothing to rate")
    r = _figures(s, info, analysed, mat_folder, about)
    _print_what_was_analysed(r, s, info)
    _print_error_rates(r)
    if "luck" in r:
        _print_luck(r["luck"], analysed.units)
    _print_ratings(r)
    if s.json:
        fileio.write_json(s.json, r)
