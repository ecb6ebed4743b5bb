"""tdbg.learn.training_loop: the rounds of a stage as run_stage drives them, with a learner
made here that adds each round's learning rate to the network's output bias, so the weights,
the episode counts, the log and the checkpoint can all be worked out by hand: 35 episodes in
rounds of 10 are rounds of 10, 10, 10 and 5, and a rate annealed linearly from 1 to 0.25
over those four rounds gives 1, 0.75, 0.5 and 0.25 (2.5 in all)."""

import csv
import dataclasses
import math
import os
import signal
from typing import ClassVar

import pytest
import torch

from tdbg.infra import run_outputs
from tdbg.infra.errors import InputError, RunError
from tdbg.learn import resume_state, training_loop
from tdbg.learn.stage_settings import BatchStage, Evaluation, ModelSpec, Run, Schedule
from tdbg.learn.training_loop import build_model, check_stop_at, run_stage
from tdbg.net import model as model_module
from tdbg.net.model import TDNetwork, load_checkpoint

LRS = [1.0, 0.75, 0.5, 0.25]


@pytest.fixture(autouse=True)
def bias_state_is_known(monkeypatch):
    """A learner names the parts of the trainer state it writes where the checkpoint readers
    find them (model.TRAINER_STATE_KEYS): Bias writes "rounds"."""
    monkeypatch.setattr(
        model_module, "TRAINER_STATE_KEYS", (*model_module.TRAINER_STATE_KEYS, "rounds")
    )


class Bias:
    """A learner whose training step adds the round's rate to the output bias (each step is a
    whole round); ``signal_in`` / ``diverge_in``: the round whose step sends SIGTERM to this
    process / leaves a loss that is not finite."""

    log_fields: ClassVar[list[str]] = ["episodes", "total_episodes", "round", "loss", "lr"]
    learns_while_playing = False
    signal_in: int | None = None
    diverge_in: int | None = None

    def __init__(self, stage, model, mode):
        self.model, self.last_loss, self.lr, self.rounds = model, math.nan, None, []

    prepare = staticmethod(lambda stage, model, unfinished: (stage, ""))
    settings = staticmethod(
        lambda stage, mode: {"num_episodes": stage.schedule.num_episodes, "lr": stage.schedule.lr}
    )
    round_episodes = staticmethod(lambda stage: stage.schedule.episodes_per_round)
    eval_due = staticmethod(lambda stage, round_index, done, n: False)
    eval_seed = staticmethod(lambda stage, round_index, done: 0)
    thread_work = staticmethod(lambda stage, model: (0, None))
    where = staticmethod(lambda round_index, done: f"round {round_index}")

    def state_dict(self):
        return {"rounds": list(self.rounds)}

    def state_checks(self):
        def rounds(value, field):
            if not isinstance(value, list):
                raise resume_state.StateError(field, "is not a list")

        return {"rounds": rounds}, ("rounds",)

    def load_state_dict(self, state):
        self.rounds = list(state["rounds"])

    def open(self, round_seed, seed_root):
        pass

    def segment_info(self):
        return {}

    def set_lr(self, lr):
        self.lr = lr

    def collect(self, k, n, done):
        return {"round": k, "episodes": n}

    def train(self, k, samples, first, n):
        with torch.no_grad():
            self.model.head.bias += self.lr
        self.rounds.append(k)
        self.last_loss = math.nan if k == self.diverge_in else float(k)
        if k == self.signal_in:
            os.kill(os.getpid(), signal.SIGTERM)
        return 0.0

    def row(self, n):
        return {"loss": self.last_loss, "lr": self.lr}

    def postfix(self):
        return {}

    def close(self):
        pass


class NoHealth:
    def log_fields(self):
        return {}


@pytest.fixture(autouse=True)
def quick(monkeypatch):
    # the unit-health sample is 150 self-play games, not this loop's business
    monkeypatch.setattr(training_loop, "measure_health", lambda model, mode: NoHealth())
    yield
    run_outputs.end()


def stage(save, **run):
    return BatchStage(
        model=ModelSpec(hidden=(4,)),
        schedule=Schedule(num_episodes=35, episodes_per_round=10, lr=1.0, end_lr=0.25),
        run=Run(save=str(save), quiet=True, **run),
        evaluation=Evaluation(health_every=0),
    )


def start_bias():
    torch.manual_seed(0)  # run_stage seeds the weights with --seed (0) before building them
    return TDNetwork(196, [4], "probability").head.bias.item()


def log_rows(save):
    with open(os.path.splitext(save)[0] + ".csv") as fh:
        return [(int(r["episodes"]), int(r["round"]), float(r["lr"])) for r in csv.DictReader(fh)]


def test_a_stage_runs_its_rounds_and_saves_counts_and_weights_that_agree(tmp_path):
    save = tmp_path / "m.pt"
    out = run_stage(stage(save), Bias)
    assert (out["episodes"], out["total_episodes"], out["interrupted"]) == (35, 35, None)
    model, meta, state = load_checkpoint(str(save))
    assert model.head.bias.item() == pytest.approx(start_bias() + sum(LRS), abs=1e-6)
    assert meta["episodes"] == 35 and state["rounds"] == [0, 1, 2, 3]
    assert (state["stage"]["episodes_done"], state["stage"]["rounds_done"]) == (35, 4)
    assert log_rows(save) == [(10, 1, 1.0), (20, 2, 0.75), (30, 3, 0.5), (35, 4, 0.25)]


def test_a_stage_stopped_at_a_round_and_resumed_ends_as_one_run_through(tmp_path):
    save = tmp_path / "m.pt"
    first = run_stage(stage(save, stop_at=20), Bias)
    assert first["episodes"] == 20
    assert load_checkpoint(str(save))[2]["stage"]["rounds_done"] == 2
    resumed = dataclasses.replace(stage(save), model=ModelSpec(hidden=(4,), resume=str(save)))
    assert run_stage(resumed, Bias)["episodes"] == 35
    model, meta, state = load_checkpoint(str(save))
    assert model.head.bias.item() == pytest.approx(start_bias() + sum(LRS), abs=1e-6)
    assert meta["episodes"] == 35 and state["rounds"] == [0, 1, 2, 3]
    assert log_rows(save) == [(10, 1, 1.0), (20, 2, 0.75), (30, 3, 0.5), (35, 4, 0.25)]


def test_a_signal_inside_a_step_stops_the_run_after_that_round_is_saved(tmp_path, monkeypatch):
    save = tmp_path / "m.pt"
    monkeypatch.setattr(Bias, "signal_in", 1)
    out = run_stage(stage(save), Bias)
    assert (out["episodes"], out["interrupted"]) == (20, "SIGTERM")
    model, meta, state = load_checkpoint(str(save))
    assert model.head.bias.item() == pytest.approx(start_bias() + 1.0 + 0.75, abs=1e-6)
    assert meta["episodes"] == 20 and state["stage"]["rounds_done"] == 2
    assert log_rows(save) == [(10, 1, 1.0), (20, 2, 0.75)]


def test_a_loss_that_is_not_finite_stops_the_run_and_keeps_the_last_good_checkpoint(
    tmp_path, monkeypatch
):
    save = tmp_path / "m.pt"
    monkeypatch.setattr(Bias, "diverge_in", 1)
    with pytest.raises(RunError) as err:
        run_stage(stage(save), Bias)
    assert str(err.value) == (
        f"the loss became nan in round 2 (lr 0.75): training stopped; {save} keeps the last "
        f"good weights (10 episodes of this stage); try a smaller --lr"
    )
    model, meta, _ = load_checkpoint(str(save))
    assert meta["episodes"] == 10
    assert model.head.bias.item() == pytest.approx(start_bias() + 1.0, abs=1e-6)
    assert log_rows(save) == [(10, 1, 1.0)]


def test_stop_at_must_end_a_round_after_what_the_stage_has():
    check_stop_at(0, 10, 0, 35)  # none
    check_stop_at(30, 10, 0, 35)
    check_stop_at(35, 10, 20, 35)  # the stage's end, inside a round
    with pytest.raises(InputError, match=r"^--stop-at 25 is inside a round \(rounds of 10 "):
        check_stop_at(25, 10, 0, 35)
    with pytest.raises(InputError, match="give a round's end, such as 30 or 20$"):
        check_stop_at(25, 10, 0, 35)
    with pytest.raises(InputError, match="such as 30$"):  # 20 is where the stage stands
        check_stop_at(25, 10, 20, 35)
    with pytest.raises(InputError, match="already has 20 episodes"):
        check_stop_at(20, 10, 20, 35)
    with pytest.raises(InputError, match="beyond the stage's 35 episodes"):
        check_stop_at(40, 10, 0, 35)


def test_a_new_model_has_the_modes_inputs_and_the_asked_layers():
    model, meta, state, mode = build_model(ModelSpec(hidden=(6, 5)), seed=0)
    assert (model.n_inputs, list(model.hidden), mode.name, state) == (196, [6, 5], "dmp", None)
    model = build_model(ModelSpec(hidden=(6,), board_features=True), seed=0)[0]
    assert model.n_inputs == 196 + 20  # and the 20 hand-made board features
    model = build_model(ModelSpec(hidden=(6,), expand_depth_size=4), seed=0)[0]
    assert list(model.hidden) == [6, 4]


def test_a_loaded_model_keeps_its_shape_unless_grown(tmp_path):
    save = tmp_path / "m.pt"
    run_stage(stage(save), Bias)
    with pytest.raises(
        InputError, match="--hidden 8 differs from the checkpoint's 4; use --expand"
    ):
        build_model(ModelSpec(hidden=(8,), hidden_given=True, resume=str(save)), seed=0)
    with pytest.raises(InputError, match="use only one of --resume, --warm-start-equity"):
        build_model(ModelSpec(resume=str(save), warm_start_equity=str(save)), seed=0)
    grown = build_model(ModelSpec(resume=str(save), expand=(7,)), seed=0)
    assert list(grown[0].hidden) == [7] and grown[2] is None  # Adam's moments no longer fit
