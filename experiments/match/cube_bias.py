"""How far a match model's cube values are from a cubeless reference: for the first 300
positions of the decision benchmark (gnubg-nn self-play), the model's MWC of rolling on
(v_nd, cube 1 centred) and after a take (v_take, cube 2 owned by the taker), both from the
doubler's side, minus the same read from gnubg-nn's five cubeless probabilities and the MET
(no cube ownership value, so a guide, not an oracle), at four scores.

    python experiments/match/cube_bias.py best_models/match_256x2_outcomes.pt
"""

import json
import os
import sys

import numpy as np

import gnubg_nn
from tdbg.game import backgammon_engine as be
from tdbg.play.players import Player
from tdbg.play.seating import evaluator
from tdbg.game.modes.matchplay import MatchPlay, pack
from tdbg.game.encoding import CUBE_CENTERED

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
d = json.load(open(os.path.join(ROOT, "experiments/benchmarks/decisions/decisions.json")))
pos = [x["position_id"] for x in d["decisions"]][:300]
mode = MatchPlay(length=7)
ag = evaluator(Player(sys.argv[1]), mode)
met = mode.met
boards = np.stack([be.board_from_position_id(p) for p in pos])


def mwc(probs, a, b, c):
    """The doubler's MWC at a-away, b-away when the game ends at cube value c, from gnubg-nn's
    five probabilities."""
    w, wg, wbg, lg, lbg = probs
    out = (
        (w - wg) * met.mwc(a - c, b)
        + (wg - wbg) * met.mwc(a - 2 * c, b)
        + wbg * met.mwc(a - 3 * c, b)
    )
    out += (
        (1 - w - lg) * met.mwc(a, b - c)
        + (lg - lbg) * met.mwc(a, b - 2 * c)
        + lbg * met.mwc(a, b - 3 * c)
    )
    return float(out)


for a, b in [(7, 7), (5, 5), (4, 2), (2, 4)]:
    st = np.full(len(boards), pack(CUBE_CENTERED, 0, 0, a, b))
    v_nd, v_take = ag.scorer.cube_values(boards, st)
    ref_nd, ref_take = [], []
    for bd in boards:
        p = gnubg_nn.probabilities([list(bd[0]), list(bd[1])], 0)
        ref_nd.append(mwc(p, a, b, 1))
        ref_take.append(mwc(p, a, b, 2))
    ref_nd, ref_take = np.array(ref_nd), np.array(ref_take)
    print(
        a,
        b,
        "net-ref nd: mean %.4f" % (v_nd - ref_nd).mean(),
        " take: mean %.4f" % (v_take - ref_take).mean(),
        " corr take %.3f" % np.corrcoef(v_take, ref_take)[0, 1],
    )
