"""Having the gnubg binary analyse .mat files, and reading its verdict.

gnubg imports each file, analyses it (chequer and cube decisions at a given ply) and, through
its embedded Python, prints one line per game: each side's unforced moves, chequer and cube
error (EMG, gnubg's own statistics), its kinds of cube error, and for match play the game's
score and every double with gnubg's no-double and double/take values (MWC).  Used by
gnubg_eval.py (playing and then analysing, or analysing saved files).
"""

from __future__ import annotations

import os
import re
import select
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from collections.abc import Sequence
from typing import IO, Any

import numpy as np

from tdbg.gnubg.gnubg_binary import GnubgError, ask
from tdbg.infra.fileio import atomic_write, json_text, strict_json_loads
from tdbg.infra.stats import has_interval, interval
from tdbg.infra.workers import end_group, own_group_dies_with_us

GNUBG_PY = r"""
import json
import gnubg
cfg = json.load(open(%(cfg)r))
CUBE_KINDS = %(cube_kinds)r
def quoted(path):  # gnubg's command reader takes \\ and \" inside quotes as the characters
    return '"' + path.replace("\\", "\\\\").replace('"', '\\"') + '"'
gnubg.command("set jacoby %(jacoby)s")
for line in %(rules)r:   # the game mode's (gnubg_rules.analysis_rules): e.g. no cube, no cube analysis
    gnubg.command(line)
gnubg.command("set analysis chequerplay evaluation plies %(ply)d")
gnubg.command("set analysis cubedecision evaluation plies %(ply)d")
gnubg.command("set analysis luck %(luck)s")
gnubg.command("set analysis luckanalysis plies %(ply)d")
for path in cfg["files"]:
    try:
        gnubg.command("import mat " + quoted(path))
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
            dice = s.get("dice", {})
            if "luck-adjusted-result" in dice:  # match play: MWC; money: points
                out["stats"][side].update(actual=dice["actual-result"], luck_adjusted=dice["luck-adjusted-result"])
        info = g.get("info", {})
        out["score"] = [info.get("score-X", 0), info.get("score-O", 0)]
        out["length"] = m.get("match-info", {}).get("match-length", 0)
        out["names"] = {k: m.get("match-info", {}).get(k, {}).get("name", "") for k in ("X", "O")}
        # each double with gnubg's cubeful values of no double and double/take (match play: MWC)
        out["doubles"] = [[a["player"], a["analysis"]["nd-cubeful-eq"], a["analysis"]["dt-cubeful-eq"]]
                          for a in g.get("game", []) if a.get("action") == "double"
                          and "nd-cubeful-eq" in a.get("analysis", {})]
        print("@@GAME " + json.dumps(out), flush=True)
"""


MAT_GAME = re.compile(r"^\s*Game \d+")  # a game's heading in a .mat file (matfile.read_mat's)

# gnubg's kinds of cube error (its statistics' dict keys; each has a count and an error)
CUBE_KINDS = (
    "missed-double-below-cp",
    "missed-double-above-cp",
    "wrong-double-below-dp",
    "wrong-double-above-tg",
    "wrong-take",
    "wrong-drop",
)

# gnubg's verbal ratings, indexed by its errorrating() (analysis.c: aszRating, arThrsRating)
RATINGS = (
    "Awful!",
    "Beginner",
    "Casual player",
    "Intermediate",
    "Advanced",
    "Expert",
    "World class",
    "Supernatural",
)


@dataclass(frozen=True)
class GnubgAnalysis:
    """How the gnubg binary analyses .mat files, built once by the caller (gnubg_eval.py's
    from its flags: EvalSettings.analysis)."""

    binary: str  # the gnubg binary to run (gnubg_binary.preflight's choice)
    ply: int = 0  # depth of the chequer, cube and luck analysis
    jacoby: bool = True  # money games: gammons count only once the cube has been turned
    rules: tuple[
        str, ...
    ] = ()  # gnubg commands the game mode needs first (gnubg_rules.analysis_rules)
    luck: bool = False  # gnubg also judges the dice (at the same ply)
    workers: int = 1  # gnubg processes at a time
    chunk_size: int | None = (
        None  # .mat files per gnubg process (default: the files split evenly over workers)
    )
    timeout: float | None = None  # seconds the running gnubg may all stay silent (None: no limit)


def gnubg_ratings(rates: list[float], binary: str, timeout: float | None = None) -> list[str]:
    """gnubg's verbal rating of each error rate (milli-units per decision, normalised: the
    overall rate), from the binary's own errorrating(), so our reading of its thresholds
    never stands in for them.  ``timeout``: seconds gnubg may take (None: no limit)."""
    with tempfile.TemporaryDirectory(prefix="gnubg_rating_") as tmp:
        script = os.path.join(tmp, "rating.py")
        with open(script, "w") as fh:
            fh.write(
                "import json, gnubg\n"
                f"print('@@RATING ' + json.dumps([gnubg.errorrating(r / 1000.0) for r in {list(map(float, rates))!r}]))\n"
            )
        try:
            stdout, stderr, code = ask([binary, "-t", "-q", "-r", "-p", script], None, timeout)
        except subprocess.TimeoutExpired:
            raise GnubgError(
                f"{binary}: no rating within {timeout:g} s (stalled? --gnubg-timeout)"
            ) from None
        except (OSError, subprocess.SubprocessError) as exc:
            raise GnubgError(f"{binary}: cannot run it ({exc})") from None
    for line in stdout.splitlines():
        if line.startswith("@@RATING "):
            try:
                got = strict_json_loads(line[9:])
            except ValueError:
                got = None
            # one whole number a rate, as the script prints errorrating()'s
            if (
                not isinstance(got, list)
                or len(got) != len(rates)
                or any(type(i) is not int for i in got)
            ):
                raise GnubgError(f"gnubg's rating is not one number a rate: {line[:200]!r}")
            # errorrating() gives 0 (Awful!) to 7 (Supernatural) or 8, gnubg's RAT_UNDEFINED
            # ("N/A"); any other number is none of gnubg's ratings (-1 and 9 were shown as n/a)
            if any(not 0 <= i <= len(RATINGS) for i in got):
                raise GnubgError(
                    f"gnubg's rating is not one of its ratings (0 to {len(RATINGS)}): {line[:200]!r}"
                )
            return [RATINGS[i] if i < len(RATINGS) else "n/a" for i in got]
    raise GnubgError(f"gnubg gave no rating (exit {code}): {stderr.strip().splitlines()[-1:]}")


def write_scripts(files: list[str], analysis: GnubgAnalysis, folder: str) -> list[str]:
    """gnubg's analysis scripts for the .mat files, written into ``folder``, in chunks
    (``analysis.chunk_size`` files each, else one chunk per worker), and ``analyse.sh``
    running them with ``analysis.workers`` gnubg at a time."""
    size = analysis.chunk_size or max(1, -(-len(files) // analysis.workers))
    scripts = []
    for k, s in enumerate(range(0, len(files), size)):
        cfg = os.path.join(folder, f"cfg{k}.json")
        # atomic_write: an error, ENOSPC met as the file closes included, names the file
        with atomic_write(cfg) as fh:
            fh.write(json_text({"files": [os.path.abspath(f) for f in files[s : s + size]]}))
        scripts.append(os.path.join(folder, f"analyse{k}.py"))
        with atomic_write(scripts[-1]) as fh:
            fh.write(
                GNUBG_PY
                % {
                    "cfg": os.path.abspath(cfg),
                    "jacoby": "on" if analysis.jacoby else "off",
                    "ply": analysis.ply,
                    "cube_kinds": CUBE_KINDS,
                    "rules": list(analysis.rules),
                    "luck": "on" if analysis.luck else "off",
                }
            )
    with atomic_write(os.path.join(folder, "analyse.sh")) as fh:
        fh.write(
            "#!/bin/sh\n# gnubg's analysis of these .mat files; each line of output starting @@GAME is one game\n"
            f'cd "$(dirname "$0")"\nls analyse*.py | xargs -P {analysis.workers} -I{{}} '
            f"{analysis.binary} -t -q -r -p {{}}\n"
        )
    return scripts


def analyse_files(
    files: list[str], analysis: GnubgAnalysis, folder: str | None = None
) -> list[dict]:
    """Per-game statistics from gnubg's analysis of the .mat files: chunks of
    ``analysis.chunk_size`` files, ``analysis.workers`` gnubg processes at a time; the
    scripts go into ``folder`` (default: a temporary one).  When the gnubg processes all
    stay silent (each prints a line per file) for ``analysis.timeout`` seconds, they are
    ended and GnubgError says so."""
    tmp = folder or tempfile.mkdtemp(prefix="gnubg_eval_")
    games, failures, warnings = [], [], []
    try:  # the temporary folder goes however this ends (a full disk while the scripts are written)
        scripts = write_scripts(files, analysis, tmp)
        for out, err, code in _run_scripts(scripts, analysis):
            read = 0
            for line in out.splitlines():
                if line.startswith("@@GAME "):
                    games.append(_game_line(line[7:]))
                    read += 1
                elif line.startswith("@@FAIL "):
                    failures.append(_fail_line(line[7:]))
            warnings += [
                ln for ln in err.splitlines() if "WARNING" in ln.upper() or "invalid" in ln.lower()
            ]
            if code is not None and code < 0:  # ended by a signal: its files were not analysed
                raise GnubgError(
                    f"gnubg was ended by {_signal_name(-code)} while analysing "
                    f"({len(games)} of {len(files)} games analysed)"
                )
            # a gnubg that fails part-way has not analysed the rest of its files (a match's
            # later games, a money session's other games): never a result from part of them
            if code not in (0, None):
                raise GnubgError(
                    f"gnubg analysis failed (exit {code}) after {read} game(s): "
                    f"{err.strip().splitlines()[-1:]}"
                )
    finally:
        if not folder:
            shutil.rmtree(tmp, ignore_errors=True)
    seen = {os.path.abspath(r["file"]) for r in games + failures}
    given = {os.path.abspath(f) for f in files}
    if seen - given:  # (a game of another file was a KeyError traceback where games meet records)
        raise GnubgError(
            f"gnubg's analysis names a file it was not given: {sorted(seen - given)[0]!r}"
        )
    failures += [
        {"file": f, "error": "gnubg found no games in it"}
        for f in files
        if os.path.abspath(f) not in seen
    ]
    failures += _incomplete(files, games, {os.path.abspath(r["file"]) for r in failures})
    if failures or warnings:
        raise GnubgError(
            f"gnubg could not import/analyse {len(failures)} file(s): "
            f"{(failures[:1] or warnings[:1])}"
        )
    return games


def _count(x, what: str, line: str) -> int:
    if type(x) is not int or x < 0:
        raise GnubgError(f"gnubg's analysis gave {what} {x!r}, not a count: {line[:200]!r}")
    return x


# a game's error in EMG is at most a few units a decision (an equity is within +-3 a cube): a
# game's error beyond this is no analysis (1.7e308 made every rate infinite)
MAX_GAME_ERROR = 1e6


def _amount(x, what: str, line: str) -> float:
    if type(x) not in (int, float) or not np.isfinite(x) or not 0 <= x <= MAX_GAME_ERROR:
        raise GnubgError(f"gnubg's analysis gave {what} {x!r}, not an error size: {line[:200]!r}")
    return float(x)


def _game_line(text: str) -> dict:
    """One game of gnubg's analysis (an @@GAME line of GNUBG_PY), checked field by field:
    GnubgError for a line that is not what the script prints (not strict JSON, a field
    missing, a count below 0, an error that is negative, NaN or infinite)."""
    try:
        g = strict_json_loads(text)
    except ValueError as exc:
        raise GnubgError(
            f"gnubg's analysis printed a line we cannot read ({exc}): {text[:200]!r}"
        ) from None
    try:
        if not isinstance(g["file"], str) or not isinstance(g["stats"], dict):
            raise TypeError("file, stats")
        _count(g["game"], "a game number", text)
        for side in ("X", "O"):
            st = g["stats"][side]
            for key in ("unforced", "total", "close_cube"):
                _count(st[key], key, text)
            if st["unforced"] > st["total"]:  # (999 of 20 moves made a 32 mEMG rate 1.6)
                raise ValueError("unforced")
            for key in ("chequer", "cube"):
                _amount(st[key], f"a {key} error", text)
            # the script prints every one of gnubg's kinds (one left out lost its errors from
            # the kinds' line while they stayed in the rates)
            if sorted(st["cube_kinds"]) != sorted(CUBE_KINDS):
                raise ValueError("cube_kinds")
            for count, error in st["cube_kinds"].values():
                _count(count, "a cube error count", text)
                _amount(error, "a cube error", text)
            for key in ("actual", "luck_adjusted"):
                if key in st and (type(st[key]) not in (int, float) or not np.isfinite(st[key])):
                    raise TypeError(key)
        length = _count(g["length"], "a match length", text)
        # a score within the match (a 3-point match at 99 gave a score "-96 away"), and in a
        # match each double's values are match-winning chances, 0 to 1 (1e308 gave "inf")
        if (
            len(g["score"]) != 2
            or not all(type(x) is int and x >= 0 for x in g["score"])
            or (length and max(g["score"]) >= length)
        ):
            raise TypeError("score")
        for who, nd, dt in g["doubles"]:
            if who not in ("X", "O"):  # (another name was a KeyError traceback, or a double lost)
                raise TypeError("doubles")
            if not all(type(x) in (int, float) and np.isfinite(x) for x in (nd, dt)):
                raise TypeError("doubles")
            if length and not all(-1e-4 <= x <= 1 + 1e-4 for x in (nd, dt)):  # (gnubg's floats)
                raise TypeError("doubles")
        g["names"]["X"], g["names"]["O"]  # noqa: B018 - present
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise GnubgError(
            f"gnubg's analysis printed a game we cannot read (field {exc}): {text[:200]!r}"
        ) from None
    return g


def _fail_line(text: str) -> dict:
    """A file gnubg could not import or analyse (an @@FAIL line): {file, error}."""
    try:
        f = strict_json_loads(text)
        if isinstance(f["file"], str) and isinstance(f["error"], str):
            return f
    except (ValueError, KeyError, TypeError):
        pass
    raise GnubgError(f"gnubg's analysis printed a line we cannot read: @@FAIL {text[:200]!r}")


MAT_LENGTH = re.compile(r"^\s*([0-9]+) point match")  # its heading: the match's length (0: money)


def _games_in(path: str) -> tuple[int | None, int | None]:
    """(how many games a .mat file holds, its `Game N` headings; the match length its heading
    names); None for what cannot be read."""
    games, length = 0, None
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                games += bool(MAT_GAME.match(line))
                m = MAT_LENGTH.match(line) if length is None else None
                length = int(m.group(1)) if m else length
    except OSError:
        return None, None
    return games, length


def _incomplete(files: list[str], games: list[dict], failed: set) -> list[dict]:
    """A failure for each file whose games gnubg did not all analyse, once each (a gnubg that
    stopped part-way through a file, its exit code 0)."""
    out = []
    for f in files:
        path = os.path.abspath(f)
        if path in failed:
            continue
        ours = [g for g in games if os.path.abspath(g["file"]) == path]
        got = sorted(g["game"] for g in ours)
        held, length = _games_in(f)
        if held is not None and got != list(range(held)):
            out.append({"file": f, "error": f"gnubg analysed {len(got)} of its {held} games"})
        elif length is not None and any(g["length"] != length for g in ours):
            # (a length of 999 for a 3-point match gave doubles "999-999 away")
            said = sorted({g["length"] for g in ours} - {length})
            out.append(
                {"file": f, "error": f"gnubg read a {said[0]}-point match, the file's is {length}"}
            )
    return out


def _signal_name(signum: int) -> str:
    """SIGKILL for 9; the number where it names no signal."""
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


# a line of the analysis script's (an @@GAME line is a few KiB) and all of one gnubg's: output
# without end was kept whole (a MemoryError traceback)
MAX_ANALYSIS_LINE = 1 << 20
MAX_ANALYSIS_OUTPUT = 256 << 20


class _Analyst:
    """One gnubg analysing one script (_run_scripts'): it runs in a process group of its own
    (end_group ends it and whatever it started), and of its output only the script's own lines
    (starting @@) are kept, each line bounded.  ``said`` is when it last finished one of them:
    other output (a progress line, NUL bytes) is not analysis and does not keep it from being
    timed as a stall."""

    def __init__(self, binary: str, script: str):
        self.err: IO[bytes] = tempfile.TemporaryFile()  # a file: a chatty stderr never blocks gnubg
        self.proc = subprocess.Popen(
            [binary, "-t", "-q", "-r", "-p", script],
            stdout=subprocess.PIPE,
            stderr=self.err,
            stdin=subprocess.DEVNULL,
            preexec_fn=own_group_dies_with_us(),
        )
        assert self.proc.stdout is not None  # (PIPE: never None)
        self.fd, self.partial, self.kept = self.proc.stdout.fileno(), b"", 0
        self.lines: list[str] = []
        self.said, self.exited = time.monotonic(), None  # type: float, float | None

    def take(self, chunk: bytes) -> None:
        """Read ``chunk`` of its output (b"": its end); GnubgError for a line or an output
        longer than any the script prints."""
        *done, self.partial = (self.partial + chunk).split(b"\n")
        if not chunk and self.partial:  # the last line without its newline
            done, self.partial = [*done, self.partial], b""
        if len(self.partial) > MAX_ANALYSIS_LINE:
            raise GnubgError(
                f"gnubg printed a line longer than {MAX_ANALYSIS_LINE >> 20} MiB while analysing"
            )
        for line in done:
            if line.startswith(b"@@"):
                self.lines.append(line.decode(errors="replace"))
                self.kept += len(line)
                self.said = time.monotonic()
        if self.kept > MAX_ANALYSIS_OUTPUT:
            raise GnubgError(
                f"gnubg printed more than {MAX_ANALYSIS_OUTPUT >> 20} MiB of analysis for one script"
            )

    def check_exited(self) -> bool:
        """Whether gnubg has exited; the first time it is seen so, whatever it left behind is
        ended, so that its output reaches its end (a helper held it open: no end ever came).
        True also once a second has passed since, for output held outside its group."""
        if self.exited is None and self.proc.poll() is not None:
            end_group(self.proc)
            self.exited = time.monotonic()
        return self.exited is not None and time.monotonic() - self.exited > 1.0

    def close(self, wait: float = 0.0) -> tuple[str, str, int | None]:
        """End it (within ``wait`` seconds if it is ending by itself): (its @@ lines, its stderr,
        its exit code)."""
        end_group(self.proc, wait=wait)
        self.proc.stdout.close()  # type: ignore[union-attr]
        self.err.seek(0)
        err = self.err.read().decode(errors="replace")
        self.err.close()
        return "\n".join(self.lines), err, self.proc.returncode


def _run_scripts(scripts: list[str], analysis: GnubgAnalysis):
    """Run gnubg on each script, ``analysis.workers`` at a time; yield (its analysis lines,
    stderr, exit code) of each as it ends.  GnubgError when none of the running gnubg finishes
    a line of analysis for ``analysis.timeout`` seconds; every gnubg still running, and what it
    started, is ended on the way out (an error, Ctrl-C)."""
    binary, workers, timeout = analysis.binary, analysis.workers, analysis.timeout
    pending = list(scripts)
    running: dict[int, _Analyst] = {}  # by the file descriptor of its output
    said = time.monotonic()  # when a running gnubg last finished a line of analysis, or ended
    try:
        while pending or running:
            while pending and len(running) < workers:
                a = _Analyst(binary, pending.pop(0))
                running[a.fd] = a
            said = max([said] + [a.said for a in running.values()])
            if timeout is not None and time.monotonic() - said > timeout:
                raise GnubgError(
                    f"gnubg said nothing for {timeout:g} s while analysing (stalled? --gnubg-timeout)"
                )
            ready = select.select(list(running), [], [], 0.5)[0]
            for a in list(running.values()):
                chunk = os.read(a.fd, 1 << 16) if a.fd in ready else None
                if chunk is None and not a.check_exited():
                    continue
                a.take(chunk or b"")
                if chunk:
                    continue
                del running[a.fd]
                said = time.monotonic()
                yield a.close(wait=timeout or 60.0)  # its output is closed: it is ending
    finally:
        for a in running.values():
            a.close()


def _unit_sums(games: list[dict], sides: tuple[str, ...], units: list | None):
    """(chequer error, cube error, unforced moves, close cube decisions, all moves of both
    sides) summed over ``sides`` per game, then per unit where ``units`` names one a game:
    the error rates are ratios of these sums over the resampled units."""
    cheq = np.array([sum(g["stats"][s]["chequer"] for s in sides) for g in games], dtype=float)
    cube = np.array([sum(g["stats"][s]["cube"] for s in sides) for g in games], dtype=float)
    unforced = np.array([sum(g["stats"][s]["unforced"] for s in sides) for g in games], dtype=float)
    close = np.array([sum(g["stats"][s]["close_cube"] for s in sides) for g in games], dtype=float)
    all_moves = np.array(
        [g["stats"]["X"]["total"] + g["stats"]["O"]["total"] for g in games], dtype=float
    )
    if units is not None:
        if len(units) != len(games):
            raise ValueError(f"{len(units)} unit keys for {len(games)} games")
        _, inv = np.unique(np.asarray(units), return_inverse=True)
        cheq, cube, unforced, close, all_moves = (
            np.bincount(inv, weights=v) for v in (cheq, cube, unforced, close, all_moves)
        )
    return cheq, cube, unforced, close, all_moves


def cube_errors_by_kind(games: list[dict], sides: tuple[str, ...]) -> dict:
    """Where the cube error comes from: per kind of cube decision, gnubg's count and total
    error (milli, as the rates) over ``sides``."""
    kinds = {}
    for kind in CUBE_KINDS:
        pairs = [
            g["stats"][s].get("cube_kinds", {}).get(kind, (0, 0.0)) for g in games for s in sides
        ]
        kinds[kind] = {
            "count": int(sum(c for c, _ in pairs)),
            "error": 1000 * float(sum(e for _, e in pairs)),
        }
    return kinds


def error_rates(
    games: list[dict],
    sides: tuple[str, ...],
    seed: int = 0,
    n_boot: int = 2000,
    units: list | None = None,
) -> dict:
    """Ratio-of-sums error rates with a bootstrap over independent units: the groups of games
    ``units`` names (one key a game, e.g. its duplicate pair or its match), resampled whole,
    or each game where ``units`` is None.  With fewer than two units the CI ends are None
    (no interval; "ci_reason" says why)."""
    cheq, cube, unforced, close, all_moves = _unit_sums(games, sides, units)
    per_side = len(sides)
    n = len(cheq)

    def rates(idx):
        u, c = unforced[idx].sum(), close[idx].sum()
        return (
            1000 * cheq[idx].sum() / max(u, 1),
            1000 * (cheq[idx].sum() + cube[idx].sum()) / max(u + c, 1),
            1000 * (cheq[idx].sum() + cube[idx].sum()) / per_side / max(all_moves[idx].sum(), 1),
        )

    point = rates(np.arange(n))
    names = ("chequer_memg_per_move", "overall_memg_per_decision", "snowie_error_rate")
    if has_interval(n):
        rng = np.random.default_rng(seed)
        boots = np.array([rates(rng.integers(0, n, n)) for _ in range(n_boot)])
        lo, hi = np.quantile(boots, [0.025, 0.975], axis=0)
        out: dict[str, Any] = {
            name: interval(float(point[k]), float(lo[k]), float(hi[k]), n)
            for k, name in enumerate(names)
        }
    else:
        out = {name: interval(float(point[k]), None, None, n) for k, name in enumerate(names)}
    out.update(
        games=len(games),
        unforced_moves=int(unforced.sum()),
        close_cube_decisions=int(close.sum()),
        bootstrap_units=n,
        n_bootstrap=n_boot,
    )
    out["cube_errors"] = cube_errors_by_kind(games, sides)
    by_score = doubles_by_score(games, sides)
    if by_score:
        out["doubles_by_score"] = by_score
    return out


def luck_adjusted(games: list[dict], match_play: bool, seed: int = 0, n_boot: int = 2000) -> dict:
    """Player X's actual and luck-adjusted results by gnubg's luck analysis, with bootstrap
    CIs.  A game's luck-adjusted result is its actual result less the difference of the two
    sides' luck (gnubg's own figures; ``luck`` is that difference).  Match play, per match
    (one .mat file): the actual results of its games sum to +-0.5 MWC, so 0.5 + their sum is
    1 for a match won and 0 for one lost, and 0.5 + the sum of the luck-adjusted results is a
    match-win rate with the dice's luck taken out.  Money: points per game.  Each roll's luck
    is gnubg's value of that roll less its mean over the 21 rolls, so it averages zero however
    good gnubg's evaluation is: the adjusted rate estimates the same expected result as the
    actual one, with less noise the better that evaluation is."""
    by_unit: dict = {}
    for g in games:
        x = g["stats"]["X"]
        if "luck_adjusted" not in x:
            raise GnubgError(f"{g['file']}: gnubg reported no luck for game {g['game']}")
        key = g["file"] if match_play else (g["file"], g["game"])
        unit = by_unit.setdefault(key, [0.0, 0.0, 0.0])
        unit[0] += x["actual"]
        unit[1] += x["luck_adjusted"]
        unit[2] += x["actual"] - x["luck_adjusted"]  # X's luck less the opponent's
    values = np.array(list(by_unit.values())) + (0.5 if match_play else 0.0) * np.array([1, 1, 0])
    n = len(values)
    lo: Sequence[float | None] = [None] * 3
    hi: Sequence[float | None] = [None] * 3
    if has_interval(n):
        rng = np.random.default_rng(seed)
        boots = values[rng.integers(0, n, (n_boot, n))].mean(axis=1)
        lo, hi = (list(map(float, x)) for x in np.quantile(boots, [0.025, 0.975], axis=0))
    out: dict[str, Any] = {
        name: interval(float(values[:, k].mean()), lo[k], hi[k], n)
        for k, name in enumerate(("actual", "luck_adjusted", "luck"))
    }
    out.update(
        units="matches" if match_play else "games",
        n=len(values),
        measure="match-win rate" if match_play else "points per game",
    )
    return out


def as_player_x(games: list[dict], player: str) -> list[dict]:
    """The games with ``player``'s statistics, score and doubles under "X" (gnubg names the
    seats X and O by the file's columns; a saved match against gnubg-ext may have ours in
    either).  A game without a player of that name is an error: the folder holds other games."""
    out = []
    for g in games:
        names = g.get("names", {})
        if player not in names.values():
            raise GnubgError(
                f"{g['file']}: no player named {player!r} (the players are "
                f"{', '.join(repr(v) for v in names.values())}); use --player"
            )
        if names.get("X") == player:
            out.append(g)
            continue
        swap = {"X": "O", "O": "X"}
        out.append(
            {
                **g,
                "stats": {"X": g["stats"]["O"], "O": g["stats"]["X"]},
                "score": g["score"][::-1],
                "names": {"X": names["O"], "O": names["X"]},
                "doubles": [[swap[p], nd, dt] for p, nd, dt in g.get("doubles", [])],
            }
        )
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
            row = out.setdefault(
                f"{length - mine}-{length - theirs}", {"doubles": 0, "wrong": 0, "error": 0.0}
            )
            row["doubles"] += 1
            loss = nd - dt
            if loss > 0:
                row["wrong"] += 1
                row["error"] += 1000 * loss
    return dict(sorted(out.items(), key=lambda kv: -kv[1]["error"]))
