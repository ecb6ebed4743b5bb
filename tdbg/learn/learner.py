"""What training_loop.run_stage asks of a learner: the ``Learner`` protocol.

run_stage builds or loads the model and does everything around a stage's rounds (resume,
signals, log, evaluation, saves); the learner does the work of a round.  Two learners
implement the protocol: ``batch_td.BatchLearner`` (train_batch.py, train_prob5.py: collect
episodes, then train on them) and ``online_td.OnlineLearner`` (train_online.py: games with
an update after every move); tests/learn/test_learner.py checks that both conform.

The class-level members work on the stage's settings (a ``learn.settings`` dataclass) before
any learner exists; an instance is made with ``(stage, model, mode)`` and is then opened, run
round by round, and closed.  In a round the learner reports its progress to ``Progress``
(run_stage's side) inside ``signals.guard()``, so that a signal never cuts between the
weights and the episode count.
"""
from __future__ import annotations

from typing import Any, Callable, ClassVar, Protocol, runtime_checkable

import numpy as np


class Progress(Protocol):
    """run_stage's side of a round: the learner calls these inside its guard."""

    def count(self, n: int, worker_cpu_seconds: float = 0.0) -> None:
        """``n`` more episodes done (the weights already include them)."""

    def finish(self, n: int) -> None:
        """The round of ``n`` episodes ends: log, evaluate when due, save."""


@runtime_checkable
class Learner(Protocol):
    log_fields: ClassVar[list[str]]   # the CSV log's columns (run_stage adds the evaluation's)
    last_loss: float                  # the last round's loss (nan before any round)

    # --- on the stage's settings, before a learner exists ---
    def __init__(self, stage: Any, model: Any, mode: Any) -> None:
        """ValueError on settings that do not fit the model or mode (run_stage: InputError)."""

    @staticmethod
    def prepare(stage: Any, model: Any, unfinished: dict | None) -> Any:
        """The stage's settings made concrete for this model; ``unfinished``: the checkpoint's
        unfinished stage that may be continued (its recorded settings), or None."""

    @staticmethod
    def settings(stage: Any, mode: Any) -> dict:
        """The stage's settings as the checkpoint records them (compared on resume)."""

    @staticmethod
    def round_episodes(stage: Any) -> int:
        """Episodes per round (a resumed run keeps the same round boundaries)."""

    @staticmethod
    def eval_due(stage: Any, round_index: int, done: int, n: int) -> bool:
        """Whether the round just finished (``round_index`` rounds, ``done`` episodes) is evaluated."""

    @staticmethod
    def eval_seed(stage: Any, round_index: int, done: int) -> int:
        """The seed of that evaluation's games."""

    @staticmethod
    def thread_work(stage: Any, model: Any) -> tuple[int, int | None]:
        """What sets this process's torch threads (tdbg.infra.threads.choose): (worker
        processes of the learner running beside it, parameters of the net it runs in batches;
        None when its network work is not batched)."""

    @staticmethod
    def where(round_index: int, done: int) -> str:
        """How the progress line names the point reached ("round 3", "200 episodes")."""

    # --- an instance, from open to close ---
    def state_dict(self) -> dict:
        """The trainer's state the checkpoint keeps (optimizer moments)."""

    def load_state_dict(self, state: dict) -> None:
        """Continue the checkpoint's unfinished stage from ``state``."""

    def open(self, round_seed: Callable[[int], np.random.SeedSequence], seed_root: np.random.SeedSequence) -> None:
        """Start workers and the like; ``round_seed(k)``: the seed of round (or game) k."""

    def segment_info(self) -> dict:
        """What the checkpoint records of this start of the stage besides commit and CPU."""

    def set_lr(self, lr: float) -> None:
        """The learning rate of the next round."""

    def play_round(self, k: int, n: int, done: int, signals: Any, progress: Progress) -> None:
        """Round ``k`` (from 0): ``n`` episodes after ``done``, reported to ``progress`` inside
        ``signals.guard()``."""

    def row(self, n: int) -> dict:
        """The round's numbers for the log."""

    def postfix(self) -> dict:
        """The progress bar's postfix."""

    def close(self) -> None:
        """Stop what open started (also after an error)."""
