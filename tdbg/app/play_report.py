"""What play_models.py shows and keeps of a series played: the summary printed, the --json
and --csv files, gnubg's errors (one line)."""

from __future__ import annotations

from typing import Any

from tdbg.app import cli
from tdbg.app.play_plan import Plan
from tdbg.app.play_settings import PlaySettings
from tdbg.game.modes.matchplay import MatchPlay
from tdbg.gnubg.gnubg_binary import describe, preflight
from tdbg.infra import fileio
from tdbg.infra.provenance import provenance
from tdbg.play.results_file import write_results
from tdbg.play.series import Played
from tdbg.play.units import series_unit

NOTE = "gnubg rolls its own dice (seeded per worker): no duplicate pairs; CIs resample single {}"


def game_fields(s: PlaySettings, plan: Plan, played: Played) -> dict:
    """The settings a games summary records, after its numbers."""
    players = played.series.players
    ours = {} if plan.gnubg else {"oneply2": s.oneply2}
    fields: dict[str, Any] = dict(
        model1=s.model1,
        model2=plan.model2,
        oneply1=s.oneply1,
        **ours,
        oneply_k=s.oneply_k,
        oneply_filter=s.oneply_filter,
    )
    if not plan.gnubg:
        fields.update(
            twoply1=players[0].search.twoply, twoply2=players[1].search.twoply, plies=s.plies
        )
    fields["jacoby"] = s.jacoby
    return fields


def match_fields(s: PlaySettings, plan: Plan, played: Played) -> dict:
    """The settings a matches summary records, after its numbers."""
    ours = {} if plan.gnubg else {"oneply2": s.oneply2}
    fields = dict(
        game_mode=plan.mode.name,
        seed=s.seed,
        model1=s.model1,
        model2=plan.model2,
        oneply1=s.oneply1,
        **ours,
        oneply_k=s.oneply_k,
        oneply_filter=s.oneply_filter,
    )
    if not plan.gnubg:
        assert isinstance(plan.mode, MatchPlay)  # a matches summary is match play's
        fields["met"] = plan.mode.met.name
    return fields


FIELDS = {
    "game": (game_fields, None, "games"),
    "match": (match_fields, "Kazaross-XG2 (ours and gnubg's default)", "matches"),
}


def report(s: PlaySettings, plan: Plan, played: Played) -> None:
    """Print the summary and write the result files; against gnubg, its errors are one line
    (a UsageError when not one unit finished; a RunError after the report, which holds the
    units that finished, when some failed)."""
    unit = series_unit(plan.mode)
    settings_of, gnubg_met, units = FIELDS[unit]
    if plan.gnubg and not played.records:
        raise cli.UsageError(f"no {unit} against gnubg finished: {errors_text(played.errors)}")
    summary = played.summary
    if (
        summary is None
    ):  # not one unit finished (a local series finishes all of its units or raises)
        raise cli.UsageError(f"no {unit} finished")
    summary.fields.update(settings_of(s, plan, played))
    if plan.gnubg:
        mismatches = [r.index for r in played.games if r.our_record != r.points]
        summary.fields.update(
            games_csv=plan.gnubg.games_csv,
            errors=played.errors,
            record_mismatches=mismatches,
            **provenance(),
            **plan.md5,
            duplicate=False,
            gnubg=preflight(s.gnubg, quiet=True),
        )
        if gnubg_met:
            summary.fields["met"] = gnubg_met
        summary.fields["note"] = NOTE.format(units)
    else:
        summary.fields.update(**provenance(), **plan.md5)
    print(summary.text(s.model1, plan.model2))
    if plan.gnubg:
        print(
            f"  per-game results: {plan.gnubg.games_csv}; our record disagrees with gnubg's in {len(mismatches)} games"
        )
    if s.json:
        fileio.write_json(s.json, summary.fields)
    if s.csv:
        write_results(
            s.csv,
            summary,
            played.records,
            describe(summary.fields["gnubg"]) if plan.gnubg else None,
        )
    if plan.gnubg and played.errors:  # (only a series against gnubg has errors)
        kept = ", ".join(f for f in (s.json, s.csv, plan.gnubg.games_csv) if f)
        raise cli.RunError(
            f"{errors_text(played.errors)}; the {len(played.records):,} {units} that finished "
            f"are in the summary above and in {kept} (--json lists every error)"
        )


def errors_text(errors: list[str]) -> str:
    """The first of gnubg's errors, and how many more there were."""
    more = f"; {len(errors) - 1} more worker(s) failed too" if len(errors) > 1 else ""
    return f"{errors[0] if errors else 'unknown error'}{more}"
