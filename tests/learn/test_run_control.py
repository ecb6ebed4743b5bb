"""tdbg.learn.run_control: where a run's files go, whether --resume continues a stage or starts
a new one (the one line that says which), --save-every's snapshots under the output policy,
and signals that wait for the end of a training step."""

import os
import signal

import pytest
import torch

from tdbg.game.met import DEFAULT_MET
from tdbg.infra import run_outputs
from tdbg.infra.errors import InputError
from tdbg.infra.fileio import OutputError
from tdbg.learn import run_control
from tdbg.learn.run_control import Interrupted, StopSignals, plan_stage
from tdbg.learn.stage_settings import Run
from tdbg.net.model import TDNetwork, new_metadata, save_checkpoint


@pytest.fixture(autouse=True)
def ended():
    yield
    run_outputs.end()


def test_the_files_beside_a_checkpoint(tmp_path):
    assert run_control.snapshot_path("models/x.pt", 100) == "models/x_r000100.pt"
    assert run_control.snapshot_path("models/x", 3) == "models/x_r000003.pt"
    assert run_control.own_log("models/x.pt") == "models/x.csv"
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "m.pt").write_bytes(b"")
    (tmp_path / "link.pt").symlink_to(tmp_path / "real" / "m.pt")
    # written through the link, so its log is the target's
    assert run_control.own_log(str(tmp_path / "link.pt")) == str(tmp_path / "real" / "m.csv")
    assert run_control.resumes_itself(str(tmp_path / "link.pt"), str(tmp_path / "real" / "m.pt"))
    assert not run_control.resumes_itself(None, "m.pt")
    assert run_control.log_path(Run(save="a/m.pt")) == "a/m.csv"
    assert run_control.log_path(Run(save="a/m.pt", log="l.csv")) == "l.csv"


SETTINGS = {"num_episodes": 5000, "lr": 0.001, "lam": 0.7}


def unfinished(done=1000):
    return {"episodes_done": done, "settings": dict(SETTINGS)}


def test_without_resume_or_a_recorded_stage_a_new_stage_starts():
    assert plan_stage(None, False, 5000, None, SETTINGS) == (False, None)
    assert plan_stage("c.pt", False, 5000, None, SETTINGS) == (
        False,
        "c.pt: starting a new stage on its weights",
    )
    assert plan_stage("c.pt", False, 9000, unfinished(5000), SETTINGS) == (
        False,
        "c.pt: its stage is finished (5,000 episodes); starting a new stage on its weights",
    )


def test_an_unfinished_stage_is_continued_with_its_own_settings_only():
    assert plan_stage("c.pt", False, 5000, unfinished(), SETTINGS) == (
        True,
        "c.pt: continuing its unfinished stage at 1,000 of 5,000 episodes",
    )
    other = {**SETTINGS, "lr": 0.002}
    with pytest.raises(InputError) as err:
        plan_stage("c.pt", False, 5000, unfinished(), other)
    assert str(err.value) == (
        "c.pt: its unfinished stage at 1,000 of 5,000 episodes has other settings "
        "(lr 0.001 -> 0.002); give the same settings to continue it, or --new-stage to start "
        "a new stage on its weights"
    )
    assert plan_stage("c.pt", True, 5000, unfinished(), other) == (
        False,
        "c.pt: --new-stage: starting a new stage on its weights (its stage stops at 1,000 of "
        "5,000 episodes)",
    )


def test_a_setting_no_flag_of_this_trainer_gives_is_named_as_such():
    # (the advice to give the same settings could not be followed: it read "frobnicate 3 -> None")
    stage = {**unfinished(), "settings": {**SETTINGS, "frobnicate": 3}}
    with pytest.raises(InputError) as err:
        plan_stage("c.pt", False, 5000, stage, SETTINGS)
    assert str(err.value) == (
        "c.pt: its unfinished stage at 1,000 of 5,000 episodes records settings this trainer "
        "does not have (frobnicate 3): another trainer or version wrote it, or it was edited; "
        "--new-stage starts a new stage on its weights"
    )
    assert plan_stage("c.pt", True, 5000, stage, SETTINGS)[0] is False


def test_the_same_met_named_another_way_continues_the_stage(tmp_path, monkeypatch):
    # (--met was compared as written: tables/x.xml and ./tables/x.xml were "other settings")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tables").mkdir()
    (tmp_path / "tables" / "x.xml").write_text("<met/>")
    (tmp_path / "copy.xml").write_text("<met/>")
    (tmp_path / "link.xml").symlink_to(tmp_path / "tables" / "x.xml")
    stage = {**unfinished(), "config": {"met": "tables/x.xml"}}
    for same in ("./tables/x.xml", str(tmp_path / "tables" / "x.xml"), "link.xml"):
        assert plan_stage("c.pt", False, 5000, stage, SETTINGS, {"met": same})[0] is True
    with pytest.raises(InputError, match=r"met tables/x.xml -> copy.xml"):  # another file
        plan_stage("c.pt", False, 5000, stage, SETTINGS, {"met": "copy.xml"})
    with pytest.raises(InputError, match=r"met tables/x.xml -> None"):
        plan_stage("c.pt", False, 5000, stage, SETTINGS, {"met": None})
    # the shipped table, named or left to its default
    shipped = {**unfinished(), "config": {"met": None}}
    assert plan_stage("c.pt", False, 5000, shipped, SETTINGS, {"met": DEFAULT_MET})[0] is True


def test_num_episodes_at_or_below_what_is_done_ends_the_stage_there():
    assert plan_stage("c.pt", False, 800, unfinished(), {**SETTINGS, "num_episodes": 800}) == (
        True,
        "c.pt: ending its unfinished stage at 1,000 of 5,000 episodes (--num-episodes 800)",
    )


def test_a_stage_is_named_by_its_id_or_its_lineage_entry():
    assert run_control.stage_identity({}, {"id": "abc"}) == "abc"
    meta = {"lineage": [{}, {"date": "2026-01-02", "command": "train_batch.py x"}]}
    assert run_control.stage_identity(meta, {}) == "2|2026-01-02|train_batch.py x"
    assert run_control.new_stage_id() != run_control.new_stage_id()


def snapshot(path, stage_id):
    torch.manual_seed(0)
    model = TDNetwork(196, [4], "probability")
    meta = {**new_metadata(model, "dmp"), "lineage": [{"episodes": 0}]}  # (a stage's record as
    # every run writes it: its settings, episodes done and lineage entry)
    stage = {"id": stage_id, "settings": {"num_episodes": 4}, "episodes_done": 0}
    save_checkpoint(str(path), model, meta, {"stage": stage})


def test_snapshots_of_another_stage_need_overwrite_and_go_when_the_run_writes(tmp_path):
    save = tmp_path / "m.pt"
    mine, theirs = tmp_path / "m_r000001.pt", tmp_path / "m_r000002.pt"
    snapshot(mine, "this stage")
    snapshot(theirs, "another stage")
    run = Run(save=str(save), save_every=1)
    with pytest.raises(OutputError, match=r"m_r000002.pt exists \(a snapshot of another stage"):
        run_control.check_snapshots(run, "this stage", 0, 4)
    run_control.check_snapshots(
        Run(save=str(save), save_every=1, overwrite=True), "this stage", 0, 4
    )
    assert theirs.exists()  # until the run writes
    run_outputs.claim()
    assert mine.exists() and not theirs.exists()


def test_a_file_of_another_kind_at_a_snapshot_name_is_never_replaced(tmp_path):
    (tmp_path / "m_r000004.pt").write_text("notes\n")
    run = Run(save=str(tmp_path / "m.pt"), save_every=2, overwrite=True)
    with pytest.raises(OutputError, match="is a text file; refusing to replace it"):
        run_control.check_snapshots(run, "s", 0, 4)
    run_control.check_snapshots(run, "s", 0, 3)  # the run writes round 2's only


@pytest.fixture(autouse=True)
def _stop_handlers_put_back():
    """A taken stop signal leaves SIGINT and SIGTERM ignored for the rest of the process (the
    first signal decides the end): put pytest's handlers back after each test."""
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    yield
    for s, handler in saved.items():
        signal.signal(s, handler)


def test_a_signal_inside_a_step_waits_for_its_end():
    with StopSignals() as signals:
        with pytest.raises(Interrupted, match="SIGTERM"):
            with signals.guard():
                os.kill(os.getpid(), signal.SIGTERM)
                step_finished = True
        assert step_finished


def test_a_signal_outside_a_step_stops_at_once():
    with StopSignals():
        with pytest.raises(Interrupted, match="SIGINT"):
            os.kill(os.getpid(), signal.SIGINT)
            raise AssertionError("not stopped")


def test_after_the_first_signal_a_second_is_ignored():
    """The first signal decides how the run ends (it saves, then exits 130 or 143): a second
    one, SIGINT after SIGTERM, neither stops the save nor changes the exit code."""
    with StopSignals():
        with pytest.raises(Interrupted, match="SIGTERM"):
            os.kill(os.getpid(), signal.SIGTERM)
        os.kill(os.getpid(), signal.SIGINT)  # ignored: nothing is raised
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN


def test_a_step_that_fails_raises_its_own_error_not_the_signal():
    with StopSignals() as signals:
        with pytest.raises(ValueError):
            with signals.guard():
                os.kill(os.getpid(), signal.SIGTERM)
                raise ValueError("the step's own")
        assert signals.deferred == "SIGTERM"


def test_a_signal_during_the_save_of_a_stopping_run_is_only_noted():
    with StopSignals() as signals:
        with signals.hold():
            os.kill(os.getpid(), signal.SIGINT)
            saved = True
        assert saved and signals.deferred == "SIGINT"
