"""Batch TD(0), the learner of train_batch.py and train_prob5.py: each round collects
self-play episodes (selfplay.Collector, over worker processes) and then trains
``--epochs`` passes of minibatches on their samples.  training_loop.run_stage runs
the rounds.

With ``--overlap`` the workers collect round k+1 (with the weights before round k's
training) while this process trains on round k; targets are one round staler.  One worker
then runs in a process of its own (without it, in this one).
"""

from __future__ import annotations

import copy
import math
import sys
import time
from dataclasses import replace
from typing import ClassVar

import numpy as np

from tdbg.game.heads import output_head
from tdbg.learn import filter_training, resume_state
from tdbg.learn.selfplay import Collector, Samples, SelfPlaySetup
from tdbg.learn.stage_settings import Acting, BatchStage, recorded
from tdbg.learn.trainer import Trainer
from tdbg.net import lowp
from tdbg.net.losses import prob5_loss
from tdbg.net.model import move_filter_of, set_move_filter, weights_finite
from tdbg.net.move_filter import new_filter
from tdbg.net.scoring import check_first_layer

OVERLAP_KEY = (
    "overlap_weights"  # trainer state: the weights of the round being collected (--overlap)
)
FILTER_KEY = "filter_trainer"  # trainer state: the move filter's optimizer and row generator (--oneply-filter)
LOG_FIELDS = [
    "round",
    "stage_episodes",
    "total_episodes",
    "samples",
    "loss",
    "lr",
    "episodes_per_s",
    "evals_per_s",
    "round_seconds",
    "elapsed_seconds",
    "cpu_hours",
    "gammon_rate",
    "doubles",
    "takes",
    "drops",
]


class BatchLearner:
    """The learner of a ``BatchStage`` (learn.stage_settings): its acting, optimisation and collection
    (a learner.Learner)."""

    log_fields: ClassVar[list[str]] = LOG_FIELDS
    learns_while_playing: ClassVar[bool] = False
    # the settings every batch stage has recorded (settings' base): a continued stage missing
    # one was damaged (an end_lr lost read as none, a constant rate the stage never had)
    recorded_always: ClassVar[tuple[str, ...]] = (
        "num_episodes",
        "oneply",
        "game_mode",
        "lr",
        "end_lr",
        "warmup_cycles",
        "episodes_per_round",
        "optimizer",
    )

    def __init__(self, stage: BatchStage, model, mode):
        self.stage, self.model, self.mode = stage, model, mode
        opt, col, run = stage.optimisation, stage.collection, stage.run
        stage.acting.check(mode)  # here, before any worker starts a game
        scoring = col.scoring
        check_first_layer(scoring.first_layer, run.engine)
        if scoring.precision != "fp32":
            lowp.check_settings(
                scoring.precision, model, run.engine, scoring.first_layer, run.device, col.workers
            )
        loss = None
        if output_head(model.output_mode).five_outcomes:
            loss = prob5_loss(opt.loss, opt.win_weight, opt.raw_logits)
        elif opt.loss != "mse" or opt.raw_logits:
            raise ValueError("--loss and --raw-logits are for prob5 models (train_prob5.py)")
        if col.oneply_filter and not col.oneply:
            raise ValueError(
                "--oneply-filter filters the 1-ply targets of --oneply; add --oneply (or drop it)"
            )
        if col.filter_exact_races and not col.oneply_filter:
            raise ValueError(
                "--filter-exact-races says where --oneply-filter K does not filter; add --oneply-filter K"
            )
        if (
            col.filter_warmup != filter_training.DEFAULT_WARMUP_EPISODES and not col.oneply_filter
        ):  # ignored unsaid
            raise ValueError(
                "--filter-warmup fits the filter of --oneply-filter K; add --oneply-filter K"
            )
        self.filter_trainer: filter_training.FilterTrainer | None = None
        self.filter_state: dict | None = (
            None  # a continued stage's filter trainer state (the checkpoint's)
        )
        self.continuing = False
        # the minibatch order's generator (open) and a resumed state
        self.rng: np.random.Generator | None = None
        self.rng_state: dict | None = None
        self.trainer = Trainer(model, opt, stage.schedule.lr, run.device, loss)
        self.collector: Collector | None = None  # made in open
        self.pending: tuple | None = None
        self.stale: dict | None = (
            None  # --overlap: the weights (and filter) the next round collects with, when resumed
        )
        self.last_loss = float("nan")
        self.lr = stage.schedule.lr
        self.round_started = self.collect_seconds = (
            0.0  # the round's start, and its collection's time
        )
        self._row: dict = {}

    @staticmethod
    def prepare(stage: BatchStage, model, unfinished: dict | None) -> tuple[BatchStage, str]:
        """``stage`` with ``--collect-precision auto`` made concrete, so that the checkpoint
        records what ran: the precision ``unfinished`` (the checkpoint's unfinished stage that
        may be continued, or None) recorded, else lowp.choose_auto's.  A stage recorded
        before auto existed collected in float32: its settings say so from here on."""
        col, run = stage.collection, stage.run
        if unfinished is not None:
            unfinished["settings"].setdefault("precision", "fp32")
        if col.scoring.precision != lowp.AUTO:
            return stage, ""
        note = ""
        if unfinished is not None:
            precision = unfinished["settings"]["precision"]
        else:
            precision, why = lowp.choose_auto(
                model, run.engine, col.scoring.first_layer, run.device, col.workers
            )
            if (
                precision == "fp32" and not run.quiet
            ):  # (--quiet: the checkpoint's stage records it)
                note = f"collect precision fp32 (auto, not bf16: {why})"
        scoring = replace(col.scoring, precision=precision)
        return replace(stage, collection=replace(col, scoring=scoring)), note

    @staticmethod
    def settings(stage: BatchStage, mode) -> dict:
        """The stage's settings as its checkpoint keeps them: these always, and the options
        (learn.stage_settings' ``record`` fields) that are not at their defaults."""
        sch = stage.schedule
        base = {
            "num_episodes": sch.num_episodes,
            "oneply": stage.collection.oneply,
            "game_mode": mode.name,
            "lr": sch.lr,
            "end_lr": sch.end_lr,
            "warmup_cycles": sch.warmup_cycles,
            "episodes_per_round": sch.episodes_per_round,
            "optimizer": stage.optimisation.optimizer,
        }
        return {**base, **recorded(stage)}

    @staticmethod
    def round_episodes(stage: BatchStage) -> int:
        return stage.schedule.episodes_per_round

    @staticmethod
    def thread_work(stage: BatchStage, model) -> tuple[int, int | None]:
        """Self-play workers run beside this process unless one local worker plays here
        (without --overlap); both self-play and training score in batches."""
        col = stage.collection
        in_process = col.workers == 1 and stage.where.backend == "local" and not col.overlap
        return (0 if in_process else col.workers), sum(p.numel() for p in model.parameters())

    def state_dict(self) -> dict:
        # the minibatch order's generator too, so that a stage stopped and continued trains on the
        # same shuffles as one run through (the weights equal to the bit)
        rng: dict = {} if self.rng is None else {"minibatch_rng": self.rng.bit_generator.state}
        # --overlap: the next round is being collected with the weights before this round's
        # training; keep them, so that a continued stage collects it with them as well
        stale: dict = {} if self.pending is None else {OVERLAP_KEY: self.pending[2]}
        # --oneply-filter: the filter's optimizer and row generator, for the same reason
        filt: dict = (
            {} if self.filter_trainer is None else {FILTER_KEY: self.filter_trainer.state_dict()}
        )
        return {**self.trainer.state_dict(), **rng, **stale, **filt}

    def state_checks(self) -> tuple[dict, tuple]:
        """(a check of each part state_dict may hold, the parts it always holds): what
        resume_state checks before load_state_dict restores any of it."""
        filt = move_filter_of(self.model)
        checks: dict = {
            "optimizer": resume_state.choice_check((self.trainer.optimizer_name,)),
            "optimizer_state": resume_state.optimizer_state_check(self.trainer.optimizer),
            "minibatch_rng": resume_state.check_generator_state,
            OVERLAP_KEY: resume_state.parts_check(
                {
                    "model": resume_state.weights_check(self.model),
                    "filter": resume_state.optional(resume_state.weights_check(filt))
                    if filt is not None
                    else resume_state.nothing,
                }
            ),
        }
        if filt is not None:  # (a model without a filter has no filter trainer to continue)
            trial = filter_training.FilterTrainer(copy.deepcopy(filt), np.random.default_rng())
            checks[FILTER_KEY] = resume_state.parts_check(
                {
                    # (the filter's rate is fixed, never scheduled: a record of another is damage)
                    "optimizer_state": resume_state.optimizer_state_check(trial.opt, False),
                    "rng": resume_state.check_generator_state,
                }
            )
        return checks, ("optimizer", "optimizer_state")

    def load_state_dict(self, state: dict) -> None:
        """Take up ``state``, checked whole before this (state_checks, resume_state): the
        optimizer's moments now; the generator, the overlap weights and the filter's trainer
        when the stage starts with them."""
        self.trainer.load_state_dict(state)
        # an unfinished stage's checkpoint holds each of these (the minibatch order always; the
        # next round's weights with --overlap, as that round is always under way; the filter's
        # trainer with --oneply-filter).  Checkpoints written before they were kept have none:
        # such a stage still goes on (a new order, this model's weights, a new filter trainer),
        # but it is no longer the same run as one run through, and the user is told so.
        col = self.stage.collection
        missing = [
            key
            for key, kept in (
                ("minibatch_rng", True),
                (OVERLAP_KEY, col.overlap),
                (FILTER_KEY, bool(col.oneply_filter)),
            )
            if kept and key not in state
        ]
        if missing:
            print(
                f"warning: the trainer state has no {' or '.join(missing)} (written before "
                f"stages kept it): the continued stage goes on without, and will not be "
                f"bit-identical to one run through",
                file=sys.stderr,
                flush=True,
            )
        self.rng_state = state.get("minibatch_rng")
        self.stale = state.get(OVERLAP_KEY)
        self.filter_state = state.get(FILTER_KEY)
        self.continuing = True  # the checkpoint's unfinished stage goes on (its filter is current)

    def set_lr(self, lr: float) -> None:
        self.lr = lr
        self.trainer.set_lr(lr)

    def open(self, round_seed, seed_root: np.random.SeedSequence) -> None:
        col, engine = self.stage.collection, self.stage.run.engine
        self.round_seed = round_seed
        self.rng = np.random.default_rng(seed_root.spawn(1)[0])  # minibatch order
        if self.rng_state is not None:
            self.rng.bit_generator.state = self.rng_state
        setup = SelfPlaySetup(
            mode=self.mode, collection=col, acting=self.stage.acting, engine=engine
        )  # the stage's settings whole
        self.collector = Collector(setup, where=self.stage.where, separate=col.overlap)
        if col.oneply_filter:
            self._open_filter(seed_root.spawn(1)[0])
        if col.scoring.precision != "fp32":
            print(lowp.describe(col.scoring.precision), file=sys.stderr, flush=True)

    def segment_info(self) -> dict:
        """What the checkpoint records of this start of the stage besides commit and CPU: the
        kernel that scores self-play's candidates (bf16 runs on AMX or in C by the CPU)."""
        p = self.stage.collection.scoring.precision
        return {"collect_kernel": "torch-fp32" if p == "fp32" else lowp.resolve(p)}

    def _open_filter(self, seed: np.random.SeedSequence) -> None:
        """--oneply-filter: the filter's trainer.  A new stage first warms the filter up
        (filter_training.py): a fresh one if the model has none, else the one it has, which
        may be stale (stages without the flag leave it as it was); a continued stage's
        filter was trained up to its last round and goes on from there."""
        col, engine = self.stage.collection, self.stage.run.engine
        warm_seed, rng_seed = seed.spawn(2)
        filt = move_filter_of(self.model)
        fresh = filt is None
        if filt is None:
            filt = new_filter(self.model)
            set_move_filter(self.model, filt)
        trainer = filter_training.FilterTrainer(filt, np.random.default_rng(rng_seed), engine)
        self.filter_trainer = trainer
        if self.continuing and not fresh and self.filter_state is not None:
            trainer.load_state_dict(self.filter_state)
        if fresh or not self.continuing:
            zero_ply = replace(
                col,
                oneply=False,
                oneply_filter=0,
                filter_exact_races=False,
                scoring=replace(col.scoring, precision="fp32"),
            )
            setup = SelfPlaySetup(
                mode=self.mode,
                collection=zero_ply,
                acting=Acting(),
                engine=engine,
                record_filter=True,
            )  # 0-ply, greedy, fp32
            warm = Collector(setup, where=self.stage.where)
            try:
                note = filter_training.warm_up(
                    self.model, warm, col.filter_warmup, warm_seed, trainer, fresh
                )
            finally:
                warm.close()
            print(note, file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.collector is not None:
            self.collector.close()
            self.collector = None

    def _size(self, done: int) -> int:
        return min(self.stage.schedule.episodes_per_round, self.stage.schedule.num_episodes - done)

    def collect(self, k: int, n: int, done: int) -> Samples:
        """Round k's ``n`` episodes, collected (with --overlap: those collected while the last
        round trained, and round k+1's collection started)."""
        stage = self.stage
        assert self.collector is not None, "collect comes after open"
        self.round_started = time.time()
        if stage.collection.overlap and self.pending is None:
            self.pending = self._submit(self._stale_model(), n, k)
        if self.pending is not None:
            tasks, t_submitted, _ = self.pending
            data = self.collector.result(tasks)
            self.collect_seconds = (
                time.time() - t_submitted
            )  # it ran beside the last round's training
            self.pending = None
            if done + n < stage.schedule.num_episodes:
                self.pending = self._submit(self.model, self._size(done + n), k + 1)
        else:
            data = self.collector.collect(self.model, n, self.round_seed(k))
            self.collect_seconds = time.time() - self.round_started
        return data

    def train(self, k: int, samples: Samples | None, first: int, n: int) -> float:
        """``--epochs`` passes over the round's samples (stopped at a loss that is not finite,
        which the runner reports), then the move filter's share; the workers' CPU seconds."""
        if samples is None:
            raise ValueError("the batch learner trains on the samples its collect returned")
        assert self.rng is not None, "train comes after open"
        for _ in range(self.stage.optimisation.epochs):
            self.last_loss = self.trainer.train_epoch(
                samples["features"], samples["targets"], self.rng
            )
            if not math.isfinite(self.last_loss):
                break
        if (
            self.filter_trainer is not None
        ):  # the move filter: one pass over a share of the round's rows
            self.filter_trainer.fit(samples.get("filter"), share=filter_training.ROUND_SHARE)
        secs = time.time() - self.round_started
        st = samples["stats"]
        self._row = {
            "samples": len(samples["targets"]),
            "loss": self.last_loss,
            "lr": self.lr,
            "episodes_per_s": n / secs,
            "evals_per_s": st["evaluations"] / max(self.collect_seconds, 1e-9),
            "round_seconds": secs,
            "gammon_rate": (st["gammons"] + st["backgammons"]) / max(st["episodes"], 1),
            "doubles": st["doubles"],
            "takes": st["takes"],
            "drops": st["drops"],
        }
        return st.get("cpu_seconds", 0.0)

    def _submit(self, model, n: int, k: int) -> tuple:
        """--overlap: round k's collection started with ``model``'s weights (tasks, start time,
        those weights and the move filter's, as the checkpoint keeps them)."""
        filt = move_filter_of(model)
        weights = {
            "model": {key: v.detach().clone() for key, v in model.state_dict().items()},
            "filter": None
            if filt is None
            else {key: v.detach().clone() for key, v in filt.state_dict().items()},
        }
        assert self.collector is not None, "collection starts after open"
        return self.collector.submit(model, n, self.round_seed(k)), time.time(), weights

    def _stale_model(self):
        """The model the first round of an --overlap run collects with: this one, or in a
        continued stage the weights the stopped run had sent out for that round."""
        if self.stale is None:
            return self.model
        stale = self._stale_from(self.stale)
        self.stale = None
        return stale

    def _stale_from(self, weights: dict):
        """A copy of the model holding ``weights`` (the checkpoint's overlap weights); a
        RuntimeError where they do not fit it, a ValueError where they are not finite (a
        round collected with them would fail, or train on NaN targets)."""
        stale = copy.deepcopy(self.model)
        stale.load_state_dict(weights["model"])
        filt = move_filter_of(stale)
        if filt is not None and weights["filter"] is not None:
            filt.load_state_dict(weights["filter"])
        if not weights_finite(stale) or (filt is not None and not weights_finite(filt)):
            raise ValueError("the weights of the round being collected are not finite")
        return stale

    def row(self, n: int) -> dict:
        return self._row

    @staticmethod
    def eval_due(stage: BatchStage, round_index: int, done: int, n: int) -> bool:
        return round_index % stage.evaluation.eval_every == 0

    @staticmethod
    def eval_seed(stage: BatchStage, round_index: int, done: int) -> int:
        return stage.run.seed + round_index

    @staticmethod
    def where(round_index: int, done: int) -> str:
        return f"round {round_index}"

    def postfix(self) -> dict:
        # (the games per second are the bar's own rate: training_loop's unit)
        return {"loss": f"{self.last_loss:.5f}", "lr": f"{self.lr:.2g}"}
