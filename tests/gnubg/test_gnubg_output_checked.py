"""What the gnubg binary prints is checked before it becomes a result: a stand-in gnubg (a
small script, no binary needed) that prints lines no gnubg prints, or stops part-way through
a file, ends the analysis with GnubgError (a script's one `error:` line), never a traceback
or a rate from part of the games."""

import hashlib
import os
import stat
import sys
import time

import pytest

from tdbg.gnubg.gnubg_analysis import CUBE_KINDS, GnubgAnalysis, analyse_files, gnubg_ratings
from tdbg.gnubg.gnubg_binary import GnubgError

# a side as gnubg's script prints it: every one of gnubg's kinds of cube error, with a count
KINDS = ", ".join(f'"{k}": [0, 0.0]' for k in CUBE_KINDS)
SIDE = (
    '{"unforced": 10, "total": 20, "chequer": 0.01, "cube": 0.0, "close_cube": 1, '
    f'"cube_kinds": {{{KINDS}}}}}'
)


def _game(path: str, index: int, side: str = SIDE) -> str:
    return (
        f'@@GAME {{"file": "{path}", "game": {index}, "stats": {{"X": {side}, "O": {SIDE}}}, '
        f'"score": [0, 0], "length": 0, "names": {{"X": "td", "O": "gnubg"}}, "doubles": []}}'
    )


def _fake(tmp_path, lines: list[str], code: int = 0) -> str:
    """A stand-in gnubg that prints ``lines`` and exits with ``code``, whatever it is asked."""
    path = tmp_path / "fake_gnubg"
    path.write_text(
        f"#!{sys.executable}\nimport sys\nprint({chr(10).join(lines)!r})\nsys.exit({code})\n"
    )
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def _mat(tmp_path, games: int, length: int = 0) -> str:
    """A .mat file with ``games`` game headings (gnubg's own are the stand-in's business)."""
    path = tmp_path / "games.mat"
    path.write_text(
        f" {length} point match\n\n" + "".join(f" Game {k + 1}\n\n" for k in range(games))
    )
    return str(path)


def _analyse(tmp_path, lines, code=0, games=1):
    mat = _mat(tmp_path, games)
    binary = _fake(tmp_path, [x.replace("MAT", os.path.abspath(mat)) for x in lines], code)
    return analyse_files([mat], GnubgAnalysis(binary, timeout=600))


def test_a_whole_analysis_is_read(tmp_path):
    got = _analyse(tmp_path, [_game("MAT", 0), _game("MAT", 1)], 0, 2)
    assert [g["game"] for g in got] == [0, 1] and got[0]["stats"]["X"]["unforced"] == 10


@pytest.mark.parametrize(
    "lines, code, games, words",
    [
        # not JSON, an object without the fields, NaN (Python's reader took it), a negative count
        (["@@GAME {not json"], 0, 1, "cannot read"),
        (["@@GAME {}"], 0, 1, "cannot read"),
        ([_game("MAT", 0, SIDE.replace("0.01", "NaN"))], 0, 1, "NaN"),
        ([_game("MAT", 0, SIDE.replace('"unforced": 10', '"unforced": -1000'))], 0, 1, "-1000"),
        ([_game("MAT", 0, SIDE.replace("0.01", "1e999"))], 0, 1, "inf"),
        (['@@FAIL {"file": 3}'], 0, 1, "cannot read"),
        # the first game of two, then an exit: with code 1 (it was taken as the whole file's
        # analysis) or with code 0
        ([_game("MAT", 0)], 1, 2, "exit 1"),
        ([_game("MAT", 0)], 0, 2, "1 of its 2 games"),
        # an error no game holds (every rate became inf, the rating script read `inf`)
        ([_game("MAT", 0, SIDE.replace("0.01", "1.7e308"))], 0, 1, "not an error size"),
        # a game of a file it was not given, beside the whole analysis of its own (a KeyError
        # traceback where the games meet the records)
        ([_game("MAT", 0), _game("/etc/passwd", 0)], 0, 1, "not given"),
        (['@@FAIL {"file": "/elsewhere.mat", "error": "x"}', _game("MAT", 0)], 0, 1, "not given"),
        # in a match: a score beyond its length ("-96 away" was shown), a double's
        # match-winning chance beyond 1 ("inf" was shown)
        (
            [_game("MAT", 0).replace('"length": 0', '"length": 3').replace("[0, 0]", "[99, 0]")],
            0,
            1,
            "score",
        ),
        ([_game("MAT", 0).replace('"score": [0, 0]', '"score": [-1, 0]')], 0, 1, "score"),
        (
            [
                _game("MAT", 0)
                .replace('"length": 0', '"length": 3')
                .replace('"doubles": []', '"doubles": [["X", 1e308, 0.5]]')
            ],
            0,
            1,
            "doubles",
        ),
        # a double by neither player: a KeyError traceback when ours sat at O, else lost
        (
            [_game("MAT", 0).replace('"doubles": []', '"doubles": [["Z", 0.1, 0.2]]')],
            0,
            1,
            "doubles",
        ),
        # numbers that disagree with one another or a part the script always prints left out
        # (999 unforced moves of 20 in all made a 32 mEMG rate 1.6, "Supernatural"; cube kinds
        # left out dropped a wrong double from the kinds' line while its error stayed in the rate)
        ([_game("MAT", 0, SIDE.replace('"unforced": 10', '"unforced": 21'))], 0, 1, "unforced"),
        ([_game("MAT", 0, SIDE.replace(KINDS, ""))], 0, 1, "cube_kinds"),
        ([_game("MAT", 0, SIDE.replace('"wrong-take"', '"wrong-takes"'))], 0, 1, "cube_kinds"),
    ],
)
def test_what_no_gnubg_prints_is_refused(tmp_path, lines, code, games, words):
    with pytest.raises(GnubgError, match=words):
        _analyse(tmp_path, lines, code, games)


@pytest.mark.parametrize(
    "line",
    [
        "@@RATING [oops",
        "@@RATING []",
        '@@RATING ["a", "b"]',
        "@@RATING [1, NaN]",
        # numbers errorrating() never gives (0 to 7, or 8 for gnubg's N/A): shown as n/a before
        "@@RATING [9, 9]",
        "@@RATING [-1, 3]",
        "@@RATING [3, 1000000000000000000000000000000]",
    ],
)
def test_a_rating_no_gnubg_prints_is_refused(tmp_path, line):
    """Two rates get two whole numbers (they were a JSONDecodeError, a StopIteration or a
    TypeError traceback)."""
    with pytest.raises(GnubgError, match="rating"):
        gnubg_ratings([5.0, 10.0], _fake(tmp_path, [line]), 600)
    assert gnubg_ratings([5.0, 10.0], _fake(tmp_path, ["@@RATING [5, 4]"]), 600) == [
        "Expert",
        "Advanced",
    ]
    assert gnubg_ratings([5.0, 1e9], _fake(tmp_path, ["@@RATING [7, 8]"]), 600) == [
        "Supernatural",
        "n/a",
    ]


def _fake_bytes(tmp_path, data: bytes) -> str:
    """A stand-in gnubg that writes ``data`` (bytes that are not UTF-8) whatever it is asked."""
    path = tmp_path / "fake_gnubg_bytes"
    path.write_text(f"#!{sys.executable}\nimport sys\nsys.stdout.buffer.write({data!r})\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_output_that_is_not_utf8_is_an_error_not_a_traceback(tmp_path):
    """Bytes that are not UTF-8 from the binary (its version line, its rating) were a
    UnicodeDecodeError traceback; they are read as text with the bad bytes replaced, and
    then refused as any other line gnubg does not print."""
    from tdbg.gnubg.gnubg_binary import gnubg_version

    with pytest.raises(GnubgError, match="does not look like GNU Backgammon"):
        gnubg_version(_fake_bytes(tmp_path, b"GNU Backgammon 1.08\xff\xfe\n"), 600)
    with pytest.raises(GnubgError, match="rating is not one number a rate"):
        gnubg_ratings([5.0], _fake_bytes(tmp_path, b"@@RATING [\xff\xfe]\n"), 600)


def test_weights_no_gnubg_loads_are_refused_unread(tmp_path):
    """The weights file the binary names is hashed in pieces, and one far larger than gnubg's
    networks is refused by its size (a 10 GB file was read whole: a MemoryError traceback)."""
    from tdbg.gnubg.gnubg_binary import MAX_WEIGHTS_BYTES, preflight

    data = tmp_path / "data"
    data.mkdir()
    with open(data / "gnubg.wd", "wb") as fh:
        fh.truncate(MAX_WEIGHTS_BYTES + 1)  # sparse: no disk, no memory
    binary = _fake(tmp_path, ["GNU Backgammon 1.08.003", "installed in:", f" - {data}"])
    with pytest.raises(GnubgError, match="no gnubg.wd is larger"):
        preflight(binary, quiet=True, timeout=600)
    with open(data / "gnubg.wd", "wb") as fh:
        fh.write(b"weights")
    got = preflight(binary, quiet=True, timeout=600)
    assert got["weights_md5"] == hashlib.md5(b"weights").hexdigest()


def _script(tmp_path, body: str, name: str = "fake_gnubg") -> str:
    """A stand-in gnubg running ``body`` (Python, with os, sys, time imported) whatever it is
    asked."""
    path = tmp_path / name
    path.write_text(f"#!{sys.executable}\nimport os, sys, time\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def _helper(marks) -> str:
    """Stand-in code that starts a helper process which outlives the stand-in, writing its pid
    to ``marks``; with ``{close}`` it closes the output it inherited first (a daemon), else it
    holds it open."""
    return (
        "if os.fork() == 0:\n"
        "    {close}\n"
        f"    open({str(marks)!r}, 'a').write(f'{{os.getpid()}}\\n')\n"
        "    time.sleep(3600)\n"
        "    os._exit(0)\n"
        f"while not os.path.exists({str(marks)!r}):\n"
        "    time.sleep(0.01)\n"
    )


def _ended(pid: int) -> bool:
    """Whether process ``pid`` has ended (gone, or a zombie), waiting for it a while (a killed
    process is reaped by init)."""
    for _ in range(3000):
        try:
            with open(f"/proc/{pid}/stat") as fh:
                if fh.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return True
        except OSError:
            return True
        time.sleep(0.1)
    return False


@pytest.mark.parametrize("close", ["os.close(1); os.close(2)", "pass"])
def test_what_gnubg_starts_ends_with_it(tmp_path, close):
    """A gnubg (a wrapper script in its place) whose helper outlives it: the helper is ended
    with it, for the version check, the rating and the analysis alike; one that held gnubg's
    output open made each wait last to --gnubg-timeout and then be called a stall."""
    from tdbg.gnubg.gnubg_binary import gnubg_version

    marks = tmp_path / "pids"
    helper = _helper(marks).replace("{close}", close)
    mat = _mat(tmp_path, 1)
    game = _game(os.path.abspath(mat), 0)
    answer = f"print('GNU Backgammon 1.08.003'); print('@@RATING [5]'); print({game!r})"
    binary = _script(tmp_path, f"{answer}\nsys.stdout.flush()\n{helper}")
    assert gnubg_version(binary, 600) == "1.08.003"
    assert gnubg_ratings([5.0], binary, 600) == ["Expert"]
    assert len(analyse_files([mat], GnubgAnalysis(binary, timeout=600))) == 1
    pids = [int(p) for p in marks.read_text().split()]
    assert len(pids) == 3 and all(_ended(p) for p in pids), pids


def test_output_without_end_is_refused_unkept(tmp_path):
    """Output no gnubg gives (3 MiB without a newline, to the version check and to the
    analysis) is refused once past its limit rather than kept whole (without end it was a
    MemoryError traceback)."""
    from tdbg.gnubg.gnubg_binary import gnubg_version

    binary = _script(tmp_path, "sys.stdout.write('GNU Backgammon 1.08.003' + 'x' * (3 << 20))")
    with pytest.raises(GnubgError, match="more than 1 MiB of output"):
        gnubg_version(binary, 600)
    with pytest.raises(GnubgError, match="line longer than 1 MiB"):
        analyse_files([_mat(tmp_path, 1)], GnubgAnalysis(binary, timeout=600))


def test_a_gnubg_that_talks_but_analyses_nothing_is_a_stall(tmp_path):
    """Only the analysis script's own lines show that gnubg is analysing: one printing other
    lines without end (here every 0.1 s) was never timed, and the run hung; it is stopped
    after the timeout like a silent one."""
    binary = _script(tmp_path, "while True:\n    print('thinking', flush=True); time.sleep(0.1)")
    with pytest.raises(GnubgError, match="said nothing for 2 s"):
        analyse_files([_mat(tmp_path, 1)], GnubgAnalysis(binary, timeout=2))


@pytest.mark.parametrize("kind", ["missing", "folder", "device"])
def test_a_data_folder_without_weights_is_named_so(tmp_path, kind):
    """A data folder whose gnubg.wd is missing, a folder or a device: the line names the file
    (it said "show engine names no data folder", though it named one)."""
    from tdbg.gnubg.gnubg_binary import weights_file

    data = tmp_path / "data"
    data.mkdir()
    if kind == "folder":
        (data / "gnubg.wd").mkdir()
    elif kind == "device":
        (data / "gnubg.wd").symlink_to("/dev/null")
    binary = _fake(tmp_path, ["installed in:", f" - {data}"])
    with pytest.raises(GnubgError, match="gnubg.wd is no file"):
        weights_file(binary, 600)


def test_a_match_length_other_than_the_files_is_refused(tmp_path):
    """gnubg's analysis names each game's match length: one that is not the length the file's
    heading names is no reading of that file (999 for a 3-point match gave doubles by score
    "999-999 away"); the file's own length is taken."""
    mat = _mat(tmp_path, 1, length=3)
    line = _game(os.path.abspath(mat), 0).replace('"length": 0', '"length": LENGTH')
    for length, ok in ((3, True), (999, False), (5, False)):
        binary = _fake(tmp_path, [line.replace("LENGTH", str(length))])
        if ok:
            assert analyse_files([mat], GnubgAnalysis(binary, timeout=600))[0]["length"] == 3
        else:
            with pytest.raises(GnubgError, match=f"gnubg read a {length}-point match"):
                analyse_files([mat], GnubgAnalysis(binary, timeout=600))
