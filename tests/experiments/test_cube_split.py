"""experiments/retraining/cube_split.py: a player made of gnubg-nn-cubeful's chequer play and
gnubg-nn-cubeful's cube is gnubg-nn-cubeful, so against it every duplicate pair cancels exactly
(the same dice with the seats swapped); a split player takes its moves from one agent and its
cube from the other; bad input is one error line."""

import importlib.util
import os

import numpy as np
import torch

from helpers import ROOT, assert_one_line_error, run
from tdbg.game.modes import game_mode
from tdbg.infra.stats import pair_means
from tdbg.net.model import TDNetwork, new_metadata, save_checkpoint
from tdbg.play.gnubg_cube_agent import GnubgNNCubefulAgent
from tdbg.play.match import play_games

SCRIPT = "experiments/retraining/cube_split.py"


def _split_agent():
    spec = importlib.util.spec_from_file_location("cube_split", os.path.join(ROOT, SCRIPT))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.SplitAgent


def test_gnubg_split_with_itself_cancels_in_every_pair():
    mode = game_mode("cubeful-money")
    gnubg = GnubgNNCubefulAgent(mode)
    split = _split_agent()(gnubg, GnubgNNCubefulAgent(mode), "gnubg/gnubg")
    records = play_games(split, GnubgNNCubefulAgent(mode), range(16), mode, seed=3)
    pts = np.array([r.points for r in records])
    assert np.abs(pts).min() >= 1  # real games, each won by someone
    assert np.all(pair_means(np.array([r.index for r in records]), pts) == 0)


def test_split_routes_moves_and_cube():
    class Probe:
        def __init__(self, tag):
            self.tag = tag

        def choose_moves(self, boards, dice, owner=None):
            return self.tag

        def double_decisions(self, boards, owner):
            return self.tag

        def take_decisions(self, boards, owner):
            return self.tag

    split = _split_agent()(Probe("moves"), Probe("cube"), "probe")
    assert split.choose_moves(None, None) == "moves"
    assert (
        split.double_decisions(None, None) == "cube" and split.take_decisions(None, None) == "cube"
    )


def test_runs_and_refuses_bad_input(tmp_path):
    torch.manual_seed(2)
    net = TDNetwork(200, [8], "equity")
    cubeful = tmp_path / "cf.pt"
    save_checkpoint(str(cubeful), net, new_metadata(net, "cubeful-money"))
    proc = run(SCRIPT, cubeful, "--games", "4", "--seed", "1", "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert '"ours/gnubg"' in proc.stdout.splitlines()[-1]
    assert_one_line_error(run(SCRIPT, cubeful, "--games", "3"), "even")
    assert_one_line_error(
        run(SCRIPT, cubeful, "--cubeless", cubeful, "--games", "4"), "cubeless-money expected"
    )
    assert_one_line_error(run(SCRIPT, tmp_path / "nope.pt"), "nope.pt")
