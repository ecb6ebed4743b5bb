"""A training script's flags resolved into its stage settings (tdbg/app/stage_flags.py):
the command line over the stage file over an unfinished stage's record over the defaults,
on checkpoints written here with the stage records set by hand (no training run)."""

import pytest

from tdbg.app import stage_flags, training
from tdbg.infra.errors import InputError
from tdbg.learn.stage_settings import BatchStage, OnlineStage
from tdbg.net.model import TDNetwork, new_metadata, save_checkpoint


def checkpoint(path, done: int, total: int, settings: dict, config: dict | None = None) -> str:
    """A checkpoint whose stage has run ``done`` of ``total`` episodes with ``settings``
    (the compared ones) and ``config`` (every setting, as a stage records it)."""
    model = TDNetwork(196, [8])
    stage = {"episodes_done": done, "settings": {"num_episodes": total, **settings}}
    if config is not None:
        stage["config"] = config
    meta = {**new_metadata(model, "dmp"), "episodes": done, "lineage": [{"episodes": done}]}
    save_checkpoint(str(path), model, meta, {"stage": stage})  # (its lineage entry, as every run's)
    return str(path)


def parse(argv, stage_class=BatchStage):
    parser = training.online_parser("") if stage_class is OnlineStage else training.batch_parser("")
    return stage_flags.parse(parser, stage_class, argv)


def test_the_flags_given_are_found_abbreviated_or_not():
    parser = training.batch_parser("")
    given = stage_flags.given_on_command_line(
        parser, ["--num-ep", "5", "--lr=1e-3", "--oneply", "--no-jacoby", "--save", "x.pt"]
    )
    assert given == {"num_episodes", "lr", "oneply", "jacoby", "save"}


def test_an_unfinished_stage_continues_with_its_recorded_settings(tmp_path):
    ck = checkpoint(
        tmp_path / "x.pt",
        20,
        100,
        {"lr": 0.001, "batch_size": 32},
        {"lr": 0.001, "batch_size": 32, "num_episodes": 100, "seed": 7, "hidden": [8]},
    )
    stage, args = parse(["--resume", ck, "--save", ck])
    assert (stage.schedule.lr, stage.optimisation.batch_size) == (0.001, 32)
    assert (stage.schedule.num_episodes, stage.run.seed) == (100, 7)
    # the hidden sizes made the network when the stage began: never taken from the record
    assert stage.model.hidden == BatchStage().model.hidden and not stage.model.hidden_given
    assert args.resume == ck


def test_a_setting_given_wins_over_the_record(tmp_path):
    ck = checkpoint(tmp_path / "x.pt", 20, 100, {"lr": 0.001, "batch_size": 32})
    stage, _ = parse(["--resume", ck, "--save", ck, "--lr", "5e-4"])
    assert stage.schedule.lr == 5e-4 and stage.optimisation.batch_size == 32


def test_the_compared_settings_win_over_the_config(tmp_path):
    """A stage ended early rewrote its compared settings (num_episodes): those are the stage's."""
    ck = checkpoint(tmp_path / "x.pt", 20, 60, {}, {"num_episodes": 100})
    stage, _ = parse(["--resume", ck, "--save", ck])
    assert stage.schedule.num_episodes == 60


@pytest.mark.parametrize("done", [100, 120])
def test_a_finished_stage_gives_nothing(tmp_path, done):
    ck = checkpoint(tmp_path / "x.pt", done, 100, {"lr": 0.001})
    stage, _ = parse(["--resume", ck, "--save", str(tmp_path / "y.pt")])
    assert stage.schedule.lr == BatchStage().schedule.lr


def test_new_stage_takes_nothing_from_the_record(tmp_path):
    ck = checkpoint(tmp_path / "x.pt", 20, 100, {"lr": 0.001})
    stage, _ = parse(["--resume", ck, "--save", ck, "--new-stage"])
    assert stage.schedule.lr == BatchStage().schedule.lr


def test_the_record_of_online_training_names_lambda(tmp_path):
    """Online stages record the trace decay as ``lambda``; its field is ``lam``."""
    ck = checkpoint(tmp_path / "o.pt", 10, 50, {"lambda": 0.25, "lr": 0.05})
    stage, _ = parse(["--resume", ck, "--save", ck], OnlineStage)
    assert stage.online.lam == 0.25 and stage.schedule.lr == 0.05


def test_the_same_command_again_continues_the_stage_at_save(tmp_path):
    """The stage began with --warm-start-equity P into X; run again, it continues X itself."""
    parent = checkpoint(tmp_path / "p.pt", 10, 10, {})
    save = checkpoint(
        tmp_path / "x.pt", 20, 100, {"lr": 0.002}, {"warm_start_equity": parent, "lr": 0.002}
    )
    stage, args = parse(["--warm-start-equity", parent, "--save", save])
    assert args.resume == save and args.warm_start_equity is None
    assert stage.model.resume == save and stage.schedule.lr == 0.002


def test_a_stage_at_save_begun_otherwise_is_refused(tmp_path):
    save = checkpoint(tmp_path / "x.pt", 20, 100, {}, {"warm_start_equity": None})
    other = checkpoint(tmp_path / "p.pt", 10, 10, {})
    with pytest.raises(InputError) as info:
        parse(["--warm-start-equity", other, "--save", save])
    assert str(info.value).startswith(
        f"--save {save} holds its unfinished stage at 20 of 100 episodes, started from scratch"
    )


def test_overwrite_never_replaces_an_unfinished_stage_unnoticed(tmp_path):
    save = checkpoint(tmp_path / "x.pt", 20, 100, {})
    with pytest.raises(InputError, match="drop --overwrite to continue it, or add --new-stage"):
        parse(["--save", save, "--overwrite"])
    stage, _ = parse(["--save", save, "--overwrite", "--new-stage"])  # a new stage replaces it
    assert stage.model.resume is None


@pytest.mark.parametrize(
    "settings, words",
    [
        ({"lr": "abc"}, "records --lr 'abc', which the flag refuses"),
        ({"batch_size": -3}, "records --batch-size -3, which the flag refuses"),
        ({"optimizer": "nesterov"}, "records --optimizer 'nesterov', which the flag refuses"),
    ],
)
def test_a_recorded_value_the_flag_refuses_is_one_input_error(tmp_path, settings, words):
    ck = checkpoint(tmp_path / "x.pt", 20, 100, settings)
    with pytest.raises(InputError) as info:
        parse(["--resume", ck, "--save", ck])
    assert str(info.value).startswith(f"{ck}: its unfinished stage {words}")


def test_the_recorded_log_continues_only_when_it_is_the_one_given(tmp_path):
    log = str(tmp_path / "run.csv")
    ck = checkpoint(tmp_path / "x.pt", 20, 100, {}, {"log": log})
    stage, _ = parse(["--resume", ck, "--save", ck, "--log", log])
    assert stage.run.log_continues
    stage, _ = parse(["--resume", ck, "--save", ck, "--log", str(tmp_path / "other.csv")])
    assert not stage.run.log_continues
