"""tdbg.infra.runlog: a CSV log written a whole row at a time, continued only by its own run,
and a row taken back when its save failed."""

import os

import pytest

from tdbg.infra.errors import InputError
from tdbg.infra.runlog import CsvLog, append_line, truncate

FIELDS = ["total_episodes", "loss", "note"]


def test_append_line_returns_the_size_before_and_start_afresh_empties(tmp_path):
    path = str(tmp_path / "sub" / "f.txt")  # the folder is made
    assert append_line(path, "ab\n") == 0
    assert append_line(path, "cde\n") == 3
    assert open(path).read() == "ab\ncde\n"
    assert append_line(path, "x\n", start_afresh=True) == 0
    assert open(path).read() == "x\n"
    append_line(path, "yz\n")
    truncate(path, 2)
    assert open(path).read() == "x\n"


def test_rows_are_written_whole_with_floats_to_six_significant_digits(tmp_path):
    path = str(tmp_path / "log.csv")
    log = CsvLog(path, FIELDS)
    log.write({"total_episodes": 100, "loss": 0.123456789, "ignored": 5})
    log.write({"total_episodes": 200, "loss": 1234567.0, "note": "a,b"})
    assert open(path).read().splitlines() == [
        "total_episodes,loss,note",
        "100,0.123457,",
        '200,1.23457e+06,"a,b"',
    ]


def test_a_fresh_log_replaces_an_old_file_and_an_appending_one_continues_it(tmp_path):
    path = str(tmp_path / "log.csv")
    with open(path, "w") as fh:
        fh.write("total_episodes,loss,note\r\n100,0.5,\r\n")
    CsvLog(path, FIELDS, append=True).write({"total_episodes": 200, "loss": 0.25})
    assert open(path).read().splitlines() == ["total_episodes,loss,note", "100,0.5,", "200,0.25,"]
    CsvLog(path, FIELDS).write({"total_episodes": 1, "loss": 0.5})
    assert open(path).read().splitlines() == ["total_episodes,loss,note", "1,0.5,"]


def _log(tmp_path, rows: list[str]) -> CsvLog:
    path = tmp_path / "log.csv"
    path.write_text("".join(r + "\n" for r in ["total_episodes,loss,note"] + rows))
    return CsvLog(str(path), FIELDS, append=True)


def test_a_log_continues_when_its_last_row_is_the_checkpoints(tmp_path):
    assert (
        _log(tmp_path, ["100,0.5,", "200,0.25,"]).check_continues({"total_episodes": 200}) is None
    )
    # a log that is not there yet, or one not appended to, is not checked
    assert (
        CsvLog(str(tmp_path / "none.csv"), FIELDS, append=True).check_continues(
            {"total_episodes": 5}
        )
        is None
    )
    assert CsvLog(str(tmp_path / "log.csv"), FIELDS).check_continues({"total_episodes": 5}) is None


def test_a_row_beyond_the_checkpoint_after_its_own_row_is_taken_back(tmp_path):
    # the checkpoint holds 200 episodes; the row of 300 was written but its save never finished
    log = _log(tmp_path, ["100,0.5,", "200,0.25,", "300,0.125,"])
    assert "never saved" in log.check_continues({"total_episodes": 200})
    assert open(log.path).read().splitlines()[-1] == "200,0.25,"


@pytest.mark.parametrize(
    "rows, header, words",
    [
        (
            ["100,0.5,", "200,0.25,"],
            None,
            "its last row has total_episodes 200, the checkpoint total_episodes 150",
        ),
        ([], None, "no rows"),
        (["100,0.5,"], "episodes,loss\n", "its columns are not this run's"),
    ],
)
def test_a_log_of_another_run_is_refused(tmp_path, rows, header, words):
    log = _log(tmp_path, rows)
    if header is not None:
        with open(log.path, "w") as fh:
            fh.write(header + "100,0.5\n")
    with pytest.raises(InputError, match=words):
        log.check_continues({"total_episodes": 150})


def test_a_row_cut_short_is_refused(tmp_path):
    log = _log(tmp_path, ["100,0.5,"])
    with open(log.path, "a") as fh:
        fh.write("200,0.2")
    with pytest.raises(InputError, match="cut short"):
        log.check_continues({"total_episodes": 100})


def test_withdraw_takes_back_the_last_row_or_the_file_that_row_started(tmp_path):
    log = _log(tmp_path, ["100,0.5,"])
    log.write({"total_episodes": 200, "loss": 0.25})
    log.withdraw()
    assert open(log.path).read().splitlines() == ["total_episodes,loss,note", "100,0.5,"]
    fresh = CsvLog(str(tmp_path / "fresh.csv"), FIELDS)
    fresh.withdraw()  # nothing written: nothing to take back
    fresh.write({"total_episodes": 1, "loss": 0.5})
    fresh.withdraw()
    assert not os.path.exists(fresh.path)
