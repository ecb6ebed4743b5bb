#!/usr/bin/env python3
"""What a position (or each move of a roll) is worth, by playing it out many times with
one player for both sides: stratified dice, luck-adjusted, optionally truncated.

    python tools/rollout.py best_models/dmp_256x2.pt 4HPwATDgc/ABMA --trials 1296
    python tools/rollout.py gnubg-nn 4HPwATDgc/ABMA --dice 31 --top 4 --truncate 10

POSITION is a gnubg Position ID, PositionID:MatchID, or an XGID (as tools/analyse.py);
dice come from --dice, else from the Match ID or XGID.  MODEL is a checkpoint (DMP,
cubeless money or prob5) or gnubg-nn (with --game-mode dmp or cubeless-money).
Values are from the side on roll: P(win) in DMP, cubeless equity in money play.
"""

from __future__ import annotations

# first: a signal during the imports ends in one line
from tdbg.infra.stop_signals import exit_on_signals

exit_on_signals(__name__)

import dataclasses
import hashlib
from tdbg.app import cli
from tdbg.infra import fileio


def build_parser() -> cli.Parser:
    p = cli.Parser(description=__doc__.split("\n\n")[0])
    p.add_argument("model", help="checkpoint (.pt) or gnubg-nn")
    p.add_argument("position", help="Position ID, PositionID:MatchID, or XGID=...")
    p.add_argument(
        "--dice",
        type=cli.dice_arg,
        help="roll out every move of this roll, e.g. 52 (default: from the ID)",
    )
    p.add_argument(
        "--trials",
        type=cli.positive_int,
        default=1296,
        help="games per position (1,296 = every pair of first two rolls once)",
    )
    p.add_argument(
        "--truncate",
        type=cli.non_negative_int,
        default=0,
        help="stop each trial after N plies and score it by the network (0: play to the end)",
    )
    p.add_argument(
        "--ply", type=int, choices=(0, 1), default=0, help="the players' move choice: 0 or 1 ply"
    )
    p.add_argument(
        "--top", type=cli.positive_int, help="with dice: roll out only the best N moves by 0-ply"
    )
    p.add_argument(
        "--game-mode",
        choices=("dmp", "cubeless-money"),
        help="game mode (default: the checkpoint's; gnubg-nn: dmp)",
    )
    p.add_argument(
        "--no-luck", action="store_true", help="skip the luck adjustment (21 times cheaper per ply)"
    )
    p.add_argument(
        "--workers", type=cli.workers_arg, default=1, help="processes sharing the trials"
    )
    p.add_argument("--seed", type=cli.seed_arg, default=0, help="dice seed")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p


def _read_position(text: str):
    """The position ``text`` names; a UsageError where it does not read, or where it is a
    match position (rollouts here are DMP or money)."""
    from tdbg.game.position_ids import parse_position

    try:
        state = parse_position(text)
    except ValueError as exc:
        raise cli.UsageError(f"position {text!r}: {exc}") from None
    if state.match_length:
        raise cli.UsageError(
            f"a match position (match to {state.match_length}): rollouts here are DMP or money"
        )
    return state


def _rollout_and_roller(args):
    """(the rollout's settings, the roller that plays its trials); a UsageError where the
    model does not load or does not fit the game mode."""
    from tdbg.net.model import CheckpointError, read_checkpoint
    from tdbg.play.rollout import RolloutSettings

    rollout = RolloutSettings(
        args.model,
        args.trials,
        game_mode=args.game_mode,
        ply=args.ply,
        truncate=args.truncate,
        seed=args.seed,
        use_luck=not args.no_luck,
        workers=args.workers,
    )
    try:
        if args.model != "gnubg-nn":  # the bytes every worker plays, named by their md5
            rollout = dataclasses.replace(rollout, data=read_checkpoint(args.model))
        return rollout, rollout.roller()
    except (CheckpointError, ValueError) as exc:
        raise cli.UsageError(str(exc)) from None


def _moves_lines(args, rollout, roller, state, dice, out: dict, settings: str) -> list[str]:
    """Roll out the best moves of ``dice``: ranks them into ``out["moves"]`` and returns the
    lines that print them, each after the first with its difference from the best."""
    from tdbg.play.metrics import metric_per_point, value_text
    from tdbg.play.rollout import move_outcomes, rank_moves

    luck = not args.no_luck
    moves, outcomes = move_outcomes(rollout, roller, state.board, dice, args.top, not args.quiet)
    out["moves"] = rank_moves(roller, state.board, moves, outcomes, luck)
    for r in out["moves"]:
        r["move"] = [list(step) for step in r["move"]]
    lines = [f"{args.model}; {out['position_id']}; dice {dice[0]}{dice[1]}; {settings}"]
    scale = metric_per_point(roller.mode)  # differences in the mode's metric
    for k, r in enumerate(out["moves"], 1):
        v, se = (r["value_adjusted"], r["se_adjusted"]) if luck else (r["value"], r["se"])
        d, dse = (r["diff_adjusted"], r["diff_se_adjusted"]) if luck else (r["diff"], r["diff_se"])
        lines.append(
            f"{k:>3}. {r['text']:<24} {value_text(roller.mode, v, se)}"
            + (f"   ({d * scale:+.4f} +- {dse * scale:.4f})" if k > 1 else "")
        )
    return lines


def _position_lines(args, rollout, roller, state, out: dict, settings: str) -> list[str]:
    """Roll out the position before its roll: its value into ``out["value"]``, and the lines
    that print it, plain and (unless --no-luck) luck-adjusted."""
    from tdbg.play.metrics import value_text
    from tdbg.play.rollout import rollout_outcomes, summarize

    o = rollout_outcomes(rollout, state.board[None], progress=not args.quiet, roller=roller)[0]
    out["value"] = summarize(o, roller.mode)
    s = out["value"]
    lines = [
        f"{args.model}; {out['position_id']}; {settings}",
        f"  plain:         {value_text(roller.mode, s['value'], s['se'])}"
        + (
            f"   P(win) {s['p_win']:.4f}"  # where the value is not already a P(win) (money)
            if s["p_win"] is not None and s["p_win_adjusted"] is None
            else ""
        )
        + (f"   net gammons {s['gammons_net']:+.4f}" if "gammons_net" in s else ""),
    ]
    if not args.no_luck:
        lines.append(
            f"  luck-adjusted: {value_text(roller.mode, s['value_adjusted'], s['se_adjusted'])}"
            f"   (standard error {s['se_factor']:.1f}x smaller)"
        )
    return lines


def main() -> None:
    args = build_parser().parse_args()
    state = _read_position(args.position)
    from tdbg.game import backgammon_engine as be

    luck = not args.no_luck
    rollout, roller = _rollout_and_roller(args)
    dice = args.dice or state.dice
    out = {
        "model": args.model,
        "model_md5": hashlib.md5(rollout.data).hexdigest() if rollout.data else None,
        "game_mode": roller.mode.name,
        "position_id": be.position_id(state.board),
        "trials": args.trials,
        "truncate": args.truncate,
        "ply": args.ply,
        "seed": args.seed,
        "luck": luck,
        "dice": list(dice) if dice else None,
    }
    settings = (
        f"{args.trials} trials, seed {args.seed}, {'truncated at ' + str(args.truncate) + ' plies' if args.truncate else 'played out'}"
        f", {args.ply}-ply, {'luck-adjusted' if luck else 'no luck adjustment'}"
    )
    if dice:
        lines = _moves_lines(args, rollout, roller, state, dice, out, settings)
    else:
        lines = _position_lines(args, rollout, roller, state, out, settings)
    print(fileio.json_text(out, indent=2) if args.json else "\n".join(lines))


if __name__ == "__main__":
    cli.run_main(main)
