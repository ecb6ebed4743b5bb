"""What training_loop.run_stage asks of a learner: the ``Learner`` protocol, written once, here.

The runner drives and the learner answers; the learner never calls back.  run_stage builds
or loads the model and, round by round, asks the learner to ``collect`` the round (self-play,
outside any guard: a signal may stop it before anything is trained), then to ``train`` it a
step at a time inside ``signals.guard()``; the runner counts each step's episodes in the
same guard, and with the round's last step checks that training stayed finite, logs the
learner's ``row``, evaluates when due and saves, so that a signal never cuts between the
weights, the episode count and the checkpoint.  Two learners implement the protocol:
``batch_td.BatchLearner`` (train_batch.py, train_prob5.py: a round's episodes collected by
workers, then trained on in one step) and ``online_td.OnlineLearner`` (train_online.py: it
learns while it plays, one game a step); tests/learn/test_learner.py checks that both conform.

The class-level members work on the stage's settings (a ``learn.stage_settings`` dataclass) before
any learner exists; an instance is made with ``(stage, model, mode)`` and is then opened,
asked round by round, and closed.
"""

from __future__ import annotations

from typing import Callable, ClassVar, Protocol, TypeVar, runtime_checkable

import numpy as np

from tdbg.game.modes.base import GameMode
from tdbg.learn.selfplay import Samples
from tdbg.learn.stage_settings import BatchStage, OnlineStage
from tdbg.net.model import TDNetwork

StageT = TypeVar("StageT", bound=BatchStage | OnlineStage)  # the learner's stage settings


@runtime_checkable
class Learner(Protocol[StageT]):
    log_fields: ClassVar[list[str]]  # the CSV log's columns (run_stage adds the evaluation's)
    learns_while_playing: ClassVar[
        bool
    ]  # True: ``collect`` gathers nothing and each step is one game
    last_loss: float  # the last round's loss (nan before any round)

    # --- on the stage's settings, before a learner exists ---
    def __init__(self, stage: StageT, model: TDNetwork, mode: GameMode) -> None:
        """ValueError on settings that do not fit the model or mode (run_stage: InputError)."""

    @staticmethod
    def prepare(stage: StageT, model: TDNetwork, unfinished: dict | None) -> tuple[StageT, str]:
        """(the stage's settings made concrete for this model, a line saying what was chosen
        or ""), ``unfinished``: the checkpoint's unfinished stage that may be continued (its
        recorded settings), or None.  The line is shown once every check has passed, so that a
        refused run prints only its error."""

    @staticmethod
    def settings(stage: StageT, mode: GameMode) -> dict:
        """The stage's settings as the checkpoint records them (compared on resume)."""

    @staticmethod
    def round_episodes(stage: StageT) -> int:
        """Episodes per round (a resumed run keeps the same round boundaries)."""

    @staticmethod
    def eval_due(stage: StageT, round_index: int, done: int, n: int) -> bool:
        """Whether the round just finished (``round_index`` rounds, ``done`` episodes) is evaluated."""

    @staticmethod
    def eval_seed(stage: StageT, round_index: int, done: int) -> int:
        """The seed of that evaluation's games."""

    @staticmethod
    def thread_work(stage: StageT, model: TDNetwork) -> tuple[int, int | None]:
        """What sets this process's torch threads (tdbg.infra.threads.choose): (worker
        processes of the learner running beside it, parameters of the net it runs in batches;
        None when its network work is not batched)."""

    @staticmethod
    def where(round_index: int, done: int) -> str:
        """How the progress line names the point reached ("round 3", "200 episodes")."""

    # --- an instance, from open to close ---
    def state_dict(self) -> dict:
        """The trainer's state the checkpoint keeps (optimizer moments)."""

    def state_checks(self) -> tuple[dict, tuple]:
        """(a check, resume_state's, of each part state_dict may hold, by its key; the keys
        it always holds): the one check of a continued stage's state before any is restored."""

    def load_state_dict(self, state: dict) -> None:
        """Continue the checkpoint's unfinished stage from ``state`` (checked: state_checks)."""

    def open(
        self, round_seed: Callable[[int], np.random.SeedSequence], seed_root: np.random.SeedSequence
    ) -> None:
        """Start workers and the like; ``round_seed(k)``: the seed of round (or game) k."""

    def segment_info(self) -> dict:
        """What the checkpoint records of this start of the stage besides commit and CPU."""

    def set_lr(self, lr: float) -> None:
        """The learning rate of the next round."""

    def collect(self, k: int, n: int, done: int) -> Samples | None:
        """Round ``k`` (from 0) begins: its ``n`` episodes after ``done``, collected (None
        when the learner learns while it plays)."""

    def train(self, k: int, samples: Samples | None, first: int, n: int) -> float:
        """One step of round ``k``: learn from episodes ``first`` to ``first + n`` (the
        round's ``samples``, or games played now); the CPU seconds other processes spent on
        them.  Run inside the guard; the runner counts the ``n`` episodes after it."""

    def row(self, n: int) -> dict:
        """The round's numbers for the log."""

    def postfix(self) -> dict:
        """The progress bar's postfix."""

    def close(self) -> None:
        """Stop what open started (also after an error)."""
