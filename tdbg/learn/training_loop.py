"""One training stage, for every trainer: build or load the model, then rounds of a
learner's work, with logging, periodic evaluation, atomic saves, signals and resume.

A *stage* is one command (e.g. the DMP leg, or a --oneply refinement).  Its
progress and its settings are stored in the checkpoint, so ``--resume`` of an unfinished
stage continues its episode count, LR schedule and optimizer state with the settings
it recorded (tdbg.app.stage_flags fills in those not given); other settings, growth
of its network included, need ``--new-stage``; ``--resume`` of a finished one starts
a new stage on its weights.  Either way one line says which.

This module drives every round and the learner answers (its protocol is written once, in
code: ``learner.Learner``): the learner collects the round's episodes, then trains on them
a step at a time inside ``signals.guard()``; ``StageProgress`` counts each step in the same
guard and ends the round there (log, evaluation when due, save).  A signal (SIGTERM,
Ctrl-C) stops the run between training steps, never inside one, so the saved weights and
episode counts always agree; a loss that is not finite stops the run and leaves the last
good checkpoint as it was.

The stage's settings are a dataclass of learn.stage_settings (``BatchStage``, ``OnlineStage``):
this module reads its ``model`` (settings.ModelSpec), ``schedule``, ``run`` and
``evaluation``, the learner the rest.
"""

from __future__ import annotations

import math
import os
import sys
import time
from contextlib import ExitStack

import numpy as np
import torch
from tqdm import tqdm

from tdbg.game.encoding import NUM_BOARD_FEATURES, reads_board_features
from tdbg.game.modes import game_mode
from tdbg.infra.errors import InputError, RunError
from tdbg.infra.provenance import cpu_name, provenance
from tdbg.infra.runlog import CsvLog
from tdbg.infra import profiling, threads
from tdbg.infra.stats import ci_text
from tdbg.infra.workers import WorkerError
from tdbg.learn import resume_state
from tdbg.learn.learner import Learner, StageT
from tdbg.learn.run_control import (
    Interrupted,
    StopSignals,
    appends_log,
    check_run_outputs,
    check_snapshots,
    log_path,
    new_stage_id,
    plan_stage,
    resumes_itself,
    snapshot_path,
    stage_identity,
)
from tdbg.learn.stage_settings import (
    RECORDED_SOURCES,
    WARM_START_MODES,
    check_started,
    STAGE_START,
    Evaluation,
    ModelSpec,
    is_path_text,
    stage_config,
)
from tdbg.learn.trainer import scheduled_lr
from tdbg.net import net_growth
from tdbg.net.health import HEALTH_LOG_FIELDS, measure_health
from tdbg.net.model import (
    CheckpointError,
    input_layout,
    TDNetwork,
    lineage_entry,
    load_checkpoint,
    move_filter_of,
    new_metadata,
    save_checkpoint,
    weights_finite,
)
from tdbg.play.evaluation import quick_eval, quick_eval_game
from tdbg.play.model_fit import check_model
from tdbg.play.players import checkpoint_mode_name

WARM_STARTS = WARM_START_MODES  # ModelSpec field -> mode it trains
EVAL_FIELDS = ["eval_opponent", "eval_games", "eval_result", "eval_ci_low", "eval_ci_high"]


def _mode_named(spec: ModelSpec, name: str):
    """The game mode called ``name`` with the rules and match length ``spec`` sets; an
    InputError where the match length does not fit the mode."""
    mode = game_mode(name, spec.jacoby, spec.match_length or 0, spec.met)
    if spec.match_length is not None or spec.met:
        try:
            mode.require("--match-length and --met apply to --game-mode match only", match=True)
        except ValueError as exc:
            raise InputError(str(exc)) from None
    return mode


def _new_model(spec: ModelSpec, output_mode: str | None):
    """(model, meta, mode) of a network made afresh, for the game mode ``spec`` names (DMP
    when it names none)."""
    mode = _mode_named(spec, spec.game_mode or "dmp")
    n_inputs = mode.n_inputs + (NUM_BOARD_FEATURES if spec.board_features else 0)
    model = TDNetwork(
        n_inputs, spec.hidden, output_mode or mode.outputs[0], spec.activation or "relu"
    )
    return model, new_metadata(model, mode.name), mode


def _warm_started(spec: ModelSpec, source: str, model, path: str, seed: int):
    """(model, mode): the checkpoint's ``model`` turned into a network of the game mode the
    warm start ``source`` trains (a ModelSpec field, e.g. "warm_start_equity")."""
    flag = "--" + source.replace("_", "-")
    target = WARM_STARTS[source]
    mode = _mode_named(spec, spec.game_mode) if spec.game_mode else _mode_named(spec, target.name)
    if type(mode) is not target:
        raise InputError(f"{flag} trains {target.name}; drop --game-mode or set it so")
    keep = spec.keep_output_layer
    if keep and source != "warm_start_equity":
        raise InputError(
            f"--keep-output-layer is for --warm-start-equity ({flag} keeps the output layer anyway)"
        )
    options: dict[str, object] = {"keep_output_layer": True} if keep else {}
    if source == "warm_start_match" and spec.match_head:
        options["head"] = spec.match_head
    try:
        return net_growth.WARM_STARTS[source](model, seed=seed, **options), mode
    except ValueError as exc:
        raise InputError(f"{path}: {exc}") from None


def _loaded_model(spec: ModelSpec, source: str, seed: int):
    """(model, meta, trainer_state or None, mode) of the checkpoint ``source`` names: resumed
    as it is, or warm-started (its optimizer state dropped); an InputError where --hidden or
    --activation asks for another network than the checkpoint's."""
    path = spec.sources()[source]
    model, meta, trainer_state = load_checkpoint(path)
    if source == "resume":
        mode = _mode_named(spec, spec.game_mode or checkpoint_mode_name(model, meta))
    else:  # a warm start makes a model for its own game mode
        model, mode = _warm_started(spec, source, model, path, seed)
        trainer_state = None
    if spec.hidden_given and list(spec.hidden) != list(model.hidden):
        raise InputError(
            f"--hidden {','.join(map(str, spec.hidden))} differs from the checkpoint's "
            f"{','.join(map(str, model.hidden))}; use --expand to grow it"
        )
    if spec.activation not in (None, model.activation):
        raise InputError(
            f"--activation {spec.activation} differs from the checkpoint's {model.activation} "
            f"(the activation is chosen when a network is made)"
        )
    meta = {
        **meta,
        "n_inputs": model.n_inputs,
        "hidden": list(model.hidden),
        "output_mode": model.output_mode,
        "activation": model.activation,
        "game_mode": mode.name,
        "encoder": None,
    }  # the mode's input layout, once the model is checked against it
    return model, meta, trainer_state, mode


def _grown(spec: ModelSpec, model, meta: dict, trainer_state, seed: int):
    """(model, meta, trainer_state) with the board features and the hidden units ``spec``
    adds; the optimizer state is dropped where the shapes change (its moments no longer fit)."""
    if spec.growth != net_growth.GROWTHS[0] and not spec.expand:  # else ignored without a word
        raise InputError(f"--growth {spec.growth} says how --expand makes new units; give --expand")
    if spec.board_features and not reads_board_features(model.n_inputs):
        model = net_growth.add_board_features(model)
        trainer_state = None  # optimizer moments no longer fit the first layer
        meta = {**meta, "n_inputs": model.n_inputs}
    grown = grown_hidden(spec, model, trainer_state)
    if grown != list(model.hidden):  # already that size: a resumed stage
        model = net_growth.expand(model, grown, seed=seed, growth=spec.growth)
        meta["hidden"] = list(model.hidden)
        trainer_state = None  # optimizer moments no longer fit the shapes
    return model, meta, trainer_state


def build_model(spec: ModelSpec, seed: int, output_mode: str | None = None):
    """(model, meta, trainer_state or None, mode) as ``spec`` says (``seed``: of new and
    grown weights); InputError on bad input."""
    sources = list(spec.sources())
    if len(sources) > 1:
        raise InputError(
            "use only one of --resume, --warm-start-equity, --warm-start-cubeful, --warm-start-match"
        )
    trainer_state = None
    try:
        if not sources:
            model, meta, mode = _new_model(spec, output_mode)
        else:
            model, meta, trainer_state, mode = _loaded_model(spec, sources[0], seed)
        if spec.keep_output_layer and not spec.warm_start_equity:
            raise InputError("--keep-output-layer goes with --warm-start-equity")
        if spec.match_head and not spec.warm_start_match:
            raise InputError(
                "--match-head goes with --warm-start-match (a checkpoint keeps its head)"
            )
        if sources == ["resume"]:
            refuse_growth_of_unfinished(spec, model, trainer_state)
        model, meta, trainer_state = _grown(spec, model, meta, trainer_state, seed)
        check_model(mode, model.output_mode, model.n_inputs)
        meta["encoder"] = input_layout(mode, model.n_inputs)
    except (CheckpointError, ValueError) as exc:
        raise InputError(str(exc)) from None
    return model, meta, trainer_state, mode


def unfinished_stage_of(trainer_state) -> dict | None:
    """The checkpoint's stage when it is unfinished (fewer episodes done than it planned), else None."""
    stage = (trainer_state or {}).get("stage")
    if isinstance(stage, dict) and stage.get("episodes_done", 0) < stage.get("settings", {}).get(
        "num_episodes", 0
    ):
        return stage
    return None


def refuse_growth_of_unfinished(spec: ModelSpec, model, trainer_state) -> None:
    """InputError when a growth flag would change the network of the unfinished stage that
    --resume continues (growing it starts a new stage, which needs --new-stage, as any
    other change of settings does); a flag the network already satisfies (the same
    command run again) changes nothing and is let through."""
    stage = unfinished_stage_of(trainer_state)
    if stage is None or spec.new_stage:
        return
    grows = []
    if spec.board_features and not reads_board_features(model.n_inputs):
        grows.append("--board-features")
    if spec.expand and list(spec.expand) != list(model.hidden):
        grows.append("--expand " + ",".join(map(str, spec.expand)))
    if (
        spec.expand_depth_size
        and stage["settings"].get("expand_depth_size") != spec.expand_depth_size
    ):
        grows.append(f"--expand-depth-size {spec.expand_depth_size}")
    if grows:
        raise InputError(
            f"{spec.resume}: {' and '.join(grows)} would grow the network of its unfinished stage "
            f"({stage['episodes_done']:,} of {stage['settings']['num_episodes']:,} episodes); add "
            f"--new-stage to start a new stage on its grown weights, or drop the flag to continue it"
        )


def grown_hidden(spec: ModelSpec, model, trainer_state) -> list[int]:
    """The hidden sizes --expand and --expand-depth-size ask for.  A new layer is not added
    again when --resume continues the unfinished stage that added it."""
    target = list(spec.expand or model.hidden)
    depth = spec.expand_depth_size
    if depth:
        stage = (trainer_state or {}).get("stage") or {}
        unfinished = stage.get("episodes_done", 0) < stage.get("settings", {}).get(
            "num_episodes", 0
        )
        if (
            spec.resume
            and unfinished
            and not spec.new_stage
            and stage["settings"].get("expand_depth_size") == depth
        ):
            return list(model.hidden)  # this stage added the layer already
        target.append(depth)
    return target


def check_finite(model, loss: float, where: str, lr: float, save: str, done: int) -> None:
    """RunError (the checkpoint ``save`` on disk is left as it was) when training diverged
    (the model's weights, or its move filter's, not finite)."""
    filt = move_filter_of(model)
    if math.isfinite(loss) and weights_finite(model) and (filt is None or weights_finite(filt)):
        return
    kept = (
        f"{save} keeps the last good weights"
        if os.path.exists(save)
        else "no checkpoint was written"
    )
    raise RunError(
        f"the loss became {loss} in {where} (lr {lr:g}): training stopped; {kept} "
        f"({done:,} episodes of this stage); try a smaller --lr"
    )


def default_evaluate(evaluation: Evaluation, mode):
    """The quick evaluation against --eval-opponent (evaluation.quick_eval); an opponent that
    cannot play the mode's game fails now, not at the first evaluation."""
    if evaluation.eval_every:
        try:
            quick_eval_game(mode, evaluation.eval_opponent)
        except ValueError as exc:
            raise InputError(f"--eval-opponent {evaluation.eval_opponent}: {exc}") from None

    def evaluate(model, mode, games, seed):
        return quick_eval(model, mode, games, seed, evaluation.eval_opponent)

    return evaluate


def run_stage(
    stage_settings: StageT,
    learner_class: type[Learner[StageT]],
    output_mode: str | None = None,
    evaluate=None,
) -> dict:
    """Run one stage as ``stage_settings`` (learn.stage_settings: BatchStage, OnlineStage...) say;
    returns a summary dict.  ``evaluate(model, mode, games, seed)`` -> (opponent, result,
    low, high) runs the periodic quick evaluation (default: against --eval-opponent)."""
    spec, run = stage_settings.model, stage_settings.run
    check_run_outputs(run, spec)
    torch.manual_seed(
        run.weights_seed()
    )  # before any network is built: fresh weights follow the seed
    if run.device == "cuda" and not torch.cuda.is_available():
        raise InputError("--device cuda asked for, but no CUDA device is available")
    model, meta, trainer_state, mode = build_model(spec, run.weights_seed(), output_mode)
    evaluate = evaluate or default_evaluate(stage_settings.evaluation, mode)
    model.to(run.device)
    stage = (trainer_state or {}).get("stage")  # (its record checked where it was loaded)
    unfinished = (
        stage
        if stage
        and not spec.new_stage
        and stage["episodes_done"] < stage["settings"].get("num_episodes", 0)
        else None
    )
    # settings that depend on the model or the stage it continues
    stage_settings, chosen_note = learner_class.prepare(stage_settings, model, unfinished)
    chosen = threads.use(run.threads, *learner_class.thread_work(stage_settings, model))
    try:
        learner = learner_class(stage_settings, model, mode)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    progress = StageProgress(stage_settings, learner, model, meta, mode)
    progress.plan(learner_class, stage, trainer_state)
    if chosen_note:  # (after every check: a refused run prints its error line alone)
        print(chosen_note, file=sys.stderr, flush=True)
    return {**progress.run(evaluate), **chosen}


def check_stop_at(stop_at: int, size: int, done: int, total: int) -> None:
    """InputError unless --stop-at (0: none) ends this run where one run through would end a
    round (a multiple of the round's ``size`` episodes, or the stage's ``total``), after the
    ``done`` episodes the stage has: off a boundary it split a round, and the weights differed
    from a run through; at or below ``done`` the run trained nothing and rewrote the checkpoint."""
    if not stop_at:
        return
    if stop_at > total:
        raise InputError(
            f"--stop-at {stop_at:,} is beyond the stage's {total:,} episodes (--num-episodes)"
        )
    if stop_at <= done:
        raise InputError(
            f"--stop-at {stop_at:,}: the stage already has {done:,} episodes; give a later point"
        )
    if stop_at % size and stop_at != total:
        below = stop_at - stop_at % size
        above = min(below + size, total)  # the stage's last round may be short: its end is one
        raise InputError(
            f"--stop-at {stop_at:,} is inside a round (rounds of {size:,} episodes): give a round's "
            f"end, such as {above:,}" + (f" or {below:,}" if below > done else "")
        )


class StageProgress:
    """A running stage's state (episodes and rounds done, CPU time, what is logged), and the
    rounds it drives: the learner collects and trains when asked (run_round), and this
    counts, logs, evaluates and saves."""

    def __init__(self, stage_settings, learner: Learner, model, meta: dict, mode):
        self.settings, self.learner, self.model, self.meta, self.mode = (
            stage_settings,
            learner,
            model,
            meta,
            mode,
        )
        self.stage: dict = {}
        self.done = self.round_index = self.logged = 0
        self.size = 1
        self.cpu_seconds = 0.0
        self.saved_at: str | None = (
            None  # where the last checkpoint this run saved stands ("round 3"), None before one
        )

    def plan(
        self, learner_class: type[Learner], stage: dict | None, trainer_state: dict | None
    ) -> None:
        """Continue the checkpoint's unfinished ``stage`` or start a new one (run_control.plan_stage)."""
        spec, schedule = self.settings.model, self.settings.schedule
        settings = learner_class.settings(self.settings, self.mode)
        continuing, note = plan_stage(
            spec.resume,
            spec.new_stage,
            schedule.num_episodes,
            stage,
            settings,
            stage_config(self.settings),
        )
        self.size = learner_class.round_episodes(self.settings)
        # where the checkpoint stands, which the last row of the log this run appends to must agree with
        self.resumed_at = {
            "total_episodes": int(self.meta.get("episodes", 0)),
            **({"round": stage["rounds_done"]} if stage and "rounds_done" in stage else {}),
        }
        if continuing:
            assert stage is not None  # plan_stage continues only a stage the checkpoint holds
            self._continue_stage(stage, settings, trainer_state)
        else:
            stage = self._new_stage(settings)
        self.stage = stage
        run = self.settings.run
        check_stop_at(run.stop_at, self.size, self.done, schedule.num_episodes)
        check_snapshots(run, stage["id"], self.round_index, -(-schedule.num_episodes // self.size))
        self._open_log(note, continuing)

    def _continue_stage(self, stage: dict, settings: dict, trainer_state: dict | None) -> None:
        """Take up the checkpoint's unfinished ``stage`` where it stopped: its episodes, rounds,
        CPU time and the learner's state; a stage that ended early now reads as finished."""
        self.done = stage["episodes_done"]
        for key in getattr(self.learner, "recorded_always", ()):
            if key not in stage["settings"]:
                raise InputError(
                    f"{self.settings.model.resume}: trainer_state.stage.settings.{key}: is "
                    f"missing (every stage of this kind records it)"
                )
        planned, rounds = stage["settings"]["num_episodes"], stage.get("rounds_done")
        if rounds is not None and not (
            min(rounds * self.size, planned)
            <= self.done
            < min((rounds + 1) * self.size, planned + 1)
        ):  # its last round may have been cut short by a signal (an online stage's can)
            # (load_checkpoint checks it where the stage records its round; a stage of rounds
            # of --log-every games records none, and a round count of 2**70 went on)
            raise InputError(
                f"{self.settings.model.resume}: trainer_state.stage.rounds_done: {rounds:,} "
                f"rounds of {self.size:,} episodes are not its {self.done:,} episodes done"
            )
        if self.settings.schedule.num_episodes <= self.done:
            # ended early (plan_stage): it now reads as finished; its LR schedule ran towards
            # the planned count, kept beside the new one
            planned = stage["settings"]["num_episodes"]
            stage["settings"] = self.meta["lineage"][-1]["stage"] = {
                **settings,
                "planned_episodes": planned,
            }
        self.round_index = stage.get("rounds_done", self.done // self.size)
        if trainer_state:
            self._restore_learner(trainer_state)
        # CPU time of this stage: this process plus the workers' collection time; carried over on resume
        self.cpu_seconds = float(stage.get("cpu_seconds", 0.0))
        stage["id"] = stage_identity(self.meta, stage)  # its snapshots so far are this run's own
        # what started the stage stays as recorded (this run continues it from its own checkpoint)
        started = {k: v for k, v in stage.get("config", {}).items() if k in STAGE_START}
        for name in RECORDED_SOURCES:  # carried on as they are: refused where they are no path
            if not is_path_text(started.get(name)):
                raise InputError(
                    f"{self.settings.model.resume}: its unfinished stage records "
                    f"--{name.replace('_', '-')} {started[name]!r:.40}, which is no path "
                    f"(text without a NUL)"
                )
        check_started(
            stage.get("config", {}),
            self.model,
            self.mode,
            self.settings.model.resume,
            type(self.settings)().model.hidden,
        )
        stage["config"] = {**stage_config(self.settings), **started}

    def _restore_learner(self, trainer_state: dict) -> None:
        """Check every part of the learner's state in the checkpoint (resume_state, the
        learner's state_checks: optimizer moments, generators, overlap weights, the filter's
        trainer), then load it; an InputError naming the checkpoint and the field where a
        part does not fit, before anything is restored or any work starts."""
        resume = self.settings.model.resume
        checks, required = self.learner.state_checks()
        try:
            resume_state.check_trainer_state(trainer_state, checks, required)
        except resume_state.StateError as exc:
            raise InputError(f"{resume}: {exc}") from None
        try:
            self.learner.load_state_dict(trainer_state)
        except Exception as exc:  # noqa: BLE001 - whatever the checks above missed: one line
            raise InputError(
                f"{self.settings.model.resume}: its trainer state cannot be restored "
                f"({type(exc).__name__}: "
                f"{str(exc).splitlines()[0] if str(exc) else 'malformed'})"
            ) from None

    def _new_stage(self, settings: dict) -> dict:
        """A new stage with ``settings``, its lineage entry appended to the checkpoint's."""
        self.meta["lineage"] = list(self.meta.get("lineage", [])) + [
            lineage_entry(0, {"stage": settings})
        ]
        return {
            "settings": settings,
            "config": stage_config(self.settings),
            "episodes_done": 0,
            "rounds_done": 0,
            "id": new_stage_id(),
        }

    def _open_log(self, note: str | None, continuing: bool) -> None:
        """Open the CSV log (appended to where the stage goes on), checked against where the
        checkpoint stands (``continuing``: an unfinished stage, whose log must be there),
        then say what this run does, once every check has passed."""
        run, spec = self.settings.run, self.settings.model
        self.log = CsvLog(
            log_path(run),
            self.learner.log_fields + EVAL_FIELDS + HEALTH_LOG_FIELDS,
            append=appends_log(run, spec),
        )
        repaired = self.log.check_continues(self.resumed_at, continuing)
        for line in (note, repaired):  # once every check passed: what this run does
            if line:
                print(line, file=sys.stderr)
        self.log.open_tensorboard(run.tensorboard)
        self.logged = self.done  # episodes already in the log

    def run(self, evaluate) -> dict:
        """The rounds, between the learner's open and close, under the stop signals."""
        run, learner = self.settings.run, self.learner
        self.evaluate = evaluate
        self.started, self.cpu_mark = time.time(), time.process_time()
        interrupted = None
        with ExitStack() as stack:  # left in this order: signals, bar, learner, log
            stack.callback(self.log.close)
            stack.callback(learner.close)
            self.bar = self._progress_bar()
            stack.callback(self.bar.close)
            signals = stack.enter_context(StopSignals())
            try:
                self._train(signals)
            except (KeyboardInterrupt, Interrupted) as exc:
                interrupted = str(exc) or "SIGINT"
                # the workers' games of the cut round are not kept: killed now, not waited for
                # (a stopped or slow worker held the run's end; the pool, closed here while the
                # signal is being handled, abandons its jobs)
                learner.close()
                self._save_interrupted(interrupted, signals)
            except WorkerError as exc:
                raise RunError(f"{exc}; {self.kept()}") from None
            except OSError as exc:  # a checkpoint, snapshot or log row not written (a full disk)
                if exc.filename is None:
                    raise
                raise RunError(
                    f"{exc.filename}: {exc.strerror}; training stopped; {self.kept()}"
                ) from None
        if not interrupted:
            # a signal during the last save waits for it
            with StopSignals() as signals, signals.hold():
                self.save()
            interrupted = signals.deferred
        return {
            "save": run.save,
            "log": self.log.path,
            "episodes": self.done,
            "total_episodes": self.meta["episodes"],
            # None: no round ran
            "loss": learner.last_loss if math.isfinite(learner.last_loss) else None,
            "seconds": time.time() - self.started,
            "interrupted": interrupted,
        }

    def _progress_bar(self) -> tqdm:
        """The stage's bar: "40/100 [00:10<00:20, 4.00 games/s, loss=0.01234, lr=0.001]", its
        games (episodes) from where the stage stands."""
        run = self.settings.run
        return tqdm(
            total=self.settings.schedule.num_episodes,
            initial=self.done,
            unit=" games",
            desc=os.path.basename(run.save),
            dynamic_ncols=True,
            disable=run.quiet,
        )

    def _train(self, signals: StopSignals) -> None:
        """Open the learner, record this start of the stage, and play the rounds to the
        stage's end (or --stop-at), each at its scheduled learning rate."""
        run, schedule, learner, meta = (
            self.settings.run,
            self.settings.schedule,
            self.learner,
            self.meta,
        )
        total_rounds = -(-schedule.num_episodes // self.size)
        learner.open(
            lambda k: np.random.SeedSequence([run.seed, len(meta["lineage"]), k]),
            np.random.SeedSequence([run.weights_seed(), len(meta["lineage"])]),
        )
        # each start or restart of the stage: its lineage entry names only the first, and a stage
        # continued elsewhere (another commit, CPU or collection kernel) runs otherwise unrecorded
        meta["lineage"][-1].setdefault("segments", []).append(
            {"from_episode": self.done, **provenance(), "cpu": cpu_name(), **learner.segment_info()}
        )
        end = min(schedule.num_episodes, run.stop_at or schedule.num_episodes)  # --stop-at
        while self.done < end:
            # to the next round boundary, so a run resumed mid-round keeps the same rounds
            n = min(self.size - self.done % self.size, end - self.done)
            lr = scheduled_lr(
                self.round_index, total_rounds, schedule.lr, schedule.end_lr, schedule.warmup_cycles
            )
            learner.set_lr(lr)
            self.run_round(n, lr, signals)

    def _save_interrupted(self, interrupted: str, signals: StopSignals) -> None:
        """Save where an interrupted run stands, a round cut short logged with its episodes so
        far; a second Ctrl-C waits for the save.  A stage with no episode trained yet is not
        saved: its checkpoint would hold an optimizer without moments, which no continue
        takes, and the same command starts the stage again."""
        if self.done == 0:
            self.bar.write(
                f"interrupted ({interrupted}) before the stage's first round was trained: "
                f"nothing saved",
                file=sys.stderr,
            )
            return
        self.bar.write(  # on stderr, with the bar: stdout keeps only the run's JSON summary
            f"interrupted ({interrupted}): saving {self.settings.run.save} at {self.done} episodes",
            file=sys.stderr,
        )
        with signals.hold():
            if self.done > self.logged:  # a round cut short: its episodes so far
                self.log_row(self.done - self.logged, False, then=self.save)
            else:
                self.save()

    def save(self, path: str | None = None) -> None:
        """Save the checkpoint (--save), or a snapshot at ``path``."""
        self.stage.update(
            episodes_done=self.done, rounds_done=self.round_index, cpu_seconds=self.cpu_seconds
        )
        self.meta["lineage"][-1]["episodes"] = self.done
        save_checkpoint(
            path or self.settings.run.save,
            self.model,
            self.meta,
            {**self.learner.state_dict(), "stage": self.stage},
        )
        if path is None:
            self.saved_at = self.learner.where(self.round_index, self.done)

    def kept(self) -> str:
        """What a run stopped by a failure leaves of this stage: the checkpoint of the last
        round saved, and the log ending at that round (log_row keeps the two together)."""
        run = self.settings.run
        if self.saved_at:
            return (
                f"{run.save} keeps the last checkpoint ({self.saved_at} of this stage) and {self.log.path} "
                f"ends at the same point"
            )
        if resumes_itself(self.settings.model.resume, run.save):
            return f"{run.save} keeps the last checkpoint, the one this run started from"
        return "no checkpoint was written"

    def run_round(self, n: int, lr: float, signals: StopSignals) -> None:
        """The next round's ``n`` episodes: the learner collects them (a signal may stop that:
        nothing is trained yet), then trains on them a step at a time, each step counted
        inside the same guard; the last step's guard also checks that training stayed
        finite, logs, evaluates when due and saves (``finish``), so a signal waits until the
        round is trained, counted and saved."""
        learner, k, start = self.learner, self.round_index, self.done
        samples = learner.collect(k, n, start)
        step = 1 if learner.learns_while_playing else n
        for first in range(start, start + n, step):
            with signals.guard():
                self.count(step, learner.train(k, samples, first, step))
                if first + step == start + n:
                    check_finite(
                        self.model,
                        learner.last_loss,
                        learner.where(k + 1, start + n),
                        lr,
                        self.settings.run.save,
                        start,
                    )
                    self.finish(n)

    def count(self, n: int, worker_cpu_seconds: float = 0.0) -> None:
        """``n`` more episodes trained (inside the guard: weights and count agree)."""
        now = time.process_time()
        self.cpu_seconds += now - self.cpu_mark + worker_cpu_seconds
        self.cpu_mark = now
        self.done += n
        self.meta["episodes"] = int(self.meta.get("episodes", 0)) + n
        self.bar.update(n)

    def log_row(self, n: int, with_eval: bool, then=None, with_health: bool = False) -> None:
        """Log ``n`` more episodes, then ``then()`` (the save); a save that fails (a full disk)
        takes its row back, and a row that cannot be written (the log's disk full) is never
        saved: the checkpoint and the log always end at the same round."""
        done, ev = self.done, self.settings.evaluation
        row = {
            **self.learner.row(n),
            "stage_episodes": done,
            "episodes": done,
            "total_episodes": self.meta["episodes"],
            "round": self.round_index,
            "elapsed_seconds": time.time() - self.started,
            "cpu_hours": self.cpu_seconds / 3600,
        }
        if with_eval:
            opp, res, lo, hi = self.evaluate(
                self.model,
                self.mode,
                ev.eval_games,
                self.learner.eval_seed(self.settings, self.round_index, done),
            )
            row.update(
                eval_opponent=opp,
                eval_games=ev.eval_games,
                eval_result=res,
                eval_ci_low=lo,
                eval_ci_high=hi,
            )
            ci = ci_text(
                {
                    "ci_low": lo,
                    "ci_high": hi,
                    "ci_reason": "no interval: fewer than 2 duplicate pairs",
                },
                "{:.4f}",
                template="[{low}, {high}]",
            )
            self.bar.write(f"{self.learner.where(self.round_index, done)}: vs {opp} {res:.4f} {ci}")
        if with_eval or with_health:  # a stage that kills units shows it in its log
            with profiling.paused():  # not self-play: a profiled run's shares leave it out
                row.update(measure_health(self.model, self.mode).log_fields())
        self.log.write(row)
        if then is not None:
            try:
                then()
            except BaseException:
                self.log.withdraw()
                raise
        self.logged = done

    def finish(self, n: int) -> None:
        """End of a round (inside the guard of its last step): log, evaluate, save."""
        ev, run = self.settings.evaluation, self.settings.run
        self.round_index += 1
        last = self.done >= self.settings.schedule.num_episodes
        due = bool(ev.eval_every) and (
            self.learner.eval_due(self.settings, self.round_index, self.done, n) or last
        )
        snapshot = bool(run.save_every) and self.round_index % run.save_every == 0
        health = (
            last or snapshot or bool(ev.health_every) and self.round_index % ev.health_every == 0
        )
        self.log_row(n, due, then=self.save, with_health=health)
        if snapshot:
            self.save(snapshot_path(run.save, self.round_index))
        self.bar.set_postfix(self.learner.postfix())
