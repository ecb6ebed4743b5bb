"""A training stage's settings, grouped by concern, as frozen dataclasses: one field per
knob, with its type, default and help (tdbg.infra.settings_fields; the scripts' flags are made
from these fields by tdbg.app.settings_flags, so a new knob is one field here).

* ``ModelSpec``: the network a stage trains: a new one's game mode and shape, or the
  checkpoint it resumes or warm-starts from, and how it is grown;
* ``Schedule``: the stage's length, its rounds and its learning-rate schedule;
* ``Optimisation``: optimizer, minibatches, epochs, and the loss of prob5 models;
* ``Acting``: how self-play chooses what it plays, and its targets;
* ``Collection``: where and how self-play collects a round's samples;
* ``Run``: seeds, device, move generator, the checkpoint, the log and the other outputs;
* ``Evaluation``: the periodic quick evaluation;
* ``Online``: online TD(lambda)'s own (train_online.py).

A stage's settings are one of ``BatchStage`` (train_batch.py), ``Prob5Stage``
(train_prob5.py) or ``OnlineStage`` (train_online.py); training_loop.run_stage reads
their ``model``, ``schedule``, ``run`` and ``evaluation``, the learner the rest.  The
subclasses below change a field's default or help for one learner and keep its place, and
say which fields that learner's script offers no flag for (``fixed``: held at the default)
or does not list (``unlisted``), so each script's flags are its stage class's fields.

A field marked ``record`` is stored in the checkpoint's stage settings when it is not at
its default (``recorded``), so a checkpoint written before the field existed resumes as
before, and one written with it resumes only with the same value.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, is_dataclass

from tdbg.game.modes import GAME_MODES, MODES, mode_class
from tdbg.game.encoding import reads_board_features
from tdbg.game.modes.base import GameMode
from tdbg.game.modes.cubeful_money import CubefulMoney
from tdbg.game.modes.cubeless_money import CubelessMoney
from tdbg.game.modes.matchplay import MatchPlay
from tdbg.game.movegen import ENGINES
from tdbg.infra.backends import Backend
from tdbg.infra.errors import InputError
from tdbg.infra.settings_fields import derived, fixed, option, unlisted, variant
from tdbg.infra.threads import threads_option
from tdbg.infra.workers import MAX_WORKERS_PER_CORE
from tdbg.learn.filter_training import DEFAULT_WARMUP_EPISODES
from tdbg.learn.trainer import OPTIMIZERS
from tdbg.net.losses import LOSSES
from tdbg.net.model import ACTIVATIONS
from tdbg.net.net_growth import GROWTHS
from tdbg.net.scoring import ScoringSettings
from tdbg.play import opponents

MAX_EPISODES_PER_ROUND = 20_000  # a round's samples are held in memory: about 90 kB per episode
SCALAR_MODES = tuple(
    name for name, cls in MODES.items() if not cls.cubeful
)  # online TD plays without a cube


@dataclass(frozen=True)
class ModelSpec:
    """The network a stage trains: new (its mode and shape), or loaded from the checkpoint
    it resumes or warm-starts from (at most one), then grown."""

    game_mode: str | None = option(
        None, "default: the checkpoint's mode, or dmp from scratch", choices=GAME_MODES
    )
    hidden: tuple[int, ...] = option(
        (80,), "hidden layer sizes (from scratch)", type="hidden_arg", shown="80"
    )
    expand: tuple[int, ...] | None = option(
        None,
        "grow the loaded/new net to these hidden sizes (Net2Net, function-preserving; added layers as for "
        "--expand-depth-size)",
        type="hidden_arg",
    )
    expand_depth_size: int | None = option(
        None,
        "append a hidden layer of N units (after any --expand), function-preserving: as wide as the last "
        "one or wider: identity weights plus noise of std 1e-4; narrower: its units carry the head's positive and negative parts "
        "(N >= 2 x outputs); ReLU nets only",
        type="positive_int",
        metavar="N",
        record=True,
    )
    growth: str = option(
        "fresh",
        "how --expand makes new units: fresh (random incoming weights, zero outgoing weights: the "
        "function is unchanged and the new units differ from the old) or net2net (copies of existing "
        "units with their outgoing weights shared out; the copies stay near-identical twins under "
        "low-LR training)",
        choices=GROWTHS,
    )
    board_features: bool = option(
        False,
        "the network also reads the 20 hand-made board features of features.py (hitting chances, escapes, "
        "primes...): a new one from the start, a loaded one that lacks them gets them with zero weights "
        "(function-preserving)",
    )
    activation: str | None = option(
        None,
        "hidden units of a new network (default relu; Tesauro used sigmoid; leaky_relu has slope 0.01); a "
        "loaded one keeps its own",
        choices=ACTIVATIONS,
    )
    resume: str | None = option(
        None,
        "continue from a checkpoint: its unfinished stage, with the settings it "
        "recorded (a flag given that differs is refused); a finished one: a new stage "
        "on its weights",
        metavar="CKPT",
    )
    new_stage: bool = option(
        False,
        "with --resume of an unfinished stage: start a new stage on its weights instead; "
        "with --overwrite: replace an unfinished stage at --save",
    )
    warm_start_equity: str | None = option(
        None, "DMP trunk + fresh equity head -> cubeless money", metavar="DMP_CKPT"
    )
    warm_start_cubeful: str | None = option(
        None, "196 -> 200 inputs -> cubeful money", metavar="CUBELESS_CKPT"
    )
    warm_start_match: str | None = option(
        None, "200 -> 208 inputs, MWC head -> match play", metavar="CUBEFUL_CKPT"
    )
    match_head: str | None = option(
        None,
        "with --warm-start-match: mwc (one sigmoid, the default) or mwc-outcomes (outcome probabilities "
        "weighted by the score's payoffs; also converts an mwc match model)",
        choices=("mwc", "mwc-outcomes"),
    )
    keep_output_layer: bool = option(
        False,
        "with --warm-start-equity: keep the DMP head (halved: equity 2 P(win) - 1 ~ logit / 2) instead of a "
        "fresh small random one",
    )
    match_length: int | None = option(
        None,
        "match play: self-play games start from the scores of N-point matches (default: a spread up to 25 "
        "away, mostly within 11)",
        type="match_length_arg",
    )
    met: str | None = option(
        None,
        "match play: match equity table in GNU Backgammon's XML format (default: the "
        "shipped Kazaross-XG2, data/met/)",
        metavar="XML",
    )
    jacoby: bool = option(True, "cubeful: Jacoby rule", negatable=True)
    hidden_given: bool = derived(
        False, "--hidden was given: a loaded network's sizes must be these"
    )

    def sources(self) -> dict[str, str]:
        """The checkpoints the spec starts from, by field name (build_model allows one)."""
        named = {
            "resume": self.resume,
            "warm_start_equity": self.warm_start_equity,
            "warm_start_cubeful": self.warm_start_cubeful,
            "warm_start_match": self.warm_start_match,
        }
        for name, path in named.items():
            if path == "":  # (taken as not given, it trained a new network from scratch)
                raise InputError(
                    f"--{name.replace('_', '-')} '': an empty path names no checkpoint"
                )
        return {name: path for name, path in named.items() if path}


@dataclass(frozen=True)
class Schedule:
    """How long the stage runs, in rounds of how many episodes, and its learning rate."""

    num_episodes: int = option(10000, "episodes in this stage", type="positive_int")
    episodes_per_round: int = option(
        500,
        "self-play episodes collected before each training pass",
        type=("count_arg", MAX_EPISODES_PER_ROUND, "(a round is held in memory)"),
    )
    # 3e-4, not 1e-3: from scratch, Adam at 1e-3 killed a third of a [128,128] net's ReLU units within
    # 40,000 episodes (dead units get no gradient); 3e-4 kept them alive and played best of 1e-3, 3e-4 and
    # 1e-4 after 300,000 episodes (docs/training.md, "A base that stays alive")
    lr: float = option(3e-4, "learning rate (start of the schedule)", type="learning_rate")
    end_lr: float | None = option(
        None, "linear anneal target (default: none, a constant --lr)", type="learning_rate"
    )
    warmup_cycles: int = option(0, "rounds ramping 0.1x -> 1x", type="non_negative_int")


@dataclass(frozen=True)
class Optimisation:
    """The batch learner's optimizer and minibatches (trainer.py), and prob5's loss (losses.py)."""

    optimizer: str = option("adam", "optimizer", choices=OPTIMIZERS)
    momentum: float = option(
        0.0, "SGD momentum, 0..1 (with --optimizer sgd)", type="momentum_arg", record=True
    )
    grad_clip: float | None = option(
        None,
        "scale each minibatch's gradient down to at most this global L2 norm (default: off)",
        type="positive_float",
        metavar="NORM",
        record=True,
    )
    batch_size: int = option(256, "minibatch size", type="positive_int")
    epochs: int = option(1, "training passes over each round's samples", type="positive_int")
    # the five-output model's loss: the equity models train on squared error, and only
    # train_prob5.py offers these (Prob5Optimisation)
    loss: str = option(
        "mse",
        "loss on the five outputs: squared error, or binary cross-entropy of each output "
        "against its target probability",
        choices=LOSSES,
        record=True,
        fixed=True,
    )
    win_weight: float = option(
        1.0,
        "weight of the P(win) output's term in the loss (the other four weigh 1)",
        type="positive_float",
        record=True,
        fixed=True,
    )
    raw_logits: bool = option(
        False,
        "with --loss cross-entropy: compute it from the head's logits in log space (exact where a saturated "
        "sigmoid would round to 0 or 1) instead of from clamped probabilities",
        record=True,
        fixed=True,
    )


@dataclass(frozen=True)
class Acting:
    """How self-play chooses what it plays (selfplay.py's notes): exploration of cube actions,
    Boltzmann temperature (0: greedy), 1-ply move choice, and 1-ply values at cube nodes
    (targets and decisions); and whether its targets are lambda-returns (``td_lambda``).
    Every field is a flag of the batch trainers and is recorded in the stage; self-play's
    workers receive this value whole (selfplay.SelfPlaySetup)."""

    cube_explore: float = option(
        0.0,
        "cube modes: with this chance a mover doubles although its rule says not to, and a double is taken "
        "although the rule would drop it, so the branches greedy play avoids are visited and learned; "
        "cube-node targets stay the greedy rule's value (0: greedy)",
        type="probability_arg",
        metavar="P",
        record=True,
    )
    cube_hold: float = option(
        0.0,
        "cube modes: with this chance a mover rolls on where its rule says double, so the value of keeping "
        "the cube is learned in the positions the rule doubles in (greedy play never visits them); cube-node "
        "targets stay the greedy rule's value (0: greedy)",
        type="probability_arg",
        metavar="P",
        record=True,
    )
    take_explore: float = option(
        0.0,
        "cube modes: with this chance a double the rule would drop is taken, so the value after a take is "
        "learned where greedy play never takes; targets stay greedy (0: greedy)",
        type="probability_arg",
        metavar="P",
        record=True,
    )
    cube_start: float = option(
        0.0,
        "match play: with this chance a self-play game starts with the cube already turned (2 or 4, owned by "
        "the side that took it) at its score, so positions after a take are learned at every score, also "
        "where greedy self-play would drop (0: all centred)",
        type="probability_arg",
        metavar="P",
        record=True,
    )
    cube_targets_1ply: bool = option(
        False,
        "cubeful/match: exact 1-ply values (all 21 rolls) at cube nodes only, for their targets and the "
        "cube decisions played",
        record=True,
    )
    boltzmann_temp: float = option(
        0.0,
        "self-play plays a roll's candidate i with probability ~ exp(s_i / T), s the mover's P(win) or equity "
        "(0: greedy). Targets stay greedy: the best candidate's value (or the 1-ply mean of each roll's best), "
        "whatever move is played",
        type="non_negative_float",
        metavar="T",
        record=True,
    )
    td_lambda: float = option(
        0.0,
        "targets are lambda-returns over each self-play game (0: one-step TD(0) targets, 1: the game's "
        "outcome), cut where exploration played a non-greedy action",
        type="probability_arg",
        metavar="L",
        record=True,
    )
    oneply_acting: bool = option(
        False,
        "self-play picks moves (or, with --boltzmann-temp, weighs them) by their 1-ply value; the targets "
        "are still set by --oneply alone",
        record=True,
    )

    def check(self, mode: GameMode) -> None:
        """ValueError unless every option applies to ``mode`` (checked where a run begins,
        before any game, and by each SelfPlay)."""
        if self.boltzmann_temp < 0:
            raise ValueError(f"--boltzmann-temp must be >= 0, got {self.boltzmann_temp}")
        if not 0.0 <= self.td_lambda <= 1.0:
            raise ValueError(f"--td-lambda must be 0 to 1, got {self.td_lambda}")
        if self.cube_targets_1ply:
            mode.require(
                f"--cube-targets-1ply needs a game mode with a cube, not {mode.name}", cube=True
            )
        for flag, used in (
            ("--cube-explore", self.cube_explore),
            ("--cube-hold", self.cube_hold),
            ("--take-explore", self.take_explore),
        ):
            if used:
                mode.require(f"{flag} applies to modes with a cube, not {mode.name}", cube=True)
        if self.cube_start:
            mode.require(f"--cube-start applies to match play, not {mode.name}", match=True)


@dataclass(frozen=True)
class CollectionScoring(ScoringSettings):
    """How self-play's Scorer scores candidates (scoring.ScoringSettings, which the Scorer
    takes whole), with the training scripts' flags and words; the precision's default, auto,
    is made concrete before self-play starts (batch_td.BatchLearner.prepare)."""

    first_layer: str = variant(
        ScoringSettings,
        "first_layer",
        help="candidates' first layer: incremental (from the pre-move sums, C engine) or "
        "dense; auto: incremental on the CPU",
        flag="--scoring",
    )
    precision: str = variant(
        ScoringSettings,
        "precision",
        "auto",
        "self-play's candidate scoring after the first layer: fp32 (torch), or C kernels in fp32-c "
        "(float32, AVX-512 FMA), bf16 (AVX512_BF16) or int8 (AVX512_VNNI), float32 C where the CPU lacks "
        "them (lowp.py); auto: bf16 where the CPU, the model (ReLU, hidden sizes multiples of 16) and "
        "the settings allow it, else fp32; a continued stage keeps the precision it recorded. "
        "Training, export and evaluation stay float32",
        flag="--collect-precision",
        choices=("auto", "fp32", "fp32-c", "bf16", "int8"),
        record=True,
    )


@dataclass(frozen=True)
class Collection:
    """How self-play collects a round's samples: its targets, worker processes and scoring.
    Self-play's workers receive this value whole (selfplay.SelfPlaySetup) and read each
    field where it is used."""

    oneply: bool = option(False, "exact 1-ply targets (all 21 rolls)")
    oneply_filter: int = option(
        0,
        "with --oneply: value only the K best candidates of each roll by the checkpoint's small move filter (a "
        "[64] net trained alongside on the network's own values) with the full network; the roll actually "
        "thrown is valued in full. 0: exact 1-ply",
        type="non_negative_int",
        metavar="K",
        record=True,
    )
    filter_exact_races: bool = option(
        False,
        "with --oneply-filter: value every candidate of positions with no contact left (races and bear-offs, "
        "where the filter misses most), so that only contact positions are filtered",
        record=True,
    )
    filter_warmup: int = option(
        DEFAULT_WARMUP_EPISODES,
        "with --oneply-filter, at the start of a new stage: fit the filter (a new one when "
        "the checkpoint has none, else its own, which may be stale) on N episodes of 0-ply "
        "self-play (not trained on by the network); a continued stage skips it",
        type="positive_int",
        metavar="N",
    )
    workers: int = option(
        1, f"self-play processes (at most {MAX_WORKERS_PER_CORE} per core)", type="workers_arg"
    )
    overlap: bool = option(
        False,
        "collect the next round while training on this one, on the weights before this round's training "
        "(targets one round staler, so other games and weights; docs/training.md has its paired strength "
        "checks); --workers 1 then plays in a process of its own beside the trainer (docs/speed.md)",
        record=True,
    )
    parallel_games: int = option(128, "games advanced together per process", type="positive_int")
    scoring: CollectionScoring = CollectionScoring()  # --scoring, --collect-precision


@dataclass(frozen=True)
class Run:
    """Seeds, where the work runs, and the stage's outputs (run_control.py)."""

    engine: str = option("auto", "move generator", choices=ENGINES)
    device: str = option("cpu", "where training runs", choices=("cpu", "cuda"))
    threads: int | None = threads_option(
        "1, or for a batch-trained net of 2M parameters or more the cores left free by the self-play workers"
    )
    seed: int = option(
        0,
        "random seed (dice and exploration; also weights and minibatch order unless --torch-seed)",
        type="seed_arg",
    )
    torch_seed: int | None = option(
        None,
        "seed of weight initialisation, growth and minibatch order (default: --seed)",
        type="seed_arg",
    )
    save: str | None = option(
        None, "checkpoint path (written atomically after every round)", required=True
    )
    save_every: int = option(
        0,
        "also keep a snapshot every N rounds beside --save, named STEM_rNNNNNN.pt (the round count of the "
        "stage); 0: none",
        type="non_negative_int",
        metavar="N",
    )
    stop_at: int = option(
        0,
        "end this run once the stage has N episodes, the stage left unfinished (the same command without it, "
        "or --resume X --save X alone, continues the stage: its LR schedule runs over the full "
        "--num-episodes); 0: at the stage's end",
        type="non_negative_int",
        metavar="N",
    )
    overwrite: bool = option(
        False,
        "allow replacing existing output files of the same kind (--save, the log, "
        "--json); never an unfinished stage at --save: without it the same command "
        "continues the stage, and --new-stage with it replaces the stage",
    )
    log: str | None = option(
        None,
        "CSV log path (default: --save with .csv; a stage continued at its own --save appends "
        "to the log it wrote, which must still be there; continued into another --save, it "
        "starts a log of its own there)",
    )
    tensorboard: str | None = option(
        None,
        "also log the CSV's numbers for TensorBoard here (needs the tensorboard package)",
        metavar="DIR",
    )
    quiet: bool = option(False, "no progress bar")
    json: str | None = option(None, "write the run summary here", metavar="PATH")
    log_continues: bool = derived(
        False,
        "the log is the one the stage this run continues wrote (a --log of its "
        "own): the run appends to it, as to --save's own log",
    )
    json_continues: bool = derived(
        False,
        "--json is the summary the stage this run continues recorded (written when an earlier "
        "run of it stopped): the run rewrites it",
    )

    def weights_seed(self) -> int:
        """The seed of weight initialisation and minibatch order: torch_seed, else seed."""
        return self.seed if self.torch_seed is None else self.torch_seed


@dataclass(frozen=True)
class Evaluation:
    """The quick evaluation every so often during the stage (evaluation.quick_eval)."""

    eval_every: int = option(0, "rounds between quick evals (0: off)", type="non_negative_int")
    eval_games: int = option(200, "games per quick eval", type=("count_arg", 1_000_000, "games"))
    eval_opponent: str = option("pubeval", "quick-eval opponent", choices=opponents.NAMES)
    health_every: int = option(
        100,
        "log rows between unit-health measurements (dead, distinct and active hidden units on the net's own "
        "self-play positions: net/health.py); they are also logged with every snapshot, quick eval and the "
        "stage's last row; 0: only then",
        type="non_negative_int",
        metavar="N",
    )


@dataclass(frozen=True)
class BatchStage:
    """train_batch.py's stage: batch TD (batch_td.BatchLearner)."""

    model: ModelSpec = ModelSpec()
    schedule: Schedule = Schedule()
    acting: Acting = Acting()
    optimisation: Optimisation = Optimisation()
    collection: Collection = Collection()
    run: Run = Run()
    evaluation: Evaluation = Evaluation()
    where: Backend = Backend()  # where the self-play workers run


# train_prob5.py: train_batch.py's fields, cubeless money, the five-output loss offered; the
# warm starts and the cube's flags taken but not listed (warm starts make equity models)
@dataclass(frozen=True)
class Prob5ModelSpec(ModelSpec):
    game_mode: str | None = variant(
        ModelSpec, "game_mode", "cubeless-money", "prob5 models play cubeless money only"
    )
    warm_start_equity: str | None = unlisted(ModelSpec, "warm_start_equity")
    warm_start_cubeful: str | None = unlisted(ModelSpec, "warm_start_cubeful")
    keep_output_layer: bool = unlisted(ModelSpec, "keep_output_layer")
    jacoby: bool = unlisted(ModelSpec, "jacoby")


@dataclass(frozen=True)
class Prob5Acting(Acting):
    cube_targets_1ply: bool = unlisted(Acting, "cube_targets_1ply")


@dataclass(frozen=True)
class Prob5Optimisation(Optimisation):
    loss: str = variant(Optimisation, "loss", fixed=False)
    win_weight: float = variant(Optimisation, "win_weight", fixed=False)
    raw_logits: bool = variant(Optimisation, "raw_logits", fixed=False)


@dataclass(frozen=True)
class Prob5Stage(BatchStage):
    """train_prob5.py's stage: batch TD of a five-output model in cubeless money."""

    model: Prob5ModelSpec = Prob5ModelSpec()
    acting: Prob5Acting = Prob5Acting()
    optimisation: Prob5Optimisation = Prob5Optimisation()


# train_online.py: the same fields, with the online learner's defaults and words; what the
# online learner does not use (warm starts, board features, match play, rounds, the device,
# snapshots, the summary file) is held at its default, with no flag
@dataclass(frozen=True)
class OnlineModelSpec(ModelSpec):
    game_mode: str | None = variant(ModelSpec, "game_mode", choices=SCALAR_MODES)
    expand: tuple[int, ...] | None = variant(
        ModelSpec,
        "expand",
        help="grow the loaded/new net to these hidden sizes (Net2Net, function-preserving; as "
        "train_batch.py)",
    )
    expand_depth_size: int | None = variant(
        ModelSpec,
        "expand_depth_size",
        help="append a hidden layer of N units, function-preserving (as train_batch.py; ReLU nets)",
    )
    activation: str | None = variant(
        ModelSpec,
        "activation",
        help="hidden units of a new network (default relu; Tesauro used sigmoid)",
    )
    board_features: bool = fixed(ModelSpec, "board_features")
    warm_start_equity: str | None = fixed(ModelSpec, "warm_start_equity")
    warm_start_cubeful: str | None = fixed(ModelSpec, "warm_start_cubeful")
    warm_start_match: str | None = fixed(ModelSpec, "warm_start_match")
    match_head: str | None = fixed(ModelSpec, "match_head")
    keep_output_layer: bool = fixed(ModelSpec, "keep_output_layer")
    match_length: int | None = fixed(ModelSpec, "match_length")
    met: str | None = fixed(ModelSpec, "met")
    jacoby: bool = fixed(ModelSpec, "jacoby")


@dataclass(frozen=True)
class OnlineSchedule(Schedule):
    lr: float = variant(Schedule, "lr", 0.1, "SGD step size alpha")
    end_lr: float | None = variant(
        Schedule,
        "end_lr",
        help="linear anneal target per log block (default: none, a constant --lr)",
    )
    episodes_per_round: int = fixed(Schedule, "episodes_per_round")
    warmup_cycles: int = fixed(Schedule, "warmup_cycles")


@dataclass(frozen=True)
class OnlineRun(Run):
    seed: int = variant(Run, "seed", help="random seed (dice; weights too unless --torch-seed)")
    torch_seed: int | None = variant(
        Run, "torch_seed", help="seed of weight initialisation and growth (default: --seed)"
    )
    save: str | None = variant(
        Run, "save", help="checkpoint path (written atomically every --log-every episodes)"
    )
    overwrite: bool = variant(
        Run,
        "overwrite",
        help="allow replacing existing output files of the same kind (--save, the log)",
    )
    device: str = fixed(Run, "device")
    save_every: int = fixed(Run, "save_every")
    json: str | None = fixed(Run, "json")


@dataclass(frozen=True)
class OnlineEvaluation(Evaluation):
    eval_every: int = variant(
        Evaluation, "eval_every", help="episodes between quick evals (0: off)"
    )


@dataclass(frozen=True)
class Online:
    """Online TD(lambda)'s own (online_td.py): the trace decay, and games per log row."""

    lam: float = option(0.7, "trace decay, 0..1 (0 = TD(0))", type="finite_float", flag="--lambda")
    log_every: int = option(100, "episodes per log row and save", type="positive_int")


@dataclass(frozen=True)
class OnlineStage:
    """train_online.py's stage: online TD(lambda) (online_td.OnlineLearner)."""

    model: OnlineModelSpec = OnlineModelSpec()
    schedule: OnlineSchedule = OnlineSchedule()
    online: Online = Online()
    run: OnlineRun = OnlineRun()
    evaluation: OnlineEvaluation = OnlineEvaluation()


def recorded(settings) -> dict:
    """The ``record`` fields of ``settings`` and the settings within it that are not at their
    defaults, by name (a stage's optional settings, stored in its checkpoint)."""
    out = {}
    for f in fields(settings):
        value = getattr(settings, f.name)
        if is_dataclass(value):
            out.update(recorded(value))
        elif f.metadata.get("record") and value != f.default:
            out[f.name] = value
    return out


def _recorded_defaults(settings) -> dict:
    """The ``record`` fields of ``settings`` (an instance: a trainer's own defaults) and of
    the settings within it, by name, with their values there."""
    out = {}
    for f in fields(settings):
        value = getattr(settings, f.name)
        if is_dataclass(value):
            out.update(_recorded_defaults(value))
        elif f.metadata.get("record"):
            out[f.name] = value
    return out


# a stage's compared settings named otherwise in its config (online's --lambda: field lam)
CONFIG_NAMES: dict[str, str] = {"lambda": "lam"}
# what a stage that recorded no precision collected in (training.md: before auto existed)
UNRECORDED = {"precision": "fp32"}


def _alike(a, b) -> bool:
    """Two records of one setting that say the same (a list as the tuple it was; True is no 1)."""
    a, b = (list(v) if isinstance(v, tuple) else v for v in (a, b))
    return (type(a) is bool) == (type(b) is bool) and a == b


def check_record_agrees(stage: dict, stage_class, path: str) -> None:
    """InputError unless a stage's two records of its settings say the same: its compared
    settings (the learner's, which a continued stage is held to) and its config (every flag,
    which a continued stage takes up and ``describe_model --config`` prints as the stage
    file).  A run writes both from one stage, so a setting where they differ (an LR of 0.001
    in one, 3e-4 in the other; a --td-lambda in the config that the settings, which record
    it whenever it is not the default, do not hold) was damaged: taken, the continued stage
    trained with the one and its stage file ran the other, neither the stage recorded.
    ``stage_class``: the trainer's settings (BatchStage, Prob5Stage, OnlineStage)."""
    settings, config = stage.get("settings"), stage.get("config")
    if not isinstance(settings, dict) or not isinstance(config, dict):
        return
    names = flag_names(stage_class)

    def refuse(name: str, theirs, mine) -> None:
        raise InputError(
            f"{path}: its stage's settings record --{names.get(name, name.replace('_', '-'))} "
            f"{theirs!r:.40} and its config {mine!r:.40}; a run records the same in both"
        )

    for key, value in settings.items():
        name = CONFIG_NAMES.get(str(key), str(key))
        if name not in config or key == "game_mode":
            continue  # (the game mode: None in the config, the checkpoint's own; check_started)
        if key == "num_episodes":  # (a stage ended early by older code rewrote only its
            continue  # settings' count: those win, as when it continues)
        if key == "precision" and config[name] == "auto":  # (the flag as given: the settings
            continue  # record what it chose)
        if not _alike(value, config[name]):
            refuse(name, value, config[name])
    for name, default in _recorded_defaults(stage_class()).items():
        if name in config and name not in settings:  # recorded only where not the default
            expected = UNRECORDED.get(name, default)
            if not _alike(config[name], expected):
                refuse(name, expected, config[name])


# the checkpoints a stage records as having begun it (--resume, a warm start)
RECORDED_SOURCES = ("resume", "warm_start_equity", "warm_start_cubeful", "warm_start_match")


def is_path_text(value) -> bool:
    """Whether a stage's record of a checkpoint that began it is a path at all: None (none) or
    text without a NUL (a damaged or crafted file may hold a number, a dict or a NUL there,
    which compared or carried on as a path failed in os.path or was kept unsaid).  The file
    need not be there still: a stage continues from its own checkpoint."""
    return value is None or (isinstance(value, str) and "\0" not in value)


# the mode each warm start trains (ModelSpec field -> mode class)
WARM_START_MODES: dict[str, type[GameMode]] = {
    "warm_start_equity": CubelessMoney,
    "warm_start_cubeful": CubefulMoney,
    "warm_start_match": MatchPlay,
}


def _sizes(value) -> bool:
    return isinstance(value, list) and all(
        type(v) is int and v > 0
        for v in value  # (not a bool, nor 8.0)
    )


def _mode_class_of(name) -> type[GameMode] | None:
    """The class of the game mode ``name`` names, or None for a name of no mode."""
    try:
        return mode_class(name)
    except (ValueError, TypeError):
        return None


def _check_sizes(started: dict, model, source: str | None, default_hidden: list, refuse) -> None:
    """check_started's hidden sizes: --expand (and --expand-depth-size) say them, else a
    stage begun anew has --hidden's; a loaded network's record is --hidden's default (the
    flag unset) or the loaded sizes."""
    hidden, expand = started.get("hidden"), started.get("expand")
    depth = started.get("expand_depth_size")  # (a setting, not among STAGE_START: in the config)
    for name, value in (("hidden", hidden), ("expand", expand)):
        if value is not None and not _sizes(value):
            refuse(name, value, "has hidden sizes " + ",".join(map(str, model.hidden)))
    if depth is not None and (type(depth) is not int or model.hidden[-1] != depth):
        refuse("expand_depth_size", depth, f"ends in a layer of {model.hidden[-1]} units")
    shown = "has hidden sizes " + ",".join(map(str, model.hidden))
    sizes = list(expand) if expand else (list(hidden) if hidden and not source else None)
    if sizes is not None and sizes + ([depth] if depth else []) != list(model.hidden):
        refuse("expand" if expand else "hidden", started["expand" if expand else "hidden"], shown)
    if (
        source
        and hidden
        and not expand
        and not depth
        and hidden not in (default_hidden, model.hidden)
    ):
        refuse("hidden", hidden, shown)


def check_started(started: dict, model, mode, path: str, default_hidden=(80,)) -> None:
    """InputError unless a stage's record of what made its network (``started``: its
    recorded settings, the config: --hidden, --expand, --expand-depth-size,
    --board-features, --activation, --game-mode, its warm start, --keep-output-layer and
    --match-head) says what the network is: the record is carried into each checkpoint of
    the stage, and a stage file made from it (describe_model --config) runs it again, so a
    damaged one (--hidden 999 for a network of 8) made another network unsaid.  Where the
    stage began from a checkpoint its sizes, inputs, mode and activation came from that one,
    and only what the flags set is compared (``default_hidden``: --hidden when not given)."""

    def refuse(name: str, value, what: str) -> None:
        raise InputError(
            f"{path}: its stage records --{name.replace('_', '-')} {value!r:.40}, "
            f"where its network {what}"
        )

    sources = [n for n in RECORDED_SOURCES if started.get(n) is not None]
    if len(sources) > 1:  # (a stage begins from one checkpoint: build_model refuses more)
        refuse(sources[1], started[sources[1]], f"began from --{sources[0].replace('_', '-')}")
    source = sources[0] if sources else None
    _check_sizes(started, model, source, list(default_hidden), refuse)
    features = reads_board_features(model.n_inputs)
    recorded = started.get("board_features")
    if recorded is not None and (
        not isinstance(recorded, bool)
        or (recorded and not features)
        or (not recorded and features and not source)
    ):
        refuse("board_features", recorded, f"reads {model.n_inputs} inputs")
    activation = started.get("activation")  # None: the checkpoint's, or relu from scratch
    expected = activation if activation is not None else (None if source else "relu")
    if expected is not None and expected != model.activation:
        refuse("activation", activation, f"has {model.activation} hidden units")
    if source in WARM_START_MODES and type(mode) is not WARM_START_MODES[source]:
        refuse(source, started[source], f"plays {mode.name}")
    if not source and type(mode) is not _mode_class_of(started.get("game_mode") or "dmp"):
        refuse("game_mode", started.get("game_mode"), f"plays {mode.name}")
    if started.get("keep_output_layer") and source != "warm_start_equity":
        began = f"from --{source.replace('_', '-')}" if source else "anew"
        refuse("keep_output_layer", True, f"began {began}")
    head = started.get("match_head")
    if head is not None and (source != "warm_start_match" or model.output_mode != head):
        refuse("match_head", head, f"has a {model.output_mode} head")


# what made the stage's network: applied when a stage starts (a continued stage's checkpoint
# already holds the result), so a continued stage never takes them from its record
STAGE_START = (
    "resume",
    "new_stage",
    "warm_start_equity",
    "warm_start_cubeful",
    "warm_start_match",
    "match_head",
    "keep_output_layer",
    "hidden",
    "activation",
    "expand",
    "growth",
    "board_features",
)
# this run's outputs and manners: not the stage's, and not written into its record
RUN_ONLY = ("overwrite", "stop_at", "quiet", "threads")


def flag_names(settings_class) -> dict[str, str]:
    """field name -> its flag without the dashes (``lam`` -> ``lambda``, ``precision`` ->
    ``collect-precision``), for a stage's settings and the settings within them."""
    out = {}
    for f in fields(settings_class):
        if is_dataclass(f.default):
            out.update(flag_names(type(f.default)))
        else:
            flag = f.metadata.get("flag")
            out[f.name] = flag[2:] if flag else f.name.replace("_", "-")
    return out


def stage_config(settings) -> dict:
    """Every setting of a stage (the fields of ``settings`` and the settings within it, by
    name) but this run's own (RUN_ONLY) and those worked out rather than given: what its
    checkpoint records so that a continued stage takes the same, and a stage file can
    reproduce it.  Tuples as lists (plain data, as a checkpoint and TOML hold them)."""
    out = {}
    for f in fields(settings):
        value = getattr(settings, f.name)
        if is_dataclass(value):
            out.update(stage_config(value))
        elif f.name not in RUN_ONLY and f.metadata.get("flag", "") is not None:
            out[f.name] = list(value) if isinstance(value, tuple) else value
    return out
