"""Positions drawn without our engine: random games and self-play by gnubg-nn itself.

Keeping our engine out of position generation means a bug in it cannot hide by
also shaping the test set.
"""

from __future__ import annotations

import random

import gnubg_nn
import numpy as np

from tdbg.game.backgammon_engine import position_keys

START = [[0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0]] * 2


def _after(key: str):
    """gnubg-nn's resulting board (mover in row 1) handed to the opponent."""
    b = gnubg_nn.board_from_position_key(key)
    return [list(b[1]), list(b[0])]


def _finished(board) -> bool:
    return sum(board[0]) == 0 or sum(board[1]) == 0


def gnubg_games(n_positions: int, seed: int, policy: str) -> list:
    """Positions (side on roll in row 1) met in games played by ``policy``:
    'random' picks a uniformly random legal result, 'gnubg' plays gnubg-nn's best move."""
    rng = random.Random(seed)
    out: list = []
    while len(out) < n_positions:
        board = [list(r) for r in START]
        while not _finished(board) and len(out) < n_positions:
            out.append([list(r) for r in board])
            d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
            keys = gnubg_nn.moves(board, d1, d2)
            if not keys:
                board = [board[1], board[0]]
                continue
            if policy == "gnubg" and rng.random() > 0.1:
                # gnubg-nn's choice (its key is already from the opponent's side);
                # now and then a random one to reach more varied positions
                nxt = [
                    list(r)
                    for r in gnubg_nn.board_from_position_key(
                        gnubg_nn.bestmove(board, d1, d2, b=1)[1]
                    )
                ]
            else:
                nxt = _after(rng.choice(keys))
            board = nxt if not _finished(nxt) else [list(r) for r in START]
    return out


def oracle_positions(n_positions: int, seed: int = 2026) -> np.ndarray:
    """Half random-game, half gnubg-nn self-play positions, as an (N, 2, 25) array."""
    half = n_positions // 2
    boards = gnubg_games(half, seed, "random") + gnubg_games(n_positions - half, seed + 1, "gnubg")
    return np.array(boards, dtype=np.int64)


ALL_ROLLS = [(d1, d2) for d1 in range(1, 7) for d2 in range(d1, 7)]


def gnubg_keys(board, d1: int, d2: int) -> set:
    """gnubg-nn's resulting positions as 20-letter keys (bytes), mover in row 1.
    gnubg-nn gives no result when no checker can move: that is the pass."""
    keys = gnubg_nn.moves(board, d1, d2)
    if not keys:
        return {gnubg_nn.key_of_board(board).encode()}
    return {k.encode() for k in keys}


def key_set(boards) -> set:
    """Our boards as the same keys, computed without gnubg-nn."""
    return set(position_keys(np.asarray(boards).reshape(-1, 2, 25)).tolist())


def result_keys(moves) -> set:
    return key_set([nb for _, nb in moves])
