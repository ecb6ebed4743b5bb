"""Stage files (tdbg/app/stage_file.py): a TOML file read as the flags it stands for, so
the settings parsed from it are the ones written in it, a bad key is one error naming it;
and a stage's settings written back as a file that reads as the same stage."""

import dataclasses

import pytest

from tdbg.app import stage_file, stage_flags, training
from tdbg.infra.errors import InputError
from tdbg.learn.stage_settings import BatchStage, OnlineStage, stage_config

STAGE = """\
num-episodes = 20000
hidden = [128, 64]
oneply = true
jacoby = false
lr = 3e-5
batch_size = 64  # a key may spell the flag's dashes as underscores
save = "models/x.pt"
"""


def _file(tmp_path, text: str, name: str = "stage.toml") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_a_stage_file_is_the_flags_it_names(tmp_path):
    tokens = stage_file.read_tokens(training.batch_parser(""), _file(tmp_path, STAGE))
    assert tokens == [
        "--num-episodes",
        "20000",
        "--hidden",
        "128,64",
        "--oneply",
        "--no-jacoby",  # a negatable switch set false is its --no- form
        "--lr",
        "3e-05",
        "--batch-size",
        "64",
        "--save",
        "models/x.pt",
    ]


def test_the_settings_parsed_from_a_stage_file_are_those_written(tmp_path):
    stage, _ = stage_flags.parse(
        training.batch_parser(""), BatchStage, ["--config", _file(tmp_path, STAGE)]
    )
    assert stage.schedule.num_episodes == 20000 and stage.schedule.lr == 3e-5
    assert stage.model.hidden == (128, 64) and stage.model.jacoby is False
    assert stage.collection.oneply is True and stage.optimisation.batch_size == 64
    assert stage.run.save == "models/x.pt"
    # and nothing else moved from its default
    assert stage_config(stage) == {
        **stage_config(BatchStage()),
        "num_episodes": 20000,
        "lr": 3e-5,
        "hidden": [128, 64],
        "jacoby": False,
        "oneply": True,
        "batch_size": 64,
        "save": "models/x.pt",
    }
    assert stage.model.hidden_given  # --hidden came from the file: a loaded net must match it


def test_a_switch_set_false_gives_no_flag(tmp_path):
    path = _file(tmp_path, "oneply = false\njacoby = true\n")
    assert stage_file.read_tokens(training.batch_parser(""), path) == ["--jacoby"]


def test_a_flag_on_the_command_line_wins_over_the_file(tmp_path):
    stage, _ = stage_flags.parse(
        training.batch_parser(""),
        BatchStage,
        ["--config", _file(tmp_path, STAGE), "--lr", "1e-3", "--hidden", "8"],
    )
    assert stage.schedule.lr == 1e-3 and stage.model.hidden == (8,)
    assert stage.schedule.num_episodes == 20000  # the rest still the file's


@pytest.mark.parametrize(
    "text, words",
    [
        ("learning-rate = 0.1\n", "'learning-rate' is not a setting of tdbg train batch"),
        ('config = "other.toml"\n', "'config' is not a setting"),
        ("help = true\n", "'help' is not a setting"),
        ("oneply = 1\n", "oneply is a switch: true or false, got 1"),
        ("lr = true\n", "lr takes a number or text, got True"),
        ('hidden = ["a", "b"]\n', "hidden takes a number or text, got ['a', 'b']"),
        ("[schedule]\nlr = 0.1\n", "'schedule' is not a setting"),
        ("lr = [\n", "not a TOML stage file"),
    ],
)
def test_a_bad_stage_file_is_one_input_error_naming_the_key(tmp_path, text, words):
    path = _file(tmp_path, text)
    parser = training.batch_parser("")
    parser.prog = "tdbg train batch"
    with pytest.raises(InputError) as info:
        stage_file.read_tokens(parser, path)
    assert str(info.value).startswith(f"--config {path}: ")
    assert words in str(info.value)


def test_the_first_bad_key_is_the_one_named(tmp_path):
    path = _file(tmp_path, "num-episodes = 10\nfrob = 1\nwibble = 2\n")
    with pytest.raises(InputError, match="'frob' is not a setting"):
        stage_file.read_tokens(training.batch_parser(""), path)


def test_a_missing_file_or_a_folder_is_refused_before_reading(tmp_path):
    parser = training.batch_parser("")
    with pytest.raises(InputError, match="cannot read it"):
        stage_file.read_tokens(parser, str(tmp_path / "none.toml"))
    with pytest.raises(InputError, match="not a regular file.*not a TOML stage file"):
        stage_file.read_tokens(parser, str(tmp_path))


def test_a_written_stage_names_what_differs_from_the_defaults():
    """The defaults are left out but the length and the checkpoint; the order is the settings'."""
    config = stage_config(
        dataclasses.replace(
            BatchStage(),
            schedule=dataclasses.replace(BatchStage().schedule, lr=1e-3),
            run=dataclasses.replace(BatchStage().run, save="m.pt"),
        )
    )
    assert stage_file.write_text(config, "batch").splitlines() == [
        "# tdbg train batch --config THIS_FILE  (flags given on the command line override these)",
        "num-episodes = 10000",
        "lr = 0.001",
        'save = "m.pt"',
    ]


def test_an_online_stage_is_written_with_its_flag_names():
    """The trace decay's field is ``lam``, its flag --lambda: the file says ``lambda``."""
    config = stage_config(
        dataclasses.replace(
            OnlineStage(), online=dataclasses.replace(OnlineStage().online, lam=0.5)
        )
    )
    lines = stage_file.write_text(config, "online").splitlines()
    assert lines[0].startswith("# tdbg train online --config")
    assert "lambda = 0.5" in lines and not any(line.startswith("lam ") for line in lines)


def test_a_written_stage_reads_back_as_the_same_stage(tmp_path):
    """The oracle is the stage built by hand: written, read and parsed, it comes back."""
    stage = dataclasses.replace(
        BatchStage(),
        model=dataclasses.replace(BatchStage().model, hidden=(16, 8), jacoby=False),
        schedule=dataclasses.replace(BatchStage().schedule, num_episodes=500, lr=2.5e-4),
        collection=dataclasses.replace(BatchStage().collection, oneply=True),
        run=dataclasses.replace(BatchStage().run, save="out.pt", seed=9),
    )
    path = _file(tmp_path, stage_file.write_text(stage_config(stage), "batch"))
    parsed, _ = stage_flags.parse(training.batch_parser(""), BatchStage, ["--config", path])
    assert parsed == dataclasses.replace(
        stage, model=dataclasses.replace(stage.model, hidden_given=True)
    )


@pytest.mark.parametrize(
    "stage, output_mode, trainer",
    [
        ({"settings": {"trainer": "online"}}, "probability", "online"),
        ({"settings": {}}, "prob5", "prob5"),
        ({"settings": {}}, "equity", "batch"),
        ({}, "probability", "batch"),
    ],
)
def test_the_trainer_of_a_recorded_stage(stage, output_mode, trainer):
    assert stage_file.trainer_of(stage, output_mode) == trainer
