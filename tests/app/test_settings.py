"""Settings dataclasses and the flags made from them (tdbg/learn/stage_settings.py,
tdbg/app/settings_flags.py): a flag's default is its field's, every field says what it does,
and a stage records the same settings in its checkpoint as before."""

import dataclasses

import pytest

from tdbg.app import settings_flags, training
from tdbg.game.modes import game_mode
from tdbg.infra.settings_fields import fixed, option, unlisted, variant
from tdbg.learn.batch_td import BatchLearner
from tdbg.learn.online_td import OnlineLearner
from tdbg.learn.selfplay import Acting
from tdbg.learn.stage_settings import (
    BatchStage,
    OnlineStage,
    Optimisation,
    Prob5Stage,
    Run,
    recorded,
)

import train_prob5

PARSERS = [
    (BatchStage, lambda: training.batch_parser("")),
    (Prob5Stage, train_prob5.build_parser),
    (OnlineStage, lambda: training.online_parser("")),
]


def leaf_fields(cls):
    for f in dataclasses.fields(cls):
        if dataclasses.is_dataclass(f.default):
            yield from leaf_fields(type(f.default))
        else:
            yield f


@pytest.mark.parametrize("stage_class, make", PARSERS, ids=["batch", "prob5", "online"])
def test_flag_defaults_are_the_fields_defaults(stage_class, make):
    """Nothing given but --save: the settings are the dataclass's own defaults."""
    parsed = settings_flags.build(stage_class, make().parse_args(["--save", "x.pt"]))
    assert parsed == dataclasses.replace(
        stage_class(), run=dataclasses.replace(stage_class().run, save="x.pt")
    )


@pytest.mark.parametrize("stage_class", [BatchStage, Prob5Stage, OnlineStage])
def test_every_field_says_what_it_does(stage_class):
    for f in leaf_fields(stage_class):
        assert f.metadata.get("help", "").strip(), f.name


def test_flags_reach_their_fields():
    args = training.batch_parser("").parse_args(
        [
            "--save",
            "x.pt",
            "--hidden",
            "32,16",
            "--cube-explore",
            "0.25",
            "--no-jacoby",
            "--lr",
            "2e-4",
            "--grad-clip",
            "1.5",
            "--workers",
            "2",
            "--backend",
            "local",
            "--eval-every",
            "3",
            "--torch-seed",
            "7",
        ]
    )
    stage = settings_flags.build(BatchStage, args, hidden_given=True)
    assert stage.model.hidden == (32, 16) and stage.model.hidden_given and not stage.model.jacoby
    assert stage.acting == Acting(cube_explore=0.25)
    assert (
        stage.schedule.lr == 2e-4
        and stage.optimisation.grad_clip == 1.5
        and stage.collection.workers == 2
    )
    assert (
        stage.evaluation.eval_every == 3
        and stage.run.weights_seed() == 7
        and stage.where.backend == "local"
    )
    online = settings_flags.build(
        OnlineStage, training.online_parser("").parse_args(["--save", "y", "--lambda", "0.5"])
    )
    assert online.online.lam == 0.5 and online.schedule.lr == 0.1


def test_a_new_knob_is_one_field():
    @dataclasses.dataclass(frozen=True)
    class Knobs:
        alpha_beta: float = option(0.5, "a new knob", type="probability_arg", metavar="P")
        gamma: bool = option(False, "a switch")

    parser = training.cli.Parser()
    settings_flags.add_arguments(parser, Knobs)
    assert "a new knob" in parser.format_help() and "--alpha-beta P" in parser.format_help()
    assert settings_flags.build(
        Knobs, parser.parse_args(["--alpha-beta", "0.25", "--gamma"])
    ) == Knobs(0.25, True)
    with pytest.raises(SystemExit):
        parser.parse_args(["--alpha-beta", "2"])


def test_a_settings_class_says_which_fields_are_flags():
    """A subclass holds a field of its base at the default with no flag (``fixed``), offers
    one its base fixes (``variant(..., fixed=False)``) or takes one without listing it
    (``unlisted``): the parser follows the class, no list of names beside it."""

    @dataclasses.dataclass(frozen=True)
    class Base:
        alpha: int = option(1, "alpha's help", type=int)
        beta: int = option(2, "beta's help", type=int, fixed=True)
        gamma: int = option(3, "gamma's help", type=int)

    @dataclasses.dataclass(frozen=True)
    class Sub(Base):
        alpha: int = fixed(Base, "alpha")
        beta: int = variant(Base, "beta", fixed=False)
        gamma: int = unlisted(Base, "gamma")

    def parser(cls):
        p = training.cli.Parser()
        settings_flags.add_arguments(p, cls)
        return p

    base, sub = parser(Base), parser(Sub)
    assert "--alpha" in base.format_help() and "--beta" not in base.format_help()
    assert "--alpha" not in sub.format_help() and "beta's help" in sub.format_help()
    assert "--gamma" not in sub.format_help()
    with pytest.raises(SystemExit):
        base.parse_args(["--beta", "5"])
    assert settings_flags.build(Sub, sub.parse_args(["--beta", "5", "--gamma", "6"])) == Sub(
        1, 5, 6
    )
    assert [f.name for f in dataclasses.fields(Sub)] == ["alpha", "beta", "gamma"]


def test_each_trainer_offers_its_own_flags():
    """The online learner takes no device, rounds or warm starts; only prob5 training takes
    the five-output loss; prob5 training takes the warm-start flags without listing them."""
    batch, prob5 = training.batch_parser("").format_help(), train_prob5.build_parser()
    online = training.online_parser("").format_help()
    for flag in ("--device", "--episodes-per-round", "--warm-start-equity", "--json", "--met"):
        assert flag in batch and flag not in online, flag
    assert "--lambda" in online and "--lambda" not in batch
    assert "--loss" in prob5.format_help() and "--loss" not in batch
    assert "--warm-start-equity" not in prob5.format_help()
    assert (
        prob5.parse_args(["--save", "x", "--warm-start-equity", "e.pt"]).warm_start_equity == "e.pt"
    )


def test_the_stage_records_what_it_did_before():
    """The settings stored in a checkpoint: the base ones always, the options only when set."""
    mode = game_mode("dmp")
    base = {
        "num_episodes": 10000,
        "oneply": False,
        "game_mode": "dmp",
        "lr": 3e-4,
        "end_lr": None,
        "warmup_cycles": 0,
        "episodes_per_round": 500,
        "optimizer": "adam",
    }
    assert BatchLearner.settings(BatchStage(), mode) == base
    stage = BatchStage(
        acting=Acting(boltzmann_temp=0.01, td_lambda=0.7),
        optimisation=Optimisation(grad_clip=2.0),
        run=Run(seed=3),
    )
    assert BatchLearner.settings(stage, mode) == {
        **base,
        "boltzmann_temp": 0.01,
        "td_lambda": 0.7,
        "grad_clip": 2.0,
    }
    assert recorded(BatchStage()) == {}
    assert OnlineLearner.settings(OnlineStage(), mode) == {
        "trainer": "online",
        "num_episodes": 10000,
        "lambda": 0.7,
        "lr": 0.1,
        "end_lr": None,
        "game_mode": "dmp",
    }


def test_hidden_given_reads_the_command_line():
    assert settings_flags.flag_given("--hidden", ["--hidden=16", "--save", "x"])
    assert settings_flags.flag_given("--hidden", ["--save", "x", "--hidden", "16"])
    assert not settings_flags.flag_given("--hidden", ["--expand", "16"])


def test_a_positional_argument_is_named_as_argparse_names_it(tmp_path):
    """A name that is not UTF-8 given as a positional argument: the error names the argument
    as argparse itself does (`argument checkpoint`), not as a flag it is not
    (`argument --checkpoint`); a flag keeps its name."""
    import os
    import subprocess
    import sys

    from helpers import HANG_GUARD, ROOT, assert_one_line_error

    bad = os.fsdecode(b"m\xff.pt")
    for args, name in [
        (["tools/describe_model.py", bad], "argument checkpoint: "),
        (["play_models.py", "--model1", bad, "--model2", "pubeval"], "argument --model1: "),
    ]:
        proc = subprocess.run(
            [sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=HANG_GUARD
        )
        assert_one_line_error(proc, name + "m\\xff.pt: the name is not UTF-8 text")


@pytest.mark.parametrize("text", ["1_000", "1e3", "\u0661\u0660", "0x10", "5.0", ""])
def test_whole_number_flags_take_ascii_digits_only(text):
    """--trials 1_000 was read as 1,000 (Python's int() takes underscores and other scripts'
    digits) where --hidden 1_0 and --games 1e3 were refused: every whole-number flag now reads
    the same way."""
    import argparse

    from tdbg.app import cli

    with pytest.raises(argparse.ArgumentTypeError, match="expected a whole number"):
        cli.positive_int(text)


def test_whole_number_flags_still_take_plain_numbers():
    from tdbg.app import cli

    assert (
        cli.positive_int("1000") == 1000
        and cli.positive_int(" 7 ") == 7
        and cli.non_negative_int("+0") == 0
    )
    assert cli.seed_arg("4294967295") == 2**32 - 1
