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
    r = rt._results("dmp_512x2x256_vs_gnubg-nn")
    assert int(r.metric("win").sum()) == 4770 and len(r.games) == 10000


def test_a_header_that_disagrees_with_the_rows_is_refused(monkeypatch):
    r = rt._results("dmp_512x2x256_vs_gnubg-nn")
    monkeypatch.setitem(r.header, "win_rate", "0.480 (95% CI 0.47 .. 0.49)")
    with pytest.raises(ValueError, match="rows give"):
        rt.pct("dmp_512x2x256_vs_gnubg-nn")


def test_render_replaces_only_between_the_markers():
    begin, end = rt._markers("x")
    text = f"before\n{begin}\nold\n{end}\nafter\n"
    assert rt.render(text, "x", "new") == f"before\n{begin}\nnew\n{end}\nafter\n"
    with pytest.raises(ValueError):
        rt.render("no markers", "x", "new")


def test_a_paired_difference_without_interval_says_why(monkeypatch):
    # one duplicate pair allows no bootstrap interval: the cell gives the difference and the reason
    monkeypatch.setattr(rt, "compare", lambda a, b: {"paired": True, "metric": "win", "difference": 0.5,
                                                       "ci_low": None, "ci_high": None,
                                                       "ci_reason": "one unit: no interval"})
    assert rt.paired("dmp_512x2x256_vs_gnubg-nn", "dmp_256x2_1ply_vs_gnubg-nn") == \
        "+50.00 (no interval: one unit: no interval)"
