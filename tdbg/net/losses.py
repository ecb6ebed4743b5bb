"""Training losses for the prob5 head (train_prob5.py), besides trainer.mse_loss.

The five outputs are P(win), P(win gammon), P(win bg), P(lose gammon), P(lose bg),
built from five sigmoids z read as conditionals (model.prob5_from_conditionals).
The targets are the same five probabilities (exact 0/1 at the end of a game, a
network's or a 1-ply mean's values otherwise).

* ``mse``: squared error of each output, averaged; ``win_weight`` scales the P(win)
  term (the others weigh 1), and the sum is divided by the total weight.
* ``cross-entropy``: binary cross-entropy -[y log p + (1 - y) log(1 - p)] of each of
  the five outputs against its target, weighted as above.  Computed from the
  probabilities, which are clamped to [1e-7, 1 - 1e-7] so a saturated sigmoid gives a
  finite loss -- and then no gradient.
* ``raw_logits`` (cross-entropy only): the same loss computed from the head's raw
  outputs (logits) in log space, never forming a rounded probability: log P(win) =
  logsigmoid(z0), log P(wg) = logsigmoid(z0) + logsigmoid(z1), and each 1 - p as a
  logaddexp of the ways not to reach that outcome (1 - P(wg) = P(lose) + P(win) (1 -
  s1)).  Exact where the clamped version saturates: a confident wrong output keeps
  a loss and gradient proportional to its logit.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from tdbg.net.model import prob5_from_conditionals

LOSSES = ("mse", "cross-entropy")
PROB_CLAMP = 1e-7


def _weights(win_weight: float, like: torch.Tensor) -> torch.Tensor:
    w = torch.ones(5, dtype=like.dtype, device=like.device)
    w[0] = win_weight
    return w


def prob5_log_probs(z: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(log p, log(1 - p)) of the five prob5 outputs from the head's logits z (N, 5)."""
    ls, lns = F.logsigmoid(z), F.logsigmoid(-z)  # log s_k, log(1 - s_k)
    log_win, log_lose = ls[:, 0], lns[:, 0]
    log_wg = log_win + ls[:, 1]
    log_not_wg = torch.logaddexp(log_lose, log_win + lns[:, 1])
    log_wbg = log_wg + ls[:, 2]
    log_not_wbg = torch.logaddexp(log_not_wg, log_wg + lns[:, 2])
    log_lg = log_lose + ls[:, 3]
    log_not_lg = torch.logaddexp(log_win, log_lose + lns[:, 3])
    log_lbg = log_lg + ls[:, 4]
    log_not_lbg = torch.logaddexp(log_not_lg, log_lg + lns[:, 4])
    return (
        torch.stack([log_win, log_wg, log_wbg, log_lg, log_lbg], dim=1),
        torch.stack([log_lose, log_not_wg, log_not_wbg, log_not_lg, log_not_lbg], dim=1),
    )


def prob5_loss(kind: str = "mse", win_weight: float = 1.0, raw_logits: bool = False):
    """A loss(model, x, y) for trainer.Trainer (see the module notes)."""
    if kind not in LOSSES:
        raise ValueError(f"unknown loss {kind!r}; choose one of {', '.join(LOSSES)}")
    if raw_logits and kind != "cross-entropy":
        raise ValueError(
            "--raw-logits computes the cross-entropy from the logits: it needs --loss cross-entropy"
        )
    if not win_weight > 0:
        raise ValueError(f"--win-weight must be positive, got {win_weight}")

    def loss(model, x, y):
        if kind == "mse":
            per = (model(x) - y) ** 2
        elif raw_logits:
            log_p, log_q = prob5_log_probs(model.logits(x))
            per = -(y * log_p + (1 - y) * log_q)
        else:
            p = prob5_from_conditionals(torch.sigmoid(model.logits(x))).clamp(
                PROB_CLAMP, 1 - PROB_CLAMP
            )
            per = -(y * torch.log(p) + (1 - y) * torch.log1p(-p))
        w = _weights(win_weight, per)
        return (per * w).sum(dim=1).mean() / w.sum()

    return loss
