"""A series against the gnubg binary: it rolls its own dice (no duplicate pairs), one gnubg
process per worker.  ``GnubgSide`` is the opponent as a value; tdbg.play.series.play_series
plays a series against it (``against=``) as it plays one on our dice, and returns the same
summary."""

from __future__ import annotations

import dataclasses
import multiprocessing as mp
import os
import shutil
import tempfile
import threading
from dataclasses import dataclass
from queue import Empty

from tqdm import tqdm

from tdbg.gnubg.gnubg_binary import GnubgError, preflight
from tdbg.gnubg.gnubg_external import GnubgOpponent, GnubgSession
from tdbg.gnubg.gnubg_protocol import turns_from_mat
from tdbg.gnubg.gnubg_rules import gnubg_plays
from tdbg.infra.errors import InputError
from tdbg.infra.fileio import atomic_write
from tdbg.infra.runlog import append_line
from tdbg.infra.workers import WorkerPool
from tdbg.play.luck import add_luck
from tdbg.play.model_fit import check_agent
from tdbg.play.seating import evaluator
from tdbg.play.series import Series, pinned_series
from tdbg.play.units import UNITS, series_unit

GNUBG_LEVELS = ("gnubg-ext", "gnubg-ext-full")
GAME_CSV_FIELDS = [
    "game",
    "points",
    "our_record",
    "cube",
    "result",
    "plies",
    "doubles_ours",
    "doubles_gnubg",
    "takes_ours",
    "takes_gnubg",
    "drops_ours",
    "drops_gnubg",
    "resigned",
]


def _append_game_row(path: str, rec) -> None:
    row = [
        rec.index,
        rec.points,
        rec.our_record,
        rec.cube,
        rec.result,
        rec.plies,
        *rec.doubles,
        *rec.takes,
        *rec.drops,
        int(getattr(rec, "resigned", False)),
    ]
    append_line(
        path, ",".join(str(x) for x in row) + "\n"
    )  # whole rows: safe from several processes


_progress_queue = None  # in a gnubg-playing worker: where it reports each finished game or match


def _set_progress_queue(queue) -> None:
    global _progress_queue
    _progress_queue = queue


@dataclass(frozen=True)
class GnubgSide(GnubgOpponent):
    """The gnubg binary as a series' opponent: the GnubgOpponent each worker's session runs
    (its ``level``, one of GNUBG_LEVELS, the binary, how long to wait for it), and what of
    the series to keep: ``games_csv``, one row per game appended as each ends; ``save_games``
    (match play), a folder for gnubg's own record of each match.  Named as the play
    command's settings that give them (tdbg.app.play_settings)."""

    games_csv: str | None = None
    save_games: str | None = None

    def play(self, series: Series, progress: bool = True):
        """The series' first player against the real gnubg binary, on gnubg's dice (one gnubg
        process per worker; worker k plays with seed ``series.seed`` x 1000 + k).  Returns
        (units, games, errors): the series' units (games, or in match play whole matches:
        ``series.count`` counts them), every game's record (each appended to ``self.games_csv``
        as it ends) and the workers' errors.  With ``series.luck`` each game's luck is judged
        from gnubg's exported record of the games."""
        return run_against_gnubg(series, self, progress)


def _gnubg_job(job: dict, report=None):
    """One worker's share: ``job`` holds the series, the gnubg side, the worker's seed, its
    first index and how many games (matches).  ``report(n)``: n more games (matches)
    finished; by default the worker's progress queue."""
    series, gnubg = job["series"], job["gnubg"]
    mode = series.mode_spec.build()
    agent = evaluator(series.players[0].seeded(job["seed"]), mode)
    mat_dir = tempfile.mkdtemp(prefix="gnubg_record_") if series.luck or gnubg.save_games else None
    # match play: gnubg's record of each match, moved into save_games as the worker ends
    per_match = (
        [os.path.join(mat_dir, f"match_{job['first'] + k:06d}.mat") for k in range(job["games"])]
        if gnubg.save_games and mat_dir
        else None
    )
    session_mat = os.path.join(mat_dir, "session.mat") if series.luck and mat_dir else None
    session = GnubgSession(
        agent,
        gnubg,
        mode,
        seed=job["seed"],
        first_index=job["first"],
        mat_path=session_mat,
        match_mat_paths=per_match,
    )
    done, reported = [], [0]
    report = report or (_progress_queue.put if _progress_queue is not None else None)

    def on_game(rec):
        done.append(rec)
        if gnubg.games_csv:
            _append_game_row(gnubg.games_csv, rec)
        finished = session.units_done(done)
        if report and finished > reported[0]:
            report(finished - reported[0])
            reported[0] = finished

    try:
        session.play(job["games"], on_game)
        if (
            session_mat
        ):  # series.luck: luck needs gnubg's dice, which only its exported record holds
            for rec, turns in zip(done, turns_from_mat(session_mat, done), strict=True):
                rec.turns = turns
            add_luck(done, series.luck, mode, data=series.luck_data)
    except Exception as exc:  # report, but keep the games (and matches) already finished
        return done, session.matches, f"{type(exc).__name__}: {exc}"
    finally:
        if mat_dir:
            for path in per_match or ():
                if os.path.exists(path):  # the matches that finished, even when gnubg failed later
                    # copied, not moved: the temporary folder may be another file system
                    with (
                        open(path, "rb") as src,
                        atomic_write(
                            os.path.join(gnubg.save_games, os.path.basename(path)), "wb"
                        ) as dst,
                    ):
                        shutil.copyfileobj(src, dst)
            shutil.rmtree(mat_dir, ignore_errors=True)
    return done, session.matches, None


def _show_progress(queue, bar, stop: threading.Event) -> None:
    """Move the bar by what the workers report until ``stop`` is set."""
    while not stop.is_set():
        try:
            bar.update(queue.get(timeout=0.2))
        except (Empty, OSError, ValueError, EOFError):
            continue


def _ready_gnubg(series: Series, gnubg: GnubgSide, mode) -> GnubgSide:
    """``gnubg`` with its binary resolved, once every check that can fail before a game is
    played has passed: a mode the binary plays, a binary that runs, an agent that plays the
    mode (each an InputError)."""
    if not gnubg_plays(mode):
        raise InputError(
            "games against the gnubg binary are money games or matches: use --game-mode "
            "cubeful-money, cubeless-money or match"
        )
    try:
        gnubg = dataclasses.replace(
            gnubg, gnubg=preflight(gnubg.gnubg, timeout=gnubg.gnubg_timeout)["binary"]
        )
    except GnubgError as exc:
        raise InputError(str(exc)) from None
    agent = evaluator(series.players[0].seeded(series.seed), mode)
    try:
        check_agent(mode, agent)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    return gnubg


def _jobs(series: Series, gnubg: GnubgSide) -> list[dict]:
    """The series' units shared out over its workers as evenly as they go, each job with its
    own seed and the index of its first unit (a worker with none gets no job)."""
    games, workers = series.count, series.workers
    shares = [games // workers + (k < games % workers) for k in range(workers)]
    jobs, first = [], 0
    for k, n in enumerate(shares):
        if n:
            jobs.append(
                {
                    "series": series,
                    "gnubg": gnubg,
                    "seed": series.seed * 1000 + k,
                    "games": n,
                    "first": first,
                }
            )
        first += n
    return jobs


def _play_jobs(jobs: list[dict], bar) -> list:
    """Each job's (records, matches, error): one job in this process, several in a pool of
    workers whose finished units move ``bar`` as they end."""
    if len(jobs) == 1:
        return [_gnubg_job(jobs[0], report=bar.update)]
    queue = mp.get_context("spawn").Queue()  # the workers' finished games (matches), as they end
    stop = threading.Event()
    shown = threading.Thread(target=_show_progress, args=(queue, bar, stop), daemon=True)
    shown.start()
    try:
        with WorkerPool(
            len(jobs), _set_progress_queue, (queue,), what="gnubg-playing worker"
        ) as pool:
            # no second try: the games already played are in the CSV
            return pool.results([pool.submit(_gnubg_job, j, retries=0) for j in jobs])
    finally:
        # nothing is sent through the queue to stop the thread: a worker killed while it held
        # the queue's lock would leave that send, and a join of the thread, waiting forever
        stop.set()
        shown.join(timeout=5)
        queue.cancel_join_thread()


def run_against_gnubg(series: Series, gnubg: GnubgSide, progress: bool = True):
    series = pinned_series(series)  # the checkpoints read once (unless the series comes pinned)
    mode = series.mode_spec.build()
    gnubg = _ready_gnubg(series, gnubg, mode)
    # a new file (the caller checked it may be written): rows are appended as games end
    if gnubg.games_csv:
        with open(gnubg.games_csv, "w") as fh:
            fh.write(",".join(GAME_CSV_FIELDS) + "\n")
    jobs = _jobs(series, gnubg)
    records, errors, matches = [], [], []
    bar = tqdm(total=series.count, unit=series_unit(mode), disable=not progress, dynamic_ncols=True)
    try:
        for got, got_matches, err in _play_jobs(jobs, bar):
            records += got
            matches += got_matches
            if err:
                errors.append(err)
        records.sort(key=lambda r: r.index)
        matches.sort(key=lambda r: r.index)
        units = UNITS[series_unit(mode)].of_gnubg(records, matches)
        bar.update(len(units) - bar.n)
    finally:
        bar.close()
        if gnubg.games_csv:
            _drop_if_no_rows(gnubg.games_csv)
    return units, records, errors


def _drop_if_no_rows(path: str) -> None:
    """Remove the games CSV when not one game finished (a gnubg that never connected, or
    died or stalled in the first game): a header alone is no result, and was left behind."""
    try:
        with open(path) as fh:
            if fh.read() == ",".join(GAME_CSV_FIELDS) + "\n":
                os.remove(path)
    except OSError:
        pass
