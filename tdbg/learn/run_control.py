"""What a training run settles before it starts and keeps while it runs: its outputs
(fileio's policy for the checkpoint, the log, --json and --save-every's snapshots),
whether ``--resume`` continues the checkpoint's stage or starts a new one (said in one
line), and signals that stop it only between training steps."""

from __future__ import annotations

import glob
import operator
import os
import signal
import uuid

from tdbg.infra import run_outputs
from tdbg.infra.errors import InputError
from tdbg.infra.fileio import (
    KIND_NAMES,
    Output,
    OutputError,
    check_folder,
    check_name,
    check_outputs,
    file_kind,
)
from tdbg.infra.runlog import require_tensorboard
from tdbg.infra.stop_signals import StopSignalHandler, ignore_further_interrupts
from tdbg.game.met import DEFAULT_MET
from tdbg.learn.stage_settings import (
    RUN_ONLY,
    STAGE_START,
    BatchStage,
    ModelSpec,
    OnlineStage,
    Prob5Stage,
    Run,
    flag_names,
)
from tdbg.net.model import CheckpointError, load_checkpoint


class Interrupted(BaseException):
    """SIGTERM or SIGINT arrived; the message names it.

    A BaseException, like KeyboardInterrupt, because the signal can land inside code that
    catches Exception: Ray's result deserialisation turns one into a RaySystemError (the
    run then ended as a worker failure, exit 2, instead of saving and exiting 130), and
    head_to_head keeps finished games by catching Exception."""


def save_path(run: Run) -> str:
    """--save, which the command line requires (Run allows None only as the unset default)."""
    assert run.save is not None, "--save is required"
    return run.save


def log_path(run: Run) -> str:
    return run.log or own_log(save_path(run))


def own_log(save: str) -> str:
    """The log beside a checkpoint: X.csv for X.pt; for a symbolic link, its target's (the
    checkpoint is written through the link: fileio.atomic_write)."""
    return os.path.splitext(os.path.realpath(save) if os.path.islink(save) else save)[0] + ".csv"


def snapshot_path(save: str, round_index: int) -> str:
    """--save-every's snapshot after round ``round_index`` of the stage: models/x.pt -> models/x_r000100.pt."""
    stem, ext = os.path.splitext(save)
    return f"{stem}_r{round_index:06d}{ext or '.pt'}"


def resumes_itself(resume: str | None, save: str) -> bool:
    """--resume X --save X: the run continues the one that wrote X (its checkpoint and log)."""
    if not resume:
        return False
    return os.path.realpath(resume) == os.path.realpath(save)


def appends_log(run: Run, spec: ModelSpec) -> bool:
    """--resume X --save X with X's own log (X.csv, or the --log the stage it continues
    recorded): the run adds its rows to that log; another --log is a new log (replaced only
    with --overwrite)."""
    return resumes_itself(spec.resume, save_path(run)) and (
        run.log_continues
        or os.path.realpath(log_path(run)) == os.path.realpath(own_log(save_path(run)))
    )


def check_run_outputs(run: Run, spec: ModelSpec) -> None:
    """fileio's output policy for --save, the log and --json, before any work starts.
    With --resume X --save X only X, X's own log (X.csv, the log that run wrote) and the
    --json summary its unfinished stage recorded are the run's own; another --json, or a
    --log elsewhere, is checked as for any run.  Every source
    the run reads (--resume, any --warm-start-*) is an input no output may name."""
    if run.log == "":  # (read as no --log: the log beside --save, unsaid)
        raise OutputError("--log '': an empty path names no file")
    own = resumes_itself(spec.resume, save_path(run))
    inputs = {f"--{k.replace('_', '-')}": v for k, v in spec.sources().items()}
    check_outputs(
        [
            Output("--save", run.save, "checkpoint", own),
            Output(
                "--log" if run.log else "the log", log_path(run), "text", appends_log(run, spec)
            ),
            Output("--json", run.json, "json", own and run.json_continues),
        ],
        run.overwrite,
        inputs,
    )
    if (
        run.save_every
    ):  # the longest snapshot name it may write (the snapshots themselves: check_snapshots)
        check_name(
            snapshot_path(save_path(run), 1), f"--save-every's snapshot of --save {run.save}"
        )
    if run.tensorboard:  # a folder of event files, added to (never replaced)
        require_tensorboard()
        check_folder(run.tensorboard, f"--tensorboard {run.tensorboard}")


def stage_identity(meta: dict, stage: dict) -> str:
    """What names a stage in its checkpoints and snapshots: the id given when it started
    (a stage started before ids: its lineage entry's place, date and command)."""
    if stage.get("id"):
        return stage["id"]
    lineage = meta.get("lineage") or [{}]
    return f"{len(lineage)}|{lineage[-1].get('date')}|{lineage[-1].get('command')}"


def new_stage_id() -> str:
    return uuid.uuid4().hex


def _snapshot_stage(path: str) -> str | None:
    """The stage the snapshot at ``path`` belongs to; None when it is no checkpoint of a stage."""
    try:
        _, meta, trainer_state = load_checkpoint(path)
    except CheckpointError:
        return None
    stage = (trainer_state or {}).get("stage")
    return stage_identity(meta, stage) if isinstance(stage, dict) else None


def check_snapshots(run: Run, stage_id: str, first: int, last: int) -> None:
    """fileio's policy for --save-every's snapshots (checked before any work): this run writes
    those of rounds ``first``+1 .. ``last``.  A snapshot of this stage (``stage_id``: a resume
    that continues it) is the run's own; one of any other stage is replaced only with
    --overwrite, and then every such snapshot goes when the run starts writing (run_outputs),
    so two stages' snapshots are never mixed; a file of another kind at a name the run
    writes is never replaced.  Stale temporary files of snapshots (a killed save) go now."""
    if not run.save_every:
        return
    stem, ext = os.path.splitext(save_path(run))
    ext = ext or ".pt"
    name = glob.escape(stem) + "_r" + "[0-9]" * 6 + glob.escape(ext)
    writes = {
        os.path.realpath(snapshot_path(save_path(run), k))
        for k in range(first + 1, last + 1)
        if k % run.save_every == 0
    }
    others = []
    for path in sorted(glob.glob(name)):
        kind = file_kind(path)
        if kind not in ("checkpoint", "empty"):
            if os.path.realpath(path) in writes:
                raise OutputError(
                    f"{path} (a --save-every snapshot name) is {KIND_NAMES.get(kind, kind)}; refusing "
                    f"to replace it with a checkpoint"
                )
        elif _snapshot_stage(path) != stage_id:
            others.append(path)
    if others and not run.overwrite:
        raise OutputError(
            f"{others[0]} exists (a snapshot of another stage or run, {len(others)} in all); pass "
            f"--overwrite to replace them, or choose another --save"
        )
    run_outputs.replace_at_start(others)
    run_outputs.remove_stale_temps(
        [snapshot_path(save_path(run), k) for k in range(run.save_every, last + 1, run.save_every)]
    )


def unfinished_stage(done: int, total: int) -> str:
    """How a stage stopped at ``done`` of ``total`` episodes is named in the notes."""
    return f"its unfinished stage at {done:,} of {total:,} episodes"


# settings a continued stage must keep although its compared settings (Learner.settings) do not
# hold them: the seeds draw every round's dice, and which games a round plays depends on how
# they are shared out over the workers and played --parallel-games at a time; compared with the
# stage's recorded config when it has one, also where the config lacks them (a seed lost
# continued on the default's dice)
SEEDS = ("seed", "torch_seed", "workers", "parallel_games")
# the flags of a stage's config that do not change what it trains, so a continued stage may be
# given others: what starts a stage (STAGE_START: applied when it starts, and a continued stage
# that would be grown is refused where it is built), the run's outputs and manners, where its
# workers and its training run (as with --threads, the same stage on other hardware), its
# quick evaluations and unit-health rows (their games draw dice of their own), the move
# filter's warm-up (a new stage's only), and what the compared settings hold already (the game
# mode, the precision that ran and the episode count, as resolved there).  Every other flag
# (--batch-size, --epochs, --scoring, --engine, --no-jacoby, --match-length, --met, online's
# --log-every ...) decides the stage's games or its steps: given otherwise it was taken
# without a word and the stage ended equal to neither run through
NOT_COMPARED = frozenset(
    (
        *STAGE_START,
        *RUN_ONLY,
        "save",
        "log",
        "json",
        "tensorboard",
        "save_every",
        "backend",
        "ray_address",
        "ray_timeout",
        "device",
        "eval_every",
        "eval_games",
        "eval_opponent",
        "health_every",
        "filter_warmup",
        "game_mode",
        "precision",
        "num_episodes",
    )
)
# a compared setting is named by its flag where they differ (precision: --collect-precision,
# online's lam: --lambda)
FLAGS = {**flag_names(OnlineStage), **flag_names(Prob5Stage), **flag_names(BatchStage)}


def _with_config(settings: dict, config: dict | None, keys: set[str]) -> dict:
    """``settings`` and the flags of ``config`` (a stage's config, as stage_config gives it)
    named in ``keys`` (compared_keys), but those ``settings`` hold already (online's lam is
    its --lambda)."""
    given, named = config or {}, {FLAGS.get(k, k) for k in settings}
    return {
        **{k: given[k] for k in sorted(keys) if k in given and FLAGS.get(k, k) not in named},
        **settings,
    }


def compared_keys(recorded: dict, config: dict) -> set[str]:
    """The flags of a continued stage's ``recorded`` config compared with this run's
    ``config``: the seeds always, and every flag the record holds and this script has
    (``config`` holds them all) but those NOT_COMPARED: a stage recorded by an older version
    or another script may record flags this one lacks (they are let be)."""
    return set(SEEDS) | {k for k in recorded if k in config and k not in NOT_COMPARED}


def _same_file(a, b) -> bool:
    """Whether two records of a file a stage reads (--met: None is the shipped table) name
    one file, however each was written (relative, absolute, through a link)."""
    a, b = (DEFAULT_MET if p is None else p for p in (a, b))
    if not (isinstance(a, str) and isinstance(b, str)):
        return a == b
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):  # (one is gone, or names no file: compared as written)
        return a == b


# the compared settings that name a file: the same file named another way is the same setting
# (a stage started with --met tables/x.xml was refused when continued with --met ./tables/x.xml)
SAME = {"met": _same_file}


def _differs(key: str, old, new) -> bool:
    return not SAME.get(key, operator.eq)(old, new)


def _refuse_other_settings(resume: str, where: str, old: dict, settings: dict) -> None:
    """InputError unless this run's ``settings`` are the unfinished stage's (``old``)."""
    foreign = sorted(set(old) - set(settings), key=str)
    if foreign:  # no flag of this run gives them: "give the same settings" could not be followed
        raise InputError(
            f"{resume}: {where} records settings this trainer does not have "
            f"({'; '.join(f'{k} {old[k]!r:.40}' for k in foreign)}): another trainer or version "
            f"wrote it, or it was edited; --new-stage starts a new stage on its weights"
        )
    diff = "; ".join(
        f"{FLAGS.get(k, k.replace('_', '-'))} {old.get(k)} -> {settings.get(k)}"
        for k in sorted(set(old) | set(settings))
        if _differs(k, old.get(k), settings.get(k))
    )
    if diff:
        raise InputError(
            f"{resume}: {where} has other settings ({diff}); give the same settings to continue "
            f"it, or --new-stage to start a new stage on its weights"
        )


def plan_stage(
    resume: str | None,
    new_stage: bool,
    num_episodes: int,
    stage: dict | None,
    settings: dict,
    config: dict | None = None,
) -> tuple[bool, str | None]:
    """(True to continue the checkpoint's unfinished stage (``stage``, from the checkpoint
    ``resume``) with ``settings`` and this run's ``config`` (its seeds are compared with the
    stage's record), the line that says what happens: printed once the run's outputs are
    checked too); InputError when an unfinished stage with other settings would be left
    without --new-stage.
    The same settings with --num-episodes at or below what the stage has done end it there
    (continuing it with nothing left to run), so a script can stop a stage early and go on."""
    if not resume:
        return False, None
    if not stage:
        return False, f"{resume}: starting a new stage on its weights"
    done, total = stage["episodes_done"], stage["settings"].get("num_episodes", 0)
    if done >= total:
        return (
            False,
            f"{resume}: its stage is finished ({done:,} episodes); starting a new stage on its weights",
        )
    recorded = stage.get("config")
    keys = compared_keys(recorded or {}, config or {})
    old = _with_config(stage["settings"], recorded, keys)
    if isinstance(recorded, dict):  # a stage recorded before its config was: no seeds to compare
        settings = _with_config(settings, config, keys)
    if (
        not new_stage
        and num_episodes <= done
        and all(
            not _differs(k, old.get(k), settings.get(k))
            for k in set(old) | set(settings)
            if k != "num_episodes"
        )
    ):
        # the stage is cut short where it stands: nothing is left to run, its weights are kept as they are
        return (
            True,
            f"{resume}: ending {unfinished_stage(done, total)} (--num-episodes {num_episodes:,})",
        )
    where = unfinished_stage(done, total)
    if not new_stage:
        _refuse_other_settings(resume, where, old, settings)
        return True, f"{resume}: continuing {where}"
    return False, (
        f"{resume}: --new-stage: starting a new stage on its weights (its stage stops at {done:,} of "
        f"{total:,} episodes)"
    )


class StopSignals(StopSignalHandler):
    """SIGTERM and SIGINT raise Interrupted, except inside ``guard()``, where they wait
    until the block is over (so a training step is never cut in half)."""

    def __init__(self):
        super().__init__(self._handler)
        self.deferred, self.inside = None, False

    def _handler(self, signum, frame):
        ignore_further_interrupts()  # the first signal stops the run; a second waits for its save
        name = signal.Signals(signum).name
        if self.inside:
            self.deferred = name
        else:
            raise Interrupted(name)

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

    def hold(self):
        """A block no signal cuts short and that raises nothing after (the save of a run
        already stopping, or its last): a signal inside it is kept in ``deferred`` only, so a
        second Ctrl-C during the save lets the save finish."""
        signals = self

        class _Hold:
            def __enter__(self):
                signals.inside = True

            def __exit__(self, *exc):
                signals.inside = False

        return _Hold()
