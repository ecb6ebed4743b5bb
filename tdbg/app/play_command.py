"""play_models.py's run: the flags made into a series (play_plan: every misuse one error
line before any game), the series played on our dice or against the gnubg binary on its
dice (tdbg.play.series), and its summary printed and result files written (play_report)."""
from __future__ import annotations

from tdbg.app.play_plan import plan
from tdbg.app.play_report import mat_saver, report
from tdbg.app.play_settings import PlaySettings
from tdbg.play.series import play_series


def run(s: PlaySettings) -> None:
    """The whole of play_models.py after its flags are parsed."""
    planned = plan(s)
    played = play_series(planned.series, progress=not s.quiet, on_records=mat_saver(s, planned),
                         against=planned.gnubg)
    report(s, planned, played)
