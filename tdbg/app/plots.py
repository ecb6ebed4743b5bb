"""What every plot of the project shares: one unit per game mode on the result axes (win rate in %
for DMP, mEq/game for money, match-winning chances in % for match play), figures drawn without
pyplot's global state, labels kept inside the figure, and PNGs that carry what they show.

A plot module builds a ``Figure`` and a ``shown`` dict (its axis labels, series and values, all in
the plotted unit); ``save_png`` writes both: the dict goes into the PNG's text chunk under the
plot's key, so a test can check a committed plot against its data and against a fresh drawing.
"""

from __future__ import annotations

import textwrap

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text

from tdbg.infra.fileio import atomic_write, json_text

DPI = 110

# unit -> (scale from a logged or summarized fraction / points per game, axis label before " vs ...",
#          a value's label)
UNITS = {
    "win-rate": (100.0, "win rate, %", "{:.2f}%"),
    "meq": (1000.0, "mEq/game", "{:.1f}"),
    "mwc": (100.0, "match-winning chances, %", "{:.2f}%"),
}

# game mode (a checkpoint's or a result file's) -> the unit its results are drawn in
MODE_UNITS = {"dmp": "win-rate", "cubeless-money": "meq", "cubeful-money": "meq", "match": "mwc"}


def unit_of_mode(game_mode: str | None) -> str | None:
    """The unit a game mode's results are drawn in; None for an unknown or missing mode."""
    return MODE_UNITS.get(game_mode or "")


def axis_label(unit: str, opponent: str = "", note: str = "") -> str:
    """A result axis's label: the unit's name, the opponent when there is one, a note (capped...)."""
    label = UNITS[unit][1]
    name, _, suffix = label.partition(", ")
    text = name + (f" vs {opponent}" if opponent else "") + (f", {suffix}" if suffix else "")
    return text + (f" ({note})" if note else "")


def value_label(unit: str, value: float) -> str:
    """A value in the unit, as written beside a point (``value`` already scaled)."""
    return UNITS[unit][2].format(value)


def wrap(text: str, width: int) -> str:
    """``text`` broken into lines of at most ``width`` characters (a title or an axis label that
    would otherwise run past the figure's edge), a parenthesis kept whole on its own line where
    the text before it fits on one."""
    if len(text) <= width:
        return text
    head, sep, note = text.rpartition(" (")
    if sep and len(head) <= width and len(note) + 1 <= width:
        return f"{head}\n({note}"
    return "\n".join(textwrap.wrap(text, width))


def new_figure(width: float, height: float, rows: int = 1, cols: int = 1):
    """(figure, axes array) on the Agg canvas with constrained layout: labels and titles are
    fitted inside the figure without touching matplotlib's global backend."""
    fig = Figure(figsize=(width, height), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(rows, cols, squeeze=False)
    return fig, axes


def drawn_texts(fig: Figure) -> list[Text]:
    """The texts a drawing of ``fig`` shows: titles, axis labels and their offsets, the tick labels
    of the ticks in view (an axis keeps labels for ticks beyond its limits, which are not drawn),
    annotations and legends."""
    texts = [t for t in (getattr(fig, "_suptitle", None), *fig.texts) if t is not None]
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        texts += [ax.title, *ax.texts]
        if ax.axison:
            for axis in (ax.xaxis, ax.yaxis):
                texts += [axis.label, axis.offsetText]
                # the ticks in view (private, absent from the stubs): get_major_ticks also lists those not drawn
                texts += [
                    label
                    for tick in axis._update_ticks()  # type: ignore[union-attr]
                    for label in (tick.label1, tick.label2)
                ]
        legend = ax.get_legend()
        if legend is not None:
            texts += [*legend.get_texts(), legend.get_title()]
    return texts


def texts_outside(fig: Figure, tolerance: float = 0.5) -> list[str]:
    """The drawn, non-empty texts of ``fig`` (titles, axis and tick labels, legends, value
    labels) whose box reaches past the figure's edge, each as "'text' at x0,y0,x1,y1"."""
    fig.canvas.draw()
    # the figures here draw on Agg, whose canvas has a renderer; the stubs type the base canvas
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    w, h = fig.bbox.width, fig.bbox.height
    out = []
    for t in drawn_texts(fig):
        if not t.get_visible() or not t.get_text().strip():
            continue
        box = t.get_window_extent(renderer)
        if (
            box.x0 < -tolerance
            or box.y0 < -tolerance
            or box.x1 > w + tolerance
            or box.y1 > h + tolerance
        ):
            out.append(f"{t.get_text()!r} at {box.x0:.0f},{box.y0:.0f},{box.x1:.0f},{box.y1:.0f}")
    return out


def save_png(fig: Figure, out: str, key: str, shown: dict) -> None:
    """Write ``fig`` to ``out`` atomically, with ``shown`` as strict JSON in its text chunk ``key``."""
    with atomic_write(out, "wb") as fh:
        fig.savefig(fh, format="png", dpi=DPI, metadata={key: json_text(shown, sort_keys=True)})
