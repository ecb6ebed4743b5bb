"""gnubg-nn playing DMP against itself, one decision at a time, for the diagnostics here.

gnubg-nn picks the candidate with the highest 0-ply P(win), as agents.GnubgNNAgent does in
DMP; dice come from the caller's generator, so a run is repeatable by its seed.
"""

from __future__ import annotations

import numpy as np


def dmp_decisions(n: int, rng: np.random.Generator):
    """Yield (game index, candidate after-boards with the mover in row 1, the mover's P(win) of
    each) for the first ``n`` decisions with a choice; forced moves and dances are played on."""
    from tdbg.play.players import Player
    from tdbg.play.seating import evaluator
    from tdbg.game.backgammon_engine import initial_board
    from tdbg.game.modes import game_mode

    agent = evaluator(Player("gnubg-nn"), game_mode("dmp"))
    game, board, done = 0, initial_board().tolist(), 0
    while done < n:
        d1, d2 = (int(x) for x in rng.integers(1, 7, size=2))
        after, probs = agent.candidates(board, d1, d2)
        if not after:  # dance: the opponent rolls
            board = [board[1], board[0]]
            continue
        pick = 0
        if probs is not None:
            win = probs[:, 0]
            pick = int(np.argmax(win))
            done += 1
            yield game, after, win
        chosen = after[pick]
        if sum(chosen[1]) == 0:  # the mover bore off its last checker
            game, board = game + 1, initial_board().tolist()
        else:
            board = [list(chosen[1]), list(chosen[0])]
