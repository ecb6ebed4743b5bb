"""Stage files: --config sets any training flag (the command line overrides it), and
describe_model --config writes a checkpoint's stage back as a file that runs it again."""

import pytest
import torch

from helpers import assert_one_line_error, run
from tdbg.net.model import load_checkpoint

QUICK = ["--hidden", "8", "--episodes-per-round", "20", "--parallel-games", "8", "--quiet"]


def _weights(path):
    return list(load_checkpoint(str(path))[0].state_dict().values())


def test_a_stage_written_back_runs_the_same_stage(tmp_path):
    """The oracle is the first run itself: the stage file's run trains the same weights."""
    first = tmp_path / "first.pt"
    run(
        "train_batch.py",
        *QUICK,
        "--num-episodes",
        "40",
        "--lr",
        "1e-4",
        "--seed",
        "4",
        "--batch-size",
        "64",
        "--save",
        first,
        check=True,
    )
    proc = run("tools/describe_model.py", "--config", first, check=True)
    lines = proc.stdout.splitlines()
    assert {
        "lr = 0.0001",
        "seed = 4",
        "batch-size = 64",
        "hidden = [8]",
        "num-episodes = 40",
    } <= set(lines)
    stage = tmp_path / "stage.toml"
    stage.write_text(proc.stdout)
    again = tmp_path / "again.pt"
    run("train_batch.py", "--config", stage, "--save", again, "--quiet", check=True)
    assert all(torch.equal(a, b) for a, b in zip(_weights(first), _weights(again), strict=True))


def test_command_line_overrides_the_file(tmp_path):
    stage = tmp_path / "stage.toml"
    stage.write_text(
        "hidden = [8]\nnum-episodes = 20\nlr = 3e-4\nepisodes-per-round = 20\n"
        "parallel-games = 8\nquiet = true\noneply = false\n"
    )
    save = tmp_path / "x.pt"
    run("train_batch.py", "--config", stage, "--lr", "1e-3", "--save", save, check=True)
    model, _, ts = load_checkpoint(str(save))
    settings = ts["stage"]["settings"]
    assert (
        settings["lr"] == 1e-3
        and settings["num_episodes"] == 20
        and settings["episodes_per_round"] == 20
    )
    assert model.hidden == [8]


def test_online_stage_file_names_its_flags(tmp_path):
    stage = tmp_path / "online.toml"
    stage.write_text(
        "hidden = [8]\nnum-episodes = 10\nlog-every = 10\nlambda = 0.5\nquiet = true\n"
    )
    save = tmp_path / "o.pt"
    run("train_online.py", "--config", stage, "--save", save, check=True)
    _, _, ts = load_checkpoint(str(save))
    assert ts["stage"]["settings"]["lambda"] == 0.5
    proc = run("tools/describe_model.py", "--config", save, check=True)
    assert "lambda = 0.5" in proc.stdout.splitlines() and "tdbg train online" in proc.stdout


@pytest.mark.parametrize(
    "text, words",
    [
        ("learning-rate = 0.1\n", "'learning-rate' is not a setting"),
        ('lr = "fast"\n', "argument --lr"),
        ("oneply = 1\n", "oneply is a switch"),
        ('config = "other.toml"\n', "'config' is not a setting"),
        ("lr = [\n", "not a TOML stage file"),
    ],
)
def test_bad_stage_files_are_one_line_errors(tmp_path, text, words):
    stage = tmp_path / "bad.toml"
    stage.write_text(text)
    proc = run("train_batch.py", "--config", stage, "--save", tmp_path / "x.pt", *QUICK)
    assert_one_line_error(proc, words)
    assert not (tmp_path / "x.pt").exists()


def test_a_missing_stage_file_is_one_line(tmp_path):
    proc = run("train_batch.py", "--config", tmp_path / "none.toml", "--save", tmp_path / "x.pt")
    assert_one_line_error(proc, "cannot read it")


def test_the_example_stage_file_is_the_readme_first_session():
    """experiments/stages/first_session.toml resolves to the settings of the README's command."""
    import os
    import train_batch
    from helpers import ROOT
    from tdbg.app import training
    from tdbg.learn.stage_settings import BatchStage

    readme = open(os.path.join(ROOT, "README.md")).read()
    command = (
        readme[readme.index("python train_batch.py --hidden 40") :]
        .split("#")[0]
        .replace("\\\n", " ")
    )
    argv = command.split()[2:]
    by_flags, _ = training.stage_settings(BatchStage, train_batch.build_parser(), argv)
    by_file, _ = training.stage_settings(
        BatchStage,
        train_batch.build_parser(),
        ["--config", os.path.join(ROOT, "experiments/stages/first_session.toml")],
    )
    assert by_file == by_flags and by_file.schedule.num_episodes == 5000


def test_text_settings_are_written_as_toml_reads_them():
    """A path with quotes, backslashes, a tab and non-ASCII letters comes back from tomllib as written."""
    import tomllib
    from tdbg.app import stage_file

    path = 'models/odd "name"\\x\tä.pt'
    text = stage_file.write_text(
        {"save": path, "num_episodes": 20, "lr": 3e-05, "hidden": [8, 4], "oneply": True}, "batch"
    )
    assert tomllib.loads(text) == {
        "save": path,
        "num-episodes": 20,
        "lr": 3e-05,
        "hidden": [8, 4],
        "oneply": True,
    }


def test_config_of_a_tools_output_names_the_tool_that_kept_no_stage(tmp_path):
    """A checkpoint written by repair_twins, average_checkpoints or cubeless_as_cubeful
    keeps no stage: --config said it was "trained before they were recorded", of a file
    made a moment ago from one that records its stage."""
    trained = tmp_path / "t.pt"
    run(
        "train_batch.py",
        *("--game-mode", "cubeless-money", "--hidden", "8", "--num-episodes", "20"),
        *("--episodes-per-round", "20", "--parallel-games", "8", "--save", trained, "--quiet"),
        check=True,
    )
    made = {
        "repair_twins.py": (
            "tools/repair_twins.py",
            trained,
            "-o",
            tmp_path / "r.pt",
            "--games",
            2,
        ),
        "average_checkpoints.py": (
            "tools/average_checkpoints.py",
            *(trained, trained, "-o", tmp_path / "a.pt"),
        ),
        "cubeless_as_cubeful.py": ("tools/cubeless_as_cubeful.py", trained, tmp_path / "c.pt"),
    }
    for script, *args in made.values():
        run(script, *args, check=True)
    for tool, out in zip(made, ("r.pt", "a.pt", "c.pt"), strict=True):
        proc = run("tools/describe_model.py", "--config", tmp_path / out)
        assert_one_line_error(proc, f"its last lineage entry is a run of {tool}")
        assert "trained before" not in proc.stderr
