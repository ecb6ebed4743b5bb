"""One training stage of batch TD: build or load the model, then rounds of
self-play collection and one epoch of training, with logging, periodic
evaluation, atomic saves and resume.

A *stage* is one command (e.g. the DMP leg, or a --oneply refinement).  Its
progress is stored in the checkpoint, so ``--resume`` of an unfinished stage with
the same settings continues its episode count, LR schedule and optimizer state;
with other settings it needs ``--new-stage``; ``--resume`` of a finished one starts
a new stage on its weights.  Either way one line says which.

A signal (SIGTERM, Ctrl-C) stops the run between training steps, never inside one,
so the saved weights and episode counts always agree; a loss that is not finite
stops the run and leaves the last good checkpoint as it was.
"""
from __future__ import annotations

import math
import os
import time

import numpy as np
import torch
from tqdm import tqdm

import net_growth
from cli import CsvLog, RunError, UsageError
from model import CheckpointError, TDNetwork, lineage_entry, load_checkpoint, new_metadata, save_checkpoint
from modes import CubefulMoney, CubelessMoney, game_mode
from run_control import Interrupted, StopSignals, check_run_outputs, log_path, plan_stage, resumes_itself
from selfplay import Collector
from trainer import Trainer, scheduled_lr
from workers import WorkerError

WARM_STARTS = {"warm_start_equity": CubelessMoney, "warm_start_cubeful": CubefulMoney}  # flag -> mode it trains
LOG_FIELDS = ["round", "stage_episodes", "total_episodes", "samples", "loss", "lr", "episodes_per_s",
              "evals_per_s", "round_seconds", "elapsed_seconds", "cpu_hours", "gammon_rate", "doubles", "takes", "drops",
              "eval_opponent", "eval_games", "eval_result", "eval_ci_low", "eval_ci_high"]


def build_model(args, output_mode: str | None = None):
    """(model, meta, trainer_state or None, mode) from the flags; UsageError on bad input."""
    sources = [s for s in ("resume", "warm_start_equity", "warm_start_cubeful") if getattr(args, s, None)]
    if len(sources) > 1:
        raise UsageError("use only one of --resume, --warm-start-equity, --warm-start-cubeful")
    trainer_state = None
    try:
        if not sources:
            mode = game_mode(args.game_mode or "dmp", args.jacoby)
            model = TDNetwork(mode.n_inputs, args.hidden, output_mode or mode.default_output)
            meta = new_metadata(model, mode.name)
        else:
            path = getattr(args, sources[0])
            model, meta, trainer_state = load_checkpoint(path)
            if sources[0] == "resume":
                mode = game_mode(args.game_mode or meta.get("game_mode", "dmp"), args.jacoby)
            else:  # a warm start makes a model for its own game mode
                flag = "--" + sources[0].replace("_", "-")
                target = WARM_STARTS[sources[0]]
                mode = game_mode(args.game_mode, args.jacoby) if args.game_mode else target(args.jacoby)
                if type(mode) is not target:
                    raise UsageError(f"{flag} trains {target.name}; drop --game-mode or set it so")
                try:
                    model, trainer_state = net_growth.WARM_STARTS[sources[0]](model, seed=args.seed), None
                except ValueError as exc:
                    raise UsageError(f"{path}: {exc}") from None
            if args.hidden_given and list(args.hidden) != list(model.hidden):
                raise UsageError(f"--hidden {','.join(map(str, args.hidden))} differs from the checkpoint's "
                                 f"{','.join(map(str, model.hidden))}; use --expand to grow it")
            meta = {**meta, "n_inputs": model.n_inputs, "hidden": list(model.hidden),
                    "output_mode": model.output_mode, "game_mode": mode.name,
                    "encoder": new_metadata(model, mode.name)["encoder"]}
        if args.expand and list(args.expand) != list(model.hidden):  # already that size: a resumed stage
            model = net_growth.expand(model, args.expand, seed=args.seed)
            meta["hidden"] = list(model.hidden)
            trainer_state = None  # optimizer moments no longer fit the shapes
        mode.check_model(model.output_mode, model.n_inputs)
    except CheckpointError as exc:
        raise UsageError(str(exc)) from None
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return model, meta, trainer_state, mode


def check_finite(model, loss: float, where: str, lr: float, args, done: int) -> None:
    """RunError (the checkpoint on disk is left as it was) when training diverged."""
    if math.isfinite(loss) and all(bool(torch.isfinite(p).all()) for p in model.parameters()):
        return
    kept = (f"{args.save} keeps the last good weights" if os.path.exists(args.save)
            else "no checkpoint was written")
    raise RunError(f"the loss became {loss} in {where} (lr {lr:g}): training stopped; {kept} "
                   f"({done:,} episodes of this stage); try a smaller --lr")


def stage_settings(args, mode) -> dict:
    return {"num_episodes": args.num_episodes, "oneply": bool(args.oneply), "game_mode": mode.name,
            "lr": args.lr, "end_lr": args.end_lr, "warmup_cycles": args.warmup_cycles,
            "episodes_per_round": args.episodes_per_round, "optimizer": args.optimizer}


def round_row(round_index, done, total, data, loss, lr, n, secs, t_collect, elapsed, cpu_seconds, evaluate,
              eval_games, bar) -> dict:
    """One log row; ``evaluate()``, when given, runs the quick evaluation for it."""
    st = data["stats"]
    row = {"round": round_index, "stage_episodes": done, "total_episodes": total,
           "samples": len(data["targets"]), "loss": loss, "lr": lr, "episodes_per_s": n / secs,
           "evals_per_s": st["evaluations"] / max(t_collect, 1e-9), "round_seconds": secs,
           "elapsed_seconds": elapsed, "cpu_hours": cpu_seconds / 3600,
           "gammon_rate": (st["gammons"] + st["backgammons"]) / max(st["episodes"], 1),
           "doubles": st["doubles"], "takes": st["takes"], "drops": st["drops"]}
    if evaluate:
        opp, res, lo, hi = evaluate()
        row.update(eval_opponent=opp, eval_games=eval_games, eval_result=res, eval_ci_low=lo, eval_ci_high=hi)
        bar.write(f"round {round_index}: vs {opp} {res:.4f} [{lo:.4f}, {hi:.4f}]")
    return row


def run_stage(args, output_mode: str | None = None, evaluate=None) -> dict:
    """Run one stage as the flags say; returns a summary dict.  ``evaluate(model, mode,
    games, seed)`` -> (opponent, result, low, high) runs the periodic quick evaluation."""
    check_run_outputs(args)
    torch.manual_seed(args.seed)  # before any network is built: fresh weights follow the seed
    if args.device == "cuda" and not torch.cuda.is_available():
        raise UsageError("--device cuda asked for, but no CUDA device is available")
    model, meta, trainer_state, mode = build_model(args, output_mode)
    model.to(args.device)
    settings = stage_settings(args, mode)
    stage = (trainer_state or {}).get("stage")
    continuing = plan_stage(args, stage, settings)
    if continuing:
        done = stage["episodes_done"]
        round_index = stage["rounds_done"]
    else:
        done, round_index = 0, 0
        meta["lineage"] = list(meta.get("lineage", [])) + [lineage_entry(0, {"stage": settings})]
        stage = {"settings": settings, "episodes_done": 0, "rounds_done": 0}
    total_rounds = -(-args.num_episodes // args.episodes_per_round)

    trainer = Trainer(model, args.optimizer, args.lr, args.batch_size, args.device)
    if continuing and trainer_state:
        trainer.load_state_dict(trainer_state)
    log = CsvLog(log_path(args), LOG_FIELDS, append=resumes_itself(args),
                 tensorboard=getattr(args, "tensorboard", None))
    collector = Collector(args.workers, mode, args.oneply, args.engine, args.parallel_games,
                          getattr(args, "scoring", "auto"))
    seed_root = np.random.SeedSequence([args.seed, len(meta["lineage"])])
    rng = np.random.default_rng(seed_root.spawn(1)[0])

    def save():
        stage.update(episodes_done=done, rounds_done=round_index, cpu_seconds=cpu_seconds)
        meta["lineage"][-1]["episodes"] = done
        save_checkpoint(args.save, model, meta, {**trainer.state_dict(), "stage": stage})

    signals = StopSignals().__enter__()
    started = time.time()
    # CPU time of this stage: this process plus the workers' collection time; carried over on resume
    cpu_seconds = float(stage.get("cpu_seconds", 0.0)) if continuing else 0.0
    cpu_mark = time.process_time()
    bar = tqdm(total=args.num_episodes, initial=done, unit="ep", desc=os.path.basename(args.save),
               dynamic_ncols=True, disable=args.quiet)
    interrupted = None
    last_loss = float("nan")
    try:
        def round_seed(k):
            return np.random.SeedSequence([args.seed, len(meta["lineage"]), k])

        def round_size(k_done):
            return min(args.episodes_per_round, args.num_episodes - k_done)

        # --overlap: the workers collect round k+1 (with the weights before round k's
        # training) while this process trains on round k; targets are one round staler
        pending = None
        if args.overlap:
            # the workers keep the cores busy while we train: more torch threads here would
            # oversubscribe them (measured 3x slower with the default two)
            torch.set_num_threads(1)
            pending = collector.submit(model, round_size(done), round_seed(round_index))
        while done < args.num_episodes:
            n = round_size(done)
            lr = scheduled_lr(round_index, total_rounds, args.lr, args.end_lr, args.warmup_cycles)
            trainer.set_lr(lr)
            t0 = time.time()
            if pending is not None:
                data = collector.result(pending)
                pending = None
                if done + n < args.num_episodes:
                    pending = collector.submit(model, round_size(done + n), round_seed(round_index + 1))
            else:
                data = collector.collect(model, n, round_seed(round_index))
            t_collect = time.time() - t0
            with signals.guard():  # a signal now waits until the round is trained, counted and saved
                for _ in range(args.epochs):
                    last_loss = trainer.train_epoch(data["features"], data["targets"], rng)
                    check_finite(model, last_loss, f"round {round_index + 1}", lr, args, done)
                secs = time.time() - t0
                now = time.process_time()
                cpu_seconds += now - cpu_mark + data["stats"].get("cpu_seconds", 0.0)
                cpu_mark = now
                done += n
                meta["episodes"] = int(meta.get("episodes", 0)) + n
                round_index += 1
                log.write(round_row(round_index, done, meta["episodes"], data, last_loss, lr, n, secs, t_collect,
                                    time.time() - started, cpu_seconds, evaluate and args.eval_every
                                    and (round_index % args.eval_every == 0 or done >= args.num_episodes)
                                    and (lambda: evaluate(model, mode, args.eval_games, args.seed + round_index)),
                                    args.eval_games, bar))
                if round_index % args.save_every == 0 or done >= args.num_episodes:
                    save()
            bar.update(n)
            bar.set_postfix(eps=f"{n / secs:.1f}/s", loss=f"{last_loss:.5f}", lr=f"{lr:.2g}")
    except (KeyboardInterrupt, Interrupted) as exc:
        interrupted = str(exc) or "SIGINT"
        bar.write(f"interrupted ({interrupted}): saving {args.save} at {done} episodes")
        save()
    except WorkerError as exc:
        kept = f"{args.save} keeps the last checkpoint" if os.path.exists(args.save) else "no checkpoint was written"
        raise RunError(f"{exc}; {kept} ({done:,} episodes of this stage)") from None
    finally:
        signals.__exit__()
        bar.close()
        collector.close()
        log.close()
    if not interrupted:
        save()
    return {"save": args.save, "log": log.path, "episodes": done, "total_episodes": meta["episodes"],
            "loss": last_loss, "seconds": time.time() - started, "interrupted": interrupted}
