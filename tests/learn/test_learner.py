"""The learner protocol (tdbg/learn/learner.py): what training_loop.run_stage asks of a
learner, and the two learners that implement it, member by member and signature by
signature (parameter names, kinds and defaults; static or not); the runner drives and the
learners never call it back."""

import ast
import inspect
import os

import pytest

from tdbg.learn import learner as protocol
from tdbg.learn.batch_td import BatchLearner
from tdbg.learn.online_td import OnlineLearner

SKIP = {
    "__init__",
    "__dict__",
    "__weakref__",
    "__doc__",
    "__module__",
    "__annotations__",
    "__parameters__",
    "__subclasshook__",
    "__abstractmethods__",
    "__protocol_attrs__",
    "__non_callable_proto_members__",
    "_is_protocol",
    "_is_runtime_protocol",
    "__orig_bases__",
    "__slots__",
    "__qualname__",
}


def members(proto) -> dict:
    out = {k: v for k, v in vars(proto).items() if k not in SKIP and not k.startswith("_abc")}
    out.update({k: None for k in proto.__annotations__})
    return out


def shape(fn) -> list:
    return [(p.name, p.kind, p.default) for p in inspect.signature(fn).parameters.values()]


@pytest.mark.parametrize("cls", [BatchLearner, OnlineLearner])
def test_learners_conform(cls):
    expected = members(protocol.Learner)
    assert {
        "prepare",
        "collect",
        "train",
        "segment_info",
        "log_fields",
        "learns_while_playing",
        "last_loss",
    } <= set(expected)
    for name, member in expected.items():
        if member is None:  # a data member: on the class, or set by the constructor
            continue
        assert hasattr(cls, name), f"{cls.__name__} lacks {name}"
        assert isinstance(vars(protocol.Learner)[name], staticmethod) == isinstance(
            inspect.getattr_static(cls, name), staticmethod
        ), name
        assert shape(getattr(cls, name)) == shape(getattr(protocol.Learner, name)), name
    assert shape(cls.__init__) == shape(protocol.Learner.__init__)
    assert isinstance(cls.log_fields, list)
    assert isinstance(cls.learns_while_playing, bool)


def test_instances_conform(tmp_path):
    """An OnlineLearner made as run_stage makes it is a Learner at run time (isinstance
    checks every member), data members included."""
    import train_online
    from tdbg.app import training
    from tdbg.game.modes import game_mode
    from tdbg.learn.stage_settings import OnlineStage
    from tdbg.net.model import TDNetwork

    stage, _ = training.stage_settings(
        OnlineStage,
        train_online.build_parser(),
        ["--hidden", "4", "--save", str(tmp_path / "x.pt")],
    )
    mode = game_mode("dmp")
    learner = OnlineLearner(stage, TDNetwork(mode.n_inputs, [4], mode.default_output), mode)
    assert isinstance(learner, protocol.Learner)


def test_no_member_is_typed_any():
    """The protocol names real types: the stage, the network, the mode, the samples."""
    for name, member in vars(protocol.Learner).items():
        fn = getattr(member, "__func__", member)
        if callable(fn) and (name == "__init__" or not name.startswith("_")):
            assert "Any" not in str(inspect.signature(fn)), name


@pytest.mark.parametrize("module", ["batch_td.py", "online_td.py", "learner.py"])
def test_learners_never_call_the_runner(module):
    """One direction: training_loop imports the learners' protocol and drives them; no
    learner module imports training_loop (nor reaches it through a progress object)."""
    path = os.path.join(os.path.dirname(protocol.__file__), module)
    tree = ast.parse(open(path).read())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert "tdbg.learn.training_loop" not in imported
    names = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    assert not names & {"count", "finish", "log_row", "save"}, module
