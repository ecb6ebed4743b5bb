"""tdbg.learn.filter_training: the move filter regresses on the network's raw values of
after-states by mean squared error, with Adam of its own.

The oracle is one Adam step worked out by hand: from fresh moments, bias-corrected, the first
step moves each weight by lr g / (|g| + eps), g its gradient of the mean squared error, which
this file computes on inputs made by the plain numpy encoder (the opponent, on roll next,
encoded)."""

import copy

import numpy as np
import pytest
import torch

from oracle_positions import gnubg_games
from tdbg.game import backgammon_engine as be, encoding
from tdbg.game.modes import game_mode
from tdbg.learn.filter_training import WARMUP_EPOCHS, FilterTrainer, warm_up
from tdbg.net.model import TDNetwork

N_INPUTS = game_mode("dmp").n_inputs
LR = 1e-3


def rows(n=40, seed=3) -> dict:
    """``n`` after-states (mover in row 1) from gnubg-nn's games, with made-up raw values."""
    after = np.array(gnubg_games(n, seed, "gnubg"), dtype=np.int8)
    raw = np.random.default_rng(seed).random(n).astype(np.float32)
    return {"after": after, "cube": None, "raw": raw}


def new_filter(seed=0) -> TDNetwork:
    torch.manual_seed(seed)
    return TDNetwork(N_INPUTS, [6], "probability")


def test_one_pass_is_one_adam_step_on_the_mean_squared_error():
    data = rows()
    filt = new_filter()
    before = copy.deepcopy(filt)
    x = np.stack([encoding.encode(be.swap(a.astype(np.int64))) for a in data["after"]])
    loss = torch.mean((before(torch.from_numpy(x)) - torch.from_numpy(data["raw"])) ** 2)
    loss.backward()
    trainer = FilterTrainer(filt, np.random.default_rng(0), lr=LR, batch_size=64)  # one batch
    assert trainer.fit(data, 1) == pytest.approx(loss.item(), rel=1e-5)
    for (name, new), old in zip(filt.named_parameters(), before.parameters(), strict=True):
        want = -LR * old.grad / (old.grad.abs() + 1e-8)
        torch.testing.assert_close(new.detach() - old.detach(), want, atol=2e-7, rtol=0, msg=name)
    assert filt.samples == 40 and not filt.training


def test_no_rows_no_step():
    filt = new_filter()
    before = copy.deepcopy(filt.state_dict())
    trainer = FilterTrainer(filt, np.random.default_rng(0))
    assert np.isnan(trainer.fit(None)) and np.isnan(trainer.fit(rows(0)))
    # a share that picks none of three rows (each kept with chance 1e-12)
    assert np.isnan(trainer.fit(rows(3), 2, share=1e-12))
    assert all(torch.equal(before[k], v) for k, v in filt.state_dict().items())


def test_a_continued_stage_trains_the_filter_as_one_run_through():
    """Two passes in one trainer, or one pass, its state saved, and one more in a new trainer
    (another generator, restored from the state): the same weights, to the bit."""
    data = rows(100, seed=4)
    through = FilterTrainer(new_filter(), np.random.default_rng(7), batch_size=16)
    through.fit(data, 1, share=0.5)
    through.fit(data, 1, share=0.5)
    first = FilterTrainer(new_filter(), np.random.default_rng(7), batch_size=16)
    first.fit(data, 1, share=0.5)
    state = copy.deepcopy(first.state_dict())
    weights = copy.deepcopy(first.filter.state_dict())
    resumed = FilterTrainer(new_filter(seed=9), np.random.default_rng(123), batch_size=16)
    resumed.filter.load_state_dict(weights)
    resumed.load_state_dict(state)
    resumed.fit(data, 1, share=0.5)
    for k, v in through.filter.state_dict().items():
        assert torch.equal(v, resumed.filter.state_dict()[k]), k


class OneRound:
    """A collector whose every round is the same rows (what warm_up asks of a Collector)."""

    def __init__(self, data):
        self.data, self.asked = data, []

    def collect(self, model, episodes, seed_seq):
        self.asked.append(episodes)
        return {"filter": self.data}


def test_warm_up_fits_the_filter_on_its_episodes_rows_and_says_so():
    data = rows(30)
    trainer = FilterTrainer(new_filter(), np.random.default_rng(0))
    collector = OneRound(data)
    line = warm_up(None, collector, 1500, np.random.SeedSequence(1), trainer)
    assert collector.asked == [1500]
    assert trainer.filter.samples == WARMUP_EPOCHS * 30
    assert line.startswith(
        "move filter: none in the checkpoint; a new [6] filter fitted to the network's values "
        "of 30 after-states from 1,500 0-ply episodes (3 passes, mse "
    )
    again = warm_up(None, collector, 10, np.random.SeedSequence(1), trainer, fresh=False)
    assert again.startswith("move filter: the checkpoint's, refitted for a new stage: its [6]")
