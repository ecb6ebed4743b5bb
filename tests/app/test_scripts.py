"""The scripts' modules (tdbg/app/scripts/): each parser gives its settings' defaults and the
settings of the commands its notes show, and each ``main`` hands what was parsed to the run
it names (the runs themselves replaced here: tests/scripts/ runs the scripts end to end)."""

import dataclasses
import re
import sys

import pytest

from tdbg.app import backend_flags, cli, eval_command, play_command, settings_flags, training
from tdbg.app.eval_settings import EvalSettings
from tdbg.app.play_settings import PlaySettings
from tdbg.app.scripts import gnubg_eval, play_models, train_batch, train_online, train_prob5
from tdbg.learn.batch_td import BatchLearner
from tdbg.learn.online_td import OnlineLearner
from tdbg.learn.stage_settings import BatchStage, OnlineStage, Prob5Stage


def documented_commands(module) -> list[list[str]]:
    """The arguments of each ``python script.py ...`` command in the module's notes."""
    text = module.__doc__.replace("\\\n", " ")
    return [m.split() for m in re.findall(r"^\s+python \S+\.py (.*)$", text, re.M)]


@pytest.fixture
def calls(monkeypatch):
    """What each replaced run was called with, in order."""
    seen = []
    monkeypatch.setattr(backend_flags, "start", lambda args: seen.append(("backend", args.workers)))
    monkeypatch.setattr(
        training,
        "finish",
        lambda summary, json_path=None: seen.append(("finish", summary, json_path)),
    )
    return seen


def fake_stage_run(monkeypatch, module, seen):
    def run_stage(stage, learner_class, output_mode=None):
        seen.append(("run_stage", stage, learner_class, output_mode))
        return {"interrupted": None}

    monkeypatch.setattr(module, "run_stage", run_stage)


def test_gnubg_eval_defaults_are_its_settings_defaults():
    parsed = settings_flags.build(EvalSettings, gnubg_eval.build_parser().parse_args([]))
    assert parsed == EvalSettings()
    assert (parsed.games, parsed.ply, parsed.gnubg_timeout, parsed.opponent) == (
        100,
        0,
        600.0,
        "self",
    )


def test_gnubg_eval_documented_commands():
    (first, second, third) = documented_commands(gnubg_eval)

    def build(argv):
        return settings_flags.build(EvalSettings, gnubg_eval.build_parser().parse_args(argv))

    assert build(first) == EvalSettings(
        model="models/cubeful.pt", games=200, ply=0, json="out.json"
    )
    assert build(second) == EvalSettings(
        model="best_models/match_256x2_outcomes.pt", match_length=7, games=100
    )
    assert third == ["--from-mat", "DIR", "[--player", "td]"]  # a usage line, not a command


def test_gnubg_eval_main_runs_the_settings_parsed(monkeypatch):
    seen = []
    monkeypatch.setattr(eval_command, "run", seen.append)
    monkeypatch.setattr(
        sys, "argv", ["gnubg_eval.py", "--model", "m.pt", "--games", "7", "--ply", "2"]
    )
    gnubg_eval.main()
    assert seen == [EvalSettings(model="m.pt", games=7, ply=2)]


def test_play_models_needs_model1_and_defaults_to_its_settings():
    parser = play_models.build_parser()
    assert settings_flags.build(
        PlaySettings, parser.parse_args(["--model1", "a.pt"])
    ) == PlaySettings(model1="a.pt")
    with pytest.raises(SystemExit):
        parser.parse_args([])


def test_play_models_documented_commands(monkeypatch):
    seen = []
    monkeypatch.setattr(play_command, "run", seen.append)
    for argv in documented_commands(play_models):
        monkeypatch.setattr(sys, "argv", ["play_models.py", *argv])
        play_models.main()
    first, second = seen
    assert first == PlaySettings(model1="models/dmp.pt", gnubg_nn=True, games=2000, workers=2)
    assert second == PlaySettings(
        model1="models/cubeful.pt",
        model2="models/cubeful.pt",
        game_mode="cubeful-money",
        games=100,
        save_games="selfplay_games",
    )


@pytest.mark.parametrize(
    "make, stage_class",
    [
        (train_batch.build_parser, BatchStage),
        (train_prob5.build_parser, Prob5Stage),
        (train_online.build_parser, OnlineStage),
    ],
    ids=["batch", "prob5", "online"],
)
def test_a_training_parser_gives_its_stages_defaults(make, stage_class):
    stage, _ = training.stage_settings(stage_class, make(), ["--save", "x.pt"])
    expected = stage_class()
    assert stage == dataclasses.replace(
        expected, run=dataclasses.replace(expected.run, save="x.pt")
    )


def test_the_defaults_the_training_notes_rely_on():
    """prob5 plays cubeless money with MSE; online TD's alpha is 0.1 and lambda 0.7."""
    prob5, _ = training.stage_settings(Prob5Stage, train_prob5.build_parser(), ["--save", "p.pt"])
    assert prob5.model.game_mode == "cubeless-money" and prob5.optimisation.loss == "mse"
    online, _ = training.stage_settings(
        OnlineStage, train_online.build_parser(), ["--save", "o.pt"]
    )
    assert (online.schedule.lr, online.online.lam) == (0.1, 0.7)


def test_the_batch_chain_of_the_notes(monkeypatch, calls):
    """Each stage of the documented chain is parsed as it says and run by the batch learner."""
    fake_stage_run(monkeypatch, train_batch, calls)
    for argv in documented_commands(train_batch):
        monkeypatch.setattr(sys, "argv", ["train_batch.py", *argv])
        train_batch.main()
    stages = [c[1] for c in calls if c[0] == "run_stage"]
    assert [c[2] for c in calls if c[0] == "run_stage"] == [BatchLearner] * 4
    dmp, cubeless, cubeful, oneply = stages
    assert dmp.model.hidden == (128, 128) and dmp.schedule.num_episodes == 20000
    assert dmp.run.save == "models/dmp.pt"
    assert cubeless.model.warm_start_equity == "models/dmp.pt"
    assert cubeful.model.warm_start_cubeful == "models/cubeless.pt"
    assert cubeful.schedule.warmup_cycles == 20
    assert oneply.model.resume == "models/cubeful.pt" and oneply.collection.oneply
    assert oneply.schedule.num_episodes == 5000
    # the workers are started for each run, and each summary finishes it
    assert [c[0] for c in calls] == ["backend", "run_stage", "finish"] * 4


def test_train_batch_writes_its_summary_where_json_says(monkeypatch, calls):
    fake_stage_run(monkeypatch, train_batch, calls)
    monkeypatch.setattr(sys, "argv", ["train_batch.py", "--save", "x.pt", "--json", "s.json"])
    train_batch.main()
    assert calls[-1] == ("finish", {"interrupted": None}, "s.json")


def test_train_online_runs_the_online_learner(monkeypatch, calls):
    fake_stage_run(monkeypatch, train_online, calls)
    (argv,) = documented_commands(train_online)
    monkeypatch.setattr(sys, "argv", ["train_online.py", *argv])
    train_online.main()
    (_, stage, learner, _), finish = calls
    assert learner is OnlineLearner and finish == ("finish", {"interrupted": None}, None)
    assert (stage.model.hidden, stage.online.lam, stage.schedule.lr) == ((80,), 0.7, 0.1)
    assert stage.schedule.num_episodes == 20000 and stage.run.save == "models/online.pt"


def test_train_prob5_runs_five_outputs(monkeypatch, calls):
    fake_stage_run(monkeypatch, train_prob5, calls)
    first, second = documented_commands(train_prob5)
    for argv in (first, second):
        monkeypatch.setattr(sys, "argv", ["train_prob5.py", *argv])
        train_prob5.main()
    runs = [c for c in calls if c[0] == "run_stage"]
    assert [(c[2], c[3]) for c in runs] == [(BatchLearner, "prob5")] * 2
    assert runs[0][1].model.hidden == (128, 128) and runs[0][1].run.save == "models/prob5.pt"
    refine = runs[1][1]
    assert refine.collection.oneply and refine.model.resume == "models/prob5.pt"
    assert (refine.schedule.num_episodes, refine.schedule.lr) == (2000, 1.5e-4)


def test_train_prob5_mse_is_the_loss_flag():
    parser = train_prob5.build_parser()
    ce, _ = training.stage_settings(
        Prob5Stage, parser, ["--save", "p.pt", "--loss", "cross-entropy"]
    )
    mse, _ = training.stage_settings(
        Prob5Stage, parser, ["--save", "p.pt", "--loss", "cross-entropy", "--mse"]
    )
    assert (ce.optimisation.loss, mse.optimisation.loss) == ("cross-entropy", "mse")


@pytest.mark.parametrize("flag", ["--warm-start-equity", "--warm-start-cubeful"])
def test_train_prob5_refuses_a_warm_start_before_any_work(monkeypatch, calls, flag):
    """The warm starts are hidden from prob5's help but parsed: main refuses them in one line."""
    fake_stage_run(monkeypatch, train_prob5, calls)
    assert flag not in train_prob5.build_parser().format_help()
    monkeypatch.setattr(sys, "argv", ["train_prob5.py", flag, "e.pt", "--save", "p.pt"])
    with pytest.raises(cli.UsageError, match="warm starts make equity models"):
        train_prob5.main()
    assert calls == []  # no workers started, nothing run
