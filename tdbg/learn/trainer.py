"""Optimisation for batch TD: learning-rate schedule and one epoch of minibatch training.

The schedule is a linear anneal from ``lr`` to ``end_lr`` over the stage's rounds,
multiplied by a warm-up factor that ramps from 0.1 to 1 over the first
``warmup_cycles`` rounds (useful when a fresh head sits on a trained trunk).

Options: SGD ``momentum`` (heavy ball, torch's SGD), ``grad_clip`` (the gradient's
global L2 norm is scaled down to at most this before each step) and the ``loss``
(default MSE of the outputs; losses.py has prob5's).
"""

from __future__ import annotations

import math

import numpy as np
import torch

from tdbg.infra import profiling

OPTIMIZERS = ("adam", "sgd")


def scheduled_lr(
    round_index: int, total_rounds: int, lr: float, end_lr: float | None, warmup_cycles: int = 0
) -> float:
    """Learning rate for round ``round_index`` (0-based) of ``total_rounds``."""
    end = lr if end_lr is None else end_lr
    frac = min(round_index / max(total_rounds - 1, 1), 1.0)
    base = lr + (end - lr) * frac
    if warmup_cycles > 0 and round_index < warmup_cycles:
        base *= 0.1 + 0.9 * round_index / warmup_cycles
    return base


def mse_loss(model, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Mean squared error of the outputs (all of them, equally weighted)."""
    return torch.mean((model(x) - y) ** 2)


class Trainer:
    """Holds the optimizer for one model; ``train_epoch`` runs one pass over a round's samples."""

    def __init__(self, model, optimisation, lr: float = 1e-3, device: str = "cpu", loss=None):
        """``optimisation``: the stage's learn.stage_settings.Optimisation (its optimizer, momentum,
        grad_clip and batch_size)."""
        optimizer, momentum = optimisation.optimizer, optimisation.momentum
        if optimizer not in OPTIMIZERS:
            raise ValueError(
                f"unknown optimizer {optimizer!r}; choose one of {', '.join(OPTIMIZERS)}"
            )
        if momentum and optimizer != "sgd":
            raise ValueError("--momentum is for --optimizer sgd (Adam keeps its own moments)")
        if not 0.0 <= momentum < 1.0:
            raise ValueError(f"--momentum must be in [0, 1), got {momentum}")
        self.model = model
        self.device = torch.device(device)
        self.batch_size = optimisation.batch_size
        self.grad_clip = optimisation.grad_clip
        self.loss = loss or mse_loss
        params = model.parameters()
        self.optimizer = (
            torch.optim.Adam(params, lr=lr)
            if optimizer == "adam"
            else torch.optim.SGD(params, lr=lr, momentum=momentum)
        )
        self.optimizer_name = optimizer

    def set_lr(self, lr: float) -> None:
        for group in self.optimizer.param_groups:
            group["lr"] = lr

    def train_epoch(
        self, features: np.ndarray, targets: np.ndarray, rng: np.random.Generator
    ) -> float:
        """One shuffled pass of minibatch updates; returns the mean loss."""
        self.model.train()
        x_all = torch.from_numpy(np.ascontiguousarray(features, dtype=np.float32)).to(self.device)
        y_all = torch.from_numpy(np.ascontiguousarray(targets, dtype=np.float32)).to(self.device)
        order = torch.from_numpy(rng.permutation(len(x_all))).to(self.device)
        total, count = 0.0, 0
        for start in range(0, len(order), self.batch_size):
            c = profiling.clock() if profiling.ENABLED else 0.0
            batch = order[start : start + self.batch_size]
            loss = self.loss(self.model, x_all[batch], y_all[batch])
            if profiling.ENABLED:
                c = profiling.add("train_forward", c)
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            if profiling.ENABLED:
                c = profiling.add("train_backward", c)
            if self.grad_clip:
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.grad_clip)
            self.optimizer.step()
            if profiling.ENABLED:
                profiling.add("train_optimizer", c)
            total += float(loss.detach()) * len(batch)
            count += len(batch)
        self.model.eval()
        return total / max(count, 1)

    def state_dict(self) -> dict:
        return {"optimizer": self.optimizer_name, "optimizer_state": self.optimizer.state_dict()}

    def load_state_dict(self, state: dict) -> None:
        """The optimizer's moments from a continued stage's ``state``, checked before this
        (resume_state: the optimizer the stage names, every moment's shape and values)."""
        self.optimizer.load_state_dict(state["optimizer_state"])


def check_hyperparameters(group: dict, defaults: dict) -> None:
    """ValueError unless a loaded parameter group holds every hyperparameter the optimizer was
    built with, each of its kind: a flag a bool (None where the default is None), a number a
    finite one of at least 0 (a learning rate, eps, momentum, decay), a pair such as Adam's
    betas finite numbers from 0 to below 1. torch takes the saved group as it is, so text or
    NaN there failed (or spread NaN) only at the first step."""
    for key, default in defaults.items():
        if key not in group:
            raise ValueError(f"its optimizer's parameter group lacks {key!r}")
        value = group[key]
        if isinstance(default, bool) or default is None:
            good = isinstance(value, bool) or (default is None and value is None)
        elif isinstance(default, (int, float)):
            good = _plain_number(value) and value >= 0
        elif isinstance(default, tuple):
            good = (
                isinstance(value, (tuple, list))
                and len(value) == len(default)
                and all(_plain_number(x) and 0 <= x < 1 for x in value)
            )
        else:  # (a kind this check does not know: left to torch)
            good = True
        if not good:
            raise ValueError(f"its optimizer's {key} is {value!r}, not one the optimizer takes")


def _plain_number(value) -> bool:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return False
    try:  # (an int beyond a float's range: numpy's isfinite raised a TypeError for it)
        return math.isfinite(value)
    except OverflowError:
        return False
