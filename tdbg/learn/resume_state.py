"""One check of everything a continued stage restores from its checkpoint's trainer state
(the optimizer's moments and hyperparameters, the generators' states, an --overlap round's
weights, the move filter's trainer), made before any of it is restored and before any work.

A run writes these parts in one shape only; anything else (a missing or extra key, a value
of another kind, a tensor of another shape or dtype, a sparse, meta or expanded one, moments
sharing memory, a value that is not finite, a mean of squares below zero, a count that is
negative, fractional or beyond its range) is damage.  Each is refused as a
StateError naming the field (``optimizer_state.state.0.exp_avg``) and what is wrong with it,
where it was once taken and failed in the first round (a traceback), or was taken silently
(moments dropped, a step count of 1.5 trained on).

The expected shape of an optimizer's per-parameter state is not written down here: it is
read off a probe, one step of an optimizer of the same kind and hyperparameters on a
parameter of one element (Adam: a step count and two moments per parameter; SGD with
momentum: a buffer; SGD without: nothing)."""

from __future__ import annotations

from collections.abc import Callable

import torch

from tdbg.learn.trainer import check_hyperparameters

# numpy's PCG64 generator state (bit_generator.state), the only generator a run keeps
PCG64_KEYS = ("bit_generator", "state", "has_uint32", "uinteger")
MAX_STEP = 2**53  # an optimizer's step count is kept in a float: beyond this it is no count


class StateError(ValueError):
    """A part of the trainer state is malformed: ``field`` (a dotted path) and what is wrong."""

    def __init__(self, field: str, what: str):
        super().__init__(f"{field}: {what}")
        self.field, self.what = field, what


Check = Callable[[object, str], None]


def _shown(value) -> str:
    if isinstance(value, torch.Tensor):
        return f"a tensor of shape {tuple(value.shape)} and dtype {str(value.dtype).replace('torch.', '')}"
    return f"{type(value).__name__} {value!r:.40}"


def _whole(value, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value < high


def check_keys(value, field: str, required, optional=()) -> dict:
    """``value`` as a dict holding every key of ``required`` and no key beyond ``optional``."""
    if not isinstance(value, dict):
        raise StateError(field, f"is {_shown(value)}, not a dict")
    for key in required:
        if key not in value:
            raise StateError(f"{field}.{key}", "is missing")
    for key in value:
        if key not in required and key not in optional:
            raise StateError(f"{field}.{key}", "is not a part this state holds")
    return value


def check_trainer_state(state, checks: dict[str, Check], required) -> None:
    """StateError unless ``state`` (a checkpoint's trainer state, its stage checked at load)
    holds the parts a learner restores, each as ``checks`` says, ``required`` among them."""
    check_keys(state, "trainer_state", required, ("stage", *checks))
    for key, check in checks.items():
        if key in state:
            check(state[key], f"trainer_state.{key}")


def check_generator_state(value, field: str) -> None:
    """A numpy PCG64 generator's state, as ``bit_generator.state`` gives it."""
    check_keys(value, field, PCG64_KEYS)
    assert isinstance(value, dict)
    if value["bit_generator"] != "PCG64":
        raise StateError(
            f"{field}.bit_generator", f"is {_shown(value['bit_generator'])}, not 'PCG64'"
        )
    inner = check_keys(value["state"], f"{field}.state", ("state", "inc"))
    for key in ("state", "inc"):
        if not _whole(inner[key], 0, 2**128):
            raise StateError(
                f"{field}.state.{key}",
                f"is {_shown(inner[key])}, not a whole number in [0, 2**128)",
            )
    if inner["inc"] % 2 == 0:  # PCG64's increment is odd: numpy sets the low bit itself
        raise StateError(f"{field}.state.inc", f"is {inner['inc']}, not odd")
    if not _whole(value["has_uint32"], 0, 2):
        raise StateError(f"{field}.has_uint32", f"is {_shown(value['has_uint32'])}, not 0 or 1")
    if not _whole(value["uinteger"], 0, 2**32):
        raise StateError(
            f"{field}.uinteger", f"is {_shown(value['uinteger'])}, not a whole number in [0, 2**32)"
        )


def _probe_state(optimizer: torch.optim.Optimizer) -> dict:
    """The per-parameter state one step of an optimizer like ``optimizer`` (its class and its
    first group's hyperparameters) makes for a parameter of one element."""
    param = torch.nn.Parameter(torch.zeros(1))
    hyper = {k: v for k, v in optimizer.param_groups[0].items() if k != "params"}
    probe = type(optimizer)([param], **hyper)
    param.grad = torch.zeros(1)
    probe.step()
    return dict(probe.state.get(param, {}))


def optimizer_state_check(optimizer: torch.optim.Optimizer, scheduled: bool = True) -> Check:
    """A check of an optimizer state dict ``optimizer`` would load: its groups of the same
    parameters, each hyperparameter one the optimizer takes, and for every parameter the
    moments the probe says, of the parameter's shape, floating point and finite.
    ``scheduled``: its learning rate is set anew each round (else it too must be the one
    the optimizer was built with: the move filter's)."""
    params = [p for group in optimizer.param_groups for p in group["params"]]
    expected = _probe_state(optimizer)

    def check(value, field: str) -> None:
        check_keys(value, field, ("state", "param_groups"))
        assert isinstance(value, dict)
        groups = value["param_groups"]
        if not isinstance(groups, list) or len(groups) != len(optimizer.param_groups):
            raise StateError(
                f"{field}.param_groups",
                f"is {_shown(groups)}, not a list of {len(optimizer.param_groups)} group(s)",
            )
        ids: list = []
        for i, group in enumerate(groups):
            gfield = f"{field}.param_groups.{i}"
            if not isinstance(group, dict):
                raise StateError(gfield, f"is {_shown(group)}, not a dict")
            if not isinstance(group.get("params"), list):
                raise StateError(
                    f"{gfield}.params", f"is {_shown(group.get('params'))}, not a list"
                )
            ids += group["params"]
            try:
                check_hyperparameters(group, optimizer.defaults)
            except ValueError as exc:
                raise StateError(gfield, str(exc).removeprefix("its optimizer's ")) from None
            _check_group_is_the_stages(
                group, optimizer.param_groups[min(i, len(groups) - 1)], gfield, scheduled
            )
        # (compared as ints: a 0-d tensor equals its number, but torch maps a parameter's
        # moments through a dict, where it names none, and they were dropped unsaid)
        if not all(type(i) is int for i in ids) or ids != list(range(len(params))):
            raise StateError(
                f"{field}.param_groups.{len(groups) - 1}.params",
                f"name parameters {ids!r:.40}, not the network's {len(params)} (0 to {len(params) - 1})",
            )
        _check_moments(value["state"], f"{field}.state", params, expected)

    return check


def _check_group_is_the_stages(group: dict, own: dict, field: str, scheduled: bool) -> None:
    """Every hyperparameter but the learning rate (the schedule sets it each round) as the
    stage's settings built the optimizer: a run saves them as they were built, so another
    value (a weight decay, amsgrad, betas) is damage that would change training unsaid."""
    for key in group:
        if key not in own:
            raise StateError(f"{field}.{key}", "is not a hyperparameter of this optimizer")
    for key, mine in own.items():
        if key == "params" or (key == "lr" and scheduled):
            continue
        theirs = tuple(group[key]) if isinstance(group[key], list) else group[key]
        if type(theirs) is not type(mine) or theirs != mine:
            raise StateError(f"{field}.{key}", f"is {_shown(group[key])}, not the stage's {mine!r}")


def _check_moments(state, field: str, params: list, expected: dict) -> None:
    if not isinstance(state, dict):
        raise StateError(field, f"is {_shown(state)}, not a dict")
    wanted = list(range(len(params))) if expected else []
    if sorted(state, key=repr) != sorted(wanted, key=repr):
        raise StateError(
            field,
            f"holds moments of parameters {sorted(state, key=repr)!r:.60}, not of "
            + (f"each of the {len(params)} (0 to {len(params) - 1})" if wanted else "none"),
        )
    for index in wanted:
        moments = check_keys(state[index], f"{field}.{index}", tuple(expected))
        for name, probe in expected.items():
            _check_moment(moments[name], f"{field}.{index}.{name}", probe, params[index])
    _check_storages_apart(state, field)


def _check_moment(value, field: str, probe, param: torch.Tensor) -> None:
    if probe is None:
        if value is not None:
            raise StateError(field, f"is {_shown(value)}, not None")
        return
    # a step count is the probe's kind of tensor; a moment, its parameter's
    like = probe if probe.dim() == 0 else param
    check_tensor(value, field, tuple(like.shape), like.dtype)
    if probe.dim() == 0:  # a step count
        step = float(value.detach())  # (a tensor that requires grad: torch warned on stderr)
        if step != int(step) or not 0 <= step <= MAX_STEP:
            raise StateError(field, f"is {step:g}, not a whole number from 0 to 2**53")
    elif field.endswith("_sq") and bool((value < 0).any()):  # a mean of squares
        raise StateError(field, "holds negative values (a mean of squares)")


def check_tensor(value, field: str, shape: tuple, dtype: torch.dtype) -> None:
    """A tensor as a run writes it: dense, in memory, of ``shape`` and ``dtype``, laid out
    contiguously (a zero-stride, expanded view shares its elements: written in place, it
    was a RuntimeError traceback at the first step) and finite.  Taken as they were, a
    moment of float16 trained on rounded, a sparse or meta one was a traceback."""
    if not isinstance(value, torch.Tensor):
        raise StateError(field, f"is {_shown(value)}, not a tensor")
    if value.layout != torch.strided or value.device.type != "cpu":
        raise StateError(
            field,
            f"is a {str(value.layout).replace('torch.', '')} tensor on {value.device}, "
            "not a dense one in memory",
        )
    if value.dtype != dtype:
        raise StateError(field, f"is {_shown(value)}, not {str(dtype).replace('torch.', '')}")
    if tuple(value.shape) != shape:
        raise StateError(field, f"has shape {tuple(value.shape)}, not {shape}")
    if not value.is_contiguous():
        raise StateError(field, f"is a view of strides {value.stride()}, not a tensor of its own")
    if not bool(torch.isfinite(value).all()):
        raise StateError(field, "holds values that are not finite")


def _check_storages_apart(state: dict, field: str) -> None:
    """No two tensors of an optimizer's state share memory: torch keeps them as loaded, and
    one written in place through the other (a moment that is another's) trains on garbage."""
    seen: dict[int, str] = {}
    for index, moments in state.items():
        for name, value in moments.items():
            if isinstance(value, torch.Tensor) and value.numel():
                where = value.untyped_storage().data_ptr()
                if where in seen:
                    raise StateError(
                        f"{field}.{index}.{name}", f"shares its memory with {field}.{seen[where]}"
                    )
                seen[where] = f"{index}.{name}"


def weights_check(module: torch.nn.Module) -> Check:
    """A check of a state dict ``module`` would load: its keys, and each tensor as check_tensor
    says, of its own shape and dtype."""
    own = module.state_dict()

    def check(value, field: str) -> None:
        check_keys(value, field, tuple(own))
        assert isinstance(value, dict)
        for key, mine in own.items():
            check_tensor(value[key], f"{field}.{key}", tuple(mine.shape), mine.dtype)

    return check


def optional(check: Check) -> Check:
    """``check``, or None (a part the stopped run did not have, such as a filter's weights)."""

    def maybe(value, field: str) -> None:
        if value is not None:
            check(value, field)

    return maybe


def nothing(value, field: str) -> None:
    """None only (a part the run could not have had: a filter's weights without a filter)."""
    if value is not None:
        raise StateError(field, f"is {_shown(value)}, where the network has none")


def parts_check(parts: dict[str, Check]) -> Check:
    """A dict of exactly ``parts``' keys, each checked as its check says."""

    def check(value, field: str) -> None:
        check_keys(value, field, tuple(parts))
        assert isinstance(value, dict)
        for key, part in parts.items():
            part(value[key], f"{field}.{key}")

    return check


def choice_check(choices) -> Check:
    def check(value, field: str) -> None:
        if not isinstance(value, str) or value not in choices:
            raise StateError(field, f"is {_shown(value)}, not one of {', '.join(choices)}")

    return check
