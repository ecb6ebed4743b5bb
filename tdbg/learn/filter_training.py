"""Training the 1-ply move filter (net/move_filter.py) alongside the main network.

The filter regresses on the main network's own values of after-states: its raw outputs
(the same head, mean squared error over the head's outputs).  Its rows cost no extra
pass of the main network: they are the candidates of the roll actually thrown, which
self-play values anyway (the 0-ply move choice; with ``--oneply-filter`` that roll is
valued in full for the same reason).  Rows are stored as int8 boards and encoded a
minibatch at a time, so a round's rows take ~60 bytes each.

A new stage with ``--oneply-filter K`` first *warms the filter up* (a new one when the
checkpoint has none, else its own, which stages without the flag leave untrained and
so possibly stale): ``--filter-warmup N`` episodes of 0-ply self-play with the current
weights, none of them trained on by the main network, then ``WARMUP_EPOCHS`` passes over
their rows.  A continued stage (``--resume`` of its unfinished self) skips it.  After
that, a random quarter of each round's rows (ROUND_SHARE) trains it one more pass, after
the main network's epoch.
"""

from __future__ import annotations

import numpy as np
import torch

from tdbg.game.encoding import reads_board_features
from tdbg.net.model import TDNetwork
from tdbg.net.move_filter import encode_after_states

FILTER_LR = 1e-3
FILTER_BATCH = 256
WARMUP_EPOCHS = 3
DEFAULT_WARMUP_EPISODES = 1000
ROUND_SHARE = 0.25  # of a round's rows the filter trains on (a 500-episode round has ~600,000)


class FilterTrainer:
    """Adam on the filter's weights (its own optimizer; the main network's never sees them)."""

    def __init__(
        self,
        filt: TDNetwork,
        rng: np.random.Generator,
        engine: str = "auto",
        lr: float = FILTER_LR,
        batch_size: int = FILTER_BATCH,
    ):
        self.filter, self.rng, self.engine, self.batch_size = filt, rng, engine, batch_size
        self.opt = torch.optim.Adam(filt.parameters(), lr=lr)
        self.board_features = reads_board_features(filt.n_inputs)

    def state_dict(self) -> dict:
        """What a continued stage needs to train the filter on as one run through would: its
        optimizer's moments and the generator that samples and orders its rows."""
        return {"optimizer_state": self.opt.state_dict(), "rng": self.rng.bit_generator.state}

    def load_state_dict(self, state: dict) -> None:
        self.opt.load_state_dict(state["optimizer_state"])  # (checked: resume_state)
        self.rng.bit_generator.state = state["rng"]

    def fit(self, rows: dict | None, epochs: int = 1, share: float = 1.0) -> float:
        """``epochs`` passes of minibatches over ``rows`` (move_filter.filter_rows), or over a
        random ``share`` of them; the mean loss of the last pass (nan when there are no rows)."""
        if rows is None or not len(rows["raw"]):
            return float("nan")
        if share < 1.0:
            pick = np.flatnonzero(self.rng.random(len(rows["raw"])) < share)
            rows = {k: None if v is None else v[pick] for k, v in rows.items()}
        filt = self.filter
        n = len(rows["raw"])
        if not n:  # the share picked none of a few rows
            return float("nan")
        filt.train()
        loss_sum = 0.0
        for _ in range(epochs):
            loss_sum, order = 0.0, self.rng.permutation(n)
            for s in range(0, n, self.batch_size):
                idx = np.sort(order[s : s + self.batch_size])
                x = encode_after_states(
                    rows["after"][idx],
                    None if rows["cube"] is None else rows["cube"][idx],
                    filt.n_inputs,
                    self.engine,
                    self.board_features,
                )
                y = torch.from_numpy(rows["raw"][idx])
                pred = filt(torch.from_numpy(x))
                loss = torch.mean((pred - y) ** 2)
                self.opt.zero_grad(set_to_none=True)
                loss.backward()
                self.opt.step()
                loss_sum += loss.item() * len(idx)
            filt.samples = int(getattr(filt, "samples", 0)) + n
        filt.eval()
        return loss_sum / n


def warm_up(
    model,
    collector,
    episodes: int,
    seed_seq: np.random.SeedSequence,
    trainer: FilterTrainer,
    fresh: bool = True,
) -> str:
    """Fit the model's filter on ``episodes`` of 0-ply self-play (``collector``: oneply off,
    record_filter on); the line that says so (``fresh``: the filter is new)."""
    data = collector.collect(model, episodes, seed_seq)
    rows = data.get("filter")
    loss = trainer.fit(rows, WARMUP_EPOCHS)
    n = 0 if rows is None else len(rows["raw"])
    what = (
        "none in the checkpoint; a new"
        if fresh
        else "the checkpoint's, refitted for a new stage: its"
    )
    return (
        f"move filter: {what} [{','.join(map(str, trainer.filter.hidden))}] filter fitted "
        f"to the network's values of {n:,} after-states from {episodes:,} 0-ply episodes "
        f"({WARMUP_EPOCHS} passes, mse {loss:.2e})"
    )
