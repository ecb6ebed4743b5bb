"""Against the real GNU Backgammon binary: socket play, .mat import and analysis, faults.

Skipped on a machine without gnubg, never under CI (CI is set there and `make gnubg`
builds 1.08.003, the seed's opponent).  Tests marked with the `gnubg_bin` fixture run
once per supported binary installed here (make gnubg's 1.08.003 and Debian 12's 1.07.001
when both are), so the two versions are held to the same behaviour."""

import csv
import json
import os
import stat
import threading
from itertools import pairwise

import numpy as np
import pytest
import torch

from helpers import HANG_GUARD, ROOT, assert_one_line_error, run
from tdbg.game.modes import game_mode
from tdbg.gnubg.gnubg_binary import (
    LOCAL_BUILD,
    SEED_VERSION,
    SEED_WEIGHTS_MD5,
    GnubgError,
    available,
    installed_binaries,
    preflight,
)
from tdbg.gnubg.gnubg_external import GnubgOpponent, GnubgSession
from tdbg.gnubg.gnubg_protocol import ProtocolError, parse_board_string
from tdbg.net.model import TDNetwork, new_metadata, save_checkpoint
from tdbg.play.players import Player
from tdbg.play.seating import evaluator
from tdbg.play.td_agent import TDAgent

needs_gnubg = pytest.mark.skipif(
    not available() and not os.environ.get("CI"),
    reason="GNU Backgammon binary not installed (make gnubg)",
)

BINARIES = installed_binaries()
CI = bool(os.environ.get("CI"))


@pytest.fixture(
    params=BINARIES or [None], ids=lambda b: preflight(b, quiet=True)["version"] if b else "none"
)
def gnubg_bin(request):
    """Each supported gnubg binary on this machine (under CI at least 1.08.003, never none)."""
    if request.param is None:
        if CI:
            pytest.fail("no supported gnubg binary under CI: `make gnubg` must build 1.08.003")
        pytest.skip("GNU Backgammon binary not installed (make gnubg)")
    return request.param


OPENING = (
    "board:gnubg:td:0:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:2:1:2:1:1:1:1:0:1:-1:"
    "0:25:0:0:0:0:0:0:0:1"
)


@pytest.fixture(scope="module")
def cubeful_ckpt(tmp_path_factory):
    torch.manual_seed(3)
    m = TDNetwork(200, [16], "equity")
    path = tmp_path_factory.mktemp("gx") / "cf.pt"
    save_checkpoint(str(path), m, new_metadata(m, "cubeful-money"))
    return str(path)


def test_parse_board_string():
    q = parse_board_string(OPENING)
    assert q.kind == "move" and q.dice == (2, 1) and q.cube == 1
    assert q.board[1].tolist()[:24] == [
        0,
        0,
        0,
        0,
        0,
        5,
        0,
        3,
        0,
        0,
        0,
        0,
        5,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        2,
    ]
    assert q.board[0].sum() == 15
    for bad in ("hello", OPENING.replace(":5:0:3", ":9:0:3"), OPENING[:60]):
        with pytest.raises(ProtocolError):
            parse_board_string(bad)


def test_cubeful_games_against_gnubg(tmp_path, gnubg_bin):
    """A real model against each binary: our record of every game equals gnubg's, and games
    are won by both sides (1.08.003 renames the seats at `new session`: before the fix every
    game was scored as gnubg's)."""
    out, games_csv, results = tmp_path / "g.json", tmp_path / "games.csv", tmp_path / "r.csv"
    run(
        "play_models.py",
        "--model1",
        "best_models/cubeful_256x2.pt",
        "--model2",
        "gnubg-ext",
        "--gnubg",
        gnubg_bin,
        "--games",
        "12",
        "--workers",
        "2",
        "--seed",
        "1",
        "--quiet",
        "--json",
        out,
        "--games-csv",
        games_csv,
        "--csv",
        results,
        check=True,
    )
    s = json.loads(out.read_text())
    assert s["games"] == 12 and s["record_mismatches"] == [] and not s["errors"]
    info = preflight(gnubg_bin, quiet=True)
    assert (
        s["gnubg"]["version"] == info["version"]
        and s["gnubg"]["weights_md5"] == info["weights_md5"]
    )
    assert f"# gnubg: GNU Backgammon {info['version']} " in results.read_text()
    rows = list(csv.DictReader(open(games_csv)))
    assert len(rows) == 12
    assert (
        sum(int(r["doubles_ours"]) for r in rows) > 0
        and sum(int(r["doubles_gnubg"]) for r in rows) > 0
    )
    assert all(float(r["points"]) == float(r["our_record"]) for r in rows)
    assert any(float(r["points"]) > 0 for r in rows) and any(float(r["points"]) < 0 for r in rows)
    # gnubg's record by money arithmetic: each take doubles the cube, every double is taken
    # or dropped, a game played out scores its result (1, 2, 3) times the cube
    for r in rows:
        n = {
            k: int(r[k])
            for k in (
                "doubles_ours",
                "doubles_gnubg",
                "takes_ours",
                "takes_gnubg",
                "drops_ours",
                "drops_gnubg",
                "cube",
                "result",
                "resigned",
            )
        }
        assert n["doubles_ours"] == n["takes_gnubg"] + n["drops_gnubg"], r
        assert n["doubles_gnubg"] == n["takes_ours"] + n["drops_ours"], r
        assert n["cube"] == 2 ** (n["takes_ours"] + n["takes_gnubg"]), r
        if not (n["drops_ours"] or n["drops_gnubg"] or n["resigned"]):
            assert abs(float(r["points"])) == n["result"] * n["cube"], r
    points = np.array([float(r["points"]) for r in rows])
    assert s["meq_per_game"]["mean"] == pytest.approx(1000 * points.mean())
    assert s["win_rate"]["mean"] == pytest.approx(np.mean(points > 0))


def test_full_width_gnubg_plays(cubeful_ckpt, gnubg_bin):
    agent = evaluator(Player(cubeful_ckpt))
    recs = GnubgSession(agent, GnubgOpponent("gnubg-ext-full", gnubg_bin), seed=2).play(2)
    assert len(recs) == 2 and all(r.points == r.our_record for r in recs)


def test_a_script_longer_than_the_pipe_does_not_block_the_games(
    cubeful_ckpt, gnubg_bin, monkeypatch
):
    """gnubg reads its script while it plays, so a script longer than the pipe holds (10,000
    games' `new game` lines are about 90 kB) must be fed while the games run: written in one
    go before the first game, it filled the pipe while gnubg waited on our first move."""
    agent = evaluator(Player(cubeful_ckpt))
    session = GnubgSession(agent, GnubgOpponent("gnubg-ext", gnubg_bin, HANG_GUARD), seed=3)
    script = session._script
    # 160 kB of harmless commands gnubg reaches only after the game: unread while game 1 runs
    monkeypatch.setattr(
        session, "_script", lambda port, n: script(port, n) + "set display off\n" * 10000
    )
    out = {}
    worker = threading.Thread(
        target=lambda: out.setdefault("records", session.play(1)), daemon=True
    )
    worker.start()
    worker.join(HANG_GUARD)
    assert not worker.is_alive(), "the session hung"
    assert len(out["records"]) == 1 and out["records"][0].points == out["records"][0].our_record


def test_preflight_prefers_the_seeds_gnubg():
    """make gnubg's build is the default binary and loads the seed's weights; under CI it must exist."""
    if not os.path.exists(LOCAL_BUILD):
        if CI:
            pytest.fail(
                f"{LOCAL_BUILD} missing under CI: `make gnubg` must build gnubg {SEED_VERSION}"
            )
        pytest.skip(f"gnubg {SEED_VERSION} not built here (make gnubg)")
    saved = os.environ.pop("GNUBG_BINARY", None)
    try:
        info = preflight(quiet=True)
    finally:
        if saved is not None:
            os.environ["GNUBG_BINARY"] = saved
    assert info["binary"] == LOCAL_BUILD and info["version"] == SEED_VERSION
    assert info["weights_md5"] == SEED_WEIGHTS_MD5 and os.path.dirname(info["weights"]).startswith(
        os.path.dirname(os.path.dirname(LOCAL_BUILD))
    )
    if os.path.exists("/usr/games/gnubg"):  # Debian's stays usable by name, with its own weights
        debian = preflight("/usr/games/gnubg", quiet=True)
        assert debian["version"] == "1.07.001" and debian["weights_md5"] != SEED_WEIGHTS_MD5


@needs_gnubg
def test_cubeless_money_against_gnubg(tmp_path):
    torch.manual_seed(0)
    m = TDNetwork(196, [16], "equity")
    path = tmp_path / "cl.pt"
    save_checkpoint(str(path), m, new_metadata(m, "cubeless-money"))
    out = tmp_path / "o.json"
    run(
        "play_models.py",
        "--model1",
        path,
        "--model2",
        "gnubg-ext",
        "--games",
        "4",
        "--quiet",
        "--json",
        out,
        "--games-csv",
        tmp_path / "c.csv",
        check=True,
    )
    s = json.loads(out.read_text())
    assert s["game_mode"] == "cubeless-money" and s["record_mismatches"] == []


def test_mat_files_import_and_analyse(tmp_path, cubeful_ckpt, gnubg_bin):
    from tdbg.gnubg.gnubg_analysis import GnubgAnalysis, analyse_files

    games = tmp_path / "mats"
    run(
        "play_models.py",
        "--model1",
        cubeful_ckpt,
        "--model2",
        cubeful_ckpt,
        "--games",
        "12",
        "--quiet",
        "--save-games",
        games,
        check=True,
    )
    files = sorted(str(f) for f in games.iterdir())
    stats = analyse_files(
        files, GnubgAnalysis(gnubg_bin, ply=0, jacoby=True)
    )  # raises on any import warning
    assert len(stats) == 12 and all(
        np.isfinite(g["stats"][s]["chequer"]) for g in stats for s in "XO"
    )
    # gnubg's count of each side's moves and unforced moves (more than one distinct legal
    # play) equals ours, from the same games replayed with their turns by the Python engine
    from tdbg.play.series import ModeSpec, Series, play_series
    from tdbg.game import backgammon_engine as be

    records = play_series(
        Series(
            (Player(cubeful_ckpt), Player(cubeful_ckpt)), ModeSpec("cubeful-money"), 12, record=True
        ),
        progress=False,
    ).records
    for g, rec in zip(stats, records, strict=True):
        ours = {"X": [0, 0], "O": [0, 0]}  # X: seat 0 (model1)
        for mover, dice, event, before, _ in rec.turns:
            if event == "move":
                plays = {be.position_id(a) for _, a in be.legal_moves(before, *dice)}
                ours["XO"[mover]][0] += len(plays) > 1
                ours["XO"[mover]][1] += 1
        assert {s: [g["stats"][s]["unforced"], g["stats"][s]["total"]] for s in "XO"} == ours


def test_gnubg_eval_cli(tmp_path, cubeful_ckpt, gnubg_bin):
    out = tmp_path / "e.json"
    proc = run(
        "gnubg_eval.py",
        "--model",
        cubeful_ckpt,
        "--games",
        "6",
        "--quiet",
        "--json",
        out,
        "--gnubg",
        gnubg_bin,
        check=True,
    )
    info = preflight(gnubg_bin, quiet=True)
    assert f"gnubg {info['version']} at" in proc.stdout and info["weights_md5"] in proc.stdout
    r = json.loads(out.read_text())
    assert (
        r["gnubg"]["version"] == info["version"]
        and r["gnubg"]["weights_md5"] == info["weights_md5"]
    )
    for key in ("chequer_memg_per_move", "overall_memg_per_decision", "snowie_error_rate"):
        assert r[key]["ci_low"] <= r[key]["mean"] <= r[key]["ci_high"] and r[key]["mean"] > 0
    from tdbg.gnubg.gnubg_analysis import RATINGS, gnubg_ratings

    g = r["gnubg_rating"]
    assert g["mean"] == gnubg_ratings([r["overall_memg_per_decision"]["mean"]], gnubg_bin)[0]
    assert RATINGS.index(g["ci_low"]) <= RATINGS.index(g["mean"]) <= RATINGS.index(g["ci_high"])
    assert (
        "gnubg rating (of the overall rate)" in proc.stdout
        and "gnubg chequerplay rating" in proc.stdout
    )
    assert (
        r["gnubg_chequer_rating"]["mean"]
        == gnubg_ratings([r["chequer_memg_per_move"]["mean"]], gnubg_bin)[0]
    )


def test_gnubg_eval_refuses_missing_or_unsupported_binary(tmp_path, cubeful_ckpt):
    assert_one_line_error(
        run("gnubg_eval.py", "--model", cubeful_ckpt, "--gnubg", tmp_path / "nope"), "no gnubg"
    )
    fake = _script(tmp_path / "old", 'echo "GNU Backgammon 0.14.3"')
    assert_one_line_error(
        run("gnubg_eval.py", "--model", cubeful_ckpt, "--gnubg", fake), "supported versions"
    )


def test_play_models_gnubg_flag_errors(tmp_path, cubeful_ckpt):
    base = ("play_models.py", "--model1", cubeful_ckpt, "--games", "2", "--quiet")
    assert_one_line_error(
        run(*base, "--model2", "gnubg-ext", "--gnubg", tmp_path / "nope"), "no gnubg"
    )
    assert_one_line_error(
        run(*base, "--model2", "pubeval", "--gnubg", tmp_path / "nope"), "not the gnubg binary"
    )
    # a gnubg that cannot find its weights (a moved build) is refused before any game
    lost = _script(
        tmp_path / "gnubg_lost",
        '''if [ "$1" = "--version" ]; then echo "GNU Backgammon 1.08.003 20240101"; exit 0; fi
echo "couldn't open /nowhere/gnubg.wd"''',
    )
    assert_one_line_error(
        run(*base, "--model2", "gnubg-ext", "--gnubg", lost), "cannot find the weights"
    )


# --------------------------------------------------------------------------- faults


def _script(path, body):
    path.write_text("#!/usr/bin/env bash\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


FAKE = '''if [ "$1" = "--version" ]; then echo "GNU Backgammon 1.07.001 20230103"; exit 0; fi
script=$(cat)
case "$script" in "show engine"*)
  printf ' * Weights file and databases installed in:\\n   - %%s\\n' "$(dirname "$0")"; exit 0;; esac
port=$(echo "$script" | grep -o "external 127.0.0.1:[0-9]*" | head -1 | cut -d: -f2)
exec python3 -c "
import socket, sys, time
s = socket.create_connection(('127.0.0.1', $port))
s.sendall(b'%s\\n')
if '%s' != 'garbage':
    s.recv(100)
if '%s' == 'stall':
    time.sleep(300)
if '%s' == 'stranger':  # a result line that names neither seat
    print('root wins a single game and 1 point.', flush=True)
"'''


@pytest.mark.parametrize(
    "kind,words",
    [
        ("die", "closed the connection"),
        ("stall", "stalled"),
        ("garbage", "cannot parse"),
        ("stranger", "neither"),
    ],
)
def test_faults_give_clear_errors(tmp_path, kind, words):
    board = "board:nonsense" if kind == "garbage" else OPENING
    fake = _script(tmp_path / f"gnubg_{kind}", FAKE % (board, kind, kind, kind))
    (tmp_path / "gnubg.wd").write_bytes(b"not real weights")
    agent = TDAgent(TDNetwork(200, [8], "equity"), game_mode("cubeful-money"))
    with pytest.raises(GnubgError, match=words):
        # the timeout bounds both gnubg's connection and a stalled reply: long enough that a
        # loaded machine starting the fake's python3 (4 s seen) still connects, short of the
        # stalling fake's sleep
        GnubgSession(agent, GnubgOpponent(gnubg=fake, gnubg_timeout=20)).play(3)


def test_a_gnubg_that_exits_before_connecting_is_named_at_once(tmp_path):
    """A gnubg that passes the preflight, then exits before it connects (a broken install):
    said at once, with its exit code (it was waited for to the end of --gnubg-timeout and
    then called a gnubg that did not connect)."""
    body = FAKE.split("port=")[0] % () + 'echo "gnubg: out of memory"; exit 3'
    gone = _script(tmp_path / "gnubg_gone", body)
    (tmp_path / "gnubg.wd").write_bytes(b"not real weights")
    agent = TDAgent(TDNetwork(200, [8], "equity"), game_mode("cubeful-money"))
    with pytest.raises(GnubgError, match=r"gnubg exited \(code 3\) before it connected"):
        GnubgSession(agent, GnubgOpponent(gnubg=gone, gnubg_timeout=HANG_GUARD)).play(3)


def test_dying_gnubg_keeps_finished_games(tmp_path, cubeful_ckpt, gnubg_bin):
    real = gnubg_bin
    wrapper = _script(
        tmp_path / "gnubg_dies",
        f"""if [ "$1" = "--version" ]; then exec {real} --version; fi
script=$(cat)
case "$script" in "show engine"*) echo "$script" | exec {real} "$@";; esac
echo "$script" | {real} "$@" &
pid=$!
sleep 2
kill -9 $pid""",
    )
    out, games_csv = tmp_path / "o.json", tmp_path / "games.csv"
    env_run = dict(os.environ, GNUBG_BINARY=wrapper)
    import subprocess
    import sys

    proc = subprocess.run(
        [
            sys.executable,
            "play_models.py",
            "--model1",
            cubeful_ckpt,
            "--model2",
            "gnubg-ext",
            "--games",
            "2000",
            "--quiet",
            "--json",
            str(out),
            "--games-csv",
            str(games_csv),
        ],
        capture_output=True,
        text=True,
        env=env_run,
        cwd=ROOT,
        timeout=HANG_GUARD,
    )
    assert_one_line_error(proc, "closed the connection")
    s = json.loads(out.read_text())
    rows = list(csv.DictReader(open(games_csv)))
    assert 0 < len(rows) == s["games"] < 2000
    assert f"the {len(rows):,} games that finished are in the summary above" in proc.stderr, (
        proc.stderr
    )


class _RecordingAgent:
    """Wraps an agent and remembers every (board, dice) it was asked to move from."""

    def __init__(self, agent):
        self.agent, self.asked = agent, []
        self.name, self.cube_capable = agent.name, agent.cube_capable

    def choose_moves(self, boards, dice, owners=None):
        self.asked += [
            (b.copy(), tuple(int(x) for x in d)) for b, d in zip(boards, dice, strict=True)
        ]
        return self.agent.choose_moves(boards, dice, owners)

    def __getattr__(self, name):
        return getattr(self.agent, name)


def test_gnubg_record_gives_every_roll_for_luck(tmp_path, cubeful_ckpt, gnubg_bin):
    """gnubg's exported .mat is the only record of its dice: read back, our seat's turns
    must be exactly the positions and rolls gnubg asked us about, and gnubg's turns must
    connect our moves (each starts where our last move left the board)."""
    from tdbg.game import backgammon_engine as be
    from tdbg.gnubg.gnubg_protocol import turns_from_mat
    from tdbg.play.luck import add_luck
    from tdbg.net.model import load_checkpoint

    model, _, _ = load_checkpoint(cubeful_ckpt)
    agent = _RecordingAgent(TDAgent(model, game_mode("cubeful-money")))
    mat = str(tmp_path / "s.mat")
    session = GnubgSession(
        agent,
        GnubgOpponent("gnubg-ext", gnubg_bin, HANG_GUARD),
        game_mode("cubeful-money"),
        seed=4,
        mat_path=mat,
    )
    records = session.play(6)
    all_turns = turns_from_mat(mat, records)
    ours = [(t[3], t[1]) for turns in all_turns for t in turns if t[0] == 0 and t[2] == "move"]
    assert len(ours) == len(agent.asked) > 0
    for (board, dice), (asked, asked_dice) in zip(ours, agent.asked, strict=True):
        assert np.array_equal(board, asked) and sorted(dice) == sorted(asked_dice)
    for turns in all_turns:
        moves = [t for t in turns if t[2] == "move"]
        for prev, nxt in pairwise(moves):
            assert prev[0] != nxt[0] and np.array_equal(be.swap(prev[4]), nxt[3])
    for rec, turns in zip(records, all_turns, strict=True):
        rec.turns = turns
    add_luck(records, "gnubg-nn", game_mode("cubeful-money"))
    assert all(np.isfinite(r.luck) for r in records) and any(r.luck != 0 for r in records)
    # a record that does not match the games played is refused
    with pytest.raises(ProtocolError):
        turns_from_mat(mat, records[:-1])


def test_play_models_luck_against_gnubg(tmp_path, cubeful_ckpt, gnubg_bin):
    out = tmp_path / "g.json"
    run(
        "play_models.py",
        "--model1",
        cubeful_ckpt,
        "--model2",
        "gnubg-ext",
        "--gnubg",
        gnubg_bin,
        "--games",
        "4",
        "--workers",
        "2",
        "--seed",
        "2",
        "--quiet",
        "--luck",
        "--json",
        out,
        "--games-csv",
        tmp_path / "games.csv",
        check=True,
    )
    s = json.loads(out.read_text())
    lk = s["luck_adjusted"]
    assert (
        lk["games"] == 4
        and lk["ci_low"] <= lk["mean"] <= lk["ci_high"]
        and lk["reference"] == "gnubg-nn"
    )
    # the raw side by hand from gnubg's record of the games, over the units the summary names
    # (single games, or consecutive pairs), and the factor is the ratio of the two variances
    points = np.array([float(r["points"]) for r in csv.DictReader(open(tmp_path / "games.csv"))])
    assert len(points) == 4 and lk["units"] in (2, 4)
    units = points.reshape(lk["units"], -1).mean(axis=1)
    assert lk["raw_mean"] == pytest.approx(points.mean()) and lk["raw_variance"] == pytest.approx(
        units.var(ddof=1)
    )
    assert lk["games_factor"] == pytest.approx(lk["raw_variance"] / lk["adjusted_variance"])
    assert lk["mean"] != pytest.approx(lk["raw_mean"])  # the luck of the dice was taken out


def test_matches_against_gnubg(tmp_path, gnubg_bin):
    """Whole 3-point matches: gnubg checks nothing of ours, so every board's length, score and
    Crawford flag is checked on our side (gnubg_external); here the records must agree too."""
    from tdbg.game.modes.matchplay import MATCH_INPUTS

    torch.manual_seed(5)
    m = TDNetwork(MATCH_INPUTS, [8], "mwc")
    ckpt = tmp_path / "match.pt"
    save_checkpoint(str(ckpt), m, new_metadata(m, "match"))
    out, games, mats, per_match = (
        tmp_path / "m.json",
        tmp_path / "games.csv",
        tmp_path / "mats",
        tmp_path / "r.csv",
    )
    run(
        "play_models.py",
        "--model1",
        ckpt,
        "--model2",
        "gnubg-ext",
        "--game-mode",
        "match",
        "--match-length",
        "3",
        "--games",
        "4",
        "--workers",
        "2",
        "--quiet",
        "--json",
        out,
        "--games-csv",
        games,
        "--csv",
        per_match,
        "--save-games",
        mats,
        "--gnubg",
        gnubg_bin,
        check=True,
    )
    s = json.loads(out.read_text())
    assert s["matches"] == 4 and s["errors"] == [] and s["record_mismatches"] == []
    assert s["games"] == len(games.read_text().splitlines()) - 1 >= 4
    assert 0 <= s["match_win_rate"]["mean"] <= 1
    # gnubg's own record of each match, as it exported it: its games replay under our rules, as
    # many as we played, won by whom our record says
    from tdbg.play.matfile import read_mat

    files = sorted(os.listdir(mats))
    assert files == [f"match_{k:06d}.mat" for k in range(4)]
    rows = list(
        csv.DictReader(ln for ln in per_match.read_text().splitlines() if not ln.startswith("#"))
    )
    for k, name in enumerate(files):
        assert "3 point match" in (mats / name).read_text()
        ours = [r for r in rows if int(r["match"]) == k]
        replayed = read_mat(str(mats / name))
        assert len(replayed) == len(ours) >= 1
        # the match's last game decides it: seat 1 is ours in gnubg's record, winner 0 in ours
        assert (replayed[-1]["winner"] == 1) == (int(ours[0]["winner"]) == 0)
    assert_one_line_error(
        run(
            "play_models.py",
            "--model1",
            ckpt,
            "--model2",
            "gnubg-ext",
            "--game-mode",
            "match",
            "--games",
            "1",
            "--save-games",
            tmp_path / "a b",
            "--gnubg",
            gnubg_bin,
        ),
        "without blanks",
    )
    # gnubg's luck analysis of the same files: its actual results give back the match-win rate we
    # scored (each match's games sum to +-0.5 MWC), and the luck-adjusted rate is the actual less the luck
    lj = tmp_path / "luck.json"
    run(
        "gnubg_eval.py",
        "--from-mat",
        mats,
        "--luck",
        "--quiet",
        "--json",
        lj,
        "--gnubg",
        gnubg_bin,
        check=True,
    )
    lk = json.loads(lj.read_text())["luck"]
    assert lk["n"] == 4 and lk["units"] == "matches"
    assert lk["actual"]["mean"] == pytest.approx(s["match_win_rate"]["mean"], abs=1e-5)
    assert lk["luck_adjusted"]["mean"] == pytest.approx(
        lk["actual"]["mean"] - lk["luck"]["mean"], abs=1e-6
    )
    assert 0 <= lk["luck_adjusted"]["mean"] <= 1 and lk["luck"]["mean"] != 0


@pytest.mark.parametrize("workers", [1, 2])
def test_progress_bar_moves_as_each_match_ends(tmp_path, gnubg_bin, monkeypatch, workers):
    """Against the binary the bar moves one match at a time, in the main process and from
    worker processes alike (it used to move only when a worker had played all its matches)."""
    from tdbg.gnubg import gnubg_series
    from tdbg.game.modes.matchplay import MATCH_INPUTS
    from tdbg.play.series import ModeSpec, Series

    torch.manual_seed(5)
    m = TDNetwork(MATCH_INPUTS, [8], "mwc")
    ckpt = tmp_path / "match.pt"
    save_checkpoint(str(ckpt), m, new_metadata(m, "match"))
    steps = []

    class Bar:  # tqdm's interface as run_against_gnubg uses it
        n = 0

        def __init__(self, *a, **kw):
            pass

        def update(self, k=1):
            steps.append(k)
            self.n += k

        def close(self):
            pass

    monkeypatch.setattr(gnubg_series, "tqdm", Bar)
    series = Series(
        (Player(str(ckpt)), Player("gnubg-ext")), ModeSpec("match", False, 1), 4, workers=workers
    )
    matches, _, errors = gnubg_series.GnubgSide("gnubg-ext", gnubg_bin).play(series)
    assert errors == [] and len(matches) == 4
    assert [k for k in steps if k] == [1, 1, 1, 1]


def test_a_resignation_is_scored_as_gnubg_scores_it():
    """gnubg may resign (our seat accepts a backgammon offer): the game ends with no last
    move, so the result line after 'accepts and wins' is the only record of it."""
    session = GnubgSession.__new__(GnubgSession)
    session._accepted, session._match_winners = False, []
    results, lines = [], []
    for text in (
        "gnubg offers to resign a backgammon.",
        "td accepts and wins a backgammon.",
        "td wins a backgammon and 24 points.",
        "gnubg wins a single game and 2 points.",
        "gnubg has won the match.",
    ):
        session.read_line(text, results, lines)
    assert results == [("td", "backgammon", 24, True), ("gnubg", "single game", 2, False)]
    assert session._match_winners == ["gnubg"]


def test_a_game_gnubg_scores_for_us_without_our_last_move_is_its_resignation():
    """With `set display off` gnubg prints no acceptance line: a game scored for us that our
    move did not end (and no drop) can only be gnubg's resignation; its points are the record."""
    from tdbg.gnubg.gnubg_external import _Game

    session = GnubgSession.__new__(GnubgSession)
    session.mode, session.first_index = game_mode("cubeful-money"), 0
    session._openings, session._match, session.matches = set(), None, []
    game = _Game(0)
    game.cube, game.last_board = 4, np.zeros((2, 25), dtype=np.int64)
    records = []
    session._close_finished(game, [("td", "backgammon", 12, False)], records, None)
    assert records[0].points == records[0].our_record == 12.0 and records[0].resigned


@needs_gnubg
@pytest.mark.gnubg_binary
def test_a_mat_file_named_with_a_quote_or_a_backslash_is_analysed(tmp_path):
    """gnubg's command reader takes \\ and \\" inside a quoted path as the characters: the
    analysis quotes the path so, where a file named `a".mat` was "found no games in it"."""
    import shutil

    from tdbg.gnubg.gnubg_analysis import GnubgAnalysis, analyse_files

    out = tmp_path / "mats"
    model = os.path.join(ROOT, "best_models", "dmp_128x2.pt")
    run("gnubg_eval.py", "--model", model, "--games", 1, "--export-only", "--out", out, check=True)
    (mat,) = out.glob("*.mat")
    for name in ('a".mat', "b\\c.mat", 'd "e\\" f.mat'):
        odd = tmp_path / name
        shutil.copy(mat, odd)
        games = analyse_files([str(odd)], GnubgAnalysis(preflight()["binary"], timeout=600))
        assert games and all(g["file"] == str(odd) for g in games), name


READ_LONG_LINES = """
from tdbg.gnubg.gnubg_external import GnubgSession
session = GnubgSession.__new__(GnubgSession)
session._accepted, session._match_winners = False, []
results, lines = [], []
for text in ("td wins a gammon and " + "9" * 5000 + " points.", "q" * (1 << 20),
             "gnubg wins a gammon and 2 points."):
    session.read_line(text, results, lines)
print(results)
"""


def test_long_lines_on_gnubgs_terminal_are_read_at_once():
    """A line of gnubg's terminal is matched against its result lines by patterns bounded by
    gnubg's own limits (a name of at most 31 characters, points of a few digits): an unbounded
    name backtracked over every start of a long line of letters (minutes of one core for 64 KiB,
    the run stalled), and 5,000 digits of points were a ValueError in the reading thread."""
    import subprocess
    import sys

    got = subprocess.run(
        [sys.executable, "-c", READ_LONG_LINES],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        cwd=ROOT,
    )
    assert got.returncode == 0, got.stderr
    assert got.stdout.strip() == "[('gnubg', 'gammon', 2, False)]"
