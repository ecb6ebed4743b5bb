"""What a training run settles before it starts and keeps while it runs: its outputs
(fileio's policy for the checkpoint, the log and --json), whether ``--resume``
continues the checkpoint's stage or starts a new one (said in one line), and signals
that stop it only between training steps."""
from __future__ import annotations

import glob
import os
import signal
import sys

from tdbg.infra.errors import InputError
from tdbg.infra.fileio import Output, check_folder, check_outputs
from tdbg.infra.runlog import require_tensorboard
from tdbg.learn.settings import ModelSpec, Run


class Interrupted(BaseException):
    """SIGTERM or SIGINT arrived; the message names it.

    A BaseException, like KeyboardInterrupt, because the signal can land inside code that
    catches Exception: Ray's result deserialisation turns one into a RaySystemError (the
    run then ended as a worker failure, exit 1, instead of saving and exiting 130), and
    head_to_head keeps finished games by catching Exception."""


def log_path(run: Run) -> str:
    return run.log or os.path.splitext(run.save)[0] + ".csv"


def snapshot_path(save: str, round_index: int) -> str:
    """--save-every's snapshot after round ``round_index`` of the stage: models/x.pt -> models/x_r000100.pt."""
    stem, ext = os.path.splitext(save)
    return f"{stem}_r{round_index:06d}{ext or '.pt'}"


def resumes_itself(resume: str | None, save: str) -> bool:
    """--resume X --save X: the run continues the one that wrote X (its checkpoint and log)."""
    return bool(resume) and os.path.realpath(resume) == os.path.realpath(save)


def check_run_outputs(run: Run, spec: ModelSpec) -> None:
    """fileio's output policy for --save, the log and --json, before any work starts.
    With --resume X --save X only X and X's own log (X.csv, the log that run wrote) are
    the run's own; --json, or a --log elsewhere, is checked as for any run.  Every source
    the run reads (--resume, any --warm-start-*) is an input no output may name."""
    own = resumes_itself(spec.resume, run.save)
    own_log = own and os.path.realpath(log_path(run)) == os.path.realpath(os.path.splitext(run.save)[0] + ".csv")
    inputs = {f"--{k.replace('_', '-')}": v for k, v in spec.sources().items()}
    check_outputs([Output("--save", run.save, "checkpoint", own),
                   Output("--log" if run.log else "the log", log_path(run), "text", own_log),
                   Output("--json", run.json, "json")], run.overwrite, inputs)
    if run.save_every and not own and not run.overwrite:
        stem, ext = os.path.splitext(run.save)
        old = sorted(glob.glob(glob.escape(stem) + "_r" + "[0-9]" * 6 + (ext or ".pt")))
        if old:
            raise InputError(f"{old[0]} exists (a snapshot of another run, {len(old)} in all); use --overwrite "
                             f"to replace such files, or another --save")
    if run.tensorboard:  # a folder of event files, added to (never replaced)
        require_tensorboard()
        check_folder(run.tensorboard, f"--tensorboard {run.tensorboard}")


def unfinished_stage(done: int, total: int) -> str:
    """How a stage stopped at ``done`` of ``total`` episodes is named in the notes."""
    return f"its unfinished stage at {done:,} of {total:,} episodes"


def plan_stage(resume: str | None, new_stage: bool, num_episodes: int, stage: dict | None,
               settings: dict) -> bool:
    """True to continue the checkpoint's unfinished stage (``stage``, from the checkpoint
    ``resume``) with ``settings``.  Says in one line what happens; InputError when an
    unfinished stage with other settings would be left without --new-stage.
    The same settings with --num-episodes at or below what the stage has done end it there
    (continuing it with nothing left to run), so a script can stop a stage early and go on."""
    if not resume:
        return False
    if not stage:
        print(f"{resume}: starting a new stage on its weights", file=sys.stderr)
        return False
    done, total = stage["episodes_done"], stage["settings"].get("num_episodes", 0)
    if done >= total:
        print(f"{resume}: its stage is finished ({done:,} episodes); starting a new stage on its weights",
              file=sys.stderr)
        return False
    old = stage["settings"]
    if (not new_stage and num_episodes <= done
            and all(old.get(k) == settings.get(k) for k in set(old) | set(settings) if k != "num_episodes")):
        # the stage is cut short where it stands: nothing is left to run, its weights are kept as they are
        print(f"{resume}: ending {unfinished_stage(done, total)} (--num-episodes {num_episodes:,})",
              file=sys.stderr)
        return True
    diff = "; ".join(f"{k.replace('_', '-')} {old.get(k)} -> {settings.get(k)}"
                     for k in sorted(set(old) | set(settings)) if old.get(k) != settings.get(k))
    where = unfinished_stage(done, total)
    if not diff and not new_stage:
        print(f"{resume}: continuing {where}", file=sys.stderr)
        return True
    if not new_stage:
        raise InputError(f"{resume}: {where} has other settings ({diff}); give the same settings to continue "
                         f"it, or --new-stage to start a new stage on its weights")
    print(f"{resume}: --new-stage: starting a new stage on its weights (its stage stops at {done:,} of "
          f"{total:,} episodes)", file=sys.stderr)
    return False


class StopSignals:
    """SIGTERM and SIGINT raise Interrupted, except inside ``guard()``, where they wait
    until the block is over (so a training step is never cut in half)."""

    def __init__(self):
        self.deferred, self.inside = None, False

    def _handler(self, signum, frame):
        name = signal.Signals(signum).name
        if self.inside:
            self.deferred = name
        else:
            raise Interrupted(name)

    def __enter__(self):
        self.old = {s: signal.signal(s, self._handler) for s in (signal.SIGTERM, signal.SIGINT)}
        return self

    def __exit__(self, *exc):
        for s, h in self.old.items():
            signal.signal(s, h)

    def guard(self):
        signals = self

        class _Guard:
            def __enter__(self):
                signals.inside = True

            def __exit__(self, *exc):
                signals.inside = False
                if signals.deferred and exc[0] is None:
                    raise Interrupted(signals.deferred)
        return _Guard()
