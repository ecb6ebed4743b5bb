"""tools/analyse.py and analysis.py: the legal moves are gnubg-nn's (and, with the binary,
gnubg's own hint list in its notation), values are the network's read by hand, the
ranking is the agent's choice, cube equities come from the successor states, clear-cut
cube decisions agree with gnubg's hint, and bad input is one error line."""

import json
import os

import gnubg_nn
import numpy as np
import pytest
import torch

from helpers import ROOT, assert_one_line_error, run
from tdbg.game import backgammon_engine as be
from tdbg.game.encoding import (
    CUBE_CENTERED,
    CUBE_MINE,
    CUBE_THEIRS,
    encode_batch,
    encode_cubeful_batch,
)
from tdbg.game.modes.matchplay import MatchPlay
from tdbg.game.position_ids import GameState, gnubg_id
from tdbg.gnubg.gnubg_binary import available
from tdbg.net.model import TDNetwork, new_metadata, save_checkpoint
from tdbg.play import analysis

needs_gnubg = pytest.mark.skipif(
    not available() and not os.environ.get("CI"),
    reason="GNU Backgammon binary not installed (make gnubg)",
)
CUBEFUL = os.path.join(ROOT, "best_models", "cubeful_256x2.pt")


@pytest.fixture(scope="module")
def ckpts(tmp_path_factory):
    """Small random networks of each kind (a random net still ranks moves its own way)."""
    d = tmp_path_factory.mktemp("an")
    out = {}
    for name, (inputs, output, mode) in {
        "dmp": (196, "probability", "dmp"),
        "prob5": (196, "prob5", "cubeless-money"),
        "cubeful": (200, "equity", "cubeful-money"),
    }.items():
        torch.manual_seed(len(name))
        m = TDNetwork(inputs, [24], output)
        out[name] = str(d / f"{name}.pt")
        save_checkpoint(out[name], m, new_metadata(m, mode))
    return out


def sample(positions, n, seed):
    rng = np.random.default_rng(seed)
    for k in rng.choice(len(positions), n, replace=False):
        yield np.asarray(positions[k]), tuple(int(x) for x in rng.integers(1, 7, 2))


def test_legal_moves_are_gnubg_nns(positions_20k, ckpts):
    agent = analysis.load_agent(ckpts["dmp"])
    for board, dice in sample(positions_20k, 150, 1):
        ranked = analysis.rank_moves(agent, board, dice)
        keys = gnubg_nn.moves(board.tolist(), *dice)  # mover in the second half (row 1)
        theirs = {
            be.position_id(be.swap(np.array(gnubg_nn.board_from_position_key(k)))) for k in keys
        }
        ours = [m["position_id"] for m in ranked]
        assert len(ours) == len(set(ours))
        assert set(ours) == (theirs or {be.position_id(be.swap(board))}), (
            be.position_id(board),
            dice,
        )
        for m in ranked:  # the text names that very move
            after = be.parse_move(board, *dice, "" if m["move"] == "pass" else m["move"])[1]
            assert be.position_id(be.swap(after)) == m["position_id"]


@pytest.mark.parametrize("plies", [0, 1])
def test_values_and_ranking(positions_20k, ckpts, plies):
    from tdbg.play.td_agent import TDAgent

    agent = analysis.load_agent(ckpts["dmp"], plies)
    for board, dice in sample(positions_20k, 15 if plies else 60, 2):
        ranked = analysis.rank_moves(agent, board, dice)
        values = [m["value"] for m in ranked]
        assert values == sorted(values, reverse=True) and ranked[0]["diff"] == 0
        chosen = TDAgent.choose_moves(agent, board[None], np.array([dice]))[0]
        assert ranked[0]["value"] == pytest.approx(max(values)) and be.position_id(
            be.swap(chosen)
        ) in {m["position_id"] for m in ranked if m["value"] == values[0]}
        if plies == 0:  # P(win) of the mover = 1 - the network's P(win) for the opponent on roll
            for m in ranked[:5]:
                opp = be.board_from_position_id(m["position_id"])
                if opp[0].sum() == 0:
                    assert m["value"] == 1.0
                    continue
                with torch.no_grad():
                    net = agent.model(torch.from_numpy(encode_batch(opp[None]))).item()
                assert m["value"] == pytest.approx(1 - net, abs=1e-6)


def test_prob5_lists_probabilities(ckpts):
    agent = analysis.load_agent(ckpts["prob5"])
    ranked = analysis.rank_moves(agent, be.initial_board(), (3, 1))
    assert len(ranked) == 16
    for m in ranked:
        p = m["probabilities"]
        assert m["value"] == pytest.approx(2 * p[0] + p[1] + p[2] - p[3] - p[4] - 1)


def test_cube_equities_are_the_successor_states(positions_20k, ckpts):
    agent = analysis.load_agent(ckpts["cubeful"])
    for board, _ in sample(positions_20k, 20, 3):
        for owner in (CUBE_CENTERED, CUBE_MINE):
            c = analysis.cube_decision(agent, board, owner)
            feats = encode_cubeful_batch(np.stack([board, board]), [owner, CUBE_THEIRS], [0, 0])
            with torch.no_grad():
                nd, take = agent.model(torch.from_numpy(feats)).numpy().ravel()
            assert c["no_double"] == pytest.approx(nd, abs=1e-6)
            assert c["double_take"] == pytest.approx(2 * take, abs=1e-6) and c["double_pass"] == 1.0
            assert c["take"] == (2 * take < 1)
            doubles = min(2 * take, 1) > nd
            assert c["action"].startswith(("double", "redouble")) == doubles
    with pytest.raises(ValueError, match="opponent owns"):
        analysis.cube_decision(agent, be.initial_board(), CUBE_THEIRS)


def test_gnubg_notation_examples():
    b = be.initial_board()
    assert analysis.gnubg_move_text(b, be.parse_move(b, 6, 5, "24/13")[0]) == "24/13"
    assert analysis.gnubg_move_text(b, ((24, 18), (24, 18), (13, 7), (13, 7))) == "24/18(2) 13/7(2)"
    hit = be.board_from_position_id("4HPwATDgc/ABMA")
    hit[0, 23 - 17] = 1  # an opponent blot on our 18 point
    hit[0, 5] -= 1
    move = be.parse_move(hit, 6, 5, "24/18*/13")[0]
    assert analysis.gnubg_move_text(hit, move) == "24/18*/13"


def test_cli_moves_and_cube(ckpts):
    proc = run(
        "tools/analyse.py", ckpts["dmp"], "4HPwATDgc/ABMA", "--dice", "31", "--top", "3", check=True
    )
    lines = proc.stdout.splitlines()
    assert lines[1].lstrip().startswith("1. 0-ply") and "P(win):" in lines[1] and len(lines) == 4
    proc = run(
        "tools/analyse.py",
        ckpts["cubeful"],
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:1:0:10",
        "--json",
        check=True,
    )
    cube = json.loads(proc.stdout)["cube"]
    assert set(cube) >= {"no_double", "double_take", "double_pass", "action"}
    proc = run(
        "tools/analyse.py",
        ckpts["prob5"],
        "4HPwATDgc/ABMA:cIkFAAAAAAAA",
        "--json",
        "--ply",
        "1",
        check=True,
    )
    out = json.loads(proc.stdout)
    assert out["dice"] == [3, 1] and out["legal_moves"] == len(out["moves"]) > 1


@pytest.mark.parametrize(
    "args, words",
    [
        (["4HPwATDgc/ABM", "--dice", "31"], "14 base64"),
        (["//////////////", "--dice", "31"], "checkers"),
        (["XGID=-b----E-C---eE---c-e----B-:0:0:1:77:0:0:3:0:10"], "dice"),
        (["4HPwATDgc/ABMA", "--dice", "71"], "dice"),
        (["4HPwATDgc/ABMA"], "no cube decisions"),  # a cube question to a DMP model
    ],
)
def test_bad_input_is_one_line(ckpts, args, words):
    assert_one_line_error(run("tools/analyse.py", ckpts["dmp"], *args), words)


def test_cube_question_with_the_opponents_cube(ckpts):
    state = GameState(be.initial_board(), cube=2, owner=CUBE_THEIRS)
    assert_one_line_error(
        run("tools/analyse.py", ckpts["cubeful"], gnubg_id(state)), "opponent owns"
    )


@needs_gnubg
@pytest.mark.gnubg_binary
def test_move_lists_and_notation_are_gnubgs(positions_20k):
    """gnubg's hint lists every legal move at 0-ply; its texts must be ours, move for move."""
    from gnubg_python import run_gnubg_python

    cases = [(gnubg_id(GameState(b, dice)), b, dice) for b, dice in sample(positions_20k, 80, 4)]
    body = f"""
for gid in {[c[0] for c in cases]!r}:
    gnubg.command("set gnubgid " + gid)
    try:
        emit([h["move"] for h in gnubg.hint(100000)["hint"]])
    except Exception as exc:  # no legal move: gnubg has nothing to hint
        emit(str(exc))
"""
    got = run_gnubg_python(body)
    agent = analysis.load_agent(CUBEFUL)
    checked = 0
    for (gid, board, dice), theirs in zip(cases, got, strict=True):
        ours = [m["move"] for m in analysis.rank_moves(agent, board, dice)]
        if isinstance(theirs, str) or not theirs:
            assert ours == ["pass"], (gid, theirs)
            continue
        assert sorted(ours) == sorted(theirs), gid
        checked += 1
    assert checked > 60


# clear-cut money positions (Jacoby, no beavers), board rows from the side on roll;
# each checked by hand and by gnubg 1.07's 2-ply hint
def _board(mine, theirs):
    b = np.zeros((2, 25), dtype=np.int64)
    for p, n in mine.items():
        b[1, p - 1] = n
    for p, n in theirs.items():
        b[0, p - 1] = n
    return b


CLEAR_CUT = [
    (
        "too good: four on the bar against a closed board",
        2,
        CUBE_MINE,
        _board({1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 7: 3}, {25: 4, 12: 11}),
    ),
    (
        "too good: three on the bar",
        2,
        CUBE_MINE,
        _board({1: 2, 2: 2, 3: 2, 4: 2, 5: 3, 6: 3, 8: 1}, {25: 3, 13: 6, 8: 3, 6: 3}),
    ),
    (
        "too good: two on the bar, three back",
        2,
        CUBE_MINE,
        _board({1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 3, 9: 2}, {25: 2, 18: 3, 13: 5, 6: 5}),
    ),
    (
        "big pass: six checkers left against fifteen",
        1,
        CUBE_CENTERED,
        _board({1: 2, 2: 2, 3: 2}, {6: 3, 5: 3, 4: 3, 3: 2, 2: 2, 1: 2}),
    ),
    ("easy take: the opening", 1, CUBE_CENTERED, be.initial_board()),
    (
        "easy take: race 107 against 109",
        1,
        CUBE_CENTERED,
        _board(
            {6: 4, 5: 2, 4: 2, 8: 2, 9: 2, 10: 2, 11: 1},
            {6: 4, 5: 2, 4: 2, 8: 2, 9: 2, 10: 2, 13: 1},
        ),
    ),
]


@needs_gnubg
@pytest.mark.gnubg_binary
def test_clear_cut_cube_actions_agree_with_gnubg():
    from gnubg_python import cube_actions

    ids = [gnubg_id(GameState(b, cube=cube, owner=owner)) for _, cube, owner, b in CLEAR_CUT]
    theirs = [a.split("(")[0].strip().lower() for a in cube_actions(ids)]
    agent = analysis.load_agent(CUBEFUL)
    for (name, _, owner, board), gnubg_action in zip(CLEAR_CUT, theirs, strict=True):
        ours = analysis.cube_decision(agent, board, owner)["action"]
        assert ours == gnubg_action, name


MATCH = os.path.join(ROOT, "best_models", "match_256x2_outcomes.pt")


def test_match_positions_are_analysed_at_their_score():
    """A match model's cube decision at a Match ID's score: no double and double/take are the
    network's values of the two successor states, double/pass the MET entry after winning the
    cube (Kazaross-XG2, read by hand), the taker's the complements; the top move is the one
    the agent plays."""
    from tdbg.game.modes.matchplay import pack
    from tdbg.game.met import default_met

    # 7-point match, the side on roll has 2 points (5-away), the other 4 (3-away), cube 1
    state = GameState(be.initial_board(), match_length=7, score=(2, 4))
    agent = analysis.load_agent(MATCH, 0, 7)
    owner = analysis.position_state(agent.mode, state)  # as tools/analyse.py reads it
    assert owner == pack(CUBE_CENTERED, 0, 0, 5, 3)
    c = analysis.cube_decision(agent, state.board, owner)
    v_nd, v_take = agent.scorer.cube_values(state.board[None], np.array([owner]))
    assert (c["no_double"], c["double_take"]) == pytest.approx(
        (float(v_nd[0]), float(v_take[0])), abs=1e-7
    )
    assert c["double_pass"] == pytest.approx(
        float(default_met().mwc(4, 3)), abs=1e-12
    )  # won 1 point: 4-away v 3
    assert c["taker_take"] == pytest.approx(1 - c["double_take"]) and c["units"] == "MWC"
    proc = run(
        "tools/analyse.py",
        MATCH,
        gnubg_id(GameState(be.initial_board(), dice=(5, 2), match_length=7, score=(2, 4))),
        "--json",
        check=True,
    )
    out = json.loads(proc.stdout)
    best = agent.choose_moves(state.board[None], np.array([[5, 2]]), np.array([owner]))[0]
    assert out["moves"][0]["position_id"] == be.position_id(be.swap(best))
    # the cube with a 2-away side at cube 2: live for the 5-away side; cube 4 at 3-3 is dead
    assert analysis.position_state(
        agent.mode,
        GameState(be.initial_board(), cube=2, owner=CUBE_MINE, match_length=7, score=(2, 5)),
    ) == pack(CUBE_MINE, 1, 0, 5, 2)
    with pytest.raises(ValueError, match="dead cube"):
        analysis.cube_decision(agent, state.board, pack(CUBE_MINE, 2, 0, 3, 3))
    with pytest.raises(ValueError, match="Crawford"):
        analysis.cube_decision(agent, state.board, pack(CUBE_CENTERED, 0, 1, 3, 1))


def test_match_models_need_match_positions():
    assert_one_line_error(
        run("tools/analyse.py", MATCH, "4HPwATDgc/ABMA", "--dice", "31"), "match position"
    )
    # the position parser refuses a finished match; the match state refuses what no ID can hold
    bad = gnubg_id(GameState(be.initial_board(), match_length=7, score=(7, 2)))
    assert_one_line_error(run("tools/analyse.py", MATCH, bad), "match length")
    with pytest.raises(ValueError, match="power of 2"):
        analysis.position_state(
            MatchPlay(length=7),
            GameState(be.initial_board(), match_length=7, score=(2, 4), cube=3),
        )
    # a cube the match state cannot hold (it would spill into the Crawford flag) is refused
    with pytest.raises(ValueError, match="up to 64"):
        analysis.position_state(
            MatchPlay(length=7),
            GameState(be.initial_board(), match_length=7, score=(2, 4), cube=128),
        )


def test_a_money_model_refuses_a_match_position():
    # money equities mean nothing at a match score; DMP (P(win)) and match models take one
    from tdbg.game.modes import game_mode

    in_match = GameState(be.initial_board(), owner=CUBE_THEIRS, match_length=7, score=(2, 4))
    for name in ("cubeless-money", "cubeful-money"):
        with pytest.raises(
            ValueError, match=r"match position \(5 and 3 away\) needs match equities"
        ):
            analysis.position_state(game_mode(name), in_match)
    assert analysis.position_state(game_mode("dmp"), in_match) == CUBE_THEIRS
    money = GameState(be.initial_board(), owner=CUBE_THEIRS)
    assert analysis.position_state(game_mode("cubeless-money"), money) == CUBE_THEIRS
