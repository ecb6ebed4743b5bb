"""Head-to-head games between two agents, many at once, with duplicate dice.

Game ``g`` belongs to pair ``g // 2``; each pair's dice come from their own seeded
stream, so results are reproducible from the seed and independent of how games
are split over workers.  With ``duplicate`` the two games of a pair replay the
same dice with the sides swapped: in game 2k agent A moves first, in game 2k+1
agent B moves first and receives exactly the rolls A had.  The first roll of a
game is never a double (the opening roll).  Results are points from agent A's
side: DMP +-1, money +-1/2/3 times the cube.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

import backgammon_engine as be
from encoding import CUBE_CENTERED, CUBE_THEIRS
from modes import GameMode, can_double, owner_for_opponent

MAX_PLIES = 3000


class DiceStream:
    """The rolls of one game (or duplicate pair), drawn lazily from a seeded generator."""

    def __init__(self, seed: int, pair: int):
        self.rng = np.random.default_rng([seed, pair])
        first = self.rng.integers(1, 7, 2)
        while first[0] == first[1]:
            first = self.rng.integers(1, 7, 2)
        self.rolls = [first]

    def roll(self, i: int) -> np.ndarray:
        while len(self.rolls) <= i:
            self.rolls.extend(self.rng.integers(1, 7, (64, 2)))
        return self.rolls[i]


@dataclass
class GameRecord:
    """One finished game; ``turns`` (when recorded) lists (mover, dice or None, event, board_before, board_after)."""
    index: int
    first: int               # 0 if agent A moved first
    points: float            # from A's side
    result: int              # 1/2/3 single/gammon/backgammon, 0 for a dropped double, -1 abandoned
    cube: int
    plies: int
    doubles: tuple = (0, 0)  # offered by A, by B
    takes: tuple = (0, 0)
    drops: tuple = (0, 0)
    turns: list = field(default_factory=list)


def play_games(agent_a, agent_b, game_indices, mode: GameMode, seed: int, duplicate: bool = True,
               record: bool = False, on_done=None) -> list[GameRecord]:
    """Play the games numbered ``game_indices``; ``on_done(record)`` is called as each ends."""
    if mode.cubeful:
        for ag in (agent_a, agent_b):
            if not ag.cube_capable:
                raise ValueError(f"{ag.name} makes no cube decisions, so it cannot play cubeful money "
                                 f"(against gnubg use the real binary: gnubg-ext)")
    agents = (agent_a, agent_b)
    games = np.asarray(list(game_indices), dtype=np.int64)
    n = len(games)
    streams = [DiceStream(seed, int(g // 2) if duplicate else int(g)) for g in games]
    first = (games % 2).astype(np.int64)           # agent A starts the even games
    boards = np.tile(be.initial_board(), (n, 1, 1))
    owner = np.zeros(n, dtype=np.int64)           # cube owner from the mover's view
    cube = np.ones(n, dtype=np.int64)
    ply = np.zeros(n, dtype=np.int64)
    cube_stats = np.zeros((n, 3, 2), dtype=np.int64)  # doubles, takes, drops by A/B
    turns = [[] for _ in range(n)] if record else None
    live = np.ones(n, dtype=bool)
    records: list[GameRecord] = []

    def finish(i: int, points_for_mover: float, result: int) -> None:
        mover = (first[i] + ply[i]) % 2
        pts = points_for_mover if mover == 0 else -points_for_mover
        rec = GameRecord(int(games[i]), int(first[i]), float(pts), result, int(cube[i]), int(ply[i]),
                         *(tuple(int(x) for x in cube_stats[i, k]) for k in range(3)),
                         turns[i] if record else [])
        records.append(rec)
        live[i] = False
        if on_done:
            on_done(rec)

    while live.any():
        idx = np.flatnonzero(live)
        mover = (first[idx] + ply[idx]) % 2
        if mode.cubeful:
            idx, mover = _cube_turn(agents, idx, mover, boards, owner, cube, ply, cube_stats, turns, finish)
        dice = np.array([streams[i].roll(int(ply[i])) for i in idx])
        after = np.empty((len(idx), 2, 25), dtype=np.int64)
        for who in (0, 1):
            sel = mover == who
            if sel.any():
                own = owner[idx[sel]] if mode.cubeful else None
                after[sel] = agents[who].choose_moves(boards[idx[sel]], dice[sel], own)
        results = be.game_results(after)
        for k, i in enumerate(idx):
            if record:
                turns[i].append((int(mover[k]), tuple(int(x) for x in dice[k]), "move", boards[i].copy(), after[k].copy()))
            if results[k]:
                centered = owner[i] == CUBE_CENTERED
                finish(i, float(mode.points(results[k], centered)) * cube[i], int(abs(results[k])))
        ply[idx] += 1
        go_on = idx[results == 0]
        boards[go_on] = after[results == 0][:, ::-1]
        owner[go_on] = owner_for_opponent(owner[go_on])
        for i in go_on[ply[go_on] >= MAX_PLIES]:
            finish(i, 0.0, -1)
    records.sort(key=lambda r: r.index)
    return records


def _cube_turn(agents, idx, mover, boards, owner, cube, ply, cube_stats, turns, finish):
    """Offer/take/drop for the games in idx; returns the games (and movers) that go on to roll."""
    may = can_double(owner[idx], cube[idx]) & (ply[idx] > 0)
    dropped = np.zeros(len(idx), dtype=bool)
    for who in (0, 1):
        sel = np.flatnonzero(may & (mover == who))
        if not len(sel):
            continue
        g = idx[sel]
        offers = np.asarray(agents[who].double_decisions(boards[g], owner[g]), dtype=bool)
        if not offers.any():
            continue
        gd = g[offers]
        takes = np.asarray(agents[1 - who].take_decisions(boards[gd], owner[gd]), dtype=bool)
        for k, i in enumerate(gd):
            cube_stats[i, 0, who] += 1
            if turns is not None:
                turns[i].append((who, None, "double", boards[i].copy(), None))
                turns[i].append((1 - who, None, "take" if takes[k] else "drop", boards[i].copy(), None))
            if takes[k]:
                cube_stats[i, 1, 1 - who] += 1
                cube[i] *= 2
                owner[i] = CUBE_THEIRS
            else:
                cube_stats[i, 2, 1 - who] += 1
                finish(i, float(cube[i]), 0)
        dropped[sel[offers][~takes]] = True
    keep = ~dropped
    return idx[keep], mover[keep]
