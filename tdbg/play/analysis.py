"""What a trained network thinks of one position: every legal move ranked with its value,
and the cube decision with explicit equities (the library behind tools/analyse.py).

Move values are the model's own, from the mover's side after the move: P(win) for a
DMP model, cubeless or cubeful equity (normalised to the cube) for equity models, the
five probabilities and their cubeless equity for prob5 models.  At 1-ply each value is
the mean over the opponent's 21 rolls of the position after its best reply (the same
lookahead the 1-ply agent plays with).

The cube decision of a cubeful model needs no Janowski formula: each action leads to a
state the network already values (game.modes.cubeful_money), all normalised to the current cube:
no double = the position rolled on with the cube as it is; double/take = twice the
value of the same position with the cube doubled and owned by the taker; double/pass
= +1 (the doubler wins the current cube).  A match model's are match-winning chances
at the position's score (its Match ID or XGID): double/take is the value of the
doubled position itself and double/pass the MET entry after winning the cube.  The
doubler doubles when the better of take and pass for the taker (the lower of the two)
beats no double; the taker takes when double/take < double/pass.
"""

from __future__ import annotations

import numpy as np

from tdbg.game import backgammon_engine as be
from tdbg.game.encoding import CUBE_MINE, CUBE_THEIRS
from tdbg.game.heads import output_head
from tdbg.game.modes import game_mode, mode_class
from tdbg.net.model import CheckpointError, load_checkpoint
from tdbg.net.search import Search
from tdbg.play.metrics import value_units
from tdbg.play.players import Player, checkpoint_mode_name
from tdbg.play.seating import evaluator


def load_agent(path: str, plies: int = 0, match_length: int = 0, data: bytes | None = None):
    """The checkpoint's evaluator (TDAgent, ProbAgent for prob5) in the game mode it was
    trained for (a match model: in ``match_length``-point matches).  ``data``: the
    checkpoint's bytes, read once by the caller (read_checkpoint) to name them by their md5."""
    model, meta, _ = load_checkpoint(path, data=data)
    name = checkpoint_mode_name(model, meta)
    if not match_length:
        try:
            mode_class(name).require(
                f"{path} is a match-play model: give a match position (a Match ID or an XGID "
                "with the match length and score)",
                match=False,
            )
        except ValueError as exc:
            raise CheckpointError(str(exc)) from None
    mode = game_mode(name, match_length=match_length)  # modes of single games ignore the length
    return evaluator(Player(path, Search(oneply=plies == 1)), mode, model=model)


def position_state(mode, state) -> int:
    """The cube state of a parsed position (position_ids.GameState) as ``mode``'s network reads
    it, from the side on roll's view (match play: the match state, with both sides' points to
    go); ValueError for a position the mode cannot read (a money model at a match score)."""
    length, (mine, theirs) = state.match_length, state.score
    away = (length - mine, length - theirs) if length else (0, 0)
    return int(mode.mover_state(state.owner, state.cube, state.crawford, away)[0])


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
        for j in range(
            i + 1, len(steps)
        ):  # the first chain takes every step that goes on from its end
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
    after, values, scalar = agent.candidate_values(board, (d1, d2), owner)
    moves = {be.position_keys(res[None])[0]: mv for mv, res in be.legal_moves(board, d1, d2)}
    order = np.argsort(-scalar, kind="stable")
    best = float(scalar[order[0]])
    out = []
    for rank, i in enumerate(order, 1):
        move = moves[be.position_keys(after[i][None])[0]]
        entry = {
            "rank": rank,
            "move": gnubg_move_text(board, move) or "pass",
            "position_id": be.position_id(be.swap(after[i])),
            "value": float(scalar[i]),
            "diff": float(scalar[i]) - best,
        }
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
        lines.append(
            f"{m['rank']:5d}. {plies}-ply  {m['move']:<{width}}  {name}: {fmt.format(m['value'])}{diff}"
        )
        if "probabilities" in m:
            p = m["probabilities"]
            lines.append(
                f"       {p[0]:.3f} {p[1]:.3f} {p[2]:.3f} - {1 - p[0]:.3f} {p[3]:.3f} {p[4]:.3f}"
            )
    return "\n".join(lines)


# --------------------------------------------------------------------------- cube

ACTIONS = (
    "no double, take",
    "double, take",
    "double, pass",
    "too good to double, pass",
    "no double, pass",
)


def cube_decision(agent, board, owner: int = 0) -> dict:
    """The cube decision of a cubeful or match model for the side on roll (row 1), with the
    cube state ``owner`` from its view (match play: the match state): the doubler's values
    in the mode's units (normalised equity, or MWC), and the taker's."""
    if not agent.cube_capable:
        raise ValueError(
            f"a {agent.mode.name} model makes no cube decisions; give --dice to rank moves"
        )
    state = np.array([owner])
    if agent.mode.cube_owner(state)[0] == CUBE_THEIRS:
        raise ValueError("the side on roll cannot double: the opponent owns the cube")
    if not agent.mode.may_double(state, np.ones(1, dtype=np.int64))[0]:
        raise ValueError(
            "no double is possible here (the Crawford game, or a dead cube: any win ends the match)"
        )
    board = be.check_board(board)
    v_nd, v_take = agent.scorer.cube_values(board[None], state, agent.search.oneply)
    no_double, double_take, double_pass = (
        float(x[0]) for x in agent.mode.cube_options(v_nd, v_take, state)
    )
    rule = agent.mode.cube_action(v_nd, v_take, state)  # the one cube rule
    take = bool(rule.take[0])
    flip = agent.scorer.values.flip  # the taker's side of a value
    if rule.double[0]:
        action = "double, take" if take else "double, pass"
    elif take:
        action = "no double, take"
    else:
        action = "too good to double, pass" if no_double > double_pass else "no double, pass"
    if agent.mode.cube_owner(state)[0] == CUBE_MINE:
        action = action.replace("double", "redouble")
    return {
        "no_double": no_double,
        "double_take": double_take,
        "double_pass": double_pass,
        "proper": float(rule.value[0]),
        "action": action,
        "take": bool(take),
        "taker_take": float(flip(np.array(double_take))),
        "taker_pass": float(flip(np.array(double_pass))),
        "units": value_units(agent.mode),
    }


def format_cube(c: dict, plies: int) -> str:
    # as gnubg lists them: the action that happens first, then the others by equity
    options = {
        "No double": c["no_double"],
        "Double, take": c["double_take"],
        "Double, pass": c["double_pass"],
    }
    happens = (
        ("Double, take" if c["take"] else "Double, pass")
        if c["action"].startswith(("double", "redouble"))
        else "No double"
    )
    rows = [(happens, options.pop(happens))] + sorted(options.items(), key=lambda r: -r[1])
    mwc = c.get("units") == "MWC"
    fmt = "{:.4f}" if mwc else "{:+.3f}"
    lines = [
        f"Cube analysis ({plies}-ply, {c.get('units', 'equity normalised to the cube')})",
        "Match-winning chances:" if mwc else "Cubeful equities:",
    ]
    for k, (name, eq) in enumerate(rows, 1):
        diff = (
            f"  ({(eq - c['proper']):{'+.4f' if mwc else '+.3f'}})"
            if abs(eq - c["proper"]) > 1e-12
            else ""
        )
        lines.append(f"{k}. {name:<18} {fmt.format(eq)}{diff}")
    lines.append(f"Proper cube action: {c['action'][0].upper() + c['action'][1:]}")
    lines.append(
        f"Taker: {'take' if c['take'] else 'pass'} (take {fmt.format(c['taker_take'])} vs pass "
        f"{fmt.format(c['taker_pass'])})"
    )
    return "\n".join(lines)
