"""play_models.py's settings, one field per flag in --help's order (tdbg.app.settings_flags makes
the flags from them): the two players, the series, its outputs and the gnubg binary."""

from __future__ import annotations

from dataclasses import dataclass, field

from tdbg.game.modes import GAME_MODES
from tdbg.game.movegen import ENGINES
from tdbg.infra.backends import Backend
from tdbg.infra.settings_fields import option
from tdbg.infra.threads import threads_option
from tdbg.infra.workers import MAX_WORKERS_PER_CORE
from tdbg.net.search import DEFAULT_K1, DEFAULT_K2
from tdbg.play import opponents
from tdbg.play.agents import GNUBG_NN_PLIES

MAX_GAMES = 10_000_000  # each game's record (about 300 bytes) is kept for the summary and --csv


@dataclass(frozen=True)
class PlaySettings:
    model1: str = option(None, f"checkpoint or {'|'.join(opponents.NAMES)}", required=True)
    model2: str | None = option(
        None, "checkpoint, a named opponent, or gnubg-ext / gnubg-ext-full (the real binary)"
    )
    gnubg_nn: bool = option(False, "shortcut for --model2 gnubg-nn")
    games: int = option(
        1000,
        "games, played in duplicate pairs (an odd count's last game has no partner: it counts "
        "as one game, not as a pair)",
        type=("count_arg", MAX_GAMES, "games (each game's result is kept for the summary)"),
    )
    workers: int = option(
        1, f"game-playing processes (at most {MAX_WORKERS_PER_CORE} per core)", type="workers_arg"
    )
    threads: int | None = threads_option()
    game_mode: str | None = option(None, "default: model1's mode, else dmp", choices=GAME_MODES)
    match_length: int | None = option(
        None,
        "--game-mode match: points per match (1-25; default 7); --games then counts matches",
        type="match_length_arg",
    )
    met: str | None = option(
        None,
        "match play: the match equity table our match model plays by (default: the "
        "shipped Kazaross-XG2, data/met/)",
        metavar="XML",
    )
    jacoby: bool = option(
        True, "money games: gammons count only once the cube has been turned", negatable=True
    )
    oneply1: bool = option(False, "model1 looks 1 ply ahead")
    oneply2: bool = option(False, "model2 looks 1 ply ahead")
    oneply_k: int | None = option(
        None,
        "a 1-ply player looks ahead from its K best candidates by 0-ply only (a move "
        "filter; default: all of them)",
        type="positive_int",
        metavar="K",
    )
    oneply_filter: int | None = option(
        None,
        "a 1-ply or 2-ply checkpoint player values only each roll's K best replies in its lookahead, ranked by "
        "its move filter (a model trained with train_batch.py --oneply-filter; default: every reply, exact)",
        type="positive_int",
        metavar="K",
    )
    twoply1: bool = option(False, "model1 searches 2 plies (checker play and cube)")
    twoply2: bool = option(False, "model2 searches 2 plies (checker play and cube)")
    twoply_k1: int = option(
        DEFAULT_K1,
        "2-ply: our candidates searched at 2 plies, the best by 1-ply value",
        type="positive_int",
    )
    twoply_k2: int = option(
        DEFAULT_K2,
        "2-ply: replies per roll searched at 1 ply inside the search, the best by "
        "0-ply value (1 is gnubg's own n-ply rule)",
        type="positive_int",
    )
    plies: int | None = option(
        None,
        "gnubg-nn's depth (0, 1 or 2; default 0): every candidate valued at that depth, "
        "the move chosen by the game mode's objective (P(win) in DMP, cubeless equity "
        "in money)",
        type=int,
        choices=GNUBG_NN_PLIES,
    )
    n_bootstrap: int = option(
        2000,
        "bootstrap resamples behind each 95%% CI",
        type=("count_arg", 1_000_000, "bootstrap resamples"),
    )
    seed: int = option(0, "random seed (the dice)", type="seed_arg")
    save_games: str | None = option(
        None,
        "write the games as Jellyfish .mat files into this folder (matches "
        "against gnubg-ext: gnubg's own record of each match, match_NNNNNN.mat)",
        metavar="DIR",
    )
    save_extreme_games: str | None = option(
        None,
        "write only the games whose |result| is at least --extreme-threshold, one .mat file each",
        metavar="DIR",
    )
    extreme_threshold: float | None = option(
        None,
        "points (cube included) a game must reach to be saved by --save-extreme-games",
        type="positive_float",
        metavar="X",
    )
    json: str | None = option(None, "write the summary as JSON", metavar="PATH")
    csv: str | None = option(
        None,
        "write one row per game under a provenance header (command, commit, seed, games, "
        "date, summary): the record behind a published number",
        metavar="PATH",
    )
    games_csv: str | None = option(
        None,
        "gnubg-ext: one row per game, written as each game ends (default "
        "runs/gnubg_<time>.csv); its result column is gnubg's: 1 single, 2 gammon, "
        "3 backgammon, 0 a dropped double",
        metavar="PATH",
    )
    gnubg_timeout: float = option(60.0, "seconds to wait for gnubg", type="timeout_arg")
    gnubg: str | None = option(
        None,
        "gnubg-ext: the gnubg binary (default: $GNUBG_BINARY, else make gnubg's "
        "1.08.003 build, else gnubg on PATH or /usr/games/gnubg)",
        metavar="PATH",
    )
    luck: str | None = option(
        None,
        "also report the luck-adjusted result, luck judged by REF: gnubg-nn (the "
        "default) or a checkpoint",
        nargs="?",
        const="gnubg-nn",
        metavar="REF",
    )
    engine: str = option("auto", "move generator", choices=ENGINES)
    overwrite: bool = option(
        False,
        "allow replacing existing output files of the same kind (--json, --csv, "
        "--games-csv, the .mat files in --save-games)",
    )
    quiet: bool = option(False, "no progress bar")
    where: Backend = field(default_factory=Backend)  # --backend and Ray's flags (backend_flags)
