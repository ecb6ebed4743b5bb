"""Every reader of a checkpoint takes the same metadata the same way: the tools that never
build a player (describe_model, export_weights, repair_twins, average_checkpoints,
cubeless_as_cubeful), the players (play_models, analyse, take_points) and the trainer.  A
file one of them refuses, all refuse in one line; one they take, they take as the same
model (its game mode included).  Each case here was taken by some readers and refused, or
read as another model, by others."""

import copy
import json

import pytest
import torch

from helpers import assert_one_line_error, run, stopped_stage
from tdbg.net.model import TDNetwork, new_metadata, save_checkpoint


def _checkpoint(path, n_inputs, head, mode, **meta_changes):
    """A fresh [8] network saved with its metadata, then ``meta_changes`` (None: the key
    removed) applied to the metadata as saved."""
    model = TDNetwork(n_inputs, [8], head)
    meta = new_metadata(model, mode)
    for key, value in meta_changes.items():
        if value is None:
            meta.pop(key)
        else:
            meta[key] = value
    save_checkpoint(str(path), model, meta)
    return str(path)


def _unsaid(path, n_inputs, head, mode, how):
    """A checkpoint whose metadata names no game mode: the key gone, or None."""
    _checkpoint(path, n_inputs, head, mode)
    payload = torch.load(path, weights_only=True)
    if how == "no key":
        del payload["meta"]["game_mode"]
    else:
        payload["meta"]["game_mode"] = None
    torch.save(payload, path)
    return str(path)


@pytest.mark.parametrize("how", ["no key", "None"])
def test_a_checkpoint_naming_no_game_mode_is_its_heads_default_to_every_reader(tmp_path, how):
    """The trainer and analyse took an equity model that names no game mode as cubeless
    money (its head's default); play_models refused it as "a equity model cannot be used for
    dmp", export_weights labelled it DMP, describe_model showed "game mode None",
    repair_twins gave a ValueError traceback, cubeless_as_cubeful called it "a None model",
    average_checkpoints would not average it with a copy naming its mode."""
    path = _unsaid(tmp_path / "cl.pt", 196, "equity", "cubeless-money", how)
    named = _checkpoint(tmp_path / "named.pt", 196, "equity", "cubeless-money")
    described = run("tools/describe_model.py", path, "--json")
    assert described.returncode == 0, described.stderr
    assert json.loads(described.stdout)["game_mode"] == "cubeless-money"
    exported = run("tools/export_weights.py", path, tmp_path / "w.bin")
    assert exported.returncode == 0, exported.stderr
    assert "equity, cubeless-money" in exported.stdout
    for script, *args in (
        ("play_models.py", "--model1", path, "--model2", "pubeval", "--games", "2"),
        ("tools/repair_twins.py", path, "-o", tmp_path / "r.pt", "--games", "2"),
        ("tools/cubeless_as_cubeful.py", path, tmp_path / "c.pt"),
        ("tools/average_checkpoints.py", path, named, "-o", tmp_path / "a.pt"),
    ):
        proc = run(script, *args)
        assert proc.returncode == 0, (script, proc.stderr)
    assert_one_line_error(run("tools/take_points.py", path), "is a cubeless-money model")


def test_a_match_checkpoint_naming_no_game_mode_is_described(tmp_path):
    """An mwc head names match play: describe_model measured it as DMP (a ValueError
    traceback), play_models refused it as DMP; the trainer took it as match play."""
    path = _unsaid(tmp_path / "m.pt", 208, "mwc", "match", "None")
    described = run("tools/describe_model.py", path, "--json")
    assert described.returncode == 0, described.stderr
    assert json.loads(described.stdout)["game_mode"] == "match"
    proc = run("play_models.py", "--model1", path, "--model2", path, "--games", "1")
    assert proc.returncode == 0, proc.stderr


def test_a_checkpoint_naming_no_game_mode_whose_inputs_its_heads_mode_has_not_is_refused(
    tmp_path,
):
    """200 inputs and an equity head, no mode named: cubeless money by its head, which reads
    196 inputs.  The trainer and play_models refused it; describe_model showed it, and
    export_weights wrote it as a DMP model of 200 inputs."""
    path = _unsaid(tmp_path / "cf.pt", 200, "equity", "cubeful-money", "no key")
    for script, *args in (
        ("tools/describe_model.py", path),
        ("tools/export_weights.py", path, tmp_path / "w.bin"),
        ("tools/repair_twins.py", path, "-o", tmp_path / "r.pt", "--games", "2"),
        ("tools/average_checkpoints.py", path, path, "-o", tmp_path / "a.pt"),
        ("play_models.py", "--model1", path, "--model2", path, "--games", "2"),
    ):
        assert_one_line_error(run(script, *args), "'cubeless-money' (its head's")
    assert not list(tmp_path.glob("[wra].*"))


# an output head that its game mode has not (GameMode.outputs): the trainer refused each, the
# readers that never build a player took them (tracebacks where they measured an mwc head)
FOREIGN_HEADS = {
    "an equity head on a dmp model": (196, "probability", "dmp", "equity", "dmp"),
    "a dmp model named cubeless money": (
        196,
        "probability",
        "dmp",
        "probability",
        "cubeless-money",
    ),
    "an mwc head on a cubeful model": (200, "equity", "cubeful-money", "mwc", "cubeful-money"),
    "a probability head on a match model": (208, "mwc", "match", "probability", "match"),
}


@pytest.mark.parametrize("case", sorted(FOREIGN_HEADS))
def test_every_reader_refuses_an_output_head_its_game_mode_has_not(tmp_path, case):
    n_inputs, head, mode, new_head, new_mode = FOREIGN_HEADS[case]
    path = str(tmp_path / "x.pt")
    model = TDNetwork(n_inputs, [8], head)
    meta = {**new_metadata(model, mode), "output_mode": new_head, "game_mode": new_mode}
    save_checkpoint(path, model, meta)
    words = f"output head {new_head!r} plays no {new_mode}"
    for script, *args in (
        ("tools/describe_model.py", path),
        ("tools/export_weights.py", path, tmp_path / "w.bin"),
        ("tools/repair_twins.py", path, "-o", tmp_path / "r.pt", "--games", "2"),
        ("tools/average_checkpoints.py", path, path, "-o", tmp_path / "a.pt"),
        ("play_models.py", "--model1", path, "--model2", "pubeval", "--games", "2"),
        ("tools/analyse.py", path, "4HPwATDgc/ABMA", "--dice", "31"),
    ):
        assert_one_line_error(run(script, *args), words)
    assert not list(tmp_path.glob("[wra].*"))


@pytest.fixture(scope="module")
def stopped(tmp_path_factory):
    return stopped_stage(tmp_path_factory.mktemp("stopped") / "s.pt")


def _damaged(stopped, tmp_path, change) -> str:
    payload = torch.load(stopped, weights_only=True)
    change(payload)
    path = tmp_path / "d.pt"
    torch.save(payload, path)
    (tmp_path / "d.csv").write_bytes(stopped.with_suffix(".csv").read_bytes())
    return str(path)


# a record every run writes with its stage, or a count every writer writes, missing: the
# trainer refused the stage's (describe_model raised a KeyError for episodes done, the players
# played it); a missing total was shown as 0 and continued into a checkpoint every reader
# refused (its new total disagreed with its lineage)
MISSING = {
    "the stage's episodes done": (
        lambda p: p["trainer_state"]["stage"].pop("episodes_done"),
        "its stage has no episodes_done",
    ),
    "the stage's settings": (
        lambda p: p["trainer_state"]["stage"].pop("settings"),
        "its stage has no settings",
    ),
    "the episodes the stage plans": (
        lambda p: p["trainer_state"]["stage"]["settings"].pop("num_episodes"),
        "its stage has no settings' num_episodes",
    ),
    "the total of episodes": (
        lambda p: p["meta"].pop("episodes"),
        "has no 'episodes', where its lineage's stages hold 20",
    ),
    "a stage's episodes in the lineage": (
        lambda p: p["meta"]["lineage"][0].pop("episodes"),
        "its lineage entry 1 has no 'episodes'",
    ),
}


@pytest.mark.parametrize("case", sorted(MISSING))
def test_every_reader_refuses_a_record_missing_what_every_run_writes(stopped, tmp_path, case):
    change, words = MISSING[case]
    path = _damaged(stopped, tmp_path, change)
    for script, *args in (
        ("tools/describe_model.py", path),
        ("play_models.py", "--model1", path, "--model2", "pubeval", "--games", "2"),
        (
            "train_batch.py",
            *("--resume", path, "--save", tmp_path / "t.pt", "--new-stage"),
            *("--num-episodes", "20", "--episodes-per-round", "20", "--parallel-games", "8"),
            "--quiet",
        ),
    ):
        assert_one_line_error(run(script, *args), words)
    assert not (tmp_path / "t.pt").exists()


def test_cubeless_as_cubeful_names_what_makes_an_equity_model_of_a_prob5_one(tmp_path):
    """It named --warm-start-cubeful, a flag of train_batch's, as the tool's own ("warm-start it
    with --warm-start-equity first", said to a tool that has neither)."""
    path = _checkpoint(tmp_path / "p5.pt", 196, "prob5", "cubeless-money")
    proc = run("tools/cubeless_as_cubeful.py", path, tmp_path / "c.pt")
    assert_one_line_error(
        proc,
        f"{path} has a prob5 output, not the equity a cubeless money model plays with; "
        f"train_batch.py --warm-start-equity makes one from it",
    )
    assert not (tmp_path / "c.pt").exists()


def _lineage_stage(payload, **changes):
    """The lineage entry's record of the stage's settings changed alone: in a saved
    checkpoint it is one object with the trainer state's settings, so a copy is edited."""
    recorded = copy.deepcopy(payload["meta"]["lineage"][-1]["stage"])
    recorded.update(changes)
    payload["meta"]["lineage"][-1]["stage"] = recorded


# the lineage entry's record of its stage's settings apart from the stage's own: every
# reader took the trainer state's, describe_model --json showed both, and the continued
# stage kept the other in its lineage (a finished 60-episode stage planning 100)
LINEAGE_APART = {
    "planned episodes": (
        lambda p: _lineage_stage(p, num_episodes=100),
        "num_episodes as 100, where its trainer state's settings hold 60",
    ),
    "learning rate": (lambda p: _lineage_stage(p, lr=1e-3), "lr as 0.001"),
    "a setting more": (
        lambda p: _lineage_stage(p, frobnicate=3),
        "frobnicate as 3, where its trainer state's settings hold none",
    ),
    "not a dict": (
        lambda p: p["meta"]["lineage"][-1].__setitem__("stage", "abc"),
        "as str 'abc'",
    ),
}


@pytest.mark.parametrize("case", sorted(LINEAGE_APART))
def test_every_reader_refuses_a_lineage_whose_stage_settings_are_not_the_stages(
    stopped, tmp_path, case
):
    change, words = LINEAGE_APART[case]
    path = _damaged(stopped, tmp_path, change)
    for script, *args in (
        ("tools/describe_model.py", path, "--json"),
        ("play_models.py", "--model1", path, "--model2", "pubeval", "--games", "2"),
        ("tools/export_weights.py", path, tmp_path / "w.bin"),
        ("train_batch.py", "--resume", path, "--save", tmp_path / "t.pt", "--quiet"),
    ):
        assert_one_line_error(run(script, *args), words)
    assert not list(tmp_path.glob("[wt].*"))


def test_a_continued_stage_keeps_one_record_of_its_settings(tmp_path):
    """A stage recorded before its precision was continues with the precision it collected
    in (float32) added to its settings: its lineage entry's record gains it too, so the
    checkpoint it saves is one every reader takes."""
    path = stopped_stage(tmp_path / "s.pt")
    payload = torch.load(path, weights_only=True)
    del payload["trainer_state"]["stage"]["settings"]["precision"]  # (one object: both lose it)
    torch.save(payload, path)
    run(
        "train_batch.py", "--resume", path, "--save", path, "--stop-at", "40", "--quiet", check=True
    )
    payload = torch.load(path, weights_only=True)
    settings = payload["trainer_state"]["stage"]["settings"]
    assert settings["precision"] == "fp32"
    assert payload["meta"]["lineage"][-1]["stage"] == settings
    described = run("tools/describe_model.py", path, "--json")
    assert described.returncode == 0, described.stderr
