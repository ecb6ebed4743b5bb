"""c_inference/tdbg_play against match.play_games: the same games, move for move."""

import os
import subprocess
import threading

import numpy as np
import pytest
import torch

from helpers import HANG_GUARD, ROOT, assert_one_line_error, run
from tdbg.game import backgammon_engine as be
from tdbg.game.dice import DiceStream
from tdbg.game.modes import game_mode
from tdbg.net.model import TDNetwork, load_checkpoint, new_metadata, save_checkpoint
from tdbg.play.match import play_games
from tdbg.play.td_agent import TDAgent

BINARY = f"{ROOT}/c_inference/tdbg_play"
GAMES, SEED = 40, 5


@pytest.fixture(scope="module", autouse=True)
def built():
    subprocess.run(["make", "-s", "-C", f"{ROOT}/c_inference"], check=True, capture_output=True)


def _export(tmp_path, name, mode_name, output, seed, hidden=(64, 32), n_inputs=196):
    torch.manual_seed(seed)
    model = TDNetwork(n_inputs, list(hidden), output).eval()
    ckpt, binf = tmp_path / f"{name}.pt", tmp_path / f"{name}.bin"
    save_checkpoint(str(ckpt), model, new_metadata(model, mode_name))
    run("tools/export_weights.py", ckpt, binf, check=True)
    return model, str(binf)


def _play_c(*args):
    proc = subprocess.run([BINARY, *map(str, args)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()


def test_dice_file_is_match_dice(tmp_path):
    """Each line is DiceStream's rolls, a pair's two games share one stream."""
    path = tmp_path / "dice.txt"
    run("tools/dice_file.py", "--games", 5, "--seed", 9, "--rolls", 70, path, check=True)
    lines = path.read_text().splitlines()
    assert (
        len(lines) == 5 and lines[0] == lines[1] and lines[2] == lines[3] and lines[1] != lines[2]
    )
    for g, line in enumerate(lines):
        stream = DiceStream(9, g // 2)
        assert line.split() == [f"{a}{b}" for a, b in (stream.roll(i) for i in range(70))]
    run(
        "tools/dice_file.py",
        "--games",
        3,
        "--seed",
        9,
        "--rolls",
        5,
        "--no-duplicate",
        path,
        "--overwrite",
        check=True,
    )
    assert path.read_text().splitlines()[1].split() == [
        f"{a}{b}" for a, b in (DiceStream(9, 1).roll(i) for i in range(5))
    ]


@pytest.mark.parametrize(
    "mode_name,output",
    [("dmp", "probability"), ("cubeless-money", "equity"), ("cubeless-money", "prob5")],
)
def test_same_games_as_play_games(tmp_path, mode_name, output):
    model_a, bin_a = _export(tmp_path, "a", mode_name, output, 1)
    model_b, bin_b = _export(tmp_path, "b", mode_name, output, 2, hidden=(48,))
    _same_games(tmp_path, mode_name, model_a, bin_a, model_b, bin_b)


@pytest.mark.parametrize(
    "mode_name,ckpt_a,ckpt_b",
    [
        ("dmp", "dmp_256x2.pt", "dmp_128x2.pt"),
        ("cubeless-money", "cubeless_256x2.pt", "prob5_128x2.pt"),
    ],
)
def test_same_games_trained(tmp_path, mode_name, ckpt_a, ckpt_b):
    """Trained networks: confident values (saturated sigmoids, big equities) and real play."""
    models = []
    for name in (ckpt_a, ckpt_b):
        path = f"{ROOT}/best_models/{name}"
        run("tools/export_weights.py", path, tmp_path / f"{name}.bin", check=True)
        models += [load_checkpoint(path)[0], str(tmp_path / f"{name}.bin")]
    _same_games(tmp_path, mode_name, *models)


def _same_games(tmp_path, mode_name, model_a, bin_a, model_b, bin_b):
    dice = tmp_path / "dice.txt"
    run("tools/dice_file.py", "--games", GAMES, "--seed", SEED, dice, check=True)
    out = _play_c(bin_a, bin_b, "--dice", dice, "--per-game", "--trace")
    games = [ln.split("\t") for ln in out if ln.startswith("game\t")]
    moves = {}
    for ln in out:
        if ln.startswith("move\t"):
            _, g, ply, mover, roll, pid, _ = ln.split("\t")
            moves.setdefault(int(g), []).append((int(mover), roll, pid))

    mode = game_mode(mode_name)
    agents = (TDAgent(model_a, mode), TDAgent(model_b, mode))
    records = play_games(*agents, range(GAMES), mode, SEED, duplicate=True, record=True)
    assert [int(g[1]) for g in games] == [r.index for r in records] == list(range(GAMES))
    for rec, g in zip(records, games, strict=True):
        want = [
            (mover, f"{d[0]}{d[1]}", be.position_id(be.swap(after)))
            for mover, d, _, _, after in rec.turns
        ]
        got = moves[rec.index]
        k = next(
            (k for k, (x, y) in enumerate(zip(got, want, strict=False)) if x != y),
            min(len(got), len(want)),
        )
        if k < max(
            len(got), len(want)
        ):  # find out why before failing: a near-tie shows as a tiny gap
            mover, _, before, _, _ = rec.turns[k]
            after, _, _, scalar = agents[mover].scorer.score(
                before[None], np.array([rec.turns[k][1]])
            )
            vals = {be.position_id(be.swap(a)): v for a, v in zip(after, scalar, strict=True)}
            gap = vals[want[k][2]] - vals.get(got[k][2], np.nan) if k < len(got) else np.nan
            pytest.fail(
                f"game {rec.index} move {k}: C chose {got[k] if k < len(got) else None}, Python "
                f"{want[k]}; Python's value gap between them {gap:.3g}"
            )
        assert (int(g[2]), int(g[3]), int(g[4]), int(g[5])) == (
            rec.first,
            rec.points,
            rec.result,
            len(rec.turns),
        )
    # the two games of a pair got the same dice with the seats swapped
    for g in range(0, GAMES, 2):
        assert [m[1] for m in moves[g]][:5] == [m[1] for m in moves[g + 1]][:5]
        assert moves[g][0][0] == 0 and moves[g + 1][0][0] == 1
    # the summary adds up the per-game points
    pts = [int(g[3]) for g in games]
    summary = "\n".join(ln for ln in out if not ln.startswith(("game\t", "move\t")))
    assert f"A points per game {np.mean(pts):+.4f}" in summary
    pair_means = np.array(pts).reshape(-1, 2).mean(axis=1)
    assert (
        f"{GAMES // 2} game pairs (games 2k, 2k+1): A points per game {pair_means.mean():+.4f}, "
        f"standard error {pair_means.std(ddof=1) / np.sqrt(len(pair_means)):.4f}" in summary
    )
    assert f"A wins {sum(p > 0 for p in pts)} (" in summary


def test_seeded_dice_duplicate_pairs(tmp_path):
    """--seed: pairs replay the same rolls with the seats swapped; A vs A is then even per pair
    only if both seats play the same moves, which they do (same network, same dice)."""
    _, bin_a = _export(tmp_path, "a", "dmp", "probability", 1)
    out = _play_c(bin_a, bin_a, "--seed", 3, "--games", 6, "--trace", "--per-game")
    moves = {}
    for ln in out:
        if ln.startswith("move\t"):
            _, g, _, mover, roll, pid, _ = ln.split("\t")
            moves.setdefault(int(g), []).append((roll, pid, int(mover)))
    for g in (0, 2, 4):
        assert [m[:2] for m in moves[g]] == [m[:2] for m in moves[g + 1]]
        assert [m[2] for m in moves[g]] == [1 - m[2] for m in moves[g + 1]]
        assert moves[g][0][0][0] != moves[g][0][0][1]  # the opening roll is no double
    assert moves[0] != moves[2]
    pts = [int(ln.split("\t")[3]) for ln in out if ln.startswith("game\t")]
    assert pts[0] == -pts[1] and pts[2] == -pts[3]
    assert (
        "3 duplicate pairs (games 2k, 2k+1): A points per game +0.0000, standard error 0.0000"
        in out[-1]
    )


def test_bad_input(tmp_path):
    _, bin_a = _export(tmp_path, "a", "dmp", "probability", 1, hidden=(8,))
    _, bin_m = _export(tmp_path, "m", "cubeless-money", "equity", 1, hidden=(8,))
    _, bin_c = _export(tmp_path, "c", "cubeful-money", "equity", 1, hidden=(8,), n_inputs=200)
    bad = tmp_path / "bad.txt"
    short = tmp_path / "short.txt"
    bad.write_text("31 64\n33 21\n")
    short.write_text("31\n31\n")
    cases = [
        ([bin_a, bin_c, "--seed", 1], "cubeful"),
        ([bin_a, bin_m, "--seed", 1], "different games"),
        ([bin_a, "--seed", 1], "two weights files"),
        ([bin_a, bin_a], "exactly one of"),
        ([bin_a, bin_a, "--seed", 1, "--dice", bad], "exactly one of"),
        ([bin_a, bin_a, "--seed", "x"], "--seed"),
        ([bin_a, bin_a, "--seed", 1, "--games", 0], "--games"),
        ([bin_a, bin_a, "--dice", bad], "line 2: the opening roll"),
        ([bin_a, bin_a, "--dice", short], "needs more than its 1 rolls"),
        ([bin_a, bin_a, "--dice", tmp_path / "none.txt"], "cannot open"),
        ([bin_a, bin_a, "--dice", short, "--games", 5], "2 lines (games), fewer than --games 5"),
        ([bin_a, tmp_path / "none.bin", "--seed", 1], "cannot open"),
        ([bin_a, bin_a, "--seed", 1, "--bogus"], "unknown option"),
    ]
    for args, words in cases:
        proc = subprocess.run([BINARY, *map(str, args)], capture_output=True, text=True)
        assert_one_line_error(proc, words)
        assert proc.stderr.startswith("tdbg_play: error: ") and not proc.stdout
    assert (
        "usage: tdbg_play"
        in subprocess.run([BINARY, "--help"], capture_output=True, text=True).stdout
    )


def test_same_results_as_play_models_cli(tmp_path):
    """The command-line round trip: play_models.py's per-game CSV equals tdbg_play's games."""
    _export(tmp_path, "a", "cubeless-money", "equity", 3)
    _export(tmp_path, "b", "cubeless-money", "equity", 4, hidden=(32, 32))
    csv, dice = tmp_path / "games.csv", tmp_path / "dice.txt"
    run(
        "play_models.py",
        "--model1",
        tmp_path / "a.pt",
        "--model2",
        tmp_path / "b.pt",
        "--games",
        12,
        "--seed",
        8,
        "--csv",
        csv,
        "--quiet",
        check=True,
    )
    rows = [
        ln.split(",")
        for ln in csv.read_text().splitlines()
        if ln and not ln.startswith(("#", "game,"))
    ]
    run("tools/dice_file.py", "--games", 12, "--seed", 8, dice, check=True)
    games = [
        ln.split("\t")
        for ln in _play_c(tmp_path / "a.bin", tmp_path / "b.bin", "--dice", dice, "--per-game")
        if ln.startswith("game\t")
    ]
    assert [(int(r[0]), int(r[1]), float(r[2]), int(r[3])) for r in rows] == [
        (int(g[1]), int(g[2]), float(g[3]), int(g[4])) for g in games
    ]
    assert len({r[2] for r in rows}) > 1  # not all the same result


def _fed_fifo(path, text: str):
    """A FIFO at ``path`` whose writer gives ``text`` to the first reader; the returned call
    releases the writer when no reader came (the program refused the FIFO unopened)."""
    os.mkfifo(path)

    def feed():
        with open(path, "w") as fh:
            fh.write(text)

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()

    def release():
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        writer.join(HANG_GUARD)
        os.close(fd)

    return release


def test_inputs_that_are_no_regular_files_are_refused_unread(tmp_path):
    """A dice file or weights file that is a FIFO was opened and waited on (a FIFO with no
    writer hung tdbg_play; one with a writer was read as a file); a folder was "holds no
    games".  Every input must be a regular file, as the Python scripts require."""
    _, bin_a = _export(tmp_path, "a", "dmp", "probability", 1, hidden=(8,))
    dice = tmp_path / "dice.txt"
    run("tools/dice_file.py", "--games", 2, "--rolls", 600, dice, check=True)
    assert _play_c(bin_a, bin_a, "--dice", dice)  # the file itself plays
    for args in (
        [bin_a, bin_a, "--dice", tmp_path / "dice.fifo"],
        [tmp_path / "a.fifo", bin_a, "--seed", 1],
    ):
        fifo = next(a for a in args if str(a).endswith(".fifo"))
        content = dice.read_text() if fifo.name == "dice.fifo" else ""
        release = _fed_fifo(fifo, content)
        try:
            proc = subprocess.run(
                [BINARY, *map(str, args)], capture_output=True, text=True, timeout=HANG_GUARD
            )
        finally:
            release()
        assert_one_line_error(proc, "not a regular file")
    for args in ([bin_a, bin_a, "--dice", tmp_path], [tmp_path, bin_a, "--seed", 1]):
        proc = subprocess.run([BINARY, *map(str, args)], capture_output=True, text=True)
        assert_one_line_error(proc, f"{tmp_path}: not a regular file")


def test_a_nul_byte_in_a_dice_line_is_refused(tmp_path):
    """A dice line was read as a C string: a NUL ended it there, so the rolls after it went
    unread (bad rolls after a NUL in the last line were taken, exit 0) or the line was called
    "too long"."""
    _, bin_a = _export(tmp_path, "a", "dmp", "probability", 1, hidden=(8,))
    good = tmp_path / "dice.txt"
    run("tools/dice_file.py", "--games", 2, "--rolls", 600, good, check=True)
    text = good.read_text()
    for name, damaged in [
        ("last line", text.rstrip("\n") + "\0 77 88\n"),
        ("first line", text.replace(" ", "\0", 1)),
    ]:
        path = tmp_path / f"{name}.txt"
        path.write_text(damaged)
        proc = subprocess.run(
            [BINARY, bin_a, bin_a, "--dice", str(path)], capture_output=True, text=True
        )
        assert_one_line_error(proc, "NUL byte")
        assert not proc.stdout
