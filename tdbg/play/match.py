"""Head-to-head games between two agents, many at once, with duplicate dice.

Game ``g`` belongs to pair ``g // 2``; each pair's dice come from their own seeded
stream, so results are reproducible from the seed and independent of how games
are split over workers.  With ``duplicate`` the two games of a pair replay the
same dice with the sides swapped: in game 2k agent A moves first, in game 2k+1
agent B moves first and receives exactly the rolls A had.  The first roll of a
game is never a double (the opening roll).  Results are points from agent A's
side: DMP +-1, money +-1/2/3 times the cube.  The turns are turns.Table's; ``Seats``
seats the two agents at it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np

from tdbg.game.dice import DiceStream
from tdbg.game.modes.base import GameMode
from tdbg.game.turns import Ended, Table
from tdbg.play.evaluator import Evaluator
from tdbg.play.players import Player
from tdbg.play.seating import seated


@dataclass
class GameRecord:
    """One finished game; ``turns`` (when recorded) lists (mover, dice or None, event, board_before, board_after)."""

    index: int
    first: int  # 0 if agent A moved first
    points: float  # from A's side
    result: int  # 1/2/3 single/gammon/backgammon, 0 for a dropped double, -1 abandoned
    cube: int
    plies: int
    doubles: tuple = (0, 0)  # offered by A, by B
    takes: tuple = (0, 0)
    drops: tuple = (0, 0)
    turns: list = field(default_factory=list)


def mirror_key(records) -> bytes:
    """A digest of recorded games as the first mover of each saw them: every turn's seat
    relative to that mover, dice, event and boards (the mover's view), the result and the
    points from the first mover's side.  Games 2k and 2k+1 of a duplicate pair have the same
    key exactly when 2k+1 replays 2k with the seats swapped (the same deterministic player in
    both seats): one game, seen from either chair.  ``records``: a GameRecord, or the game
    records of a match in order."""
    h = hashlib.sha256()
    for rec in records if isinstance(records, (list, tuple)) else [records]:
        if not rec.turns:
            raise ValueError("game was not recorded (play with record=True)")
        sign = 1 if rec.first == 0 else -1
        h.update(repr((rec.result, rec.cube, rec.plies, sign * rec.points)).encode())
        for seat, dice, event, before, after in rec.turns:
            h.update(repr((seat ^ rec.first, dice, event)).encode())
            for board in (before, after):
                h.update(b"-" if board is None else np.ascontiguousarray(board).tobytes())
    return h.digest()


def play_games(
    agent_a: Evaluator | Player,
    agent_b: Evaluator | Player,
    game_indices,
    mode: GameMode,
    seed: int,
    duplicate: bool = True,
    record: bool = False,
) -> list[GameRecord]:
    """Play the games numbered ``game_indices``; their records in index order.  An agent plays
    ``mode`` as given; a Player (players.Player, as a series gives them) is seated here, right
    before its first move, as the agent seating.seated builds and checks for ``mode``: A's
    with ``seed``, B's with ``seed + 1`` (a random player's choices)."""
    games = np.asarray(list(game_indices), dtype=np.int64)
    n = len(games)
    streams = [DiceStream(seed, int(g // 2) if duplicate else int(g)) for g in games]
    table = Table(mode, n)
    seats = Seats(
        (agent_a, agent_b), (games % 2).astype(np.int64), table, record, seed
    )  # A starts the even games
    records: list[GameRecord] = []

    def on_end(ended: Ended) -> None:
        for i, points, result, turn in zip(
            ended.slots, ended.points, ended.result, ended.turn, strict=True
        ):
            records.append(seats.game_record(i, int(games[i]), points, result, turn))

    table.play(
        seats, lambda idx: np.array([streams[i].roll(int(table.ply[i])) for i in idx]), on_end
    )
    records.sort(key=lambda r: r.index)
    return records


class Seats:
    """Two agents taking turns at the table: the mover's agent plays and doubles, the
    other answers doubles; cube actions are counted per agent and, with ``record``,
    every turn is kept (mover, dice or None, event, board before, board after).  A Player
    given for an agent sits as seating.seated builds it for the table's mode, the first
    with ``seed`` and the second with ``seed + 1``."""

    def __init__(self, agents, first: np.ndarray, table: Table, record: bool, seed: int = 0):
        self.agents = tuple(
            seated(a, table.mode, seed + k) if isinstance(a, Player) else a
            for k, a in enumerate(agents)
        )
        self.first, self.table = first, table
        self.cube_stats = np.zeros(
            (len(first), 3, 2), dtype=np.int64
        )  # doubles, takes, drops by A/B
        self.turns: list[list] | None = [[] for _ in first] if record else None

    def mover(self, slots, turn=None):
        return (self.first[slots] + (self.table.ply[slots] if turn is None else turn)) % 2

    def game_record(self, slot: int, index: int, points, result, turn) -> GameRecord:
        """The record of the game that just ended in ``slot`` (``points`` won by the side
        that acted last, as Ended gives them), its turns handed over (the slot's list starts
        afresh for a next game)."""
        sign = 1 if self.mover(slot, turn) == 0 else -1
        turns = []
        if self.turns is not None:
            turns, self.turns[slot] = self.turns[slot], []
        doubles, takes, drops = (tuple(int(x) for x in self.cube_stats[slot, k]) for k in range(3))
        return GameRecord(
            index,
            int(self.first[slot]),
            float(sign * points),
            int(result),
            int(self.table.cube[slot]),
            int(turn),
            doubles,
            takes,
            drops,
            turns,
        )

    def cube(self, slots, boards, owner):
        mover = self.mover(slots)
        double = np.zeros(len(slots), dtype=bool)
        take = np.zeros(len(slots), dtype=bool)
        for who in (0, 1):
            sel = np.flatnonzero(mover == who)
            if not len(sel):
                continue
            offers = np.asarray(
                self.agents[who].double_decisions(boards[sel], owner[sel]), dtype=bool
            )
            if not offers.any():
                continue
            offered = sel[offers]
            double[offered] = True
            take[offered] = np.asarray(
                self.agents[1 - who].take_decisions(boards[offered], owner[offered]), dtype=bool
            )
            for k in offered:
                i = slots[k]
                self.cube_stats[i, 0, who] += 1
                self.cube_stats[i, 1 if take[k] else 2, 1 - who] += 1
                if self.turns is not None:
                    self.turns[i].append((who, None, "double", boards[k].copy(), None))
                    self.turns[i].append(
                        (1 - who, None, "take" if take[k] else "drop", boards[k].copy(), None)
                    )
        return double, take

    def move(self, slots, boards, dice, owner):
        mover = self.mover(slots)
        after = np.empty((len(slots), 2, 25), dtype=np.int64)
        for who in (0, 1):
            sel = mover == who
            if sel.any():
                after[sel] = self.agents[who].choose_moves(boards[sel], dice[sel], owner[sel])
        if self.turns is not None:
            for k, i in enumerate(slots):
                self.turns[i].append(
                    (
                        int(mover[k]),
                        tuple(int(x) for x in dice[k]),
                        "move",
                        boards[k].copy(),
                        after[k].copy(),
                    )
                )
        return after
