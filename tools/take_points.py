#!/usr/bin/env python3
"""Does a match model double and take where the match equity table says it should?

Last-roll positions, where the answer is known exactly: the doubler (on roll) has a
few checkers left and must bear them all off with this roll; the taker has one
checker on its 1-point, so it wins if the doubler misses (it has borne 14 off:
nobody can be gammoned, and the cube is dead after the take).  With p the doubler's
chance to get off (bearoff.py, exact) and MWC values from the table at each score:

    taker takes  iff  p L2 + (1 - p) W2 > D       (L2, W2: the taker's MWC after losing
                                                    or winning 2 cubes; D: after dropping)
    doubler doubles iff min(take, drop) > no double, all from its side.

Each (position, score, cube) is checked at 0-ply (the network's own values) and at
1-ply (each roll's outcome scored exactly by the table, the misses by the network).

    python tools/take_points.py best_models/match_256x2.pt [--json]
"""

from __future__ import annotations

# first: a signal during the imports ends in one line
from tdbg.infra.stop_signals import exit_on_signals

exit_on_signals(__name__)

import hashlib
import numpy as np

from tdbg.app import cli
from tdbg.infra import fileio
from tdbg.game.bearoff import exact_win_probability
from tdbg.game.encoding import CUBE_CENTERED

DOUBLER_HOMES = [
    {6: 1, 5: 1},
    {6: 2},
    {5: 2},
    {4: 2},
    {6: 1, 1: 1},
    {5: 1, 4: 1},
    {3: 2},
    {6: 1, 3: 1},
    {4: 1, 2: 1},
    {2: 2},
    {6: 1},
    {5: 1, 2: 1},
    {6: 1, 4: 1},
    {5: 1, 3: 1},
    {6: 1, 2: 1},
]
SCORES = [
    (2, 2),
    (2, 3),
    (3, 2),
    (2, 4),
    (4, 2),
    (3, 3),
    (3, 5),
    (5, 3),
    (4, 4),
    (2, 5),
    (5, 2),
    (4, 7),
    (7, 4),
    (7, 7),
    (5, 5),
    (3, 7),
    (7, 3),
    (6, 6),
]


def last_roll_board(home: dict) -> np.ndarray:
    """Doubler on roll (row 1) with ``home`` ({point: count}); the taker's last checker on its 1-point."""
    b = np.zeros((2, 25), dtype=np.int64)
    for p, n in home.items():
        b[1, p - 1] = n
    b[0, 0] = 1
    return b


def cases(met):
    """(board, doubler away, taker away, p, exact take, exact double, take margin) for every position x score."""
    out = []
    for home in DOUBLER_HOMES:
        b = last_roll_board(home)
        p = exact_win_probability(b)
        for a, t in SCORES:  # doubler a away, taker t away, cube 1 centred
            w2, l2, d = met.mwc(t - 2, a), met.mwc(t, a - 2), met.mwc(t, a - 1)  # the taker's MWC
            take_value = p * l2 + (1 - p) * w2
            take = take_value > d
            # the doubler: no double = p win 1 + (1 - p) lose 1; double = min(take, drop) from its side
            nd = p * met.mwc(a - 1, t) + (1 - p) * met.mwc(a, t - 1)
            dbl = min(1 - take_value, 1 - d) > nd
            out.append((b, a, t, p, bool(take), bool(dbl), float(take_value - d)))
    return out


def check(model_path: str) -> dict:
    from tdbg.net.search import Search
    from tdbg.net.model import read_checkpoint
    from tdbg.play.players import Player, checkpoint_game_mode
    from tdbg.play.seating import evaluator
    from tdbg.game.modes.matchplay import MatchPlay, pack

    # only a match model doubles and takes by the score (another plays a match by its own rules:
    # asked for the decisions below, a cubeful money one raised an AttributeError)
    trained_for = checkpoint_game_mode(model_path)
    if trained_for != MatchPlay.name:
        raise cli.UsageError(
            f"{model_path} is {'a ' + trained_for + ' model' if trained_for else 'no checkpoint'}: "
            f"take points are those of a match-play model (train_batch.py --warm-start-match)"
        )
    mode = MatchPlay(length=7)
    rows = cases(mode.met)
    boards = np.stack([r[0] for r in rows])
    states = np.array([pack(CUBE_CENTERED, 0, 0, r[1], r[2]) for r in rows])
    exact_take = np.array([r[4] for r in rows])
    exact_double = np.array([r[5] for r in rows])
    margin = np.array([r[6] for r in rows])
    data = cli.checked(lambda: read_checkpoint(model_path))
    out = {
        "model": model_path,
        "model_md5": hashlib.md5(data).hexdigest(),
        "cases": len(rows),
        "takes_exact": int(exact_take.sum()),
        "doubles_exact": int(exact_double.sum()),
    }
    clear = np.abs(margin) > 0.02  # take/drop decisions more than 2% MWC from the take point
    for ply in (0, 1):  # both plies play the bytes read once (a file replaced between them too)
        agent = cli.checked(
            lambda ply=ply: evaluator(Player(model_path, Search(oneply=ply == 1), data=data), mode)
        )
        act = agent.cube_action(boards, states)
        agree_take = act.take == exact_take
        agree_double = act.double == exact_double
        out[f"ply{ply}"] = {
            "take_agreement": float(agree_take.mean()),
            "take_agreement_clear": float(agree_take[clear].mean()),
            "clear_cases": int(clear.sum()),
            "double_agreement": float(agree_double.mean()),
            "wrong_takes": [
                f"{r[1]}a-{r[2]}a p={r[3]:.3f} margin {r[6]:+.3f}"
                for r, ok in zip(rows, agree_take, strict=True)
                if not ok
            ][:12],
        }
    return out


def main() -> None:
    p = cli.Parser(description=__doc__.split("\n\n")[0])
    p.add_argument("model", help="a match-play checkpoint (train_batch.py --warm-start-match)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    args = p.parse_args()
    res = check(args.model)
    if args.json:
        print(fileio.json_text(res))
        return
    print(
        f"{args.model}: {res['cases']} last-roll cube decisions ({res['takes_exact']} correct takes, "
        f"{res['doubles_exact']} correct doubles by the table)"
    )
    for ply in (0, 1):
        r = res[f"ply{ply}"]
        print(
            f"  {ply}-ply: takes agree {100 * r['take_agreement']:.1f}% (clear cases, margin > 2% MWC: "
            f"{100 * r['take_agreement_clear']:.1f}% of {r['clear_cases']}), doubles agree "
            f"{100 * r['double_agreement']:.1f}%"
        )
        for w in r["wrong_takes"]:
            print(f"      wrong take/drop: {w}")


if __name__ == "__main__":
    cli.run_main(main)
