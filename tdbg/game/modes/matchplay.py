"""Match play as a game mode: N-point matches, the Crawford rule, the cube against the MET.

Values are the match-winning chance (MWC) of the side on roll.  A game that ends
is worth the match equity table's entry at the new score (1 or 0 when it ends the
match), so a gammon counts only as far as the match needs it.  Cube actions are
transitions exactly as in cubeful money (cubeful_money.py), but nothing is normalised to
the cube: a drop is worth the MWC after the doubler wins the cube's points, a take
the MWC of the position with the cube doubled and owned by the taker.

The per-game state rides in the turn loop's cube-owner array as one integer (so
turns.Table, self-play and the agents carry it without knowing what it holds); only
this module reads it.  From the mover's view it packs

    owner (0 centred, 1 mine, 2 theirs) + 3 level (cube = 2**level)
    + 21 crawford (this game is the Crawford game)
    + 42 (my away - 1) + 1050 (their away - 1).

A game after the Crawford game with one side at 1-away is post-Crawford: no flag is
needed, since a player who reaches 1-away always plays the Crawford game next.

Network inputs (208): the 200 cubeful inputs (board, cube owner, cube-node flag) and
eight match inputs: the MWC the mover would have after winning or losing a single
game, a gammon and a backgammon at the current cube, and the Crawford and
post-Crawford flags.  The six MWCs are the game's payoffs at this score, the
coordinates in which a score matters: two scores with the same payoffs are the same
decision problem for checker play, so the network learns one board evaluation and
how the payoffs weigh it, instead of 25 x 25 scores one by one (one-hot away scores
would leave most scores rarely seen).  The cube level is in them too: a doubled cube
moves each payoff further along the table.
"""

from __future__ import annotations

import numpy as np

from tdbg.game.cube import CubeAction, owner_for_opponent
from tdbg.game.encoding import CUBE_CENTERED, CUBE_MINE, CUBE_THEIRS, cube_features
from tdbg.game.met import MAX_AWAY, MatchEquityTable, default_met, load_met
from tdbg.game.modes.cubeful_money import CubefulMoney

MAX_LEVEL = 6  # cube 64: more than any 25-point match can use
MATCH_FEATURES = 8
MATCH_INPUTS = 200 + MATCH_FEATURES
DEFAULT_MATCH_LENGTH = 7  # the match a match model plays where no length is given


def pack(owner, level, crawford, me, opp) -> np.ndarray:
    """Integer match states (see the module notes) from their parts (arrays)."""
    return (
        np.asarray(owner, dtype=np.int64)
        + 3 * np.asarray(level, dtype=np.int64)
        + 21 * np.asarray(crawford, dtype=np.int64)
        + 42 * (np.asarray(me, dtype=np.int64) - 1)
        + 1050 * (np.asarray(opp, dtype=np.int64) - 1)
    )


def unpack(state):
    """(owner, level, crawford, me, opp) arrays of integer match states."""
    s = np.asarray(state, dtype=np.int64)
    return s % 3, (s // 3) % 7, (s // 21) % 2, (s // 42) % 25 + 1, s // 1050 + 1


class MatchPlay(CubefulMoney):
    """``length``-point matches (1-25); ``length`` 0 is the training spread of scores."""

    name = "match"
    n_inputs = MATCH_INPUTS
    outputs = ("mwc", "mwc-outcomes")
    is_match = True
    take_scale = 1.0  # match-winning chances are not normalised to the cube

    def mover_state(self, owner, cube, crawford=False, away=(0, 0)):
        """The packed state of one position; ValueError for one the packing cannot hold (a
        larger cube or a longer match would spill into the next part: cube 128 read as the
        Crawford flag)."""
        cube = int(cube)
        if cube < 1 or cube & (cube - 1) or cube > 2**MAX_LEVEL:
            raise ValueError(
                f"cube {cube} is not a power of 2 up to {2**MAX_LEVEL} (more than any match of up "
                f"to 25 points can use)"
            )
        if not all(1 <= a <= MAX_AWAY for a in away):
            raise ValueError(
                f"{away[0]} and {away[1]} away is not a score of a match of up to {MAX_AWAY} points"
            )
        return np.array([pack(owner, cube.bit_length() - 1, crawford, *away)])

    def __init__(
        self, jacoby: bool = False, length: int = 0, met: "MatchEquityTable | str | None" = None
    ):
        """``met``: a table, a MET file (METError if missing or malformed), or None for the
        shipped Kazaross-XG2."""
        super().__init__(jacoby=False)  # money rules (Jacoby, beavers) are off in matches
        if not 0 <= int(length) <= MAX_AWAY:
            raise ValueError(f"match length must be 1 to {MAX_AWAY}, got {length}")
        self.length = int(length)
        self.met = load_met(met) if isinstance(met, str) else (met or default_met())
        # length 0 (training's spread of scores) plays scores up to MAX_AWAY away: a shorter
        # table was taken, and the first score beyond it was a traceback mid-training
        if self.met.length < (self.length or MAX_AWAY):
            raise ValueError(
                f"the match equity table {self.met.name} stops at {self.met.length} away"
                + (
                    ""
                    if self.length
                    else f" (training without --match-length plays scores up to {MAX_AWAY} away)"
                )
            )

    def __eq__(self, other) -> bool:
        return type(self) is type(other) and self.length == other.length

    def __hash__(self) -> int:
        return hash((type(self), self.length))

    def __repr__(self) -> str:
        return f"MatchPlay(length={self.length})"

    def __getstate__(self):  # worker processes read the shipped table again
        return {"length": self.length, "met": self.met}

    def __setstate__(self, st):
        self.__init__(length=st["length"], met=st["met"])

    # ------------------------------------------------------------------ values

    def after_game(self, state, points) -> np.ndarray:
        """MWC of the mover after winning ``points`` (> 0) or losing -points (< 0) of the
        game played at ``state``; gammons beyond what the match needs count for nothing."""
        _, _, _, me, opp = unpack(state)
        points = np.asarray(points, dtype=np.int64)
        post = (me == 1) | (opp == 1)  # this game is the Crawford game or after it
        won = points > 0
        new_me = np.where(won, me - points, me)
        new_opp = np.where(won, opp, opp + points)
        return self.met.mwc(new_me, new_opp, post)

    def terminal_values(self, head, results, state) -> np.ndarray:
        _, level, _, _, _ = unpack(state)
        return self.after_game(state, np.abs(np.asarray(results, dtype=np.int64)) << level)

    def points(self, result, owner=None):
        return np.asarray(result, dtype=np.float64)  # no Jacoby; the table scales by the cube

    def value_points(self, value):
        return 2.0 * value - 1.0

    def cube_action(self, v_no_double, v_take, state=None) -> CubeAction:
        """v_no_double, v_take: the mover's MWC rolling on, and after a take (cube doubled,
        owned by the opponent).  Doubling is worth min(v_take, v_drop) (the opponent picks
        what is worse for us), where v_drop is the MWC after winning the cube's points;
        the opponent takes when that leaves them more than dropping does."""
        _, level, _, _, _ = unpack(state)
        v_drop = self.after_game(state, 1 << level)
        v_double = np.minimum(v_take, v_drop)
        # a dead cube is never doubled (may_double), whatever noise in the two values says
        double = (v_double > v_no_double) & self.may_double(state)
        return CubeAction(double, v_take < v_drop, np.where(double, v_double, v_no_double))

    def cube_options(self, v_no_double, v_take, state=None) -> tuple:
        """(no double, double/take, double/pass) as the doubler's MWC: a pass wins the cube's
        points at this score (the MET entry)."""
        _, level, _, _, _ = unpack(state)
        return np.asarray(v_no_double), np.asarray(v_take), self.after_game(state, 1 << level)

    # ------------------------------------------------------------------ cube state

    def cube_owner(self, state) -> np.ndarray:
        return unpack(state)[0]

    def may_double(self, owner, cube=None):
        """Centred or own cube, not in the Crawford game, and not dead (see ``dead_cube``)."""
        own, level, crawford, me, opp = unpack(owner)
        return (
            ((own == CUBE_CENTERED) | (own == CUBE_MINE))
            & (crawford == 0)
            & (level < MAX_LEVEL)
            & ~self.dead_cube(owner)
        )

    @staticmethod
    def dead_cube(state) -> np.ndarray:
        """The cube already at or above what each side needs (1-away each at cube 1, 7-7 at
        cube 8): any win ends the match, so doubling can change nothing and is not offered.
        Why it matters: with such doubles allowed, greedy self-play escalated the cube to 64
        and half its positions had a dead cube, where who owns it does not matter; the net
        then learned to ignore ownership everywhere (experiments/match/take_vs_gnubg.py)."""
        _, level, _, me, opp = unpack(state)
        cube = 1 << level
        return (cube >= me) & (cube >= opp)

    def after_take(self, state) -> np.ndarray:
        own, level, crawford, me, opp = unpack(state)
        return pack(np.full_like(own, CUBE_THEIRS), level + 1, crawford, me, opp)

    def for_opponent(self, state) -> np.ndarray:
        own, level, crawford, me, opp = unpack(state)
        return pack(owner_for_opponent(own), level, crawford, opp, me)

    def cube_inputs(self, owner, is_cube_action):
        state = np.asarray(owner).reshape(-1)
        own, level, crawford, me, opp = unpack(state)
        cube = 1 << level
        payoffs = [self.after_game(state, sign * k * cube) for sign in (1, -1) for k in (1, 2, 3)]
        post = ((me == 1) ^ (opp == 1)) & (crawford == 0)
        match = np.stack(payoffs + [crawford, post], axis=1).astype(np.float32)
        return np.concatenate([cube_features(own, is_cube_action), match], axis=1)

    def reply_cube_inputs(self, owner):
        theirs = self.for_opponent(owner)
        return self.cube_inputs(theirs, self.may_double(theirs))

    # ------------------------------------------------------------------ scores

    def start_state(self, me, opp, crawford) -> np.ndarray:
        return pack(np.full(np.shape(me), CUBE_CENTERED), 0, crawford, me, opp)

    def initial_states(
        self, n: int, rng: np.random.Generator | None = None, turned: float = 0.0
    ) -> np.ndarray:
        """Self-play's new games: a spread of scores, both sides 1 to ``length`` away, or
        (length 0) three in four with both sides 1-11 away (every score of matches up to
        11 points) and the rest up to 25 away; a side at 1-away plays the Crawford game
        half the time and post-Crawford games otherwise.  (Whole matches: matches.py.)

        ``turned``: the chance that a game starts with the cube already turned (2 three
        times in four, else 4) and owned by the side that took it, wherever the other
        side could have doubled (not in the Crawford game, not a dead cube, and never
        by a side at 1-away).  Greedy self-play reaches a turned cube only where its own
        takes put it, so the positions after a take at lopsided scores, the ones its
        drops avoid, are otherwise seldom learned (experiments/match/cube_bias.py)."""
        rng = rng or np.random.default_rng()
        top = (
            np.full(n, self.length) if self.length else np.where(rng.random(n) < 0.75, 11, MAX_AWAY)
        )
        me, opp = rng.integers(1, top + 1), rng.integers(1, top + 1)
        crawford = ((me == 1) ^ (opp == 1)) & (rng.random(n) < 0.5)
        states = self.start_state(me, opp, crawford)
        if turned <= 0:
            return states
        turn = (rng.random(n) < turned) & ~crawford & ((me > 1) | (opp > 1))
        # the owner took; the doubler is the other side, who must not be at 1-away
        mine = np.where(me == 1, True, np.where(opp == 1, False, rng.random(n) < 0.5))
        level = np.where(rng.random(n) < 0.75, 1, 2)
        owner = np.where(mine, CUBE_MINE, CUBE_THEIRS)
        # never past a dead cube: the double that turned it could not have been offered
        turn &= ~self.dead_cube(pack(owner, level - 1, 0, me, opp))
        return np.where(turn, pack(owner, level, 0, me, opp), states)
