"""Continuing an unfinished stage checks everything it restores from the checkpoint's trainer
state once, before any work: every key of a real stopped stage's trainer state, and every
key nested in it, damaged in each of several ways (missing, None, text, negative, NaN, one
level of extra nesting, an extra key), is refused in one `error:` line naming the field,
exit 2, no traceback, the checkpoint's bytes and its folder as they were.

Each of these was once taken and failed in the first round (a traceback), or taken
silently (moments dropped, a step count of 1.5 or a weight decay nobody asked for trained
on), one field at a time; the cases are generated from the checkpoint, not listed by hand,
so a new field is covered when the run starts writing it."""

import os

import pytest
import torch

from helpers import QUICK_TRAIN, assert_one_line_error, run, stopped_stage
from tdbg.learn import filter_training


@pytest.fixture(scope="module")
def stopped(tmp_path_factory):
    """A stage of 60 episodes in rounds of 20, stopped at 20 (optimizer moments, minibatch
    generator, the stage's record)."""
    return stopped_stage(tmp_path_factory.mktemp("stopped") / "s.pt")


def _fields(node, prefix=()):
    """The key path of every entry under ``node`` (dicts and lists; one parameter's
    optimizer moments stand for all; the stage's config of some fifty flags is left to
    its own tests)."""
    out = []
    if isinstance(node, dict):
        items = list(node.items())
        if prefix and prefix[-1] == "state" and items and isinstance(items[0][0], int):
            items = items[:1]
        for key, value in items:
            out.append(prefix + (key,))
            if key != "config":
                out += _fields(value, prefix + (key,))
    elif isinstance(node, list):
        for i, value in enumerate(node[:1]):
            out.append(prefix + (i,))
            out += _fields(value, prefix + (i,))
    return out


DAMAGE = ("missing", "None", "text", "negative", "NaN", "nested", "extra key")
# damage that is no damage for that field: a value a run writes, or leaves out, itself
ALLOWED = {
    # older checkpoints have none of these (a continued stage then draws its order anew,
    # counts its rounds from its episodes, names itself by its lineage entry, collects in fp32)
    ("minibatch_rng", "missing"),
    ("stage", "cpu_seconds", "missing"),
    ("stage", "rounds_done", "missing"),
    ("stage", "id", "missing"),
    ("stage", "config", "missing"),
    ("stage", "settings", "precision", "missing"),
    ("stage", "id", "text"),  # an id is text
    # a stage recorded by an older version or another script records flags this one lacks
    ("stage", "config", "extra key"),
    ("stage", "settings", "end_lr", "None"),  # no --end-lr: a constant rate
    # the optimizer's hyperparameters that default to None (torch picks the kernel)
    ("optimizer_state", "param_groups", 0, "foreach", "None"),
    ("optimizer_state", "param_groups", 0, "fused", "None"),
}


def _damage(payload, keys, how):
    parent = payload["trainer_state"]
    for key in keys[:-1]:
        parent = parent[key]
    key = keys[-1]
    if how == "missing":
        parent.pop(key) if isinstance(parent, list) else parent.__delitem__(key)
    elif how == "nested":
        parent[key] = {"x": parent[key]}
    elif how == "extra key":
        parent[key]["extra"] = 1
    else:
        parent[key] = {"None": None, "text": "x", "negative": -1, "NaN": float("nan")}[how]


def _named(keys) -> list[str]:
    """The words an error line about field ``keys`` may name it by: its key (or, for a
    list's or a parameter's index, the key holding it), as a field or as its flag."""
    name = next(str(k) for k in reversed(keys) if isinstance(k, str))
    return [name, name.replace("_", "-")]


@pytest.mark.parametrize("how", DAMAGE)
def test_every_field_of_the_trainer_state_is_checked_before_any_work(stopped, tmp_path, how):
    base = torch.load(stopped, weights_only=True)
    fields = _fields(base["trainer_state"])
    assert ("optimizer_state", "state", 0, "exp_avg") in fields  # the walk reaches the moments
    assert ("stage", "settings", "num_episodes") in fields
    wrong = []
    for keys in fields:
        node = base["trainer_state"]
        for key in keys:
            node = node[key]
        if True:
            if (*keys, how) in ALLOWED or (how == "extra key" and not isinstance(node, dict)):
                continue
            payload = torch.load(stopped, weights_only=True)
            _damage(payload, keys, how)
            folder = tmp_path / f"case{len(os.listdir(tmp_path))}"
            folder.mkdir()
            path = folder / "d.pt"
            torch.save(payload, path)
            (folder / "d.csv").write_bytes(stopped.with_suffix(".csv").read_bytes())
            before, listing = path.read_bytes(), sorted(os.listdir(folder))
            proc = run("train_batch.py", "--resume", path, "--save", path, "--quiet")
            lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
            good = (
                proc.returncode == 2
                and len(lines) == 1
                and "error:" in lines[0]
                and "Traceback" not in proc.stderr
                and any(word in lines[0] for word in _named(keys))
                and path.read_bytes() == before
                and sorted(os.listdir(folder)) == listing
            )
            if not good:
                wrong.append(("/".join(map(str, keys)), how, proc.returncode, lines[-1:]))
    assert not wrong, wrong


@pytest.mark.parametrize("flag", ["--oneply-filter", "--overlap"])
def test_the_parts_of_filter_and_overlap_stages_are_checked_too(tmp_path, flag):
    """The move filter's trainer (its optimizer and generator) and an --overlap round's
    weights: each key of each damaged in two ways, refused in one line naming it."""
    extra = (
        ["--oneply", "--oneply-filter", "3", "--filter-warmup", "20"]
        if flag == "--oneply-filter"
        else ["--overlap", "--workers", "1"]
    )
    src = tmp_path / "s.pt"
    args = ["--hidden", "8", "--num-episodes", "60", *QUICK_TRAIN, *extra]
    run("train_batch.py", *args, "--stop-at", "20", "--save", src, check=True)
    part = "filter_trainer" if flag == "--oneply-filter" else "overlap_weights"
    base = torch.load(src, weights_only=True)
    fields = [(part,)] + [(part, *k) for k in _fields(base["trainer_state"][part])]
    assert len(fields) > 3
    wrong = []
    for keys in fields:
        for how in ("missing", "text", "nested"):
            if keys == ("overlap_weights", "filter") and how == "missing":
                continue  # (checked below as "text": a network without a filter has None)
            payload = torch.load(src, weights_only=True)
            if keys == (part,) and how == "missing":
                continue  # older checkpoints have none: the stage goes on without it
            _damage(payload, keys, how)
            path = tmp_path / "d.pt"
            torch.save(payload, path)
            (tmp_path / "d.csv").write_bytes(src.with_suffix(".csv").read_bytes())
            before = path.read_bytes()
            proc = run("train_batch.py", "--resume", path, "--save", path, "--quiet")
            lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
            if not (
                proc.returncode == 2
                and len(lines) == 1
                and "Traceback" not in proc.stderr
                and any(word in lines[0] for word in _named(keys))
                and path.read_bytes() == before
            ):
                wrong.append(("/".join(map(str, keys)), how, proc.returncode, lines[-1:]))
    assert not wrong, wrong


@pytest.mark.parametrize("flag", ["", "--oneply-filter", "--overlap"])
def test_a_stage_kept_before_its_state_was_continues_with_a_warning(tmp_path, flag):
    """A checkpoint written before stages kept their minibatch order (the --overlap round's
    weights, the filter's trainer) has none: the stage goes on (it was taken without a word,
    and the continued run then differed from one run through), and says that it will."""
    extra = {
        "": [],
        "--oneply-filter": ["--oneply", "--oneply-filter", "3", "--filter-warmup", "20"],
        "--overlap": ["--overlap", "--workers", "1"],
    }[flag]
    part = {
        "": "minibatch_rng",
        "--oneply-filter": "filter_trainer",
        "--overlap": "overlap_weights",
    }
    src = tmp_path / "s.pt"
    args = ["--hidden", "8", "--num-episodes", "60", *QUICK_TRAIN, *extra]
    run("train_batch.py", *args, "--stop-at", "20", "--save", src, check=True)
    payload = torch.load(src, weights_only=True)
    del payload["trainer_state"][part[flag]]
    torch.save(payload, src)
    proc = run("train_batch.py", "--resume", src, "--save", src, "--stop-at", "40", "--quiet")
    assert proc.returncode == 0, proc.stderr
    warned = [ln for ln in proc.stderr.splitlines() if ln.startswith("warning:")]
    assert len(warned) == 1 and part[flag] in warned[0] and "not be bit-identical" in warned[0]


@pytest.mark.parametrize("rate", [0.5, 2**70])
def test_the_filters_fixed_learning_rate_is_checked(tmp_path, rate):
    """The move filter's optimizer runs at one fixed rate (the main one's is set anew each
    round): a record of another was taken, 2**70 diverging a round later."""
    src = tmp_path / "s.pt"
    flags = ["--oneply", "--oneply-filter", "3", "--filter-warmup", "20"]
    args = ["--hidden", "8", "--num-episodes", "60", *QUICK_TRAIN, *flags]
    run("train_batch.py", *args, "--stop-at", "20", "--save", src, check=True)
    payload = torch.load(src, weights_only=True)
    group = payload["trainer_state"]["filter_trainer"]["optimizer_state"]["param_groups"][0]
    assert group["lr"] == filter_training.FILTER_LR
    group["lr"] = rate
    torch.save(payload, src)
    before = src.read_bytes()
    proc = run("train_batch.py", "--resume", src, "--save", src, "--quiet")
    assert_one_line_error(proc, "filter_trainer.optimizer_state.param_groups.0.lr")
    assert src.read_bytes() == before
