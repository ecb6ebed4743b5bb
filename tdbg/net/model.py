"""The value network (an MLP) and its checkpoint format.

Three output modes, all read from the side on roll:

* ``probability``: one sigmoid, P(win) (DMP).
* ``equity``: one linear unit, money equity at cube value 1 (cubeless, or cubeful
  normalised to the cube value).
* ``mwc``: one sigmoid, the match-winning chance (match play, matchplay.py).
* ``mwc-outcomes``: the match-winning chance read out through the score: five
  sigmoids as in prob5 give the outcome probabilities, and the MWC is their sum
  weighted by the six payoff inputs (``outcome_mwc``).
* ``prob5``: five sigmoids giving P(win), P(win gammon), P(win backgammon),
  P(lose gammon), P(lose backgammon) (gammons include backgammons), chained as
  conditional probabilities so the five are always consistent.

Hidden units use ``activation`` (ACTIVATIONS: relu by default; Tesauro used sigmoid;
leaky_relu has slope 0.01 below zero, torch's default).

A checkpoint (.pt) is one dict holding the weights and every piece of metadata
needed to use it (inputs, hidden sizes, output mode, activation, game mode,
episodes, lineage), so nothing that loads one needs flags; one without an
``activation`` is relu (written before there was a choice).  Writes are atomic.

A checkpoint may also hold a *move filter* (move_filter.py: a small network on the same
inputs and head that ranks 1-ply candidates), under the optional key ``move_filter``.
It rides on the model object outside its module tree (``move_filter_of`` /
``set_move_filter``), so the model's state_dict, parameters and optimizer never see it;
a checkpoint without one loads as before, and code that predates it ignores the key.
"""

from __future__ import annotations

import hashlib
import io
import os
from collections.abc import Sequence
from itertools import pairwise
from typing import cast

import torch
from torch import nn

from tdbg.game.encoding import MATCH_PAYOFFS, NUM_BOARD_FEATURES
from tdbg.game.heads import OUTPUT_MODES, output_head
from tdbg.game.modes import MODES, CubefulMoney, GameMode, MatchPlay, for_mode, mode_class
from tdbg.infra.errors import InputError
from tdbg.infra.fileio import KIND_NAMES, atomic_write, content_kind
from tdbg.infra.provenance import command, git_commit, utc_now

CHECKPOINT_FORMAT = "tdbg-checkpoint"
CHECKPOINT_VERSION = 1
# the layout of each game mode's inputs (its n_inputs), as checkpoints name it; keyed by the
# mode's class (game.modes.for_mode)
LAYOUTS = {
    GameMode: "tesauro196",
    CubefulMoney: "tesauro196+cube4",
    MatchPlay: "tesauro196+cube4+match8",
}


def input_layout(mode, n_inputs: int) -> str:
    """The layout of a network of ``mode`` (a game mode or its class) with ``n_inputs`` inputs:
    the mode's own, "+board20" when it also reads the board features (features.py) after
    them; ValueError for a count that fits neither."""
    layout = for_mode(LAYOUTS, mode)
    if n_inputs == mode.n_inputs:
        return layout
    if n_inputs == mode.n_inputs + NUM_BOARD_FEATURES:
        return layout + "+board20"
    raise ValueError(
        f"{mode.name} needs a {mode.n_inputs}-input model (or {mode.n_inputs + NUM_BOARD_FEATURES} "
        f"with board features), this one has {n_inputs}"
    )


# every input layout a mode names (raw, and with the board features), by input count: the
# counts a network may have, and the name of a checkpoint made with no mode
ENCODERS = {
    n: input_layout(cls, n)
    for cls in (*MODES.values(), MatchPlay)
    for n in (cls.n_inputs, cls.n_inputs + NUM_BOARD_FEATURES)
}
ACTIVATIONS = {
    "relu": torch.relu,
    "sigmoid": torch.sigmoid,
    "tanh": torch.tanh,
    "leaky_relu": torch.nn.functional.leaky_relu,
}  # name -> function (hidden units)


class CheckpointError(InputError):
    """A checkpoint that cannot be used: missing, corrupt, truncated or of the wrong kind (bad
    input: a script that meets one says so in one line)."""


class TDNetwork(nn.Module):
    """MLP with ``activation`` hidden layers and a head chosen by ``output_mode``."""

    samples: int  # a move filter's: the after-states it was trained on (set on filters only)

    def __init__(
        self,
        n_inputs: int = 196,
        hidden=(80,),
        output_mode: str = "probability",
        activation: str = "relu",
    ):
        super().__init__()
        if activation not in ACTIVATIONS:
            raise ValueError(
                f"unknown activation {activation!r}; choose one of {', '.join(ACTIVATIONS)}"
            )
        if output_mode not in OUTPUT_MODES:
            raise ValueError(
                f"unknown output mode {output_mode!r}; choose one of {', '.join(OUTPUT_MODES)}"
            )
        hidden = [int(h) for h in hidden]
        if not hidden or any(h < 1 for h in hidden):
            raise ValueError(f"hidden sizes must be positive whole numbers, got {hidden}")
        if n_inputs not in ENCODERS:
            raise ValueError(f"n_inputs must be one of {sorted(ENCODERS)}, got {n_inputs}")
        sizes = [n_inputs] + hidden + [5]
        weights = sum((a + 1) * b for a, b in pairwise(sizes))
        if (
            weights * 4 > physical_memory()
        ):  # refused before torch tries (and the machine swaps or kills)
            raise ValueError(
                f"hidden sizes {hidden} make {weights:,} weights ({weights * 4 / 2**30:.1f} GiB), "
                f"more than this machine's memory ({physical_memory() / 2**30:.1f} GiB)"
            )
        self.n_inputs = n_inputs
        self.hidden = hidden
        self.output_mode = output_mode
        self.activation = activation
        self.act = ACTIVATIONS[activation]
        sizes = [n_inputs] + hidden
        try:
            # an nn.ModuleList (its parameters register); the checker sees the Linear layers it holds
            self.layers = cast(
                "Sequence[nn.Linear]", nn.ModuleList(nn.Linear(a, b) for a, b in pairwise(sizes))
            )
            self.head = nn.Linear(hidden[-1], output_head(output_mode).net_outputs)
        except (MemoryError, RuntimeError) as exc:  # torch's allocator fails with a RuntimeError
            raise ValueError(
                f"hidden sizes {hidden}: cannot allocate the network "
                f"({(str(exc).splitlines() or [type(exc).__name__])[0][:120]})"
            ) from None
        self.reads_payoffs = output_head(output_mode).reads_payoffs

    @property
    def n_outputs(self) -> int:
        return self.head.out_features

    def trunk(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            x = self.act(layer(x))
        return x

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """(N, n_inputs) -> (N,) for scalar heads, (N, 5) for prob5."""
        return self.from_first_hidden(
            self.act(self.layers[0](x)), x[:, MATCH_PAYOFFS] if self.reads_payoffs else None
        )

    def from_first_pre(self, x: torch.Tensor, payoffs: torch.Tensor | None = None) -> torch.Tensor:
        """The rest of forward from the first hidden layer's pre-activations W1 x + b1."""
        return self.from_first_hidden(self.act(x), payoffs)

    def logits(self, x: torch.Tensor) -> torch.Tensor:
        """The head's raw outputs (before its sigmoids), (N, width): for losses computed in
        log space (losses.py)."""
        return self.head(self.trunk(x))

    def from_first_hidden(
        self, x: torch.Tensor, payoffs: torch.Tensor | None = None
    ) -> torch.Tensor:
        """The rest of forward from the first hidden layer's activations, which scoring
        can compute more cheaply than a full matrix product (scoring.py).  ``payoffs``:
        the rows' six payoff inputs, for a head that reads them (mwc-outcomes)."""
        for i in range(1, len(self.layers)):  # (slicing a ModuleList builds a new one per call)
            x = self.act(self.layers[i](x))
        return self.head_output(self.head(x), payoffs)

    def head_output(self, out: torch.Tensor, payoffs: torch.Tensor | None = None) -> torch.Tensor:
        """The head's nonlinearity on its raw outputs ``out`` = ``self.head(x)`` (also applied
        to the reduced-precision kernels' raw outputs, lowp.py)."""
        if self.output_mode == "equity":
            return out.squeeze(-1)
        out = torch.sigmoid(out)
        if self.reads_payoffs:
            if payoffs is None:
                raise ValueError(f"a {self.output_mode} network needs the rows' payoff inputs")
            return outcome_mwc(prob5_from_conditionals(out), payoffs)
        if self.output_mode != "prob5":  # probability, mwc
            return out.squeeze(-1)
        return prob5_from_conditionals(out)

    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())

    def describe(self) -> str:
        act = "" if self.activation == "relu" else f", {self.activation}"
        return (
            f"[{','.join(map(str, self.hidden))}] {self.n_inputs} inputs, {self.output_mode}{act}"
        )


def outcome_mwc(p: torch.Tensor, payoffs: torch.Tensor) -> torch.Tensor:
    """MWC from prob5 outcome probabilities (gammons include backgammons) and the six
    payoffs (the MWC after winning a single game, a gammon, a backgammon, then after
    losing each): the outcomes are exclusive once gammons are split from backgammons."""
    win, wg, wbg, lg, lbg = p.unbind(dim=1)
    exclusive = torch.stack([win - wg, wg - wbg, wbg, 1 - win - lg, lg - lbg, lbg], dim=1)
    return (exclusive * payoffs.to(exclusive.dtype)).sum(dim=1)


def prob5_from_conditionals(s: torch.Tensor) -> torch.Tensor:
    """Five sigmoids read as conditional probabilities, so the outputs are consistent by
    construction: P(wg) = P(win) s1, P(wbg) = P(wg) s2, P(lg) = P(lose) s3, P(lbg) = P(lg) s4.
    Hence P(wbg) <= P(wg) <= P(win) and P(lbg) <= P(lg) <= 1 - P(win) for any weights."""
    win = s[:, 0]
    wg = win * s[:, 1]
    lg = (1 - win) * s[:, 3]
    return torch.stack([win, wg, wg * s[:, 2], lg, lg * s[:, 4]], dim=1)


def parse_hidden(text: str) -> list[int]:
    """'512,512,256' -> [512, 512, 256]; ValueError with the reason otherwise (an empty size,
    as in '16,,16', is not skipped: it was read as 16,16)."""
    pieces = str(text).split(",")
    if not all(p.strip().isdecimal() and p.strip().isascii() for p in pieces):
        raise ValueError(f"hidden sizes must be comma-separated whole numbers, got {text!r}")
    sizes = [int(p) for p in pieces]
    if not sizes or any(s < 1 or s > 65536 for s in sizes):
        raise ValueError(f"hidden sizes must be 1..65536 each, got {text!r}")
    return sizes


# --------------------------------------------------------------------------- checkpoints


def lineage_entry(episodes: int, extra: dict | None = None) -> dict:
    entry = {
        "command": command(),
        "episodes": int(episodes),
        "date": utc_now(),
        "commit": git_commit(),
    }
    entry.update(extra or {})
    return entry


def new_metadata(model: TDNetwork, game_mode: str) -> dict:
    """A new checkpoint's metadata; its ``encoder`` is the input layout ``game_mode`` names
    for the model's inputs (ValueError when they do not fit the mode)."""
    return {
        "n_inputs": model.n_inputs,
        "hidden": list(model.hidden),
        "output_mode": model.output_mode,
        "activation": model.activation,
        "encoder": input_layout(mode_class(game_mode), model.n_inputs),
        "game_mode": game_mode,
        "episodes": 0,
        "lineage": [],
    }


MOVE_FILTER_KEY = "move_filter"


def move_filter_of(model: TDNetwork) -> TDNetwork | None:
    """The move filter riding on ``model`` (see the module notes), or None."""
    return model.__dict__.get("_move_filter")


def set_move_filter(model: TDNetwork, filt: TDNetwork | None) -> None:
    """Attach ``filt`` to ``model`` (None: remove it), outside the module tree: not in the
    model's state_dict or parameters.  The filter must read the model's inputs and have its head."""
    if filt is not None and (
        filt.n_inputs != model.n_inputs or filt.output_mode != model.output_mode
    ):
        raise ValueError(
            f"a move filter with {filt.n_inputs} inputs and a {filt.output_mode} head does not fit "
            f"a model with {model.n_inputs} inputs and a {model.output_mode} head"
        )
    model.__dict__["_move_filter"] = filt


def weights_finite(net: TDNetwork) -> bool:
    """True when no weight of ``net`` is NaN or infinite."""
    return all(bool(torch.isfinite(p).all()) for p in net.parameters())


def _filter_payload(filt: TDNetwork) -> dict:
    return {
        "n_inputs": filt.n_inputs,
        "hidden": list(filt.hidden),
        "output_mode": filt.output_mode,
        "activation": filt.activation,
        "samples": int(getattr(filt, "samples", 0)),
        "state_dict": {k: v.detach().cpu().clone() for k, v in filt.state_dict().items()},
    }


def real_weights(state: dict) -> dict:
    """``state`` (a state dict read from a file), or ValueError for a tensor that is not of
    real floating-point numbers: load_state_dict would cast a complex one to float (its
    imaginary part dropped) or a bool one to 0 and 1 without a word."""
    for key, value in state.items():
        if not isinstance(value, torch.Tensor) or not torch.is_floating_point(value):
            raise ValueError(
                f"weight {key} is {getattr(value, 'dtype', type(value).__name__)}, not real numbers"
            )
    return state


# what a move filter's record holds beside its weights, each of the type a filter writes (int()
# took "12", True or 64.0 and a negative count of samples without a word)
FILTER_TYPES: dict[str, type | tuple[type, ...]] = {
    "n_inputs": int,
    "hidden": list,
    "output_mode": str,
    "samples": int,
}


def _check_filter_payload(payload) -> None:
    """ValueError unless ``payload`` (a checkpoint's move filter) holds its fields as a run
    writes them: whole numbers of inputs, hidden units and samples (none negative), text."""
    if not isinstance(payload, dict):
        raise ValueError(f"it is {type(payload).__name__}, not a dict")
    for key, kind in FILTER_TYPES.items():
        value = payload.get(key, 0 if key == "samples" else None)
        if isinstance(value, bool) or not isinstance(value, kind):
            raise ValueError(f"its {key!r} is {type(value).__name__} {value!r:.40}")
    if any(isinstance(h, bool) or not isinstance(h, int) for h in payload["hidden"]):
        raise ValueError(f"its 'hidden' holds {payload['hidden']!r:.60}, not whole numbers")
    if payload.get("samples", 0) < 0:
        raise ValueError(f"its 'samples' is {payload['samples']}, a negative count")


def _filter_from_payload(payload: dict) -> TDNetwork:
    _check_filter_payload(payload)
    filt = TDNetwork(
        payload["n_inputs"],
        payload["hidden"],
        payload["output_mode"],
        payload.get("activation", "relu"),
    )
    filt.load_state_dict(real_weights(payload["state_dict"]))
    filt.samples = payload.get("samples", 0)  # after-states it was trained on
    return filt


def save_checkpoint(
    path: str, model: TDNetwork, meta: dict, trainer_state: dict | None = None
) -> None:
    """Write atomically: a temporary file in the same folder, flushed, then renamed over ``path``."""
    payload = {
        "format": CHECKPOINT_FORMAT,
        "version": CHECKPOINT_VERSION,
        "meta": meta,
        "state_dict": {k: v.detach().cpu() for k, v in model.state_dict().items()},
        "trainer_state": trainer_state,
    }
    filt = move_filter_of(model)
    if filt is not None:
        payload[MOVE_FILTER_KEY] = _filter_payload(filt)
    buf = (
        io.BytesIO()
    )  # serialised first: a failed write (a full disk) is then a plain OSError naming ``path``
    torch.save(payload, buf)
    with atomic_write(path, "wb") as fh:
        fh.write(buf.getbuffer())


# the metadata a checkpoint must or may hold, and the type each must have (a crafted or
# foreign file with a string where a count belongs is refused here, not met as a traceback later)
META_TYPES: dict[str, type | tuple[type, ...]] = {
    "n_inputs": int,
    "hidden": list,
    "output_mode": str,
}
OPTIONAL_META_TYPES: dict[str, type | tuple[type, ...]] = {
    "activation": str,
    "encoder": (str, type(None)),
    "game_mode": (str, type(None)),
    "episodes": int,
    "lineage": list,
}


# what a checkpoint's metadata and stage record hold: plain data, as JSON and TOML do (a
# tensor there, which torch's weights-only reader allows anywhere, met comparisons and the
# stage file's writer as a traceback)
PLAIN = (type(None), bool, int, float, str)


def _not_plain(value, path: str) -> str | None:
    """Where in ``value`` (named ``path``) something other than plain data sits, or None."""
    if isinstance(value, PLAIN):
        return None
    items: list[tuple[object, object]]
    if isinstance(value, (list, tuple)):
        items = list(enumerate(value))
    elif isinstance(value, dict):
        if any(not isinstance(k, str) for k in value):
            return f"{path} (a key that is not text)"
        items = list(value.items())
    else:
        return f"{path} ({type(value).__name__})"
    return next((w for k, v in items if (w := _not_plain(v, f"{path}[{k!r}]"))), None)


def _check_plain(value, what: str, where: str) -> None:
    bad = _not_plain(value, what)
    if bad:
        raise CheckpointError(f"{where}: its {bad} is not plain data (numbers, text, lists)")


def check_metadata(meta, where: str) -> None:
    """CheckpointError unless ``meta`` is a dict of plain data whose known keys hold values of
    their types."""
    if not isinstance(meta, dict):
        raise CheckpointError(f"{where}: its metadata is {type(meta).__name__}, not a dict")
    _check_plain(meta, "metadata", where)
    for key, kind in [*META_TYPES.items(), *OPTIONAL_META_TYPES.items()]:
        if key not in meta:
            if key in META_TYPES:
                raise CheckpointError(f"{where}: its metadata has no {key!r}")
            continue
        value = meta[key]
        if isinstance(value, bool) or not isinstance(value, kind):
            raise CheckpointError(
                f"{where}: its metadata's {key!r} is {type(value).__name__} {value!r:.40}, "
                f"not {getattr(kind, '__name__', 'text or none')}"
            )
    if any(isinstance(h, bool) or not isinstance(h, int) for h in meta["hidden"]):
        raise CheckpointError(
            f"{where}: its metadata's 'hidden' holds {meta['hidden']!r:.60}, not whole numbers"
        )
    if meta.get("episodes", 0) < 0:
        raise CheckpointError(f"{where}: its metadata's 'episodes' is negative")
    if any(not isinstance(e, dict) for e in meta.get("lineage", [])):
        raise CheckpointError(f"{where}: its metadata's 'lineage' holds entries that are not dicts")
    for k, entry in enumerate(meta.get("lineage", []), 1):
        _check_fields(entry, LINEAGE_TYPES, f"{where}: its lineage entry {k}")
        if any(not isinstance(s, dict) for s in entry.get("segments", [])):
            raise CheckpointError(
                f"{where}: its lineage entry {k}'s 'segments' holds entries that are not dicts"
            )
        for j, segment in enumerate(entry.get("segments", []), 1):
            _check_fields(segment, SEGMENT_TYPES, f"{where}: its lineage entry {k}'s segment {j}")
    _check_restated(meta, where)


def checkpoint_game_mode(meta: dict) -> str | None:
    """The game mode a checkpoint's metadata plays: the one it names, or where it names none
    (None or no key) its output head's default (heads.py: ``default_mode``); None for a head
    no code has (refused where the network is built).  Every reader takes this one mode: they
    took four (the players DMP, describe_model and export_weights DMP, the trainer the head's
    default, repair_twins and cubeless_as_cubeful a mode called None)."""
    if meta.get("game_mode") is not None:
        return meta["game_mode"]
    head = meta.get("output_mode")
    return output_head(head).default_mode if head in OUTPUT_MODES else None


def _check_restated(meta: dict, where: str) -> None:
    """CheckpointError where the metadata says one thing twice and the two disagree, as no
    writer makes them: the total of episodes and its lineage's (each stage adds its own, and
    every writer writes both), the name of the input layout and the inputs and game mode it
    names (describe_model showed 18,446,744,073,709,551,616 episodes of a 20-episode stage, or
    another mode's layout); a game mode that no code plays, or whose inputs are not the
    network's; and an output head that is not one of the game mode's (GameMode.outputs: the
    trainer refused an equity head on a DMP model, which the readers that never build a
    player described, exported and averaged, or tracebacks where they measured it)."""
    lineage = meta.get("lineage") or []
    for k, entry in enumerate(lineage, 1):
        if "episodes" not in entry:  # (a reader showed 0 episodes for the stage)
            raise CheckpointError(f"{where}: its lineage entry {k} has no 'episodes'")
    total = sum(e["episodes"] for e in lineage)
    if lineage and "episodes" not in meta:  # (shown as 0; the trainer then wrote a total that
        # disagreed with the lineage, a checkpoint that every reader refused)
        raise CheckpointError(
            f"{where}: its metadata has no 'episodes', where its lineage's stages hold {total:,}"
        )
    if lineage and meta["episodes"] != total:
        raise CheckpointError(
            f"{where}: its metadata's 'episodes' is {meta['episodes']:,}, not the "
            f"{total:,} of its lineage's stages"
        )
    game_mode, head = checkpoint_game_mode(meta), meta["output_mode"]
    named = "" if meta.get("game_mode") is not None else " (its head's, the metadata naming none)"
    try:
        cls = mode_class(game_mode) if game_mode is not None else None
        layout = input_layout(cls, meta["n_inputs"]) if cls else ENCODERS.get(meta["n_inputs"])
    except ValueError as exc:  # a mode no code plays, or one whose inputs are not the network's
        # (the readers that never build the mode's network, describe_model, repair_twins and
        # export_weights, went on with it: tracebacks, or a mode's label on another's weights)
        raise CheckpointError(
            f"{where}: its metadata's game mode {game_mode!r:.40}{named} does not fit it ({exc})"
        ) from None
    if cls is not None and head not in cls.outputs:
        raise CheckpointError(
            f"{where}: its metadata's output head {head!r} plays no {game_mode}{named} "
            f"(its heads: {', '.join(cls.outputs)})"
        )
    if meta.get("encoder") is None or layout is None:  # (an input count of no network: refused
        return  # where the network is built)
    if meta["encoder"] != layout:
        raise CheckpointError(
            f"{where}: its metadata's 'encoder' is {meta['encoder']!r:.40}, where its "
            f"{meta['n_inputs']} inputs{' of ' + game_mode if game_mode else ''} are {layout!r}"
        )


def _count(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


# a stage's CPU time beyond this (a hundred years) was damaged, not spent
MAX_CPU_SECONDS = 100 * 365.25 * 24 * 3600


def _seconds(value) -> bool:
    # (compared, not converted: an int too large for a float overflowed math.isfinite)
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and 0 <= value <= MAX_CPU_SECONDS
    )


# what a field of a lineage entry or of a stage must hold, where it is present (the readers
# count with these: a string of episodes, or settings that are not a dict, made tracebacks)
COUNT, SECONDS = (
    (_count, "a whole number of at least 0"),
    (_seconds, "a number of seconds from 0 to a hundred years"),
)
LIST, DICT = (lambda v: isinstance(v, list), "a list"), (lambda v: isinstance(v, dict), "a dict")
TEXT = (lambda v: isinstance(v, str), "text")
LINEAGE_TYPES = {"episodes": COUNT, "segments": LIST}
SEGMENT_TYPES = {"from_episode": COUNT}  # (a start or restart of the stage)
STAGE_TYPES = {
    "settings": DICT,
    "config": DICT,
    "id": TEXT,
    "episodes_done": COUNT,
    "rounds_done": COUNT,
    "cpu_seconds": SECONDS,
}
# the parts of a checkpoint's trainer state that the learners write (tdbg.learn: the stage,
# the optimizer's, batch TD's minibatch order, --overlap round weights and filter trainer);
# every reader refuses another.  A new learner that keeps another part names it here.
TRAINER_STATE_KEYS = (
    "stage",
    "optimizer",
    "optimizer_state",
    "minibatch_rng",
    "overlap_weights",
    "filter_trainer",
)
# the stage's recorded settings a continued stage counts with (against episodes_done, in rounds)
STAGE_SETTINGS_TYPES = {"num_episodes": COUNT, "episodes_per_round": COUNT}


def _check_fields(record: dict, types: dict, what: str) -> None:
    for key, (check, words) in types.items():
        if key in record and not check(record[key]):
            raise CheckpointError(
                f"{what}'s {key!r} is {type(record[key]).__name__} {record[key]!r:.40}, not {words}"
            )


def check_trainer_state(state, where: str, meta: dict | None = None) -> None:
    """CheckpointError unless ``state`` (a checkpoint's trainer state) is None or a dict whose
    stage, where present, holds values of the types a continued stage counts with, and counts
    that agree with one another and with the stage's lineage entry in ``meta``."""
    if state is None:
        return
    if not isinstance(state, dict):
        raise CheckpointError(f"{where}: its trainer state is {type(state).__name__}, not a dict")
    extra = sorted(map(str, set(state) - set(TRAINER_STATE_KEYS)))
    if extra:  # (every reader refuses it, as --resume does: not only the trainer)
        raise CheckpointError(
            f"{where}: trainer_state.{extra[0]}: is not a part a trainer writes "
            f"({', '.join(TRAINER_STATE_KEYS)})"
        )
    stage = state.get("stage")
    if stage is None:
        if state:  # a learner's state with no stage to continue: the stage was lost
            raise CheckpointError(
                f"{where}: trainer_state.stage: is missing, where its trainer state holds "
                f"{', '.join(map(str, sorted(state, key=str)))}"
            )
        return
    if stage == {}:
        raise CheckpointError(f"{where}: trainer_state.stage: is empty")
    if not isinstance(stage, dict):
        raise CheckpointError(
            f"{where}: its trainer state's 'stage' is {type(stage).__name__}, not a dict"
        )
    _check_plain(stage, "unfinished stage", where)
    extra = sorted(map(str, set(stage) - set(STAGE_TYPES)))
    if extra:  # (a run writes only these: another is damage, or a crafted file)
        raise CheckpointError(
            f"{where}: trainer_state.stage.{extra[0]}: is not a field a stage holds "
            f"({', '.join(STAGE_TYPES)})"
        )
    _check_fields(stage, STAGE_TYPES, f"{where}: its unfinished stage")
    if "settings" in stage:
        _check_fields(stage["settings"], STAGE_SETTINGS_TYPES, f"{where}: its stage's settings")
    _check_stage_record(stage, meta, where)
    _check_stage_counts(stage, meta or {}, where)
    _check_stage_lineage(stage, meta or {}, where)


def _check_stage_record(stage: dict, meta: dict | None, where: str) -> None:
    """CheckpointError unless ``stage`` holds what every run records with a stage and reads
    to continue it, end it or start the next: its settings, the episodes it has done and
    plans, and (``meta`` given) its lineage entry.  Checked here, for every reader: the
    trainer alone refused a stage without them, which describe_model showed (a KeyError
    traceback where it had no episodes done) and the players played."""
    missing = [k for k in ("settings", "episodes_done") if k not in stage]
    missing += [] if missing or "num_episodes" in stage["settings"] else ["settings' num_episodes"]
    missing += [] if meta is None or meta.get("lineage") else ["lineage entry"]
    if missing:
        raise CheckpointError(
            f"{where}: its stage has no {' or '.join(missing)}, which every run records "
            f"with it; it cannot be continued"
        )


def _check_stage_counts(stage: dict, meta: dict, where: str) -> None:
    """A stage's counts (episodes done, rounds done, the episodes it plans) and its lineage
    entry (the last), where present, tell the same story, as every run writes them: a stage
    that disagrees was edited, and continuing it would train another schedule than the one
    recorded (a round split, a finished stage taken for an unfinished one)."""
    settings, done = stage.get("settings") or {}, stage.get("episodes_done")
    if done is None:
        return
    planned, lineage = settings.get("num_episodes"), meta.get("lineage") or []
    if planned is not None and done > planned:
        raise CheckpointError(
            f"{where}: its stage has done {done:,} episodes, more than the {planned:,} it plans"
        )
    if lineage and lineage[-1].get("episodes", done) != done:
        raise CheckpointError(
            f"{where}: its stage's {done:,} episodes are not its lineage entry's "
            f"({lineage[-1].get('episodes')})"
        )
    size, rounds = settings.get("episodes_per_round"), stage.get("rounds_done")
    if size and rounds is not None and planned is not None and min(rounds * size, planned) != done:
        raise CheckpointError(
            f"{where}: its stage's {rounds:,} rounds of {size:,} episodes are not its "
            f"{done:,} episodes done"
        )


def _check_stage_lineage(stage: dict, meta: dict, where: str) -> None:
    """The stage's settings and its lineage entry's record of them (the last entry's 'stage')
    are one record: every run writes the one into both.  Two that differ were edited, and no
    reader could tell which one is the stage's: each reader took the trainer state's, while
    describe_model --json showed both, and a continued stage kept the other in its lineage
    (a stage of 60 episodes, finished, whose lineage said it planned 100).  An entry that
    records no settings (none of a 'stage' key) has nothing to disagree with."""
    lineage, settings = meta.get("lineage") or [], stage.get("settings")
    if not lineage or "stage" not in lineage[-1] or settings is None:
        return
    recorded = lineage[-1]["stage"]
    if recorded == settings:
        return
    entry = f"its lineage entry {len(lineage)}"
    if not isinstance(recorded, dict):
        kind = type(recorded).__name__
        what = f"{entry} records its stage's settings as {kind} {recorded!r:.40}"
    else:
        key = next(
            k
            for k in sorted(set(recorded) | set(settings), key=str)
            if k not in recorded or k not in settings or recorded[k] != settings[k]
        )
        ours = f"its trainer state's settings hold {settings.get(key)!r:.40}"
        if key not in settings:
            ours = "its trainer state's settings hold none"
        theirs = f"records its stage's {key} as {recorded.get(key)!r:.40}"
        if key not in recorded:
            theirs = f"records no {key} for its stage"
        what = f"{entry} {theirs}, where {ours}"
    raise CheckpointError(f"{where}: {what}; a run writes one record to both")


# stage settings that checkpoints recorded under other names before self-play's Scorer took
# its settings whole (scoring.ScoringSettings, which a stage's collection holds): read under
# today's names, so that a stage recorded then continues with the same settings
RENAMED_SETTINGS = {"scoring": "first_layer", "collect_precision": "precision"}


def _current_names(record: dict) -> dict:
    return {RENAMED_SETTINGS.get(k, k): v for k, v in record.items()}


def with_current_setting_names(meta: dict, trainer_state: dict | None) -> None:
    """Rename, in place, the settings a checkpoint's stages recorded under a name of
    RENAMED_SETTINGS: its lineage's stages, and its unfinished stage's settings and config; the
    stage's settings and its lineage entry's record of them stay one object, as saved."""
    for entry in meta.get("lineage", []):
        if isinstance(entry, dict) and isinstance(entry.get("stage"), dict):
            entry["stage"] = _current_names(entry["stage"])
    stage = (trainer_state or {}).get("stage")
    if isinstance(stage, dict):
        for key in ("settings", "config"):
            if isinstance(stage.get(key), dict):
                stage[key] = _current_names(stage[key])
        lineage = meta.get("lineage") or []
        if lineage and "stage" in lineage[-1] and isinstance(stage.get("settings"), dict):
            # one record again, as the run wrote it (checked equal where it was loaded): renamed
            # apart, a continued stage's settings gained what its lineage's record did not
            # (prepare's precision), and saved two records that every reader refuses
            lineage[-1]["stage"] = stage["settings"]


def read_checkpoint(path: str) -> bytes:
    """The bytes of the checkpoint at ``path``, read once: a model loaded from them
    (``load_checkpoint(path, data=...)``) and an md5 taken of them describe the same model,
    whatever replaces the file later (a training run's next save).  CheckpointError for a
    file that is missing or not a checkpoint."""
    if not os.path.isfile(path):  # a FIFO, a device or a folder is there, but no checkpoint file
        raise CheckpointError(
            f"{path}: "
            + (
                f"{KIND_NAMES['special']}, not a checkpoint"
                if os.path.exists(path)
                else "no such checkpoint file"
            )
        )
    try:
        fh = open(path, "rb")
    except OSError:  # no kind can be read from a file that cannot be opened
        raise CheckpointError(
            f"{path}: not a readable checkpoint: it is {KIND_NAMES['other']}"
        ) from None
    try:
        with fh:
            # what the first bytes say, before the rest is read: a file of 10 GB of zeros
            # (`truncate -s 10G`) was read whole, a MemoryError traceback or minutes of swap
            head = fh.read(64)
            kind = content_kind(head)
            if kind not in ("checkpoint", "empty") and not head.startswith(b"PK\x03\x04"):
                raise CheckpointError(
                    f"{path}: not a readable checkpoint: it is {KIND_NAMES[kind]}"
                )
            data = head + fh.read()
    except OSError as exc:
        raise CheckpointError(f"{path}: cannot read it ({exc.strerror})") from None
    kind = content_kind(data)  # of the bytes read, the ones a model is loaded from
    if kind not in ("checkpoint", "empty"):
        raise CheckpointError(f"{path}: not a readable checkpoint: it is {KIND_NAMES[kind]}")
    return data


OPENED_KEPT = 4  # checkpoints a process keeps open (a series plays two, a luck judge makes three)
_opened: dict[str, tuple[TDNetwork, dict]] = {}


def opened_checkpoint(path: str, data: bytes | None = None) -> tuple[bytes, TDNetwork, dict]:
    """(data, model, meta) of the checkpoint ``path`` (``data``: its bytes, when already read),
    read once and loaded once per process for each content: the same bytes asked for again
    (the game mode a checkpoint names, then the network that plays it; both players of a
    self-play series) give the same network, to play with (trainer state left out).
    CheckpointError for a file that is not one."""
    if data is None:
        data = read_checkpoint(path)
    key = hashlib.md5(data).hexdigest()
    if key not in _opened:
        if len(_opened) >= OPENED_KEPT:
            _opened.pop(next(iter(_opened)))
        model, meta, _ = load_checkpoint(path, data=data)
        _opened[key] = (model, meta)
    return (data, *_opened[key])


def physical_memory() -> int:
    """Bytes of memory this machine has (an upper bound on what a network may take)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 1 << 62


def load_checkpoint(
    path: str, map_location: str = "cpu", data: bytes | None = None
) -> tuple[TDNetwork, dict, dict | None]:
    """(model, metadata, trainer_state) from a checkpoint: from ``data`` (its bytes, read_checkpoint's)
    when given, ``path`` then only naming it in messages; else from the file, read once.
    CheckpointError with the reason otherwise."""
    if data is None:
        data = read_checkpoint(path)
    try:
        payload = torch.load(io.BytesIO(data), map_location=map_location, weights_only=True)
    except Exception as exc:  # torch raises many kinds for truncated or foreign files
        # (its weights_only advice is not for us: a checkpoint holds tensors and plain data only)
        reason = (
            str(exc).splitlines()[0]
            if str(exc) and "weights_only" not in str(exc)
            else "corrupt or truncated"
        )
        raise CheckpointError(
            f"{path}: not a readable checkpoint ({type(exc).__name__}: {reason})"
        ) from None
    if not isinstance(payload, dict) or payload.get("format") != CHECKPOINT_FORMAT:
        raise CheckpointError(f"{path}: not a {CHECKPOINT_FORMAT} file")
    version = payload.get("version")
    if type(version) is not int or version != CHECKPOINT_VERSION:  # (True and 1.0 equal 1)
        raise CheckpointError(
            f"{path}: checkpoint version {version!r} is not supported "
            f"(this code reads version {CHECKPOINT_VERSION})"
        )
    meta = payload.get("meta")
    check_metadata(meta, path)
    assert isinstance(meta, dict)  # check_metadata raised otherwise
    try:
        model = TDNetwork(
            meta["n_inputs"], meta["hidden"], meta["output_mode"], meta.get("activation", "relu")
        )
        model.load_state_dict(real_weights(payload["state_dict"]))
    except (KeyError, TypeError, ValueError, RuntimeError, AttributeError) as exc:
        raise CheckpointError(f"{path}: metadata and weights do not fit together ({exc})") from None
    if not weights_finite(model):
        raise CheckpointError(f"{path}: weights contain NaN or infinity")
    # the mode it plays, named for every reader (one that names none plays its head's default)
    meta["game_mode"] = checkpoint_game_mode(meta)
    if payload.get(MOVE_FILTER_KEY) is not None:
        try:
            filt = _filter_from_payload(payload[MOVE_FILTER_KEY])
            set_move_filter(model, filt)
        except (KeyError, TypeError, ValueError, RuntimeError) as exc:
            raise CheckpointError(f"{path}: its move filter does not fit ({exc})") from None
        if not weights_finite(filt):
            raise CheckpointError(f"{path}: its move filter's weights contain NaN or infinity")
    check_trainer_state(payload.get("trainer_state"), path, meta)
    with_current_setting_names(meta, payload.get("trainer_state"))
    return model, meta, payload.get("trainer_state")
