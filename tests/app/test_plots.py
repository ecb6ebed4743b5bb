"""The pieces every plot shares: a label in each mode's unit, wrapping, and the check that no text
leaves the figure (which must see a label that does)."""

from tdbg.app import plots


def test_axis_labels_name_the_unit_and_the_opponent():
    assert plots.axis_label("win-rate", "gnubg-nn", "95% CI") == "win rate vs gnubg-nn, % (95% CI)"
    assert plots.axis_label("meq") == "mEq/game"
    assert plots.axis_label("mwc", "gnubg-nn") == "match-winning chances vs gnubg-nn, %"
    assert (
        plots.value_label("win-rate", 48.577) == "48.58%"
        and plots.value_label("meq", -102.44) == "-102.4"
    )
    assert plots.unit_of_mode("cubeful-money") == "meq" and plots.unit_of_mode("prob5") is None


def test_wrap_keeps_a_parenthesis_whole():
    assert plots.wrap("short", 10) == "short"
    assert (
        plots.wrap("match-winning chances vs gnubg-nn, % (95% CI)", 40)
        == "match-winning chances vs gnubg-nn, %\n(95% CI)"
    )
    assert all(
        len(line) <= 12 for line in plots.wrap("one two three four five six", 12).split("\n")
    )


def test_a_label_longer_than_its_axis_is_found_outside_the_figure():
    fig, axes = plots.new_figure(4, 2)
    axes[0, 0].set_ylabel("a label far longer than the axis it stands beside could ever hold " * 2)
    assert any("a label far longer" in t for t in plots.texts_outside(fig))
    axes[0, 0].set_ylabel(plots.wrap("short label", 20))
    assert plots.texts_outside(fig) == []
