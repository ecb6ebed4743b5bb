"""A training stage's scoring settings go from train_batch.py's flags to self-play's Scorer as
one value, field for field under the same names, and self-play's workers run where the stage's
``where`` says; a checkpoint that recorded the scoring settings under their former names
(``scoring``, ``collect_precision``) continues with the same settings."""

import pickle
from dataclasses import dataclass, fields, replace

import pytest
from helpers import ROOT

from tdbg.app import stage_flags, training
from tdbg.game.modes import game_mode
from tdbg.infra.backends import Backend
from tdbg.infra.errors import InputError
from tdbg.infra.settings_fields import option
from tdbg.learn.batch_td import BatchLearner
from tdbg.learn.run_control import plan_stage
from tdbg.learn.selfplay import FP32_COLLECTION, Collector, SelfPlay, SelfPlaySetup
from tdbg.learn.stage_settings import BatchStage, CollectionScoring, stage_config
from tdbg.net.model import TDNetwork, load_checkpoint, with_current_setting_names
from tdbg.net.scoring import ScoringSettings

# an unfinished stage (250,000 of 500,000 episodes) whose settings record collect_precision bf16
UNFINISHED = f"{ROOT}/best_models/dmp_256x3_1ply.pt"


def batch_stage(argv: list[str]) -> BatchStage:
    return stage_flags.parse(training.batch_parser(""), BatchStage, argv)[0]


def test_the_flags_reach_the_scorer_as_the_stage_holds_them(tmp_path):
    stage = batch_stage(
        ["--scoring", "dense", "--collect-precision", "fp32", "--save", str(tmp_path / "s.pt")]
    )
    assert stage.collection.scoring == CollectionScoring(first_layer="dense", precision="fp32")
    setup = SelfPlaySetup(game_mode("dmp"), stage.collection, stage.acting, engine="c")
    model = TDNetwork(196, [8]).eval()
    assert SelfPlay(model, setup).scorer.scoring is stage.collection.scoring  # in this process
    worker = SelfPlay(model, pickle.loads(pickle.dumps(setup))).scorer  # as a worker gets it
    assert worker.scoring == stage.collection.scoring
    assert (worker.first_layer, worker.lowp) == ("dense", None)  # dense, torch float32


def test_every_scoring_setting_is_a_stage_setting_and_a_flag_of_the_same_name():
    """What the Scorer takes is the stage's own settings: each field of ScoringSettings is a
    setting of the stage by its name, recorded under it, with a flag that sets it."""
    names = {f.name for f in fields(ScoringSettings)}
    assert names == {"first_layer", "precision"}
    assert names <= set(stage_config(BatchStage()))
    dests = {a.dest for a in training.batch_parser("")._actions}
    assert names <= dests


@dataclass(frozen=True)
class WithANewSetting(CollectionScoring):
    """A scoring setting added after the fact, as a new field of ScoringSettings would be."""

    new_setting: int = option(7, "a setting only the Scorer reads")


def test_a_new_scoring_setting_reaches_the_scorer_with_nothing_to_pass_it_on():
    collection = replace(FP32_COLLECTION, scoring=WithANewSetting(precision="fp32", new_setting=3))
    setup = pickle.loads(pickle.dumps(SelfPlaySetup(game_mode("dmp"), collection)))
    assert SelfPlay(TDNetwork(196, [8]).eval(), setup).scorer.scoring.new_setting == 3


def test_the_collector_runs_where_the_stage_says():
    setup = SelfPlaySetup(game_mode("dmp"), replace(FP32_COLLECTION, workers=1))
    assert Collector(setup, where=Backend("local")).pool is None  # one local worker: here
    separate = Collector(setup, where=Backend("local"), separate=True)
    try:
        assert separate.pool is not None  # its own process
    finally:
        separate.close()


def test_a_checkpoint_reads_its_stages_settings_under_todays_names():
    """The settings and the config of the unfinished stage, and each lineage entry's stage."""
    meta = {"lineage": [{"stage": {"lr": 0.1, "collect_precision": "bf16"}}, {"episodes": 3}]}
    state = {"stage": {"settings": {"collect_precision": "int8"}, "config": {"scoring": "dense"}}}
    with_current_setting_names(meta, state)
    assert meta["lineage"] == [{"stage": {"lr": 0.1, "precision": "bf16"}}, {"episodes": 3}]
    assert state["stage"] == {"settings": {"precision": "int8"}, "config": {"first_layer": "dense"}}
    with_current_setting_names({}, None)  # no lineage, no trainer state: nothing to rename


def test_a_stage_recorded_under_the_former_names_continues_with_the_same_settings(tmp_path):
    _, meta, state = load_checkpoint(UNFINISHED)
    assert state["stage"]["settings"]["precision"] == "bf16"
    assert "collect_precision" not in state["stage"]["settings"]
    assert all("collect_precision" not in e.get("stage", {}) for e in meta["lineage"])
    stage = batch_stage(["--resume", UNFINISHED, "--save", str(tmp_path / "c.pt")])
    assert stage.collection.scoring.precision == "bf16"  # taken from the record
    settings = BatchLearner.settings(stage, game_mode("dmp"))
    continuing, note = plan_stage(
        UNFINISHED, False, stage.schedule.num_episodes, state["stage"], settings
    )
    assert continuing and note.endswith(
        "continuing its unfinished stage at 250,000 of 500,000 episodes"
    )


def test_another_precision_than_the_recorded_one_is_refused_by_its_flag(tmp_path):
    _, _, state = load_checkpoint(UNFINISHED)
    argv = ["--resume", UNFINISHED, "--save", str(tmp_path / "c.pt"), "--collect-precision", "fp32"]
    stage = batch_stage(argv)
    settings = BatchLearner.settings(stage, game_mode("dmp"))
    with pytest.raises(InputError, match=r"other settings \(collect-precision bf16 -> fp32\)"):
        plan_stage(UNFINISHED, False, stage.schedule.num_episodes, state["stage"], settings)
