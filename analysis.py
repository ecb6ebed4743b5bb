"""What a trained network thinks of one position: every legal move ranked with its value,
and the cube decision with explicit equities (the library behind tools/analyse.py).

Move values are the model's own, from the mover's side after the move: P(win) for a
DMP model, cubeless or cubeful equity (normalised to the cube) for equity models, the
five probabilities and their cubeless equity for prob5 models.  At 1-ply each value is
the mean over the opponent's 21 rolls of the position after its best reply (the same
lookahead the 1-ply agent plays with).

The cube decision of a cubeful model needs no Janowski formula: each action leads to a
state the network already values (modes.py), all normalised to the current cube:
no double = the position rolled on with the cube as it is; double/take = twice the
value of the same position with the cube doubled and owned by the taker; double/pass
= +1 (the doubler wins the current cube).  The doubler doubles when the better of
take and pass for the taker (the lower of the two) beats no double; the taker takes
when double/take < double/pass.
"""
from __future__ import annotations

import numpy as np

import backgammon_engine as be
from encoding import CUBE_MINE, CUBE_THEIRS
from heads import output_head
from model import CheckpointError, load_checkpoint
from modes import game_mode

def load_agent(path: str, plies: int = 0):
    """The head's agent (TDAgent, ProbAgent for prob5) for the checkpoint, in the game mode
    it was trained for."""
    model, meta, _ = load_checkpoint(path)
    head = output_head(model.output_mode)
    mode = game_mode(meta.get("game_mode") or head.default_mode)
    if mode.is_match:
        raise CheckpointError(f"{path} is a match-play model: analysing a match position is not supported yet "
                              "(tools/take_points.py checks its cube decisions)")
    return head.agent(model, mode, oneply=plies == 1, name=path)


# --------------------------------------------------------------------------- move text

def gnubg_move_text(board, move) -> str:
    """``move`` in GNU Backgammon's notation (its FormatMove rules, checked against the
    binary's hint lists): steps sorted by source then destination, highest first; each
    checker's consecutive steps joined into one (``24/13``), keeping an intermediate
    point only where the opponent had a checker at the start (``24/18*/13``); identical
    plays counted (``8/5(2)``, ``23/17*(2)``); a point is starred the first time a play
    lands on an opponent's checker there.  ``""`` for the pass."""
    opp = np.asarray(board)[0]
    had_opponent = lambda p: 1 <= p <= 24 and opp[24 - p] > 0  # noqa: E731
    steps = sorted(((int(a), int(b)) for a, b in move), key=lambda s: (-s[0], -s[1]))
    used = [False] * len(steps)
    chains = []
    for i, (src, dst) in enumerate(steps):
        if used[i]:
            continue
        points = [src, dst]
        for j in range(i + 1, len(steps)):  # the first chain takes every step that goes on from its end
            if not used[j] and points[-1] != 0 and steps[j][0] == points[-1]:
                used[j] = True
                points.append(steps[j][1])
        chains.append([points[0]] + [p for p in points[1:-1] if had_opponent(p)] + [points[-1]])
    counted: list[list] = []
    for pts in chains:
        for entry in counted:
            if entry[0] == pts:
                entry[1] += 1
                break
        else:
            counted.append([pts, 1])
    starred, out = set(), []
    for pts, n in counted:
        parts = [_point(pts[0])]
        for p in pts[1:-1]:
            parts.append(_point(p) + "*")
            starred.add(p)
        last = pts[-1]
        star = had_opponent(last) and last not in starred
        starred.add(last) if star else None
        parts.append(_point(last) + ("*" if star else ""))
        out.append("/".join(parts) + (f"({n})" if n > 1 else ""))
    return " ".join(out)


def _point(p: int) -> str:
    return "bar" if p == 25 else "off" if p == 0 else str(p)


# --------------------------------------------------------------------------- moves

def rank_moves(agent, board, dice, owner: int = 0) -> list[dict]:
    """Every legal play of ``dice``, best first: move text, after-board position ID, the
    value (and probabilities for prob5) and the difference from the best."""
    board = be.check_board(board)
    d1, d2 = be.check_dice(*dice)
    owner_arr = np.array([owner])
    after, offsets, values, scalar = agent.scorer.score(board[None], np.array([[d1, d2]]), owner_arr)
    after, values, scalar = after.astype(np.int64), values.copy(), scalar.copy()
    if agent.oneply:
        values = agent._lookahead(after, values, np.repeat(owner_arr, len(after)))
        scalar = agent.scorer.values.scalar(values)
    moves = {be.position_keys(res[None])[0]: mv for mv, res in be.legal_moves(board, d1, d2)}
    order = np.argsort(-scalar, kind="stable")
    best = float(scalar[order[0]])
    out = []
    for rank, i in enumerate(order, 1):
        move = moves[be.position_keys(after[i][None])[0]]
        entry = {"rank": rank, "move": gnubg_move_text(board, move) or "pass",
                 "position_id": be.position_id(be.swap(after[i])), "value": float(scalar[i]),
                 "diff": float(scalar[i]) - best}
        if values.ndim == 2:
            entry["probabilities"] = [float(x) for x in values[i]]
        out.append(entry)
    return out


def format_moves(ranked: list[dict], output_mode: str, plies: int) -> str:
    """A listing close to gnubg's ``hint``."""
    head = output_head(output_mode)
    name, fmt, dfmt = head.value_name, head.value_format, head.delta_format
    width = max(len(m["move"]) for m in ranked)
    lines = []
    for m in ranked:
        diff = "" if m["rank"] == 1 else f" ({dfmt.format(m['diff'])})"
        lines.append(f"{m['rank']:5d}. {plies}-ply  {m['move']:<{width}}  {name}: {fmt.format(m['value'])}{diff}")
        if "probabilities" in m:
            p = m["probabilities"]
            lines.append(f"       {p[0]:.3f} {p[1]:.3f} {p[2]:.3f} - {1 - p[0]:.3f} {p[3]:.3f} {p[4]:.3f}")
    return "\n".join(lines)


# --------------------------------------------------------------------------- cube

ACTIONS = ("no double, take", "double, take", "double, pass", "too good to double, pass", "no double, pass")


def cube_decision(agent, board, owner: int = 0) -> dict:
    """The cube decision of a cubeful model for the side on roll (row 1), with the cube
    ``owner`` from its view: equities normalised to the current cube."""
    if not agent.cube_capable:
        raise ValueError(f"a {agent.mode.name} model makes no cube decisions; give --dice to rank moves")
    if owner == CUBE_THEIRS:
        raise ValueError("the side on roll cannot double: the opponent owns the cube")
    board = be.check_board(board)
    v_nd, v_take = agent.scorer.cube_values(board[None], np.array([owner]), agent.oneply)
    no_double, double_take, double_pass = float(v_nd[0]), 2.0 * float(v_take[0]), 1.0
    rule = agent.mode.cube_action(v_nd, v_take)  # the one cube rule
    take = bool(rule.take[0])
    if rule.double[0]:
        action = "double, take" if take else "double, pass"
    elif take:
        action = "no double, take"
    else:
        action = "too good to double, pass" if no_double > double_pass else "no double, pass"
    if owner == CUBE_MINE:
        action = action.replace("double", "redouble")
    return {"no_double": no_double, "double_take": double_take, "double_pass": double_pass,
            "proper": float(rule.value[0]), "action": action, "take": bool(take)}


def format_cube(c: dict, plies: int) -> str:
    # as gnubg lists them: the action that happens first, then the others by equity
    options = {"No double": c["no_double"], "Double, take": c["double_take"], "Double, pass": c["double_pass"]}
    happens = ("Double, take" if c["take"] else "Double, pass") if c["action"].startswith(("double", "redouble")) \
        else "No double"
    rows = [(happens, options.pop(happens))] + sorted(options.items(), key=lambda r: -r[1])
    lines = [f"Cube analysis ({plies}-ply, equities normalised to the cube)", "Cubeful equities:"]
    for k, (name, eq) in enumerate(rows, 1):
        diff = f"  ({eq - c['proper']:+.3f})" if abs(eq - c["proper"]) > 1e-12 else ""
        lines.append(f"{k}. {name:<18} {eq:+.3f}{diff}")
    lines.append(f"Proper cube action: {c['action'][0].upper() + c['action'][1:]}")
    lines.append(f"Taker: {'take' if c['take'] else 'pass'} (take {-c['double_take']:+.3f} vs pass {-c['double_pass']:+.3f})")
    return "\n".join(lines)
