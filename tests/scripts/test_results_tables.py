"""tools/results_tables.py: the committed result tables are the ones the result files give."""

import pytest

from tools import results_tables as rt


def test_committed_tables_equal_the_regenerated_ones():
    # fails when a table in README.md or best_models/README.md was edited by hand, or a
    # result file changed without `python tools/results_tables.py` being rerun
    assert rt.update() == []


def test_a_figure_is_read_from_its_file_and_checked_against_the_rows():
    # the file's header line says 0.477 (95% CI 0.467998 .. 0.4858); its rows hold 4,770 wins of 10,000
    assert rt.pct("dmp_512x2x256_vs_gnubg-nn") == "47.70% [46.80, 48.58]"
    r = rt.FILES.results("dmp_512x2x256_vs_gnubg-nn")
    assert int(r.metric("win").sum()) == 4770 and len(r.games) == 10000


def test_a_header_that_disagrees_with_the_rows_is_refused(monkeypatch):
    r = rt.FILES.results("dmp_512x2x256_vs_gnubg-nn")
    monkeypatch.setitem(r.header, "win_rate", "0.480 (95% CI 0.47 .. 0.49)")
    with pytest.raises(ValueError, match="rows give"):
        rt.pct("dmp_512x2x256_vs_gnubg-nn")


def test_every_table_has_its_markers_in_its_file():
    from tdbg.app.marked_tables import markers

    for name, rel in rt.TARGETS.items():
        text = open(rt.FILES.path(rel)).read()
        begin, end = markers(name)
        assert (
            text.count(begin) == 1 and text.count(end) == 1 and text.index(begin) < text.index(end)
        ), name


@pytest.mark.parametrize(
    "text, words",
    [
        ('{"luck": {"luck_adjusted": {"mean": NaN, "ci_low": 0.4, "ci_high": 0.5}}}', "NaN"),
        ('{"luck": {"luck_adjusted": {"mean": -Infinity, "ci_low": 0, "ci_high": 1}}}', "Infinity"),
        # the reader kept the last "mean"
        (
            '{"luck": {"luck_adjusted": {"mean": 0.9, "mean": 0.4, "ci_low": 0.3, "ci_high": 0.5}}}',
            "twice|repeated",
        ),
        ("[" * 100_000 + "]" * 100_000, "too deep"),  # a RecursionError traceback
        ('{"luck": {"luck_adjusted": {"mean": 1e999, "ci_low": 0, "ci_high": 1}}}', "infinity"),
    ],
)
def test_a_result_json_that_is_not_strict_is_refused(tmp_path, text, words):
    """The scripts write strict JSON; a result file that is not (NaN showed in a table as
    "nan%") is refused with its name, as a file that does not read."""
    from tdbg.app.result_figures import ResultFiles

    (tmp_path / "luck").mkdir()
    (tmp_path / "luck" / "x.json").write_text(text)
    (tmp_path / "d.jsonl").write_text(text.replace("\n", " ") + "\n")
    files = ResultFiles(str(tmp_path), "h2h", "luck", "d.jsonl")
    with pytest.raises(ValueError, match=words):
        files.luck("x")
    with pytest.raises(ValueError, match="d.jsonl"):
        files.decision_entries()
    (tmp_path / "luck" / "x.json").write_text(
        '{"luck": {"luck_adjusted": {"mean": 0.4, "ci_low": 0.3, "ci_high": 0.5}}}'
    )
    assert files.luck("x").startswith("40.0")


def test_a_unit_health_entry_that_does_not_read_is_named_with_its_file(tmp_path, monkeypatch):
    """A model of the unit-health JSON without its "dead" list (or no "models" at all) was a
    KeyError the tables turned into "no 'dead' entry", naming no file."""
    import json

    from tdbg.app.result_figures import ResultFiles

    path = tmp_path / rt.UNIT_HEALTH
    path.parent.mkdir(parents=True)
    monkeypatch.setattr(rt, "FILES", ResultFiles(str(tmp_path), "h2h", "luck", "dec.jsonl"))
    one = {"widths": [8], "dead": [1], "distinct": [7], "active": [0.5]}
    path.write_text(json.dumps({"models": {"m.pt": one}}))
    assert "`m.pt`" in rt.health_table()
    for data, words in [
        ({"models": {"m.pt": {k: v for k, v in one.items() if k != "dead"}}}, "models/m.pt"),
        ({"model": {}}, "no 'models' entry"),
        ([], "no 'models' entry"),
    ]:
        path.write_text(json.dumps(data))
        with pytest.raises(ValueError, match=words) as info:
            rt.health_table()
        assert str(path) in str(info.value)
