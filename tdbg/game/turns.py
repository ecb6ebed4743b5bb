"""One turn of backgammon for many games at once: the loop every player shares.

``Table`` holds the state of many games (boards with the side on roll in row 1,
cube value and owner from the mover's view, plies played).  ``Table.play_turn``
advances the games it is given by one turn:

1. cube node: games whose mover may double (the mode says which; never on the
   opening turn) ask ``players.cube`` for the double and the opponent's answer; a
   take doubles the cube and hands it to the taker, a drop ends the game;
2. the dice (``dice(slots)``, e.g. a seeded stream per game or one generator);
3. ``players.move`` chooses each mover's play through its policy;
4. the result: a finished game is scored by the mode (points times the cube);
   the others swap sides; a game over the ply limit is abandoned.

Every ending goes to ``on_end(Ended)``; the table then marks those games done
unless the handler starts new games in them (``new_games``).  Self-play, head-to-
head matches and online TD(lambda) run this loop; the gnubg bridge, driven turn by
turn by the binary, uses the same per-decision pieces (the mode's cube rule and
points, the agents' policy interface).

``players`` has two methods, both for the games ``slots`` (boards and owner from
the mover's view):

* ``cube(slots, boards, owner) -> (double, take)`` bool arrays: the mover doubles,
  the opponent takes (read where double);
* ``move(slots, boards, dice, owner) -> after`` boards (n, 2, 25), mover in row 1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tdbg.game import backgammon_engine as be
from tdbg.game.encoding import CUBE_CENTERED
from tdbg.game.modes.base import GameMode

MAX_PLIES = 3000  # a game this long is abandoned (never seen in practice; guards a broken net)
DROPPED, ABANDONED = 0, -1  # Ended.result besides 1/2/3 (single game, gammon, backgammon)


@dataclass
class Ended:
    """Games that ended in one step of the loop."""

    slots: np.ndarray
    points: (
        np.ndarray
    )  # won by the side that acted this turn (the doubler on a drop), times the cube
    result: np.ndarray  # 1/2/3 single/gammon/backgammon, DROPPED or ABANDONED
    turn: np.ndarray  # plies played before the turn the game ended in (abandoned: MAX_PLIES)


class Table:
    """The state of ``n`` games of ``mode``, all at the start."""

    def __init__(self, mode: GameMode, n: int, max_plies: int = MAX_PLIES):
        self.mode = mode
        self.max_plies = max_plies
        self.boards = np.tile(be.initial_board(), (n, 1, 1))
        self.owner = np.zeros(n, dtype=np.int64)  # cube owner from the mover's view
        self.cube = np.ones(n, dtype=np.int64)
        self.ply = np.zeros(n, dtype=np.int64)
        self.live = np.ones(n, dtype=bool)

    def new_games(self, slots, states=None) -> None:
        """Start fresh games in these slots, with the cube states ``states`` (match play:
        the scores; default: the cube centred)."""
        self.boards[slots] = be.initial_board()
        self.owner[slots] = CUBE_CENTERED if states is None else states
        self.cube[slots], self.ply[slots] = 1, 0
        self.live[slots] = True

    def _end(self, on_end, slots, points, result, turn) -> None:
        self.live[slots] = False
        on_end(
            Ended(
                slots,
                np.asarray(points, dtype=np.float64),
                np.asarray(result, dtype=np.int64),
                np.asarray(turn, dtype=np.int64),
            )
        )

    def play(self, players, dice, on_end) -> None:
        """Turns until no game is live."""
        while self.live.any():
            self.play_turn(np.flatnonzero(self.live), players, dice, on_end)

    def play_turn(self, idx: np.ndarray, players, dice, on_end) -> None:
        """One turn of the games ``idx`` (see the module notes)."""
        idx = self._cube_node(idx, players, on_end)
        if not len(idx):
            return
        rolls = dice(idx)
        after = np.asarray(
            players.move(idx, self.boards[idx], rolls, self.owner[idx]), dtype=np.int64
        )
        results = be.game_results(after)
        done = results != 0
        self.ply[idx] += 1
        if done.any():
            slots = idx[done]
            points = self.mode.points(results[done], self.owner[slots]) * self.cube[slots]
            self._end(on_end, slots, points, np.abs(results[done]), self.ply[slots] - 1)
        go_on = idx[~done]
        self.boards[go_on] = be.swap(after[~done].transpose(1, 0, 2)).transpose(1, 0, 2)
        self.owner[go_on] = self.mode.for_opponent(self.owner[go_on])
        stuck = go_on[self.ply[go_on] >= self.max_plies]
        if len(stuck):
            self._end(
                on_end, stuck, np.zeros(len(stuck)), np.full(len(stuck), ABANDONED), self.ply[stuck]
            )

    def _cube_node(self, idx, players, on_end) -> np.ndarray:
        """Offers, takes and drops for the games in idx; returns the games that roll on."""
        may = self.mode.may_double(self.owner[idx], self.cube[idx]) & (self.ply[idx] > 0)
        if not may.any():
            return idx
        j = idx[may]
        double, take = players.cube(j, self.boards[j], self.owner[j])
        double = np.asarray(double, dtype=bool)
        takes = double & np.asarray(take, dtype=bool)
        drops = double & ~takes
        self.cube[j[takes]] *= 2
        self.owner[j[takes]] = self.mode.after_take(self.owner[j[takes]])
        if not drops.any():
            return idx
        slots = j[drops]
        self._end(
            on_end,
            slots,
            self.cube[slots].astype(np.float64),
            np.full(len(slots), DROPPED),
            self.ply[slots],
        )
        return idx[~np.isin(idx, slots)]
