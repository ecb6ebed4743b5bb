"""tdbg.net.losses: the prob5 losses on a two-row batch, worked out by hand.

The "model" here returns its input: as probabilities for mse (model(x)), as the head's
logits for cross-entropy (model.logits(x)).  Logits 0 and +-ln 3 give sigmoids 1/2, 3/4
and 1/4, so every probability below is exact in binary."""

import math

import pytest
import torch

from tdbg.net.losses import prob5_log_probs, prob5_loss

LN3 = math.log(3)
# logits -> sigmoids -> the five outputs P(win), P(wg) = P(win) s1, P(wbg) = P(wg) s2,
# P(lg) = P(lose) s3, P(lbg) = P(lg) s4
Z = [[0.0, 0.0, 0.0, 0.0, 0.0], [LN3, -LN3, 0.0, LN3, 0.0]]
P = [
    [0.5, 0.25, 0.125, 0.25, 0.125],  # s = 1/2 throughout
    [0.75, 0.1875, 0.09375, 0.1875, 0.09375],  # s = 3/4, 1/4, 1/2, 3/4, 1/2
]
Y = [[1.0, 1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0, 0.0]]  # won a gammon; lost a gammon


class Identity:
    """Outputs and logits both the input itself."""

    def __call__(self, x):
        return x

    def logits(self, x):
        return x


def loss_of(x, y=Y, **kw):
    return prob5_loss(**kw)(
        Identity(), torch.tensor(x, dtype=torch.float64), torch.tensor(y, dtype=torch.float64)
    ).item()


def test_mse_weighs_the_win_term_and_divides_by_the_total_weight():
    row0 = 2 * (0.5 - 1) ** 2 + (0.25 - 1) ** 2 + 0.125**2 + 0.25**2 + 0.125**2
    row1 = 2 * 0.75**2 + 0.1875**2 + 0.09375**2 + (0.1875 - 1) ** 2 + 0.09375**2
    assert loss_of(P, kind="mse", win_weight=2.0) == pytest.approx((row0 + row1) / 2 / 6, rel=1e-12)
    plain = (row0 - 0.25 + row1 - 0.5625) / 2 / 5  # weight 1: one P(win) term each, not two
    assert loss_of(P, kind="mse") == pytest.approx(plain, rel=1e-12)


def cross_entropy_by_hand():
    """Mean over the rows of the five terms -[y log p + (1 - y) log(1 - p)], over 5."""
    log = math.log
    row0 = -(log(0.5) + log(0.25) + log(1 - 0.125) + log(1 - 0.25) + log(1 - 0.125))
    row1 = -(log(1 - 0.75) + log(1 - 0.1875) + log(1 - 0.09375) + log(0.1875) + log(1 - 0.09375))
    return (row0 + row1) / 2 / 5


def test_cross_entropy_from_probabilities_and_from_logits_agree_with_the_hand_sum():
    want = cross_entropy_by_hand()
    assert loss_of(Z, kind="cross-entropy") == pytest.approx(want, rel=1e-9)
    assert loss_of(Z, kind="cross-entropy", raw_logits=True) == pytest.approx(want, rel=1e-12)


def test_the_log_probabilities_are_those_of_the_five_outputs():
    log_p, log_q = prob5_log_probs(torch.tensor(Z, dtype=torch.float64))
    for p, q, row in zip(torch.exp(log_p).tolist(), torch.exp(log_q).tolist(), P, strict=True):
        assert p == pytest.approx(row, rel=1e-12)
        assert q == pytest.approx([1 - x for x in row], rel=1e-12)


def test_a_confident_wrong_win_keeps_its_loss_and_gradient_only_from_logits():
    """Logit 40 for the win, and the game was lost (with a gammon): each of the two terms that
    need P(lose) = sigmoid(-40) costs about 40, and each moves the win logit with slope
    sigmoid(40), about 1, so the loss (over 5) has slope 2/5 there.  The clamped version
    stops at -log(1e-7) per term, with no slope at all."""
    y = [[0.0, 0.0, 0.0, 1.0, 0.0]]
    z = torch.tensor([[40.0, 0.0, 0.0, 0.0, 0.0]], dtype=torch.float64, requires_grad=True)
    loss = prob5_loss("cross-entropy", raw_logits=True)(
        Identity(), z, torch.tensor(y, dtype=torch.float64)
    )
    loss.backward()
    # win: -log(1 - s0) = 40; wg: -log(1 - 1/2); wbg: -log(1 - 1/4); lg: -log(P(lose) / 2); lbg: ~0
    by_hand = (40 + math.log(2) + math.log(4 / 3) + 40 + math.log(2)) / 5
    assert loss.item() == pytest.approx(by_hand, rel=1e-12)
    assert z.grad[0, 0].item() == pytest.approx(2 / 5, rel=1e-12)
    z.grad = None
    clamped = prob5_loss("cross-entropy")(Identity(), z, torch.tensor(y, dtype=torch.float64))
    clamped.backward()
    # win and lg clamped to 1 - 1e-7 and 1e-7; lbg's P(lose) s3 s4 rounds to 0, clamped to 1e-7
    cut = -math.log(1e-7)
    clamped_by_hand = (cut + math.log(2) + math.log(4 / 3) + cut - math.log1p(-1e-7)) / 5
    assert clamped.item() == pytest.approx(clamped_by_hand, rel=1e-9)
    assert z.grad[0, 0].item() == 0.0


@pytest.mark.parametrize(
    "kw, words",
    [
        ({"kind": "huber"}, "unknown loss 'huber'; choose one of mse, cross-entropy"),
        ({"kind": "mse", "raw_logits": True}, "it needs --loss cross-entropy"),
        ({"win_weight": 0.0}, "--win-weight must be positive, got 0.0"),
    ],
)
def test_settings_that_cannot_work_are_refused(kw, words):
    with pytest.raises(ValueError, match=words.replace("(", r"\(")):
        prob5_loss(**kw)
