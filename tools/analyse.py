#!/usr/bin/env python3
"""What a trained network thinks of one position, in the manner of gnubg's `hint`:
every legal move ranked with its value (given dice), or the cube decision with
explicit equities (cubeful models, no dice).

    python tools/analyse.py best_models/dmp_256x2.pt 4HPwATDgc/ABMA --dice 31
    python tools/analyse.py best_models/cubeful_256x2.pt 'XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:1:0:10'
    python tools/analyse.py best_models/match_256x2_outcomes.pt 'XGID=-b----E-C---eE---c-e----B-:0:0:1:00:2:4:0:7:10'

POSITION is a gnubg Position ID, PositionID:MatchID, or an XGID; dice come from
--dice, else from the Match ID or XGID.  A match model needs a match position (its
length, score, cube and Crawford flag from the Match ID or XGID): values are then
match-winning chances at that score.
"""

from __future__ import annotations

# first: a signal during the imports ends in one line
from tdbg.infra.stop_signals import exit_on_signals

exit_on_signals(__name__)

import hashlib
from tdbg.app import cli
from tdbg.infra import fileio


def build_parser() -> cli.Parser:
    p = cli.Parser(description=__doc__.split("\n\n")[0])
    p.add_argument("model", help="checkpoint (.pt)")
    p.add_argument("position", help="Position ID, PositionID:MatchID, or XGID=...")
    p.add_argument(
        "--dice", type=cli.dice_arg, help="the roll to play, e.g. 52 (default: from the ID)"
    )
    p.add_argument("--ply", type=int, choices=(0, 1), default=0, help="lookahead: 0 or 1 ply")
    p.add_argument("--top", type=cli.positive_int, help="list only the best N moves")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    return p


def main() -> None:
    args = build_parser().parse_args()

    from tdbg.game.position_ids import gnubg_id, parse_position, xgid

    try:
        state = parse_position(args.position)
    except ValueError as exc:
        raise cli.UsageError(f"position {args.position!r}: {exc}") from None
    from tdbg.play import analysis  # torch: only once the position is known to be good
    from tdbg.game import backgammon_engine as be
    from tdbg.net.model import CheckpointError, read_checkpoint

    try:
        data = read_checkpoint(args.model)  # the bytes analysed, named by their md5
        agent = analysis.load_agent(args.model, args.ply, state.match_length, data)
    except CheckpointError as exc:
        raise cli.UsageError(str(exc)) from None
    try:
        owner = analysis.position_state(agent.mode, state)
    except ValueError as exc:
        raise cli.UsageError(f"position {args.position!r}: {exc}") from None
    dice = args.dice or state.dice
    out = {
        "model": args.model,
        "model_md5": hashlib.md5(data).hexdigest(),
        "game_mode": agent.mode.name,
        "output_mode": agent.model.output_mode,
        "ply": args.ply,
        "position_id": be.position_id(state.board),
        "gnubg_id": gnubg_id(state),
        "xgid": xgid(state),
        "dice": list(dice) if dice else None,
    }
    if dice:
        ranked = analysis.rank_moves(agent, state.board, dice, owner)
        out["moves"] = ranked[: args.top] if args.top else ranked
        out["legal_moves"] = len(ranked)
        text = analysis.format_moves(out["moves"], agent.model.output_mode, args.ply)
    else:
        # with a double offered (XGID dice "D") the taker's question has the same equities
        try:
            out["cube"] = analysis.cube_decision(agent, state.board, owner)
        except ValueError as exc:
            raise cli.UsageError(str(exc)) from None
        text = analysis.format_cube(out["cube"], args.ply)
    if args.json:
        print(fileio.json_text(out, indent=2))
    else:
        print(
            f"{args.model} ({agent.mode.name}, {agent.model.output_mode}); {out['gnubg_id']}"
            + (f"; dice {dice[0]}{dice[1]}" if dice else "")
        )
        print(text)


if __name__ == "__main__":
    cli.run_main(main)
