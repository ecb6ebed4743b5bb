"""gnubg_eval.py's run: the model plays (itself or an opponent), the games or matches are
written as .mat files, and the gnubg binary analyses them (eval_report reports the result);
or, with --from-mat, files already played are analysed."""

from __future__ import annotations

import os
import shutil
import tempfile

from tdbg.app import cli
from tdbg.app.eval_report import Analysed, analyse_folder, report
from tdbg.app.eval_settings import EvalSettings
from tdbg.game.modes import DMP, GameMode, MatchPlay, for_mode, game_mode, mode_class
from tdbg.game.modes.matchplay import DEFAULT_MATCH_LENGTH
from tdbg.gnubg.gnubg_analysis import analyse_files, gnubg_ratings, write_scripts
from tdbg.gnubg.gnubg_binary import GnubgError, preflight
from tdbg.gnubg.gnubg_rules import analysis_rules
from tdbg.gnubg.gnubg_series import GNUBG_LEVELS
from tdbg.infra import threads
from tdbg.infra.fileio import Output, check_outputs
from tdbg.net.search import Search
from tdbg.play.match import mirror_key
from tdbg.play.matfile import mat_length, write_mat
from tdbg.play.players import Player, checkpoint_game_mode
from tdbg.play.seating import evaluator
from tdbg.play.series import ModeSpec, Series, pinned_series, play_series
from tdbg.play.units import series_unit

# the units of gnubg's analysis of the mode's games (a DMP game is analysed as a 1-point match)
ANALYSIS_UNITS = {GameMode: "EMG", DMP: "MWC (1-point matches)", MatchPlay: "MWC"}
PAIR_UNIT = (
    "duplicate pairs (records 2k and 2k+1 share their dice; where 2k+1 mirrors 2k, the pair is the one "
    "game 2k)"
)


def run(s: EvalSettings) -> None:
    """The whole of gnubg_eval.py after its flags are parsed."""
    threads.use(s.threads)  # this process plays the games when --workers is 1
    if s.from_mat:
        return analyse_folder(s)
    mode_name, info = checked_start(s)
    mode = game_mode(mode_name, s.jacoby, s.match_length or DEFAULT_MATCH_LENGTH)
    out_dir = s.out or tempfile.mkdtemp(prefix="gnubg_eval_games_")
    keep = bool(
        s.out or s.keep_files
    )  # --out is made with its first file (nothing is made before then)
    files = MatFiles(
        out_dir, ("model", "opponent" if s.opponent != "self" else "model_b"), s.opponent == "self"
    )
    try:  # a temporary folder goes however the run ends (a full disk while the games are written)
        records_played, md5s = play(s, mode, files)
        analysis = s.analysis(info["binary"], analysis_rules(mode))
        if s.export_only:
            write_scripts(files.paths, analysis, out_dir)
            print(
                f"{len(files.paths)} .mat files and gnubg's scripts in {out_dir}; run "
                f"{os.path.join(out_dir, 'analyse.sh')}"
            )
            return
        games = analyse_files(files.paths, analysis, out_dir if keep else None)
    except GnubgError as exc:
        raise cli.UsageError(str(exc)) from None
    finally:
        if not keep:
            shutil.rmtree(out_dir, ignore_errors=True)
    sides = ("X", "O") if s.opponent == "self" else ("X",)
    pairs = [files.record_of(g) // 2 for g in games]
    report(
        s,
        info,
        Analysed(games, sides, for_mode(ANALYSIS_UNITS, mode), pairs),
        out_dir if keep else None,
        {
            "model": s.model,
            **md5s,
            "opponent": s.opponent,
            "game_mode": mode_name,
            "records_played": records_played,
            "records": {"game": "games", "match": "matches"}[series_unit(mode)],
            "mirrored_records_skipped": files.mirrored.skipped,
            "resample_unit": PAIR_UNIT,
        },
    )


def checked_start(s: EvalSettings) -> tuple[str, dict]:
    """(the game mode's name, the gnubg binary's preflight) once the flags are consistent
    and the binary rates: UsageError before any game otherwise."""
    if not s.model:
        raise cli.UsageError("give --model (a checkpoint to play and analyse) or --from-mat DIR")
    game_mode_name = s.game_mode
    if s.cubeful:  # PureTD's name for cubeful money play
        if s.game_mode not in (None, "cubeful-money"):
            raise cli.UsageError(
                f"--cubeful is --game-mode cubeful-money: not with --game-mode {s.game_mode}"
            )
        game_mode_name = "cubeful-money"
    if s.self_play and s.opponent != "self":
        raise cli.UsageError("--self-play and --opponent name different opponents")
    if s.luck and s.opponent == "self":
        raise cli.UsageError(
            "--luck rates one player against another: give --opponent, or --from-mat DIR "
            "(in self-play the luck-adjusted result is even by symmetry)"
        )
    if s.export_only and not s.out:
        raise cli.UsageError("--export-only needs --out DIR for the files")
    check_outputs(
        [
            Output(
                "--out", s.out, "folder", files=("*.mat", "cfg*.json", "analyse*.py", "analyse.sh")
            ),
            Output("--json", s.json, "json"),
        ],
        s.overwrite,
        {"--model": s.model},
    )
    # the arguments' own consistency first: it needs no binary, so the same misuse gets the same
    # error on a machine with or without gnubg
    mode_name = game_mode_name or checkpoint_game_mode(s.model) or "dmp"
    if s.match_length is not None:
        cli.checked(
            lambda: mode_class(mode_name).require(
                "--match-length applies to --game-mode match only", match=True
            )
        )
    check_opponent(s.opponent, mode_name, s)
    try:
        info = preflight(s.gnubg, timeout=s.gnubg_timeout)
        if not s.export_only:
            gnubg_ratings(
                [0.0], info["binary"], s.gnubg_timeout
            )  # the rating the report ends with works, before any game
    except GnubgError as exc:
        raise cli.UsageError(str(exc)) from None
    return mode_name, info


def check_opponent(opponent: str, mode_name: str, s: EvalSettings) -> None:
    """UsageError unless --opponent can play the games of ``mode_name``: checked before the
    gnubg binary is started, so that a misnamed opponent is one line on any machine."""
    if opponent == "self":
        return
    if opponent in GNUBG_LEVELS:
        raise cli.UsageError(
            f"--opponent {opponent}: gnubg_eval plays the games itself and the binary only "
            f"analyses them; to rate matches against {opponent}, play them with play_models.py "
            f"--model2 {opponent} --save-games DIR (match play), then gnubg_eval.py --from-mat DIR"
        )
    mode = game_mode(mode_name, s.jacoby, s.match_length or DEFAULT_MATCH_LENGTH)
    cli.checked(lambda: evaluator(Player(opponent), mode))


def play(s: EvalSettings, mode, files: "MatFiles") -> tuple[int, dict]:
    """Play the games (matches) into ``files``: the number of records played, and the md5 of
    the checkpoint bytes each side played (None for a named opponent)."""
    model = s.model
    assert model is not None  # checked_start refused a run without --model
    opponent = model if s.opponent == "self" else s.opponent
    # the opponent looks ahead as our model does only when it is our model
    players = (
        Player(model, Search(oneply=s.oneply)),
        Player(opponent, Search(oneply=s.oneply and s.opponent == "self")),
    )
    add = {"game": files.add_games, "match": files.add_matches}[series_unit(mode)]
    spec = ModeSpec(mode.name, s.jacoby, mat_length(mode))
    series = pinned_series(
        Series(players, spec, s.games, s.seed, s.workers, record=True)
    )  # the checkpoints read once: the games play these bytes
    play_series(series, progress=not s.quiet, on_records=lambda batch: add(batch, mat_length(mode)))
    return files.played, {"model_md5": series.players[0].md5, "opponent_md5": series.players[1].md5}


class MatFiles:
    """The .mat files written for gnubg, and the record(s) each holds by index: the
    bootstrap's unit is the duplicate pair (index // 2)."""

    def __init__(self, folder: str, names: tuple[str, str], self_play: bool):
        self.folder, self.names = folder, names
        self.held: dict[str, list[int]] = {}
        self.matches: set[str] = set()  # files whose games all belong to one record (a match)
        # self-play: the same deterministic player in both seats makes record 2k+1 replay 2k with the
        # seats swapped; such a record is the same game again, so it is neither written nor analysed
        self.mirrored = Mirrors(self_play)
        self.played = 0  # the records played that gnubg can analyse

    @property
    def paths(self) -> list[str]:
        return sorted(self.held)

    def add_games(self, batch, match_length: int) -> None:
        """A finished batch of games (duplicate pairs stay in one batch): a DMP game is a
        1-point match, one file each; money games 100 to a file."""
        records = self.mirrored.distinct(sorted(batch, key=lambda r: r.index))
        if match_length:
            for rec in records:
                self._write(f"game_{rec.index:07d}.mat", [rec], match_length, [rec.index])
        else:
            for k in range(0, len(records), 100):
                chunk = records[k : k + 100]
                self._write(f"games_{chunk[0].index:07d}.mat", chunk, 0, [r.index for r in chunk])
        for rec in batch:  # only the results stay in memory
            rec.turns = []
        self.played += len(batch)

    def add_matches(self, matches, match_length: int) -> None:
        """One file a match, at its length; every game of the match is the match's (an
        abandoned match, a game over the ply limit, has no file gnubg could finish)."""
        finished = [m for m in matches if m.winner >= 0]
        self.played += len(finished)
        for m in self.mirrored.distinct(finished):
            name = f"match_{m.index:07d}.mat"
            self._write(name, m.game_records, match_length, [m.index])
            self.matches.add(os.path.join(self.folder, name))

    def _write(self, name: str, records, match_length: int, indices: list[int]) -> None:
        path = os.path.join(self.folder, name)
        write_mat(path, records, self.names, match_length)
        self.held[path] = indices

    def record_of(self, g: dict) -> int:
        """The record an analysed game belongs to: a match file's games all belong to its one
        record; any other file's games are its records in order (one game each), so a game
        past them is a misread file, even where one game was written."""
        path = {os.path.abspath(f): f for f in self.held}[os.path.abspath(g["file"])]
        recs = self.held[path]
        if path in self.matches:
            return recs[0]
        if g["game"] >= len(recs):
            written = f"{len(recs)} {'was' if len(recs) == 1 else 'were'} written"
            raise cli.UsageError(
                f"gnubg read {g['game'] + 1}+ games in {g['file']}, where {written}"
            )
        return recs[g["game"]]


class Mirrors:
    """Self-play with the same deterministic player in both seats: record 2k+1 (a game, or a
    match) replays record 2k with the seats swapped, move for move (match.mirror_key, from our
    own records: gnubg's figures for the two differ in float32's last digits, and before the
    .mat fix a drop in the left column made gnubg read another game).  ``distinct`` keeps 2k
    and drops such a 2k+1, counting it; a 2k+1 that differs (a player with randomness) stays,
    as does any record outside self-play."""

    def __init__(self, active: bool):
        self.active, self.skipped = active, 0
        self._keys: dict = {}

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
