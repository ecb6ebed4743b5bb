"""The one summary of a series, games or matches, on our dice or the gnubg binary's, and
its one printer.  What differs between games and matches is the unit's (units.py)."""

from __future__ import annotations

from dataclasses import dataclass, field

from tdbg.play.units import UNITS


@dataclass
class Summary:
    """``fields``: the numbers, in the order the --json file lists them (callers add the
    run's settings and provenance); ``unit``: what the series counted (the mode's
    ``series_unit``); ``paired``: duplicate pairs on our dice (False: the opponent rolled
    its own, and each unit is resampled alone)."""

    unit: str
    fields: dict = field(default_factory=dict)
    paired: bool = True

    def text(self, name1: str, name2: str) -> str:
        """The summary as play_models.py prints it, ``name1``'s side first."""
        return UNITS[self.unit].lines(self.fields, name1, name2, self.paired)
