#!/usr/bin/env python3
"""Decision error: the mean equity a player's move choice loses against the best
rolled-out move, in mEq per decision, per gnubg class and overall, with bootstrap 95% CIs.

    python experiments/benchmarks/decision_error.py best_models/dmp_256x2.pt [--ply 1]
    python experiments/benchmarks/decision_error.py gnubg-nn
    python experiments/benchmarks/decision_error.py pubeval

The decisions (experiments/benchmarks/decisions/, made by make_decisions.py) come from
gnubg-nn self-play and their candidates were rolled out by gnubg-nn, so no model of ours
judges itself.  The benchmark is cubeless money equity; every player picks its move by
its own objective (a DMP model by P(win), a cubeful one by its cubeful equity with the
cube centred) and is measured on money equity.  All decisions go through the player in
one batch.  A choice outside the rolled-out candidates is scored by gnubg-nn 1-ply,
shifted by that decision's mean rollout-minus-1-ply offset (decisions.py); the share of
the error that comes from such choices is reported.  Prints one JSON object last.
"""

from __future__ import annotations

import os
import time

from tdbg.app import cli
from tdbg.infra.fileio import json_text

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")

ONEPLY_BLOCK = 32  # decisions per 1-ply pass: a few hundred MB of replies
DEFAULT_DATA = os.path.join(ROOT, "experiments", "benchmarks", "decisions", "decisions.json")


def build_parser() -> cli.Parser:
    p = cli.Parser(description=__doc__.split("\n\n")[0])
    p.add_argument("model", help="checkpoint (.pt), gnubg-nn or pubeval")
    p.add_argument("--ply", type=int, choices=(0, 1), default=0, help="the player's lookahead")
    p.add_argument("--data", default=DEFAULT_DATA, help="decision file (make_decisions.py)")
    p.add_argument(
        "--against", help="also a paired comparison with this player (loss of MODEL minus its loss)"
    )
    p.add_argument(
        "--against-ply",
        type=int,
        choices=(0, 1),
        default=0,
        help="the --against player's lookahead",
    )
    p.add_argument("--boot", type=cli.positive_int, default=2000, help="bootstrap resamples")
    return p


def player_and_objective(spec: str, ply: int):
    """(agent, what it maximises) for a checkpoint, gnubg-nn or pubeval."""
    from tdbg.play.players import Player
    from tdbg.play.seating import evaluator
    from tdbg.game.modes import game_mode

    if spec == "pubeval":
        if ply:
            raise cli.UsageError("pubeval has no 1-ply: it scores positions, not rolls")
        return evaluator(Player("pubeval"), game_mode("cubeless-money")), "pubeval's score"
    if spec == "gnubg-nn":
        return evaluator(
            Player("gnubg-nn", plies=ply), game_mode("cubeless-money")
        ), "cubeless money equity"
    if not os.path.isfile(spec):
        raise cli.UsageError(f"{spec}: no such checkpoint (or say gnubg-nn or pubeval)")
    from tdbg.play.analysis import load_agent
    from tdbg.net.model import CheckpointError

    try:
        agent = load_agent(spec, ply)
    except (CheckpointError, ValueError) as exc:
        raise cli.UsageError(str(exc)) from None
    objective = {
        "dmp": "P(win) (DMP)",
        "cubeless-money": "cubeless money equity",
        "cubeful-money": "cubeful money equity, cube centred",
    }.get(agent.mode.name, agent.mode.name)
    return agent, objective


def choices(agent, found: list[dict], ply: int) -> list[str]:
    """After-state IDs of the agent's move in every decision, all decisions batched (1-ply
    in blocks: it scores ~10,000 replies per decision)."""
    import numpy as np

    from tdbg.play import decisions as ds

    boards = np.array([d["board"] for d in found])
    dice = np.array([d["dice"] for d in found])
    block = len(found) if ply == 0 else ONEPLY_BLOCK
    chosen = np.concatenate(
        [
            agent.choose_moves(boards[s : s + block], dice[s : s + block])
            for s in range(0, len(found), block)
        ]
    )
    return [ds.after_id(a) for a in chosen]


def ci_cell(r: dict, fmt: str) -> str:
    """A block's "[low, high]", or "no interval: 1 unit" (one decision)."""
    if r["ci"] is None:
        return f"{r['ci_reason'].split(' (')[0]:16s}"
    return f"[{fmt.format(r['ci'][0])}, {fmt.format(r['ci'][1])}]"


def main() -> None:
    args = build_parser().parse_args()

    from tdbg.play import decisions as ds

    provenance, found = ds.load(args.data)
    agent, objective = player_and_objective(args.model, args.ply)
    other = player_and_objective(args.against, args.against_ply)[0] if args.against else None
    t0 = time.perf_counter()
    chosen = choices(agent, found, args.ply)
    seconds = time.perf_counter() - t0
    result = ds.evaluate(found, chosen, args.boot)
    out = {
        "model": args.model,
        "ply": args.ply,
        "plays_by": objective,
        "measured_on": "cubeless money equity",
        "data": os.path.relpath(args.data),
        "pilot": bool(provenance.get("pilot")),
        "data_commit": provenance.get("commit"),
        **result,
        "choose_seconds": round(seconds, 2),
    }
    print(
        f"{args.model} at {args.ply}-ply (plays by {objective}; measured on cubeless money equity)"
        f"{' -- PILOT data, not the benchmark' if out['pilot'] else ''}"
    )
    print(f"  {'class':<8} {'decisions':>9} {'mEq/decision':>12}  95% CI            best   outside")
    for name, r in [("overall", result["overall"])] + list(result["by_class"].items()):
        if r["decisions"]:
            print(
                f"  {name:<8} {r['decisions']:>9} {r['meq']:>12.1f}  {ci_cell(r, '{:6.1f}')}"
                f"  {r['best']:5.1%}  {r['outside']:6.1%}"
            )
    print(
        f"  choices outside the rolled-out candidates (scored by gnubg-nn 1-ply) add "
        f"{result['outside_meq']:.1f} mEq/decision of the overall; choosing took {seconds:.1f} s"
    )
    if other is not None:
        vs = ds.paired(found, chosen, choices(other, found, args.against_ply), args.boot)
        out["paired"] = {"against": args.against, "against_ply": args.against_ply, **vs}
        print(f"  paired, minus {args.against} at {args.against_ply}-ply on the same decisions:")
        for name, r in [("overall", vs["overall"])] + list(vs["by_class"].items()):
            if r["decisions"]:
                print(
                    f"  {name:<8} {r['decisions']:>9} {r['meq_diff']:>+12.1f}  {ci_cell(r, '{:+6.1f}')}"
                    f"  chose differently in {r['differ']:.1%}"
                )
    print(json_text(out))


if __name__ == "__main__":
    cli.run_main(main)
