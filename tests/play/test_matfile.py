import numpy as np
import pytest
import torch

from tdbg.game.modes import game_mode
from tdbg.gnubg.gnubg_binary import available
from tdbg.net.model import TDNetwork
from tdbg.play.agents import PubevalAgent, RandomAgent
from tdbg.play.match import play_games
from tdbg.play.matfile import read_mat, write_mat
from tdbg.play.td_agent import TDAgent


def _check_replay(records, path, match_length):
    write_mat(str(path), records, ("alpha", "bravo"), match_length)
    text = path.read_text()
    assert f" {match_length} point match" in text
    for line in text.splitlines():
        if line[:4].strip().endswith(")") and len(line) > 33:
            body = line.split(")", 1)[1]
            assert "  " in body or body[28] == " "  # columns stay separable for gnubg
    games = read_mat(str(path))
    assert len(games) == len(records)
    for rec, game in zip(records, games, strict=True):
        played = [(t[0], t[3]) for t in rec.turns if t[2] == "move"]
        assert len(played) == len(game["positions"])
        for (seat, board), (seat2, board2) in zip(played, game["positions"], strict=True):
            assert seat == seat2 and np.array_equal(board, board2)
        assert game["cube"] == rec.cube
        assert len(game["turns"]) == len(rec.turns)
        for (seat, dice, event, before, after), t in zip(game["turns"], rec.turns, strict=True):
            assert (seat, event) == (t[0], t[2])
            assert np.array_equal(before, t[3])
            if event == "move":
                assert sorted(dice) == sorted(t[1]) and np.array_equal(after, t[4])
        assert game["winner"] == (0 if rec.points > 0 else 1)


def test_money_session_with_cube_actions_replays(tmp_path):
    torch.manual_seed(3)  # a net that doubles (seed 4's never does)
    agent = TDAgent(TDNetwork(200, [16], "equity"), game_mode("cubeful-money"))
    records = play_games(agent, agent, range(20), game_mode("cubeful-money"), seed=3, record=True)
    assert any(r.doubles != (0, 0) for r in records) and any(r.first == 1 for r in records)
    _check_replay(records, tmp_path / "s.mat", 0)


def test_dmp_games_replay(tmp_path):
    records = play_games(
        PubevalAgent(), RandomAgent(1), range(6), game_mode("dmp"), seed=2, record=True
    )
    for rec in records:
        _check_replay([rec], tmp_path / f"g{rec.index}.mat", 1)


@pytest.mark.skipif(not available(), reason="no gnubg binary")
def test_gnubg_reads_every_game_as_played(tmp_path):
    """The oracle is gnubg's own import: every game of a cubeful self-play session, read back
    by the binary, has our actions in our order (each move, double, take and drop by its
    player) and our winner and points.  Among them are drops by either column; a drop by the
    left-hand player used to end with its opponent's "Wins" on a line of its own, which gnubg
    1.08.003 read as one more double and a resignation (so it analysed a phantom double and
    another result).  gnubg's exporter puts that "Wins" in the drop's row; so do we, and our
    reader reads it back."""
    import os
    from gnubg_python import run_gnubg_python
    from helpers import ROOT
    from tdbg.play.players import Player
    from tdbg.play.seating import evaluator

    mode = game_mode("cubeful-money")
    agent = evaluator(Player(os.path.join(ROOT, "best_models", "cubeful_256x2.pt")), mode)
    records = play_games(agent, agent, range(16), mode, seed=3, record=True)
    droppers = [t[0] for r in records for t in r.turns if t[2] == "drop"]
    assert set(droppers) == {0, 1}  # both columns drop in these games
    path = tmp_path / "s.mat"
    _check_replay(records, path, 0)
    (games,) = run_gnubg_python(
        f"gnubg.command('import mat \"{path}\"')\n"
        "emit([[[[a.get('action'), a.get('player')] for a in g['game']], g['info']]"
        " for g in gnubg.match(0, 0, 0, 0)['games']])\n"
    )
    assert len(games) == len(records)
    for rec, (actions, info) in zip(records, games, strict=True):
        assert [(a, p) for a, p in actions] == [
            (event, "XO"[seat]) for seat, _, event, _, _ in rec.turns
        ]
        assert info["winner"] == ("X" if rec.points > 0 else "O") and info["points-won"] == abs(
            rec.points
        )
        assert not info["resigned"]
