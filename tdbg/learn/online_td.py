"""Tesauro's online TD(lambda): eligibility traces on the weights, an update after every move.

For each move t of a game (trace e = 0 at the start of every game):

1. V_t = V(s_t) for the position with the mover on roll, g_t = dV_t/dw;
2. e <- sign * lambda * e + g_t;
3. the mover plays its greedy move; the target y_t is the value of the position
   reached, seen from the mover (exact when the game is over), computed with the
   weights as they are before this update;
4. delta_t = y_t - V_t and w <- w + alpha * delta_t * e.

``sign`` is -1 in self-play with the perspective encoding: consecutive positions
are valued by alternating sides, and a value difference seen by one side is the
negative of that seen by the other (flip(v) = 1 - v or -v), so the credit that a
later surprise sends back alternates in sign.  With lambda = 0 the trace is g_t
and the update is the semi-gradient TD(0) rule w += alpha (y_t - V_t) g_t.
"""

from __future__ import annotations

import time
from typing import ClassVar

import numpy as np
import torch

from tdbg.game.dice import roll_dice
from tdbg.game.heads import output_head
from tdbg.game.modes.base import GameMode
from tdbg.game.turns import Ended, Table
from tdbg.learn.selfplay import Samples
from tdbg.learn.stage_settings import OnlineStage
from tdbg.net.scoring import Scorer, ScoringSettings, segment_argmax


class TDLambda:
    """The trace and the weight update for one network (any nn.Module with scalar output)."""

    def __init__(self, model: torch.nn.Module, lam: float, alpha: float, sign: float = -1.0):
        if not 0.0 <= lam <= 1.0:
            raise ValueError(f"lambda must be in [0, 1], got {lam}")
        self.model = model
        self.lam = lam
        self.alpha = alpha
        self.sign = sign
        self.params = [p for p in model.parameters() if p.requires_grad]
        self.trace = [torch.zeros_like(p) for p in self.params]

    def reset(self) -> None:
        """Start of a game: no breadcrumbs yet."""
        for e in self.trace:
            e.zero_()

    def value_and_trace(self, x: torch.Tensor) -> float:
        """V(x) for one input; folds its gradient into the trace.  Returns V."""
        self.model.zero_grad(set_to_none=True)
        v = self.model(x.unsqueeze(0)).reshape(())
        grads = torch.autograd.grad(v, self.params)
        with torch.no_grad():
            for e, g in zip(self.trace, grads, strict=True):
                e.mul_(self.sign * self.lam).add_(g)
        return float(v.detach())

    @torch.no_grad()
    def update(self, delta: float) -> None:
        for p, e in zip(self.params, self.trace, strict=True):
            p.add_(e, alpha=self.alpha * delta)


class OnlineSelfPlay:
    """Plays games one at a time through the shared turn loop, learning after every move."""

    def __init__(self, model, mode: GameMode, lam: float, alpha: float, engine: str = "auto"):
        scalar_only = "online TD(lambda) trains scalar models in dmp or cubeless-money"
        if output_head(model.output_mode).width != 1:
            raise ValueError(scalar_only)
        mode.require(scalar_only, cube=False)
        self.model = model
        self.mode = mode
        self.td = TDLambda(model, lam, alpha)
        # dense: the weights change after every move, and rebuilding the incremental path's
        # W1^T each time cost as much as it saved (measured ~5% slower with [256,256,256])
        self.scorer = Scorer(
            model, mode, engine=engine, scoring=ScoringSettings(first_layer="dense")
        )

    def set_lr(self, alpha: float) -> None:
        self.td.alpha = alpha

    def play_game(self, rng: np.random.Generator) -> dict:
        """One game of self-play with updates; returns its stats."""
        self.td.reset()
        table = Table(self.mode, 1)
        self.sq_err = 0.0
        out = {}

        def on_end(ended: Ended) -> None:
            out["plies"] = int(ended.turn[0]) + (ended.result[0] > 0)
            out["result"] = max(int(ended.result[0]), 0)

        table.play(self, lambda idx: roll_dice(rng, 1, opening=table.ply[idx] == 0), on_end)
        return {"plies": out["plies"], "result": out["result"], "sq_err": self.sq_err}

    def move(self, slots, boards, dice, owner):
        """The turn loop's policy: V(s_t) into the trace, the greedy move, the update."""
        v_t = self.td.value_and_trace(torch.from_numpy(self.scorer.encode_states(boards)[0]))
        after, offsets, values, scalar = self.scorer.score(boards, dice)
        row, _ = segment_argmax(scalar, offsets)
        delta = float(values[row[0]]) - v_t
        self.td.update(delta)
        self.sq_err += delta * delta
        return after[row].astype(np.int64)

    def cube(self, slots, boards, owner):
        raise ValueError("online TD(lambda) plays without a cube")


class OnlineLearner:
    """train_online.py's learner (a learner.Learner) for training_loop.run_stage (its settings: an
    ``OnlineStage``, learn.stage_settings): a round is a block of ``--log-every`` games, each a
    step of its own (run_stage's guard: a signal waits for the game's end)."""

    # the settings every online stage has recorded (settings below): a continued stage missing
    # one was damaged (an end_lr lost read as a constant rate the stage never had)
    recorded_always: ClassVar[tuple[str, ...]] = (
        "num_episodes",
        "lambda",
        "lr",
        "end_lr",
        "game_mode",
    )

    log_fields: ClassVar[list[str]] = [
        "episodes",
        "total_episodes",
        "loss",
        "lr",
        "episodes_per_s",
        "mean_plies",
        "elapsed_seconds",
    ]
    learns_while_playing: ClassVar[bool] = True

    def __init__(self, stage: OnlineStage, model, mode):
        lam, lr = stage.online.lam, stage.schedule.lr
        if not 0.0 <= lam <= 1.0:
            raise ValueError(f"--lambda must be between 0 and 1, got {lam}")
        self.stage, self.model = stage, model
        self.play = OnlineSelfPlay(model, mode, lam, lr, engine=stage.run.engine)
        self.lr, self.last_loss = lr, float("nan")
        self.block: dict = {}
        self.round_end = 0

    @staticmethod
    def prepare(stage: OnlineStage, model, unfinished: dict | None) -> tuple[OnlineStage, str]:
        """Nothing to make concrete: the stage's settings as given."""
        return stage, ""

    @staticmethod
    def settings(stage: OnlineStage, mode) -> dict:
        sch = stage.schedule
        settings = {
            "trainer": "online",
            "num_episodes": sch.num_episodes,
            "lambda": stage.online.lam,
            "lr": sch.lr,
            "end_lr": sch.end_lr,
            "game_mode": mode.name,
        }
        if stage.model.expand_depth_size:  # (only when given: older checkpoints resume as before)
            settings["expand_depth_size"] = stage.model.expand_depth_size
        return settings

    @staticmethod
    def round_episodes(stage: OnlineStage) -> int:
        return stage.online.log_every

    @staticmethod
    def thread_work(stage: OnlineStage, model) -> tuple[int, int | None]:
        """No workers, and one position at a time: nothing a second thread could share."""
        return 0, None

    def state_dict(self) -> dict:
        return {}

    def state_checks(self) -> tuple[dict, tuple]:
        """It keeps no state besides the stage's (a part of any other name is damage)."""
        return {}, ()

    def load_state_dict(self, state: dict) -> None:
        pass

    def set_lr(self, lr: float) -> None:
        self.lr = lr
        self.play.set_lr(lr)

    def open(self, round_seed, seed_root) -> None:
        self.game_seed = (
            round_seed  # game k of the stage: its own dice stream (a round of one game)
        )

    def segment_info(self) -> dict:
        return {}

    def close(self) -> None:
        pass

    def collect(self, k: int, n: int, done: int) -> None:
        """A round (a block of ``n`` games after ``done``) begins: nothing to collect, as the
        games are played and learned from one step at a time (``train``)."""
        self.block = {"t0": time.time(), "sq": 0.0, "plies": 0, "games": 0}
        self.round_end = done + n

    def train(self, k: int, samples: Samples | None, first: int, n: int) -> float:
        """Play and learn from games ``first`` to ``first + n``, each on its own dice stream;
        the round's loss once its last game is played.  No other process works for it."""
        for g in range(first, first + n):
            st = self.play.play_game(np.random.default_rng(self.game_seed(g)))
            self.block.update(
                sq=self.block["sq"] + st["sq_err"],
                plies=self.block["plies"] + st["plies"],
                games=self.block["games"] + 1,
            )
        if first + n == self.round_end:
            self.last_loss = self.block["sq"] / max(self.block["plies"], 1)
        return 0.0

    def row(self, n: int) -> dict:
        b = self.block
        games, secs = b["games"], time.time() - b["t0"]
        return {
            "loss": b["sq"] / max(b["plies"], 1),
            "lr": self.lr,
            "episodes_per_s": games / max(secs, 1e-9),
            "mean_plies": b["plies"] / max(games, 1),
        }

    @staticmethod
    def eval_due(stage: OnlineStage, round_index: int, done: int, n: int) -> bool:
        return done % stage.evaluation.eval_every < n

    @staticmethod
    def eval_seed(stage: OnlineStage, round_index: int, done: int) -> int:
        return stage.run.seed + done

    @staticmethod
    def where(round_index: int, done: int) -> str:
        return f"{done} episodes"

    def postfix(self) -> dict:
        return {"loss": f"{self.last_loss:.5f}"}
