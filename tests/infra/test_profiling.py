"""tdbg.infra.profiling: CPU-second counters that add, hand over and merge as the stage
breakdown reads them, on only when asked for (the clock is replaced by readings chosen here)."""

import os

import pytest

from tdbg.infra import profiling


@pytest.fixture(autouse=True)
def fresh_counters():
    profiling.take()
    yield
    profiling.take()


def test_add_counts_the_seconds_since_a_reading_and_returns_now(monkeypatch):
    readings = iter([10.5, 12.0, 12.25])
    monkeypatch.setattr(profiling, "clock", lambda: next(readings))
    mark = profiling.add("score", 10.0)  # 10.0 -> 10.5
    assert mark == 10.5
    mark = profiling.add("train", mark)  # 10.5 -> 12.0
    profiling.add("score", mark)  # 12.0 -> 12.25
    assert profiling.counters == {"score": 0.75, "train": 1.5}


def test_a_workers_counters_are_taken_once_and_merged_into_these():
    profiling.count("episodes", 3)
    profiling.count("episodes", 4)
    worker = profiling.take()
    assert worker == {"episodes": 7} and profiling.counters == {}
    profiling.count("episodes", 1)
    profiling.merge(worker)
    profiling.merge(None)  # a share that brought none
    assert profiling.counters == {"episodes": 8}


def test_enabled_turns_them_on_for_the_block_and_its_workers(monkeypatch):
    monkeypatch.delenv(profiling.ENV, raising=False)
    monkeypatch.setattr(profiling, "ENABLED", False)
    profiling.count("stale", 1)
    with profiling.enabled() as counters:
        assert profiling.ENABLED and os.environ[profiling.ENV] == "1"
        assert counters == {}  # zeroed first
        with profiling.paused():
            assert not profiling.ENABLED
        assert profiling.ENABLED
    assert not profiling.ENABLED and profiling.ENV not in os.environ
    monkeypatch.setenv(profiling.ENV, "0")
    with profiling.enabled():
        pass
    assert os.environ[profiling.ENV] == "0"  # as it was before
