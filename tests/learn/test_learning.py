"""It learns: a small DMP net trained from scratch beats the random agent."""

import pytest

from helpers import run
from tdbg.game.modes import game_mode
from tdbg.play.agents import RandomAgent
from tdbg.play.evaluation import summarize
from tdbg.play.match import play_games
from tdbg.play.players import Player
from tdbg.play.seating import evaluator


@pytest.mark.slow
def test_dmp_from_scratch_beats_random(tmp_path):
    path = tmp_path / "dmp.pt"
    run(
        "train_batch.py",
        "--hidden",
        "40",
        "--num-episodes",
        "5000",
        "--episodes-per-round",
        "20",
        "--seed",
        "1",
        "--lr",
        "1e-3",
        "--quiet",
        "--save",
        path,
        check=True,
    )  # run() has the hang guard; no speed limit
    agent = evaluator(Player(str(path)))
    mode = game_mode("dmp")
    records = play_games(agent, RandomAgent(seed=5), range(400), mode, seed=3)
    win = summarize(records, mode)["win_rate"]["mean"]
    assert win >= 0.80, win
