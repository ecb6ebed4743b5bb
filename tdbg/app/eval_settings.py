"""gnubg_eval.py's settings, one field per flag in --help's order (tdbg.app.settings_flags makes
the flags from them): what plays or which files, gnubg's analysis, the processes, the outputs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tdbg.game.modes import GAME_MODES
from tdbg.gnubg.gnubg_analysis import GnubgAnalysis
from tdbg.gnubg.gnubg_protocol import OUR_NAME
from tdbg.infra.settings_fields import option
from tdbg.infra.threads import threads_option
from tdbg.infra.workers import MAX_WORKERS_PER_CORE


@dataclass(frozen=True)
class EvalSettings:
    model: str | None = option(None, "checkpoint to analyse (it plays the games)")
    from_mat: str | None = option(
        None,
        "instead of playing, analyse the .mat files in DIR (e.g. play_models.py "
        "--save-games against gnubg-ext) for the player named --player",
        metavar="DIR",
    )
    player: str = option(
        OUR_NAME,
        f"with --from-mat: whose decisions to rate (default {OUR_NAME!r}, our side in "
        f"gnubg-ext's saved matches)",
    )
    opponent: str = option("self", "self, a named opponent or a checkpoint")
    self_play: bool = option(
        False,
        "the model plays itself and both sides' decisions are analysed (the default opponent)",
    )
    games: int = option(
        100,
        "games to play and analyse (match play: matches)",
        type=("count_arg", 100_000, "games (each one is analysed by gnubg)"),
    )
    game_mode: str | None = option(None, "default: the checkpoint's", choices=GAME_MODES)
    cubeful: bool = option(
        False,
        "PureTD's flag: cubeful money games (the same as --game-mode cubeful-money; "
        "Jacoby unless --no-jacoby), for a cubeful checkpoint",
    )
    match_length: int | None = option(
        None,
        "match play: the matches' length in points (default 7); each match is "
        "one .mat file that gnubg analyses at its scores, by its match equity "
        "table",
        type="match_length_arg",
    )
    ply: int = option(0, "gnubg analysis depth", type=int, choices=(0, 1, 2))
    luck: bool = option(
        False,
        "gnubg also judges the dice: the rated player's actual and luck-adjusted results "
        "(match play: match-win rate; money: points per game), not for self-play",
    )
    jacoby: bool = option(
        True, "money games: gammons count only once the cube has been turned", negatable=True
    )
    oneply: bool = option(False, "our model plays with 1-ply lookahead")
    workers: int = option(
        1,
        f"game-playing and gnubg processes (at most {MAX_WORKERS_PER_CORE} per core)",
        type="workers_arg",
    )
    threads: int | None = threads_option()
    seed: int = option(0, "random seed (the dice)", type="seed_arg")
    gnubg_workers: int | None = option(
        None, "gnubg processes analysing at once (default: --workers)", type="workers_arg"
    )
    chunk_size: int | None = option(
        None,
        ".mat files per gnubg process (default: the files split evenly over --gnubg-workers)",
        type="positive_int",
    )
    export_only: bool = option(
        False,
        "play and write the .mat files and gnubg's scripts (analyse.sh) into --out; "
        "do not run gnubg",
    )
    keep_files: bool = option(
        False, "keep the .mat files and gnubg's scripts (always kept with --out)"
    )
    out: str | None = option(
        None,
        "folder for the .mat files and scripts (default: a temporary folder, removed "
        "after the analysis unless --keep-files)",
    )
    gnubg: str | None = option(
        None,
        "the gnubg binary (default: $GNUBG_BINARY, else make gnubg's 1.08.003 build, "
        "else gnubg on PATH or /usr/games/gnubg)",
        metavar="PATH",
    )
    gnubg_timeout: float = option(
        600.0,
        "seconds gnubg may stay silent (its answers to the checks, a file "
        "analysed) before the run stops with an error",
        type="timeout_arg",
        metavar="SECONDS",
    )
    json: str | None = option(None, "write the result as JSON", metavar="PATH")
    overwrite: bool = option(
        False,
        "allow replacing existing output files of the same kind (--json, the .mat files in --out)",
    )
    quiet: bool = option(False, "no progress bar")

    def analysis(self, binary: str, rules: Sequence[str] = ()) -> GnubgAnalysis:
        """gnubg's analysis as these flags ask for it, run by ``binary`` (preflight's choice),
        after the game mode's ``rules`` (gnubg_rules.analysis_rules)."""
        return GnubgAnalysis(
            binary,
            ply=self.ply,
            jacoby=self.jacoby,
            luck=self.luck,
            rules=tuple(rules),
            workers=self.gnubg_workers or self.workers,
            chunk_size=self.chunk_size,
            timeout=self.gnubg_timeout,
        )
