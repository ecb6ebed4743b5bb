"""One training stage, for every trainer: build or load the model, then rounds of a
learner's work, with logging, periodic evaluation, atomic saves, signals and resume.

A *stage* is one command (e.g. the DMP leg, or a --oneply refinement).  Its
progress is stored in the checkpoint, so ``--resume`` of an unfinished stage with
the same settings continues its episode count, LR schedule and optimizer state;
with other settings it needs ``--new-stage``; ``--resume`` of a finished one starts
a new stage on its weights.  Either way one line says which.

The learner does the work of a round (batch_td.BatchLearner: collect episodes, then
train on them; online_td.OnlineLearner: games with an update after every move) and
says which of it a signal must not cut (``signals.guard()``); this module does
everything around it.  A signal (SIGTERM, Ctrl-C) stops the run between training
steps, never inside one, so the saved weights and episode counts always agree; a
loss that is not finite stops the run and leaves the last good checkpoint as it was.

The stage's settings are a dataclass of learn.settings (``BatchStage``, ``OnlineStage``):
this module reads its ``model`` (settings.ModelSpec), ``schedule``, ``run`` and
``evaluation``, the learner the rest.  A learner class is made with ``(stage, model,
mode)`` and has ``settings(stage, mode)`` (the stage's settings as stored in the
checkpoint, compared on resume) and ``round_episodes(stage)``; an instance has ``log_fields``, ``set_lr``,
``state_dict``/``load_state_dict`` (optimizer state), ``open(seeds)``/``close()``,
``play_round(round_index, n, signals, count, finish)`` and ``row(n)`` (the round's
log numbers).
"""
from __future__ import annotations

import math
import os
import time

import numpy as np
import torch
from tqdm import tqdm

from tdbg.game.encoding import NUM_BOARD_FEATURES, reads_board_features
from tdbg.game.modes import game_mode
from tdbg.game.modes.cubeful_money import CubefulMoney
from tdbg.game.modes.cubeless_money import CubelessMoney
from tdbg.game.modes.matchplay import MatchPlay
from tdbg.infra.errors import InputError, RunError
from tdbg.infra.provenance import cpu_name, provenance
from tdbg.infra.runlog import CsvLog
from tdbg.infra.stats import ci_text
from tdbg.infra.workers import WorkerError
from tdbg.learn.run_control import (Interrupted, StopSignals, check_run_outputs, log_path, plan_stage,
                                    resumes_itself, snapshot_path)
from tdbg.learn.settings import Evaluation, ModelSpec
from tdbg.learn.trainer import scheduled_lr
from tdbg.net import net_growth
from tdbg.net.model import (CheckpointError, TDNetwork, lineage_entry, load_checkpoint, move_filter_of,
                            new_metadata, save_checkpoint, weights_finite)
from tdbg.play.evaluation import quick_eval, quick_eval_game
from tdbg.play.players import checkpoint_mode_name

WARM_STARTS = {"warm_start_equity": CubelessMoney, "warm_start_cubeful": CubefulMoney,
               "warm_start_match": MatchPlay}  # ModelSpec field -> mode it trains
EVAL_FIELDS = ["eval_opponent", "eval_games", "eval_result", "eval_ci_low", "eval_ci_high"]


def build_model(spec: ModelSpec, seed: int, output_mode: str | None = None):
    """(model, meta, trainer_state or None, mode) as ``spec`` says (``seed``: of new and
    grown weights); InputError on bad input."""
    sources = list(spec.sources())
    if len(sources) > 1:
        raise InputError("use only one of --resume, --warm-start-equity, --warm-start-cubeful, --warm-start-match")
    match_length = spec.match_length

    def mode_named(name):
        mode = game_mode(name, spec.jacoby, match_length or 0, spec.met)
        if (match_length is not None or spec.met) and not mode.is_match:
            raise InputError("--match-length and --met apply to --game-mode match only")
        return mode

    trainer_state = None
    try:
        if not sources:
            mode = mode_named(spec.game_mode or "dmp")
            n_inputs = mode.n_inputs + (NUM_BOARD_FEATURES if spec.board_features else 0)
            model = TDNetwork(n_inputs, spec.hidden, output_mode or mode.default_output, spec.activation or "relu")
            meta = new_metadata(model, mode.name)
        else:
            path = spec.sources()[sources[0]]
            model, meta, trainer_state = load_checkpoint(path)
            if sources[0] == "resume":
                mode = mode_named(spec.game_mode or checkpoint_mode_name(model, meta))
            else:  # a warm start makes a model for its own game mode
                flag = "--" + sources[0].replace("_", "-")
                target = WARM_STARTS[sources[0]]
                mode = mode_named(spec.game_mode) if spec.game_mode else mode_named(target.name)
                if type(mode) is not target:
                    raise InputError(f"{flag} trains {target.name}; drop --game-mode or set it so")
                keep = spec.keep_output_layer
                if keep and sources[0] != "warm_start_equity":
                    raise InputError(f"--keep-output-layer is for --warm-start-equity ({flag} keeps the output "
                                     f"layer anyway)")
                options = {"keep_output_layer": True} if keep else {}
                if sources[0] == "warm_start_match" and spec.match_head:
                    options["head"] = spec.match_head
                try:
                    model = net_growth.WARM_STARTS[sources[0]](model, seed=seed, **options)
                    trainer_state = None
                except ValueError as exc:
                    raise InputError(f"{path}: {exc}") from None
            if spec.hidden_given and list(spec.hidden) != list(model.hidden):
                raise InputError(f"--hidden {','.join(map(str, spec.hidden))} differs from the checkpoint's "
                                 f"{','.join(map(str, model.hidden))}; use --expand to grow it")
            if spec.activation not in (None, model.activation):
                raise InputError(f"--activation {spec.activation} differs from the checkpoint's {model.activation} "
                                 f"(the activation is chosen when a network is made)")
            meta = {**meta, "n_inputs": model.n_inputs, "hidden": list(model.hidden),
                    "output_mode": model.output_mode, "activation": model.activation, "game_mode": mode.name,
                    "encoder": new_metadata(model, mode.name)["encoder"]}
        if spec.keep_output_layer and not spec.warm_start_equity:
            raise InputError("--keep-output-layer goes with --warm-start-equity")
        if spec.match_head and not spec.warm_start_match:
            raise InputError("--match-head goes with --warm-start-match (a checkpoint keeps its head)")
        if spec.board_features and not reads_board_features(model.n_inputs):
            model = net_growth.add_board_features(model)
            trainer_state = None  # optimizer moments no longer fit the first layer
            meta = {**meta, "n_inputs": model.n_inputs, "encoder": new_metadata(model, mode.name)["encoder"]}
        target = grown_hidden(spec, model, trainer_state)
        if target != list(model.hidden):  # already that size: a resumed stage
            model = net_growth.expand(model, target, seed=seed, growth=spec.growth)
            meta["hidden"] = list(model.hidden)
            trainer_state = None  # optimizer moments no longer fit the shapes
        mode.check_model(model.output_mode, model.n_inputs)
    except (CheckpointError, ValueError) as exc:
        raise InputError(str(exc)) from None
    return model, meta, trainer_state, mode


def grown_hidden(spec: ModelSpec, model, trainer_state) -> list[int]:
    """The hidden sizes --expand and --expand-depth-size ask for.  A new layer is not added
    again when --resume continues the unfinished stage that added it."""
    target = list(spec.expand or model.hidden)
    depth = spec.expand_depth_size
    if depth:
        stage = (trainer_state or {}).get("stage") or {}
        unfinished = stage.get("episodes_done", 0) < stage.get("settings", {}).get("num_episodes", 0)
        if (spec.resume and unfinished and not spec.new_stage
                and stage["settings"].get("expand_depth_size") == depth):
            return list(model.hidden)  # this stage added the layer already
        target.append(depth)
    return target


def check_finite(model, loss: float, where: str, lr: float, save: str, done: int) -> None:
    """RunError (the checkpoint ``save`` on disk is left as it was) when training diverged
    (the model's weights, or its move filter's, not finite)."""
    filt = move_filter_of(model)
    if math.isfinite(loss) and weights_finite(model) and (filt is None or weights_finite(filt)):
        return
    kept = (f"{save} keeps the last good weights" if os.path.exists(save)
            else "no checkpoint was written")
    raise RunError(f"the loss became {loss} in {where} (lr {lr:g}): training stopped; {kept} "
                   f"({done:,} episodes of this stage); try a smaller --lr")


def default_evaluate(evaluation: Evaluation):
    """The quick evaluation against --eval-opponent (evaluation.quick_eval)."""
    def evaluate(model, mode, games, seed):
        return quick_eval(model, mode, games, seed, evaluation.eval_opponent)
    return evaluate


def run_stage(stage_settings, learner_class, output_mode: str | None = None, evaluate=None) -> dict:
    """Run one stage as ``stage_settings`` (learn.settings: BatchStage, OnlineStage...) say;
    returns a summary dict.  ``evaluate(model, mode, games, seed)`` -> (opponent, result,
    low, high) runs the periodic quick evaluation (default: against --eval-opponent)."""
    spec, schedule, run, ev = (stage_settings.model, stage_settings.schedule, stage_settings.run,
                               stage_settings.evaluation)
    check_run_outputs(run, spec)
    torch.manual_seed(run.weights_seed())  # before any network is built: fresh weights follow the seed
    if run.device == "cuda" and not torch.cuda.is_available():
        raise InputError("--device cuda asked for, but no CUDA device is available")
    model, meta, trainer_state, mode = build_model(spec, run.weights_seed(), output_mode)
    if ev.eval_every and evaluate is None:   # an opponent that cannot play the game fails now, not at the first check
        try:
            quick_eval_game(mode, ev.eval_opponent)
        except ValueError as exc:
            raise InputError(f"--eval-opponent {ev.eval_opponent}: {exc}") from None
    model.to(run.device)
    stage = (trainer_state or {}).get("stage")
    if hasattr(learner_class, "prepare"):   # settings that depend on the model or the stage it continues
        unfinished = (stage if stage and not spec.new_stage
                      and stage["episodes_done"] < stage["settings"].get("num_episodes", 0) else None)
        stage_settings = learner_class.prepare(stage_settings, model, unfinished)
    try:
        learner = learner_class(stage_settings, model, mode)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    settings = learner_class.settings(stage_settings, mode)
    continuing = plan_stage(spec.resume, spec.new_stage, schedule.num_episodes, stage, settings)
    size = learner_class.round_episodes(stage_settings)
    if continuing:
        done = stage["episodes_done"]
        if schedule.num_episodes <= done:  # ended early (plan_stage): it now reads as finished; its LR
            # schedule ran towards the planned count, kept beside the new one
            planned = stage["settings"]["num_episodes"]
            stage["settings"] = meta["lineage"][-1]["stage"] = {**settings, "planned_episodes": planned}
        round_index = stage.get("rounds_done", done // size)
        if trainer_state:
            learner.load_state_dict(trainer_state)
    else:
        done, round_index = 0, 0
        meta["lineage"] = list(meta.get("lineage", [])) + [lineage_entry(0, {"stage": settings})]
        stage = {"settings": settings, "episodes_done": 0, "rounds_done": 0}
    total_rounds = -(-schedule.num_episodes // size)
    evaluate = evaluate or default_evaluate(ev)
    log = CsvLog(log_path(run), learner.log_fields + EVAL_FIELDS, append=resumes_itself(spec.resume, run.save),
                 tensorboard=run.tensorboard)
    started = time.time()
    # CPU time of this stage: this process plus the workers' collection time; carried over on resume
    cpu_seconds = float(stage.get("cpu_seconds", 0.0)) if continuing else 0.0
    cpu_mark = time.process_time()
    logged = done  # episodes already in the log

    def save(path=None):
        stage.update(episodes_done=done, rounds_done=round_index, cpu_seconds=cpu_seconds)
        meta["lineage"][-1]["episodes"] = done
        save_checkpoint(path or run.save, model, meta, {**learner.state_dict(), "stage": stage})

    def count(n: int, worker_cpu_seconds: float = 0.0) -> None:
        """The learner finished ``n`` episodes (inside its guard: weights and count agree)."""
        nonlocal done, cpu_seconds, cpu_mark
        now = time.process_time()
        cpu_seconds += now - cpu_mark + worker_cpu_seconds
        cpu_mark = now
        done += n
        meta["episodes"] = int(meta.get("episodes", 0)) + n
        bar.update(n)

    def log_row(n: int, with_eval: bool, then=None) -> None:
        """Log ``n`` more episodes; ``then()`` (the save) runs between making the row and
        writing it, so a save that fails (a full disk) leaves no row for itself."""
        nonlocal logged
        row = {**learner.row(n), "stage_episodes": done, "episodes": done, "total_episodes": meta["episodes"],
               "round": round_index, "elapsed_seconds": time.time() - started, "cpu_hours": cpu_seconds / 3600}
        if with_eval:
            opp, res, lo, hi = evaluate(model, mode, ev.eval_games,
                                        learner.eval_seed(stage_settings, round_index, done))
            row.update(eval_opponent=opp, eval_games=ev.eval_games, eval_result=res, eval_ci_low=lo,
                       eval_ci_high=hi)
            ci = ci_text({"ci_low": lo, "ci_high": hi, "ci_reason": "no interval: fewer than 2 duplicate pairs"},
                         "{:.4f}", template="[{low}, {high}]")
            bar.write(f"{learner.where(round_index, done)}: vs {opp} {res:.4f} {ci}")
        if then is not None:
            then()
        log.write(row)
        logged = done

    def finish(n: int) -> None:
        """End of a round (the learner calls it where a signal must not cut it): log, evaluate, save."""
        nonlocal round_index
        round_index += 1
        due = bool(ev.eval_every) and (learner.eval_due(stage_settings, round_index, done, n)
                                       or done >= schedule.num_episodes)
        log_row(n, due, then=save)
        if run.save_every and round_index % run.save_every == 0:
            save(snapshot_path(run.save, round_index))
        bar.set_postfix(learner.postfix())

    signals = StopSignals().__enter__()
    bar = tqdm(total=schedule.num_episodes, initial=done, unit="ep", desc=os.path.basename(run.save),
               dynamic_ncols=True, disable=run.quiet)
    interrupted = None
    try:
        learner.open(lambda k: np.random.SeedSequence([run.seed, len(meta["lineage"]), k]),
                     np.random.SeedSequence([run.weights_seed(), len(meta["lineage"])]))
        # each start or restart of the stage: its lineage entry names only the first, and a stage
        # continued elsewhere (another commit, CPU or collection kernel) runs otherwise unrecorded
        meta["lineage"][-1].setdefault("segments", []).append(
            {"from_episode": done, **provenance(), "cpu": cpu_name(),
             **(learner.segment_info() if hasattr(learner, "segment_info") else {})})
        while done < schedule.num_episodes:
            # to the next round boundary, so a run resumed mid-round keeps the same rounds
            n = min(size - done % size, schedule.num_episodes - done)
            learner.set_lr(scheduled_lr(round_index, total_rounds, schedule.lr, schedule.end_lr,
                                        schedule.warmup_cycles))
            learner.play_round(round_index, n, done, signals, count, finish)
    except (KeyboardInterrupt, Interrupted) as exc:
        interrupted = str(exc) or "SIGINT"
        bar.write(f"interrupted ({interrupted}): saving {run.save} at {done} episodes")
        if done > logged:  # a round cut short: its episodes so far
            log_row(done - logged, False, then=save)
        else:
            save()
    except WorkerError as exc:
        kept = f"{run.save} keeps the last checkpoint" if os.path.exists(run.save) else "no checkpoint was written"
        raise RunError(f"{exc}; {kept} ({done:,} episodes of this stage)") from None
    finally:
        signals.__exit__()
        bar.close()
        learner.close()
        log.close()
    if not interrupted:
        save()
    return {"save": run.save, "log": log.path, "episodes": done, "total_episodes": meta["episodes"],
            "loss": learner.last_loss if math.isfinite(learner.last_loss) else None,  # None: no round ran
            "seconds": time.time() - started, "interrupted": interrupted}
