"""Behaviour fingerprints of everything that values positions, pinned across the move to one
Evaluator protocol: seeded games (series on our dice, with luck judged), the moves chosen
for fixed positions at 0, 1 and 2 plies, rollouts, the analysis of positions and the quick
evaluation, for every game mode and head (dmp, cubeless money, cubeful money, match,
prob5), using the released nets in best_models/.

Each case is reduced to a sha256 of its moves and values (the floats' bytes, so a change
in the last bit shows).  The expected digests were produced by the code *before* the
restructure (main at 25c44de), captured before it was touched: an oracle of the old code,
kept as a regression pin.  They say "unchanged", not "correct".  A deliberate change of
play updates them, with the reason in its commit.
"""

from __future__ import annotations

import hashlib
import os

import numpy as np
import pytest

from tdbg.game.modes import game_mode
from tdbg.net.model import load_checkpoint
from tdbg.net.search import Search
from tdbg.play import analysis
from tdbg.play.evaluation import quick_eval
from tdbg.play.match import mirror_key
from tdbg.play.players import Player
from tdbg.play.seating import evaluator
from tdbg.play.rollout import RolloutSettings, rollout_outcomes
from tdbg.play.series import ModeSpec, Series, pinned_series, play_series

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BEST = os.path.join(ROOT, "best_models")
MODELS = {
    "dmp": "dmp_128x2.pt",
    "cubeless-money": "cubeless_256x2.pt",
    "cubeful-money": "cubeful_256x2.pt",
    "match": "match_256x2.pt",
    "prob5": "prob5_128x2.pt",
}
OPPONENTS = {
    "dmp": "pubeval",
    "cubeless-money": "gnubg-nn",
    "cubeful-money": "gnubg-nn-cubeful",
    "match": "match_256x2_lambda.pt",
    "prob5": "pubeval",
}
MODE_SPECS = {
    "dmp": ModeSpec("dmp"),
    "cubeless-money": ModeSpec("cubeless-money"),
    "cubeful-money": ModeSpec("cubeful-money"),
    "match": ModeSpec("match", match_length=3),
    "prob5": ModeSpec("cubeless-money"),
}


def path(name: str) -> str:
    return os.path.join(BEST, name)


def spec(name: str) -> str:
    return path(name) if name.endswith(".pt") else name


def digest(*parts) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(
            np.ascontiguousarray(p).tobytes() if isinstance(p, np.ndarray) else repr(p).encode()
        )
    return h.hexdigest()[:16]


def record_digest(records) -> str:
    parts = []
    for r in records:
        games = getattr(r, "game_records", None)
        parts += [
            r.index,
            float(r.points),
            getattr(r, "luck", None),
            getattr(r, "games", None),
            mirror_key(games if games is not None else r)
            if (games or getattr(r, "turns", None))
            else None,
        ]
    return digest(*parts)


# ---- games: a series on our dice, 0-ply and 1-ply, luck judged by gnubg-nn and by a checkpoint ----

GAMES = {  # (mode, ply) -> digest of the records (produced by the pre-restructure code)
    ("dmp", 0): "5714e2fe4f7ff0a6",
    ("dmp", 1): "84a4824fc1a39a1f",
    ("cubeless-money", 0): "8af723e72940c0a4",
    ("cubeless-money", 1): "7c8af821356dc28d",
    ("cubeful-money", 0): "1579dfe62931b3b0",
    ("cubeful-money", 1): "643f1ec76e6739c7",
    ("match", 0): "452b4577810c1e32",
    ("match", 1): "da08edbd47fb2444",
    ("prob5", 0): "7c5479ee710745a0",
    ("prob5", 1): "be02776d7ec73da9",
}


@pytest.mark.parametrize("mode_name,ply", sorted(GAMES))
def test_series_fingerprint(mode_name, ply):
    mode_spec = MODE_SPECS[mode_name]
    players = (
        Player(path(MODELS[mode_name]), Search(oneply=ply == 1)),
        Player(spec(OPPONENTS[mode_name])),
    )
    games = 4 if ply == 0 else 2
    luck = None
    if mode_spec.mode != "match":
        luck = "gnubg-nn" if ply == 0 else path(MODELS[mode_name])
    series = pinned_series(
        Series(players, mode_spec, games, seed=3, record=mode_spec.mode != "match", luck=luck)
    )
    got = record_digest(play_series(series, progress=False).records)
    assert got == GAMES[(mode_name, ply)]


# ---- the moves chosen for fixed positions, 0-, 1- and 2-ply -----------------------------------------

MOVES = {  # produced by the pre-restructure code
    "dmp": "c50a3fa7595c35ea",
    "cubeless-money": "75981cc95510da48",
    "cubeful-money": "d73abd365cdeb36e",
    "match": "506f63aeb0028188",
    "prob5": "6d1a16922b13302a",
}


def positions(n: int, seed: int):
    """Positions from random play (the engine's own moves), with dice and centred cube."""
    from tdbg.play.agents import RandomAgent
    from tdbg.game import backgammon_engine as be

    rng = np.random.default_rng(seed)
    agent = RandomAgent(seed)
    boards = np.repeat(np.array(be.initial_board())[None], n, axis=0)
    out = []
    for _ in range(12):
        dice = rng.integers(1, 7, size=(n, 2))
        boards = agent.choose_moves(boards, dice)[:, ::-1].copy()
        done = be.game_results(boards[:, ::-1].copy()) != 0
        out += [b for b, d in zip(boards, done, strict=True) if not d]
    out = np.array(out[::7][:n], dtype=np.int64)
    return out, rng.integers(1, 7, size=(len(out), 2))


@pytest.mark.parametrize("mode_name", sorted(MOVES))
def test_chosen_moves_fingerprint(mode_name):
    mode_spec = MODE_SPECS[mode_name]
    mode = mode_spec.build()
    boards, dice = positions(12, 5)
    owner = np.zeros(len(boards), dtype=np.int64)
    if mode_spec.mode == "match":  # varied scores of a 3-point match
        owner = mode.initial_states(len(boards), np.random.default_rng(1))
    parts = []
    for search in (
        Search(),
        Search(oneply=True),
        Search(oneply=True, oneply_k=3),
        Search(twoply=(2, 2)),
    ):
        agent = evaluator(Player(path(MODELS[mode_name]), search), mode)
        parts.append(agent.choose_moves(boards, dice, owner))
    assert digest(*parts) == MOVES[mode_name]


# ---- rollouts: a checkpoint at 0 and 1 ply, gnubg-nn at 0 ply ---------------------------------------

ROLLOUTS = {  # produced by the pre-restructure code
    ("dmp", 0): "73968ce06c6c2605",
    ("dmp", 1): "c38d9ac9d5dbe7dc",
    ("cubeless-money", 0): "102a01b2060f0427",
    ("prob5", 0): "94d766e46120d72f",
    ("gnubg-nn", 0): "a48877b7bed38953",
}


@pytest.mark.parametrize("who,ply", sorted(ROLLOUTS))
def test_rollout_fingerprint(who, ply):
    boards, _ = positions(2, 9)
    model = "gnubg-nn" if who == "gnubg-nn" else path(MODELS[who])
    settings = RolloutSettings(
        model,
        trials=4 if ply == 0 else 2,
        game_mode="dmp" if who == "gnubg-nn" else None,
        ply=ply,
        truncate=0 if ply == 0 else 6,
        seed=4,
    )
    outcomes = rollout_outcomes(settings, boards)
    assert (
        digest(*[a for o in outcomes for a in (o.points, o.luck, o.win, o.gammon, o.finished)])
        == ROLLOUTS[(who, ply)]
    )


# ---- analysis: every move ranked with its value, and the cube decision -----------------------------

ANALYSIS = {  # produced by the pre-restructure code
    ("dmp", 0): "199e9f4e2f1a9f2e",
    ("dmp", 1): "0cdaf490efd73353",
    ("cubeless-money", 0): "f6264a1c24e7d731",
    ("cubeless-money", 1): "2ae076a066eb5f1f",
    ("cubeful-money", 0): "82c6435dd56d4524",
    ("cubeful-money", 1): "c1049f44491e9fcf",
    ("prob5", 0): "bbe5b0dc92d4b185",
    ("prob5", 1): "7c2bd74e3ac903a8",
}


@pytest.mark.parametrize("mode_name,ply", sorted(ANALYSIS))
def test_analysis_fingerprint(mode_name, ply):
    agent = analysis.load_agent(path(MODELS[mode_name]), ply)
    boards, dice = positions(3, 11)
    parts = [
        analysis.rank_moves(agent, b, tuple(d)) for b, d in zip(boards, dice.tolist(), strict=True)
    ]
    if mode_name == "cubeful-money":
        parts += [analysis.cube_decision(agent, b) for b in boards]
    assert digest(*parts) == ANALYSIS[(mode_name, ply)]


# ---- the quick evaluation a training run prints --------------------------------------------------

QUICK = {"dmp": "6d6ba047cb7c7f3c", "cubeful-money": "4c745efa045326a4"}  # pre-restructure code


@pytest.mark.parametrize("mode_name", sorted(QUICK))
def test_quick_eval_fingerprint(mode_name):
    model, _, _ = load_checkpoint(path(MODELS[mode_name]))
    opponent = "pubeval" if mode_name == "dmp" else "gnubg-nn-cubeful"
    assert digest(quick_eval(model, game_mode(mode_name), 4, 7, opponent)) == QUICK[mode_name]
